//! SVG plots of a benchmark run (plotters, SVG backend, no system fonts): per family, the rate (G items/s)
//! against N per operation and algorithm (and CUB's, when compared); per sort operation (`rate-sort_keys_u32.svg`,
//! ...), the rate against N of every sort algorithm of the run with CUB's radix and merge sorts; and a per-pass
//! GPU time breakdown of every operation and algorithm at its largest N.

use super::Report;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

type Series = (String, Vec<(f64, f64)>);

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Draws one line per series of (N, rate) points on a log2 N axis.
pub fn rate_plot(path: &Path, title: &str, series: &[Series]) -> Result<(), String> {
    // x is log2 N (linear axis, integer ticks labelled 2^k)
    let series: Vec<Series> = series
        .iter()
        .map(|(n, p)| {
            (
                n.clone(),
                p.iter().map(|&(x, y)| (x.max(1.0).log2(), y)).collect(),
            )
        })
        .collect();
    let pts = series.iter().flat_map(|s| s.1.iter());
    let (mut xmin, mut xmax, mut ymax) = (f64::INFINITY, f64::NEG_INFINITY, 0f64);
    for &(x, y) in pts {
        xmin = xmin.min(x);
        xmax = xmax.max(x);
        if y.is_finite() {
            ymax = ymax.max(y);
        }
    }
    if !xmin.is_finite() {
        xmin = 0.0;
        xmax = 1.0;
    }
    let (xmin, xmax) = (xmin.floor() - 0.5, xmax.ceil() + 0.5);
    let ymax = if ymax > 0.0 { ymax * 1.1 } else { 1.0 };
    let root = SVGBackend::new(path, (1000, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(xmin..xmax, 0f64..ymax)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("N (items)")
        .y_desc("G items/s")
        .x_labels(((xmax - xmin) as usize).max(2))
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 1e-6 {
                format!("2^{:.0}", x)
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(err)?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let dashed = name.starts_with("CUB");
        let style = if dashed {
            color.stroke_width(1)
        } else {
            color.stroke_width(2)
        };
        chart
            .draw_series(LineSeries::new(points.iter().copied(), style))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&(x, y)| Circle::new((x, y), if dashed { 2 } else { 3 }, color.filled())),
            )
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// Stacked bars: per category, the GPU time of each pass.
pub fn pass_breakdown(
    path: &Path,
    title: &str,
    bars: &[(String, Vec<(String, f64)>)],
) -> Result<(), String> {
    let mut labels: Vec<String> = Vec::new();
    for (_, passes) in bars {
        for (l, _) in passes {
            if !labels.contains(l) {
                labels.push(l.clone());
            }
        }
    }
    let xmax = bars
        .iter()
        .map(|(_, p)| p.iter().map(|x| x.1).sum::<f64>())
        .fold(0f64, f64::max);
    let xmax = if xmax > 0.0 { xmax * 1.35 } else { 1.0 }; // room for the legend
    let k = bars.len().max(1);
    let height = (140 + 26 * k as u32).max(420);
    let root = SVGBackend::new(path, (1100, height)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    let longest = names.iter().map(|n| n.len()).max().unwrap_or(10) as u32;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size((longest * 7 + 20).min(420))
        .build_cartesian_2d(0f64..xmax, -0.5f64..(k as f64 - 0.5))
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(k)
        .y_label_formatter(&|y| {
            let i = y.round();
            if (y - i).abs() < 1e-6 && i >= 0.0 {
                // first bar at the top
                names.get(k - 1 - i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_desc("GPU ms (median run)")
        .draw()
        .map_err(err)?;
    let mut lefts = vec![0f64; bars.len()];
    for (li, label) in labels.iter().enumerate() {
        let color = Palette99::pick(li).to_rgba();
        let mut rects = Vec::new();
        for (bi, (_, passes)) in bars.iter().enumerate() {
            let ms: f64 = passes.iter().filter(|p| &p.0 == label).map(|p| p.1).sum();
            if ms > 0.0 {
                let y = (k - 1 - bi) as f64;
                rects.push(Rectangle::new(
                    [(lefts[bi], y - 0.35), (lefts[bi] + ms, y + 0.35)],
                    color.filled(),
                ));
                lefts[bi] += ms;
            }
        }
        chart
            .draw_series(rects)
            .map_err(err)?
            .label(label.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// Draws `rate-<family>.svg` for every family in the report and `passes.svg`; returns the paths.
pub fn write_plots(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(err)?;
    let mut out = Vec::new();
    let mut families: Vec<&str> = report.rows.iter().map(|r| r.family.as_str()).collect();
    families.dedup();
    families.sort();
    families.dedup();
    for fam in families {
        let mut series: Vec<Series> = Vec::new();
        let mut cub: Vec<Series> = Vec::new();
        for r in report.rows.iter().filter(|r| r.family == fam && r.verified) {
            let name = format!(
                "{} {} {}",
                r.op,
                r.algo,
                if r.dist == "uniform" { "" } else { &r.dist }
            );
            let name = name.trim().to_string();
            match series.iter_mut().find(|s| s.0 == name) {
                Some(s) => s.1.push((r.n as f64, r.gitems_per_s)),
                None => series.push((name, vec![(r.n as f64, r.gitems_per_s)])),
            }
            if let Some(ms) = r.cub_ms {
                // (a GPU-count sort's CUB figure is its host form's: one CUB line for both)
                let name = format!("CUB {}", super::ops::cub_op_name(&r.op));
                let p = (r.n as f64, r.n as f64 / (ms * 1e6));
                match cub.iter_mut().find(|s| s.0 == name) {
                    Some(s) => {
                        if !s.1.contains(&p) {
                            s.1.push(p)
                        }
                    }
                    None => cub.push((name, vec![p])),
                }
            }
        }
        series.extend(cub);
        for s in series.iter_mut() {
            s.1.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let path = dir.join(format!("rate-{fam}.svg"));
        rate_plot(
            &path,
            &format!("vksort {fam} on {}", report.device),
            &series,
        )?;
        out.push(path);
    }
    // per sort operation: one line per algorithm (every algorithm of the run, new families included) and CUB's
    // radix and merge sorts, on the uniform distribution (else the first measured)
    let bases: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for r in report.rows.iter().filter(|r| r.family == "sort") {
            if !v.contains(&r.base_op) {
                v.push(r.base_op.clone());
            }
        }
        v
    };
    for base in bases {
        let rows: Vec<&super::Row> = report
            .rows
            .iter()
            .filter(|r| r.base_op == base && r.verified)
            .collect();
        let Some(dist) = rows
            .iter()
            .find(|r| r.dist == "uniform")
            .or(rows.first())
            .map(|r| r.dist.clone())
        else {
            continue;
        };
        let mut series: Vec<Series> = Vec::new();
        let mut add = |name: String, p: (f64, f64)| match series.iter_mut().find(|s| s.0 == name) {
            Some(s) => {
                if !s.1.contains(&p) {
                    s.1.push(p)
                }
            }
            None => series.push((name, vec![p])),
        };
        for r in rows.iter().filter(|r| r.dist == dist) {
            add(r.algo.clone(), (r.n as f64, r.gitems_per_s));
            if let Some(ms) = r.cub_ms {
                add(
                    "CUB radix sort".into(),
                    (r.n as f64, r.n as f64 / (ms * 1e6)),
                );
            }
            if let Some(ms) = r.cub_merge_ms {
                add(
                    "CUB merge sort".into(),
                    (r.n as f64, r.n as f64 / (ms * 1e6)),
                );
            }
        }
        for s in series.iter_mut() {
            s.1.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let file = if dist == "uniform" {
            format!("rate-{base}.svg")
        } else {
            format!("rate-{base}-{dist}.svg")
        };
        let path = dir.join(file);
        rate_plot(
            &path,
            &format!("{base} ({dist}) on {}: G keys/s", report.device),
            &series,
        )?;
        out.push(path);
    }
    // per-pass breakdown at each (op, algo)'s largest N
    let mut bars: Vec<(String, Vec<(String, f64)>)> = Vec::new();
    let mut keys: Vec<(String, String, String)> = Vec::new();
    for r in report.rows.iter().filter(|r| r.verified) {
        let k = (r.op.clone(), r.algo.clone(), r.dist.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for (op, algo, dist) in keys {
        let Some(r) = report
            .rows
            .iter()
            .filter(|r| r.verified && r.op == op && r.algo == algo && r.dist == dist)
            .max_by_key(|r| r.n)
        else {
            continue;
        };
        bars.push((
            format!("{} {} {}", op, algo, super::report::fmt_n(r.n)),
            r.passes
                .iter()
                .filter(|p| p.ms > 0.0)
                .map(|p| (p.label.trim_start_matches("vksort::").to_string(), p.ms))
                .collect(),
        ));
    }
    let path = dir.join("passes.svg");
    pass_breakdown(
        &path,
        &format!("GPU time per pass on {}", report.device),
        &bars,
    )?;
    out.push(path);
    Ok(out)
}
