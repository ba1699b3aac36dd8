//! The benchmark's outputs: a text table (and with `--explain` the per-pass model comparison), CSV, JSON,
//! CUB-format CSV, the skipped configurations as CSV, and the markdown tables of [`super::tables`]. Files are
//! written to a temporary name and renamed.

use super::{compare, tables, Report, Row};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `2^k` for powers of two, else the number.
pub fn fmt_n(n: u64) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.prec$}"))
}

/// The main table.
pub fn table(report: &Report) -> String {
    let mut s = String::new();
    writeln!(
        s,
        "vksort {} on {} ({}); compute-copy roofline {:.1} GB/s, {:.2} us per dispatch",
        report.vksort_version,
        report.device,
        report.driver,
        report.roofline_gbps,
        report.fixed_us_per_dispatch
    )
    .unwrap();
    if let Some(d) = &report.cub_device {
        writeln!(s, "CUB figures from: {d}").unwrap();
    }
    let has_cub = report.rows.iter().any(|r| r.cub_ms.is_some());
    let has_merge = report.rows.iter().any(|r| r.cub_merge_ms.is_some());
    write!(
        s,
        "{:<36} {:<17} {:<10} {:>6} {:>10} {:>21} {:>9} {:>8} {:>6} {:>9}",
        "op",
        "algo",
        "dist",
        "N",
        "ms median",
        "[min .. max]",
        "G item/s",
        "GB/s",
        "roof",
        "model ms"
    )
    .unwrap();
    if has_cub {
        write!(s, " {:>9} {:>8}", "CUB ms", "CUB/vk").unwrap();
    }
    if has_merge {
        write!(s, " {:>9} {:>8}", "merge ms", "merge/vk").unwrap();
    }
    s.push('\n');
    for r in &report.rows {
        if !r.verified {
            writeln!(
                s,
                "{:<36} {:<17} {:<10} {:>6} FAILED: {}",
                r.op,
                r.algo,
                r.dist,
                fmt_n(r.n),
                r.failure.as_deref().unwrap_or("")
            )
            .unwrap();
            continue;
        }
        write!(
            s,
            "{:<36} {:<17} {:<10} {:>6} {:>10.4} {:>21} {:>9.3} {:>8.1} {:>5.0}% {:>9.4}",
            r.op,
            r.algo,
            r.dist,
            fmt_n(r.n),
            r.ms_median,
            format!("[{:.4} .. {:.4}]", r.ms_min, r.ms_max),
            r.gitems_per_s,
            r.gbytes_per_s,
            100.0 * r.roofline_fraction,
            r.predicted_ms
        )
        .unwrap();
        if has_cub {
            write!(s, " {:>9} {:>8}", opt(r.cub_ms, 4), opt(r.cub_ratio, 2)).unwrap();
        }
        if has_merge {
            write!(
                s,
                " {:>9} {:>8}",
                opt(r.cub_merge_ms, 4),
                opt(r.cub_merge_ratio, 2)
            )
            .unwrap();
        }
        s.push('\n');
    }
    if !report.auto.is_empty() {
        writeln!(
            s,
            "\n--algo model (the calibrated model's pick; `auto` is not calibrated) versus the best measured sort:"
        )
        .unwrap();
        writeln!(
            s,
            "{:<36} {:<10} {:>6} {:<17} {:>10} {:>10} {:<17} {:>10} {:>6}",
            "op", "dist", "N", "model picks", "predicted", "its ms", "best", "best ms", "eff"
        )
        .unwrap();
        for a in &report.auto {
            writeln!(
                s,
                "{:<36} {:<10} {:>6} {:<17} {:>10.4} {:>10} {:<17} {:>10.4} {:>5}%",
                a.op,
                a.dist,
                fmt_n(a.n),
                a.choice,
                a.choice_predicted_ms,
                opt(a.choice_ms, 4),
                a.best_algo,
                a.best_ms,
                a.efficiency
                    .map_or("-".into(), |e| format!("{:.0}", 100.0 * e))
            )
            .unwrap();
        }
    }
    for (title, label, pick) in [
        (
            "versus CUB (best vksort algorithm per op and N; ratio = CUB time / vksort time):",
            "CUB",
            (|r: &Row| r.cub_ms.zip(r.cub_ratio)) as fn(&Row) -> Option<(f64, f64)>,
        ),
        (
            "versus CUB's merge sort (best vksort algorithm, and the best comparison sort, per op and N; ratio = \
             CUB merge sort time / vksort time):",
            "CUB merge",
            (|r: &Row| r.cub_merge_ms.zip(r.cub_merge_ratio)) as fn(&Row) -> Option<(f64, f64)>,
        ),
    ] {
        if !report.rows.iter().any(|r| pick(r).is_some()) {
            continue;
        }
        writeln!(s, "\n{title}").unwrap();
        let mut seen: Vec<(String, u64)> = Vec::new();
        for r in report.rows.iter().filter(|r| pick(r).is_some()) {
            let k = (r.op.clone(), r.n);
            if seen.contains(&k) {
                continue;
            }
            seen.push(k);
            let same = |x: &&Row| x.op == r.op && x.n == r.n && pick(x).is_some();
            let best_of = |filter: &dyn Fn(&Row) -> bool| {
                report
                    .rows
                    .iter()
                    .filter(same)
                    .filter(|x| filter(x))
                    .max_by(|a, b| pick(a).unwrap().1.total_cmp(&pick(b).unwrap().1))
            };
            let mut line = |best: &Row, what: &str| {
                let (cub_ms, ratio) = pick(best).unwrap();
                writeln!(
                    s,
                    "{:<36} {:>6} {:<17} {:>10.4} ms  {label} {:>10.4} ms  ratio {:.2}{what}",
                    best.op,
                    fmt_n(best.n),
                    best.algo,
                    best.ms_median,
                    cub_ms,
                    ratio
                )
                .unwrap();
            };
            let best = best_of(&|_| true).unwrap();
            line(best, "");
            if label == "CUB merge" && tables::is_radix(&best.ran) {
                if let Some(cmp) = best_of(&|x: &Row| !tables::is_radix(&x.ran)) {
                    line(cmp, "  (best comparison sort)");
                }
            }
        }
    }
    if let Some(table) = tables::count_comparison(report) {
        writeln!(s, "\n{}", tables::COUNT_COMPARISON_TITLE).unwrap();
        s.push_str(&table);
    }
    if !report.skipped.is_empty() {
        writeln!(s, "\nskipped {} configurations:", report.skipped.len()).unwrap();
        for (algo, reason, ops, sizes, count) in skipped_groups(report) {
            writeln!(
                s,
                "  {algo}: {reason} ({count}x: {} at {})",
                ops.join(", "),
                sizes
            )
            .unwrap();
        }
    }
    s
}

/// The skipped configurations grouped by (algorithm, reason): (algorithm, reason, the operations (at most
/// four, then `...`), the sizes `2^a..2^b`, count).
pub fn skipped_groups(report: &Report) -> Vec<(String, String, Vec<String>, String, usize)> {
    let mut groups: Vec<(String, String, Vec<String>, u64, u64, usize)> = Vec::new();
    for k in &report.skipped {
        let g = match groups
            .iter_mut()
            .position(|g| g.0 == k.algo && g.1 == k.reason)
        {
            Some(i) => &mut groups[i],
            None => {
                groups.push((k.algo.clone(), k.reason.clone(), Vec::new(), k.n, k.n, 0));
                groups.last_mut().unwrap()
            }
        };
        if !g.2.contains(&k.base_op) {
            g.2.push(k.base_op.clone());
        }
        g.3 = g.3.min(k.n);
        g.4 = g.4.max(k.n);
        g.5 += 1;
    }
    groups
        .into_iter()
        .map(|(algo, reason, mut ops, lo, hi, count)| {
            if ops.len() > 4 {
                ops.truncate(4);
                ops.push("...".into());
            }
            let sizes = if lo == hi {
                fmt_n(lo)
            } else {
                format!("{}..{}", fmt_n(lo), fmt_n(hi))
            };
            (algo, reason, ops, sizes, count)
        })
        .collect()
}

/// `--explain`: per pass, measured versus predicted time, achieved bandwidth and what bounds it.
pub fn explain(report: &Report) -> String {
    let mut s = String::new();
    writeln!(
        s,
        "model: time = {:.2} us x dispatches + overhead + bytes / ({:.1} GB/s x efficiency); per algorithm \
         (efficiency, overhead): {}",
        report.calibration.fixed_ns_per_dispatch / 1e3,
        report.calibration.roofline_bytes_per_s / 1e9,
        report
            .calibration
            .efficiency
            .iter()
            .map(|(k, v)| format!(
                "{k} ({v:.2}, {:.1} us)",
                report.calibration.overhead_ns.get(k).copied().unwrap_or(0.0) / 1e3
            ))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    for r in report.rows.iter().filter(|r| r.verified) {
        writeln!(
            s,
            "\n{} {} {} N={}: measured {:.4} ms (passes stamped one by one: {:.4} ms), predicted {:.4} ms, {:.1} GB/s of modelled traffic ({:.0}% of roofline)",
            r.op,
            r.algo,
            r.dist,
            fmt_n(r.n),
            r.ms_median,
            r.per_pass_sum_ms,
            r.predicted_ms,
            r.gbytes_per_s,
            100.0 * r.roofline_fraction
        )
        .unwrap();
        writeln!(
            s,
            "  {:<30} {:>10} {:>10} {:>12} {:>9} {:>6}  bound",
            "pass", "ms", "model ms", "MB moved", "GB/s", "roof"
        )
        .unwrap();
        for p in &r.passes {
            writeln!(
                s,
                "  {:<30} {:>10.4} {:>10} {:>12} {:>9} {:>6}  {}",
                p.label,
                p.ms,
                opt(p.model_ms, 4),
                opt(p.model_bytes.map(|b| b / 1e6), 2),
                opt(p.gbytes_per_s, 1),
                p.roofline_fraction
                    .map_or("-".into(), |f| format!("{:.0}%", 100.0 * f)),
                p.bound.as_deref().unwrap_or("(unmodelled)")
            )
            .unwrap();
        }
    }
    s
}

/// The CSV header line (with its newline). Columns are only ever added at the end, so that existing readers
/// keep their positions: `count` (`host`, or `gpu` for a sort with a GPU-side count, whose `op` ends in
/// `_gpucount`).
pub const CSV_HEADER: &str =
    "op,family,algo,key,value,dist,n,reps,verified,ms_median,ms_min,ms_max,gitems_per_s,\
model_bytes,gbytes_per_s,roofline_fraction,predicted_ms,cub_ms,cub_ratio,cub_merge_ms,cub_merge_ratio,ran,\
key_bits,wall_s,count\n";

/// One row as a CSV line (with its newline).
pub fn csv_line(r: &Row) -> String {
    format!(
        "{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{:.4},{:.0},{:.3},{:.4},{:.6},{},{},{},{},{},{},{:.3},{}\n",
        r.op,
        r.family,
        r.algo,
        r.key,
        r.value,
        r.dist,
        r.n,
        r.reps,
        r.verified,
        r.ms_median,
        r.ms_min,
        r.ms_max,
        r.gitems_per_s,
        r.model_bytes,
        r.gbytes_per_s,
        r.roofline_fraction,
        r.predicted_ms,
        r.cub_ms.map_or(String::new(), |x| format!("{x:.5}")),
        r.cub_ratio.map_or(String::new(), |x| format!("{x:.4}")),
        r.cub_merge_ms.map_or(String::new(), |x| format!("{x:.5}")),
        r.cub_merge_ratio.map_or(String::new(), |x| format!("{x:.4}")),
        r.ran,
        r.key_bits,
        r.wall_s.iter().sum::<f64>(),
        r.count.name()
    )
}

/// The skipped configurations as CSV: `op,family,algo,key,value,dist,n,reason` (the reason quoted).
pub fn skipped_csv(report: &Report) -> String {
    let mut s = String::from("op,family,algo,key,value,dist,n,reason\n");
    for k in &report.skipped {
        writeln!(
            s,
            "{},{},{},{},{},{},{},\"{}\"",
            k.op,
            k.family,
            k.algo,
            k.key,
            k.value,
            k.dist,
            k.n,
            k.reason.replace('"', "'")
        )
        .unwrap();
    }
    s
}

/// The rows as CSV.
pub fn csv(report: &Report) -> String {
    let mut s = String::from(CSV_HEADER);
    for r in &report.rows {
        s.push_str(&csv_line(r));
    }
    s
}

/// Writes `contents` to `path` through a temporary file in the same directory.
pub fn write_atomic(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_file_name(format!(
        ".{}.tmp{}",
        path.file_name().and_then(|f| f.to_str()).unwrap_or("out"),
        std::process::id()
    ));
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Writes `bench.csv`, `bench.json`, `vksort-cub-format.csv`, `skipped.csv` and `bench.md` (the sort tables)
/// into `dir`; returns the paths.
pub fn write_files(report: &Report, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::new();
    let json = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
    for (name, data) in [
        ("bench.csv", csv(report)),
        ("bench.json", json),
        ("vksort-cub-format.csv", compare::to_cub_csv(report)),
        ("skipped.csv", skipped_csv(report)),
        ("bench.md", tables::markdown(report)),
    ] {
        let p = dir.join(name);
        write_atomic(&p, data.as_bytes())?;
        out.push(p);
    }
    Ok(out)
}
