//! CUB's figures: the CSV printed by `cub_bench.cu` (`# device ...` comment lines, then
//! `impl,op,n,ms_median,gitems_per_s`), matched with vksort's rows by operation name and N.

use super::Report;
use std::collections::BTreeMap;

/// CUB's figures of one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CubFigures {
    /// The text of the `# device ...` line, without the `# `.
    pub device: Option<String>,
    /// (op, n) -> median milliseconds.
    pub ms: BTreeMap<(String, u64), f64>,
}

/// Parses the CSV text of `cub_bench`.
pub fn parse(text: &str) -> Result<CubFigures, String> {
    let mut out = CubFigures::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            if out.device.is_none() {
                out.device = Some(c.trim().to_string());
            }
            continue;
        }
        if line.starts_with("impl,") {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() < 4 {
            return Err(format!(
                "line {}: expected impl,op,n,ms_median,gitems_per_s",
                i + 1
            ));
        }
        let n: u64 = f[2]
            .parse()
            .map_err(|_| format!("line {}: bad n `{}`", i + 1, f[2]))?;
        let ms: f64 = f[3]
            .parse()
            .map_err(|_| format!("line {}: bad ms `{}`", i + 1, f[3]))?;
        out.ms.insert((f[1].to_string(), n), ms);
    }
    if out.ms.is_empty() {
        return Err("no figures found (expected the CSV printed by cub_bench)".into());
    }
    Ok(out)
}

/// Adds CUB's time and the ratio CUB time / vksort time to every row with a matching op and N.
pub fn attach(report: &mut Report, cub: &CubFigures) {
    report.cub_device = cub.device.clone();
    for r in report.rows.iter_mut() {
        if let Some(&ms) = cub.ms.get(&(r.op.clone(), r.n)) {
            r.cub_ms = Some(ms);
            if r.verified && r.ms_median > 0.0 {
                r.cub_ratio = Some(ms / r.ms_median);
            }
        }
    }
}

/// vksort's rows as CUB-format CSV lines (`impl` = `vksort-<algo>`), to compare with the same tools.
pub fn to_cub_csv(report: &Report) -> String {
    let mut s = format!(
        "# device {}, vksort {}\nimpl,op,n,ms_median,gitems_per_s\n",
        report.device, report.vksort_version
    );
    for r in report.rows.iter().filter(|r| r.verified) {
        s.push_str(&format!(
            "vksort-{},{},{},{:.5},{:.3}\n",
            r.algo, r.op, r.n, r.ms_median, r.gitems_per_s
        ));
    }
    s
}
