//! CUB's figures: the CSV printed by `cub_bench.cu` and `scripts/anchors/cub_merge_bench.cu` (`# device ...`
//! comment lines, then `impl,op,n,ms_median,gitems_per_s`), matched with vksort's rows by operation name and N:
//! `op` is CUB's radix sort (or scan, select, memcpy) of the same operation, `merge_<op>` its merge sort (the
//! comparison-sort anchor). Several files may be merged ([`CubFigures::merge`]); a later figure of the same op
//! and N replaces an earlier one.

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

impl CubFigures {
    /// Adds `other`'s figures (replacing the same op and N); keeps the first device line.
    pub fn merge(&mut self, other: CubFigures) {
        if self.device.is_none() {
            self.device = other.device;
        }
        self.ms.extend(other.ms);
    }

    /// CUB's radix sort (or other primitive) time of `op` at `n` (a sort with a GPU-side count, `..._gpucount`,
    /// is compared with CUB's sort of the same keys: [`super::ops::cub_op_name`]).
    pub fn radix_ms(&self, op: &str, n: u64) -> Option<f64> {
        self.ms
            .get(&(super::ops::cub_op_name(op).to_string(), n))
            .copied()
    }

    /// CUB's merge sort time of sort `op` at `n` (as [`CubFigures::radix_ms`]).
    pub fn merge_ms(&self, op: &str, n: u64) -> Option<f64> {
        self.ms
            .get(&(format!("merge_{}", super::ops::cub_op_name(op)), n))
            .copied()
    }
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

/// Adds CUB's times and the ratios CUB time / vksort time to every row with a matching op and N: CUB's radix
/// sort (or other primitive) of the op, and for sorts CUB's merge sort of it.
pub fn attach(report: &mut Report, cub: &CubFigures) {
    report.cub_device = cub.device.clone();
    report.cub = Some(cub.clone());
    let ratio =
        |r: &super::Row, ms: f64| (r.verified && r.ms_median > 0.0).then(|| ms / r.ms_median);
    for r in report.rows.iter_mut() {
        if let Some(ms) = cub.radix_ms(&r.op, r.n) {
            r.cub_ms = Some(ms);
            r.cub_ratio = ratio(r, ms);
        }
        if r.family == "sort" {
            if let Some(ms) = cub.merge_ms(&r.op, r.n) {
                r.cub_merge_ms = Some(ms);
                r.cub_merge_ratio = ratio(r, ms);
            }
        }
    }
}

/// vksort's rows as CUB-format CSV lines (`impl` = `vksort-<algo>`), to compare with the same tools. A sort
/// with a GPU-side count keeps CUB's operation name and says so in its `impl`: `vksort-<algo>-gpucount`.
pub fn to_cub_csv(report: &Report) -> String {
    let mut s = format!(
        "# device {}, vksort {}\nimpl,op,n,ms_median,gitems_per_s\n",
        report.device, report.vksort_version
    );
    for r in report.rows.iter().filter(|r| r.verified) {
        let op = super::ops::cub_op_name(&r.op);
        let form = if r.count == super::ops::CountForm::Gpu {
            "-gpucount"
        } else {
            ""
        };
        s.push_str(&format!(
            "vksort-{}{form},{op},{},{:.5},{:.3}\n",
            r.algo, r.n, r.ms_median, r.gitems_per_s
        ));
    }
    s
}
