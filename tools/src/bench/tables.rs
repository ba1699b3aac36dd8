//! The sort tables of issues 16 and 17 as markdown (`bench.md`), from a benchmark run:
//! - **algorithm x distribution**: per operation (`sort_keys_u32`, ...) and N, one row per sort algorithm
//!   (and CUB's radix and merge sorts when compared), one column per distribution (the GPU-quicksort paper's
//!   table), median ms, the fastest vksort algorithm in bold;
//! - **rate by N**: per operation and distribution, one row per algorithm, one column per N, G keys/s;
//! - **key widths**: per operation shape (keys only or pairs, distribution), the time of each wider key type
//!   relative to the narrowest one, per algorithm and N (Satish et al.'s key-width comparison), and the fastest
//!   algorithm per key type and N (where the comparison sorts overtake the radix sorts);
//! - **GPU-side count vs host count** (`--counts host,gpu`): per sort configuration and N, the time of the sort
//!   recorded with a GPU-side count (`Sorter::cmd_sort_indirect`, capacity 2N) beside the host-count form's
//!   ([`count_comparison`]);
//!
//! Configurations not run show `—` with a numbered note saying why (an algorithm that refuses the key type, a
//! one-workgroup sort above its capacity, a device too small); failed verifications show `FAILED`.

use super::ops::CountForm;
use super::report::fmt_n;
use super::{Report, Row};
use std::fmt::Write as _;

/// Whether a sort algorithm belongs to the radix family (the library's registry).
pub fn is_radix(algo: &str) -> bool {
    super::ops::sort_family(algo) == Some("radix")
}

/// What a table cell shows.
enum Cell {
    Time(f64),
    Failed,
    Skipped(usize),
    Missing,
}

/// Numbered notes of skipped configurations.
#[derive(Default)]
struct Notes(Vec<String>);

impl Notes {
    fn index(&mut self, algo: &str, reason: &str) -> usize {
        let text = format!("{algo}: {reason}");
        match self.0.iter().position(|t| *t == text) {
            Some(i) => i + 1,
            None => {
                self.0.push(text);
                self.0.len()
            }
        }
    }
}

/// A rate with three significant digits (`52.6`, `0.412`, `0.00123`).
fn fmt_rate(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else if x > 0.0 {
        let digits = (2 - x.log10().floor() as i32).clamp(3, 12) as usize;
        format!("{x:.digits$}")
    } else {
        "0".into()
    }
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.1}")
    } else if ms >= 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.4}")
    }
}

/// Markdown table text from a header and rows of cells.
fn grid(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    writeln!(out, "| {} |", header.join(" | ")).unwrap();
    writeln!(
        out,
        "|{}|",
        header
            .iter()
            .enumerate()
            .map(|(i, _)| if i == 0 { "---" } else { "---:" })
            .collect::<Vec<_>>()
            .join("|")
    )
    .unwrap();
    for r in rows {
        writeln!(out, "| {} |", r.join(" | ")).unwrap();
    }
    out.push('\n');
}

/// Values in order of first appearance.
fn distinct<T: PartialEq + Clone>(it: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = Vec::new();
    for x in it {
        if !v.contains(&x) {
            v.push(x);
        }
    }
    v
}

struct Tables<'a> {
    report: &'a Report,
    sorts: Vec<&'a Row>,
    notes: Notes,
    /// Sort algorithms in the library's order, those that appear in the run.
    algos: Vec<String>,
}

impl<'a> Tables<'a> {
    fn new(report: &'a Report) -> Self {
        let sorts: Vec<&Row> = report.rows.iter().filter(|r| r.family == "sort").collect();
        let present: Vec<&str> = sorts
            .iter()
            .map(|r| r.algo.as_str())
            .chain(
                report
                    .skipped
                    .iter()
                    .filter(|k| k.family == "sort")
                    .map(|k| k.algo.as_str()),
            )
            .collect();
        let mut algos: Vec<String> = super::ops::sort_algorithms()
            .into_iter()
            .filter(|a| present.contains(a))
            .map(str::to_string)
            .collect();
        for a in present {
            if !algos.iter().any(|x| x == a) {
                algos.push(a.to_string());
            }
        }
        Self {
            report,
            sorts,
            notes: Notes::default(),
            algos,
        }
    }

    fn cell(&mut self, base_op: &str, dist: &str, n: u64, algo: &str) -> Cell {
        if let Some(r) = self
            .sorts
            .iter()
            .find(|r| r.base_op == base_op && r.dist == dist && r.n == n && r.algo == algo)
        {
            return if r.verified {
                Cell::Time(r.ms_median)
            } else {
                Cell::Failed
            };
        }
        match self.report.skipped.iter().find(|k| {
            k.family == "sort"
                && k.base_op == base_op
                && k.dist == dist
                && k.n == n
                && k.algo == algo
        }) {
            Some(k) => Cell::Skipped(self.notes.index(&k.algo, &k.reason)),
            None => Cell::Missing,
        }
    }

    /// The full operation name (with the distribution suffix) of (base op, dist), from the run.
    fn op_of(&self, base_op: &str, dist: &str) -> Option<String> {
        self.sorts
            .iter()
            .find(|r| r.base_op == base_op && r.dist == dist)
            .map(|r| r.op.clone())
            .or_else(|| {
                self.report
                    .skipped
                    .iter()
                    .find(|k| k.base_op == base_op && k.dist == dist)
                    .map(|k| k.op.clone())
            })
    }

    /// CUB's radix and merge sort times of (base op, dist, n).
    fn cub(&self, base_op: &str, dist: &str, n: u64) -> (Option<f64>, Option<f64>) {
        match (&self.report.cub, self.op_of(base_op, dist)) {
            (Some(c), Some(op)) => (c.radix_ms(&op, n), c.merge_ms(&op, n)),
            _ => (None, None),
        }
    }

    fn has_cub(&self) -> bool {
        self.report.cub.is_some()
    }

    /// Renders cells of one column set: the best (smallest time, or largest rate) in bold.
    fn render(cells: Vec<Cell>, rate_of: Option<u64>) -> Vec<String> {
        let value = |c: &Cell| match c {
            Cell::Time(ms) => Some(match rate_of {
                Some(n) => n as f64 / (ms * 1e6),
                None => -ms,
            }),
            _ => None,
        };
        let best = cells
            .iter()
            .filter_map(value)
            .fold(f64::NEG_INFINITY, f64::max);
        cells
            .iter()
            .map(|c| match c {
                Cell::Time(ms) => {
                    let text = match rate_of {
                        Some(n) => fmt_rate(n as f64 / (ms * 1e6)),
                        None => fmt_ms(*ms),
                    };
                    if value(c) == Some(best) {
                        format!("**{text}**")
                    } else {
                        text
                    }
                }
                Cell::Failed => "FAILED".into(),
                Cell::Skipped(i) => format!("— [{i}]"),
                Cell::Missing => String::new(),
            })
            .collect()
    }

    /// Algorithm x distribution, per operation and N.
    fn by_distribution(&mut self, out: &mut String) {
        let bases = distinct(self.sorts.iter().map(|r| r.base_op.clone()));
        let mut wrote = false;
        for base in bases {
            let dists = distinct(
                self.sorts
                    .iter()
                    .filter(|r| r.base_op == base)
                    .map(|r| r.dist.clone()),
            );
            if dists.len() < 2 {
                continue;
            }
            if !wrote {
                writeln!(
                    out,
                    "## Sort algorithms x distributions\n\nMedian ms per sort (lower is better; the fastest \
                     vksort algorithm of each column in bold).\n"
                )
                .unwrap();
                wrote = true;
            }
            let sizes = distinct(self.sorts.iter().filter(|r| r.base_op == base).map(|r| r.n));
            for n in sizes {
                writeln!(out, "### {base}, N = {}\n", fmt_n(n)).unwrap();
                let mut header = vec!["algorithm".to_string()];
                header.extend(dists.iter().cloned());
                // columns of cells, then transposed into rows
                let algos = self.algos.clone();
                let mut columns: Vec<Vec<String>> = Vec::new();
                for d in &dists {
                    let cells: Vec<Cell> =
                        algos.iter().map(|a| self.cell(&base, d, n, a)).collect();
                    columns.push(Self::render(cells, None));
                }
                let mut rows: Vec<Vec<String>> = algos
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let mut row = vec![a.clone()];
                        row.extend(columns.iter().map(|c| c[i].clone()));
                        row
                    })
                    .collect();
                if self.has_cub() {
                    let cub: Vec<(Option<f64>, Option<f64>)> =
                        dists.iter().map(|d| self.cub(&base, d, n)).collect();
                    for (name, pick) in [("CUB radix sort", 0usize), ("CUB merge sort", 1usize)] {
                        let cells: Vec<String> = cub
                            .iter()
                            .map(|c| {
                                let v = if pick == 0 { c.0 } else { c.1 };
                                v.map_or(String::new(), fmt_ms)
                            })
                            .collect();
                        if cells.iter().any(|c| !c.is_empty()) {
                            let mut row = vec![name.to_string()];
                            row.extend(cells);
                            rows.push(row);
                        }
                    }
                }
                grid(out, &header, &rows);
            }
        }
    }

    /// Rate by N, per operation and distribution.
    fn by_size(&mut self, out: &mut String) {
        let groups = distinct(
            self.sorts
                .iter()
                .map(|r| (r.base_op.clone(), r.dist.clone())),
        );
        let mut wrote = false;
        for (base, dist) in groups {
            let sizes = distinct(
                self.sorts
                    .iter()
                    .filter(|r| r.base_op == base && r.dist == dist)
                    .map(|r| r.n),
            );
            let dists_of_base = distinct(
                self.sorts
                    .iter()
                    .filter(|r| r.base_op == base)
                    .map(|r| r.dist.clone()),
            );
            if sizes.len() < 2 && dists_of_base.len() > 1 {
                continue;
            }
            if !wrote {
                writeln!(
                    out,
                    "## Sort rate by N\n\nG keys/s (higher is better; the fastest vksort algorithm of each \
                     column in bold). `auto` is what the library's default policy runs.\n"
                )
                .unwrap();
                wrote = true;
            }
            writeln!(out, "### {base}, {dist}\n").unwrap();
            let mut header = vec!["algorithm".to_string()];
            header.extend(sizes.iter().map(|&n| fmt_n(n)));
            let algos = self.algos.clone();
            let mut columns: Vec<Vec<String>> = Vec::new();
            for &n in &sizes {
                let cells: Vec<Cell> = algos
                    .iter()
                    .map(|a| self.cell(&base, &dist, n, a))
                    .collect();
                columns.push(Self::render(cells, Some(n)));
            }
            let mut rows: Vec<Vec<String>> = algos
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let mut row = vec![a.clone()];
                    row.extend(columns.iter().map(|c| c[i].clone()));
                    row
                })
                .collect();
            if self.has_cub() {
                for (name, pick) in [("CUB radix sort", 0usize), ("CUB merge sort", 1usize)] {
                    let cells: Vec<String> = sizes
                        .iter()
                        .map(|&n| {
                            let c = self.cub(&base, &dist, n);
                            let v = if pick == 0 { c.0 } else { c.1 };
                            v.map_or(String::new(), |ms| fmt_rate(n as f64 / (ms * 1e6)))
                        })
                        .collect();
                    if cells.iter().any(|c| !c.is_empty()) {
                        let mut row = vec![name.to_string()];
                        row.extend(cells);
                        rows.push(row);
                    }
                }
            }
            grid(out, &header, &rows);
        }
    }

    /// Key widths: per shape (the operation with its key type left out, and the distribution).
    fn by_key_width(&mut self, out: &mut String) {
        // (shape template, dist) -> the key types present, narrowest first
        let shape = |r: &Row| r.base_op.replacen(&format!("_{}", r.key), "_KEY", 1);
        let groups = distinct(self.sorts.iter().map(|r| (shape(r), r.dist.clone())));
        let mut wrote = false;
        for (template, dist) in groups {
            let members: Vec<&Row> = self
                .sorts
                .iter()
                .copied()
                .filter(|r| shape(r) == template && r.dist == dist)
                .collect();
            let mut keys = distinct(members.iter().map(|r| (r.key_bits, r.key.clone())));
            keys.sort_by_key(|k| k.0);
            if distinct(keys.iter().map(|k| k.0)).len() < 2 {
                continue;
            }
            if !wrote {
                writeln!(
                    out,
                    "## Key widths\n\nTime of a sort of wider keys relative to the same algorithm's sort of the \
                     narrowest keys (Satish et al.: radix sorts slow down with the key width, comparison sorts \
                     less), then the fastest algorithm per key type and N.\n"
                )
                .unwrap();
                wrote = true;
            }
            let sizes = {
                let mut v = distinct(members.iter().map(|r| r.n));
                v.sort_unstable();
                v
            };
            let base_of = |key: &str| template.replacen("_KEY", &format!("_{key}"), 1);
            let (_, narrow) = keys[0].clone();
            for (_, wide) in keys.iter().skip(1) {
                writeln!(
                    out,
                    "### {} relative to {}, {dist}\n",
                    base_of(wide),
                    base_of(&narrow)
                )
                .unwrap();
                let mut header = vec!["algorithm".to_string()];
                header.extend(sizes.iter().map(|&n| fmt_n(n)));
                let mut rows = Vec::new();
                for a in self.algos.clone() {
                    let mut row = vec![a.clone()];
                    let mut any = false;
                    for &n in &sizes {
                        let t0 = self.cell(&base_of(&narrow), &dist, n, &a);
                        let t1 = self.cell(&base_of(wide), &dist, n, &a);
                        row.push(match (t0, t1) {
                            (Cell::Time(a), Cell::Time(b)) => {
                                any = true;
                                format!("{:.2}x", b / a)
                            }
                            (_, Cell::Skipped(i)) | (Cell::Skipped(i), _) => {
                                any = true;
                                format!("— [{i}]")
                            }
                            (Cell::Failed, _) | (_, Cell::Failed) => "FAILED".into(),
                            _ => String::new(),
                        });
                    }
                    if any {
                        rows.push(row);
                    }
                }
                if self.has_cub() {
                    for (name, pick) in [("CUB radix sort", 0usize), ("CUB merge sort", 1usize)] {
                        let cells: Vec<String> = sizes
                            .iter()
                            .map(|&n| {
                                let a = self.cub(&base_of(&narrow), &dist, n);
                                let b = self.cub(&base_of(wide), &dist, n);
                                let (a, b) = if pick == 0 { (a.0, b.0) } else { (a.1, b.1) };
                                match (a, b) {
                                    (Some(a), Some(b)) => format!("{:.2}x", b / a),
                                    _ => String::new(),
                                }
                            })
                            .collect();
                        if cells.iter().any(|c| !c.is_empty()) {
                            let mut row = vec![name.to_string()];
                            row.extend(cells);
                            rows.push(row);
                        }
                    }
                }
                grid(out, &header, &rows);
            }
            writeln!(
                out,
                "### Fastest vksort algorithm ({}, {dist}): ms\n",
                template.replace("_KEY", "")
            )
            .unwrap();
            let mut header = vec!["keys".to_string()];
            header.extend(sizes.iter().map(|&n| fmt_n(n)));
            let mut rows = Vec::new();
            for (_, key) in &keys {
                let base = base_of(key);
                let mut row = vec![key.clone()];
                for &n in &sizes {
                    let best = members
                        .iter()
                        .filter(|r| r.base_op == base && r.n == n && r.verified && r.algo != "auto")
                        .min_by(|a, b| a.ms_median.total_cmp(&b.ms_median));
                    let cub = self.cub(&base, &dist, n);
                    let mut cell = best.map_or(String::new(), |r| {
                        format!("{} {}", r.algo, fmt_ms(r.ms_median))
                    });
                    let extra: Vec<String> = [("CUB radix", cub.0), ("CUB merge", cub.1)]
                        .iter()
                        .filter_map(|(name, v)| v.map(|ms| format!("{name} {}", fmt_ms(ms))))
                        .collect();
                    if !extra.is_empty() {
                        write!(cell, " ({})", extra.join(", ")).unwrap();
                    }
                    row.push(cell);
                }
                rows.push(row);
            }
            grid(out, &header, &rows);
        }
    }
}

/// The GPU-count sorts of a run beside their host-count forms, as a markdown table (`op | algo | N | runs
/// (host / GPU count) | host ms | GPU-count ms | GPU / host`): one line per sort configuration and N run (or
/// skipped) in both forms, in the run's order. `runs` is the algorithm each form ran (`auto` resolved: with a
/// GPU-side count the sorter chooses for the capacity 2N); a configuration not run shows `—` (the reason is
/// in the skipped list), a failed one `FAILED`. None when the run has no such pair (`--counts` without both
/// `host` and `gpu`).
pub fn count_comparison(report: &Report) -> Option<String> {
    let sorts = || report.rows.iter().filter(|r| r.family == "sort");
    let skipped = || report.skipped.iter().filter(|k| k.family == "sort");
    // the GPU-count configurations, run or skipped: (op of the host form, algo, dist, n)
    let mut keys: Vec<(String, String, String, u64)> = Vec::new();
    let gpu = sorts()
        .filter(|r| r.count == CountForm::Gpu)
        .map(|r| (&r.op, &r.algo, &r.dist, r.n))
        .chain(
            skipped()
                .filter(|k| k.count == CountForm::Gpu)
                .map(|k| (&k.op, &k.algo, &k.dist, k.n)),
        );
    for (op, algo, dist, n) in gpu {
        let k = (
            super::ops::cub_op_name(op).to_string(),
            algo.clone(),
            dist.clone(),
            n,
        );
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let row_of = |op: &str, count: CountForm, algo: &str, dist: &str, n: u64| {
        sorts().find(|r| {
            r.op == op && r.count == count && r.algo == algo && r.dist == dist && r.n == n
        })
    };
    let mut rows = Vec::new();
    for (op, algo, dist, n) in keys {
        let gpu_op = format!("{op}{}", super::ops::GPU_COUNT_SUFFIX);
        let host = row_of(&op, CountForm::Host, &algo, &dist, n);
        let gpu = row_of(&gpu_op, CountForm::Gpu, &algo, &dist, n);
        let host_skipped = skipped()
            .any(|k| k.op == op && k.count == CountForm::Host && k.algo == algo && k.n == n);
        if host.is_none() && (gpu.is_none() || !host_skipped) {
            continue; // neither form measured, or the host form not swept
        }
        let ran = |r: Option<&Row>| r.map_or("—".to_string(), |r| r.ran.clone());
        let ms = |r: Option<&Row>| match r {
            Some(r) if r.verified => fmt_ms(r.ms_median),
            Some(_) => "FAILED".into(),
            None => "—".into(),
        };
        let ratio = match (host, gpu) {
            (Some(h), Some(g)) if h.verified && g.verified && h.ms_median > 0.0 => {
                format!("{:.3}", g.ms_median / h.ms_median)
            }
            _ => "—".into(),
        };
        rows.push(vec![
            op,
            algo,
            fmt_n(n),
            format!("{} / {}", ran(host), ran(gpu)),
            ms(host),
            ms(gpu),
            ratio,
        ]);
    }
    if rows.is_empty() {
        return None;
    }
    let header: Vec<String> = [
        "op",
        "algo",
        "N",
        "runs (host / GPU count)",
        "host ms",
        "GPU-count ms",
        "GPU / host",
    ]
    .iter()
    .map(|h| h.to_string())
    .collect();
    let mut out = String::new();
    grid(&mut out, &header, &rows);
    Some(out)
}

/// The title and introduction of [`count_comparison`]'s table (markdown).
pub const COUNT_COMPARISON_TITLE: &str = "## GPU-side count vs host count\n\nThe same sort recorded with a \
     GPU-side count (`Sorter::cmd_sort_indirect`: a count buffer holding N, capacity 2N) and with the host's N \
     (`Sorter::cmd_sort`): median ms, and the ratio GPU-count time / host-count time (1.05: 5% slower).\n";

/// The markdown tables of a run (`bench.md`): the header, the three kinds of table where the run has their
/// axes (several distributions, several sizes, several key widths), the GPU-side count comparison
/// ([`count_comparison`], with `--counts host,gpu`), and the notes of skipped configurations.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "# vksort sort tables\n\nvksort {} on {} ({}); compute-copy roofline {:.1} GB/s.{} Every figure is the \
         median of timed runs (GPU timestamps around each run), every result verified on the CPU; `—` marks a \
         configuration not run, the numbered notes below say why.\n",
        report.vksort_version,
        report.device,
        report.driver,
        report.roofline_gbps,
        report
            .cub_device
            .as_ref()
            .map_or(String::new(), |d| format!(" CUB figures from the same run: {d}."))
    )
    .unwrap();
    let mut t = Tables::new(report);
    if t.sorts.is_empty() {
        writeln!(out, "No sort was measured.").unwrap();
        return out;
    }
    t.by_distribution(&mut out);
    t.by_size(&mut out);
    t.by_key_width(&mut out);
    if let Some(table) = count_comparison(report) {
        writeln!(out, "{COUNT_COMPARISON_TITLE}").unwrap();
        out.push_str(&table);
    }
    if !t.notes.0.is_empty() {
        writeln!(out, "## Notes\n").unwrap();
        for (i, n) in t.notes.0.iter().enumerate() {
            writeln!(out, "{}. {n}", i + 1).unwrap();
        }
        out.push('\n');
    }
    out
}
