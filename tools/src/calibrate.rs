//! The calibration of the performance model on a device: the compute-copy roofline, the fixed cost of a
//! dispatch, and each algorithm's efficiency and overhead, measured by running the benchmark's operations
//! ([`crate::bench::ops`]) at two sizes; and the cache check that decides when to measure again. The model's
//! data and predictions are in [`crate::model`].

use crate::bench::ops;
use crate::model::{uuid_hex, Calibration};
use std::collections::BTreeMap;
use std::sync::Arc;
use vksort::gpu::{Buffer, Context, Profiler};
use vksort::{Error, Result};

impl Calibration {
    /// Whether this calibration belongs to the context's device and driver (and to this build's algorithms).
    pub fn matches(&self, ctx: &Context) -> bool {
        self.device_uuid == uuid_hex(&ctx.caps().device_uuid)
            && self.driver_version == ctx.caps().driver_version
            && self.algorithms == calibrated_algorithms(ctx.caps())
            && self.vksort_version == env!("CARGO_PKG_VERSION")
    }

    /// The cached calibration of this device and driver, if any (a stale or unreadable one is ignored).
    pub fn load(ctx: &Context) -> Option<Self> {
        let path = Self::cache_path(ctx)?;
        let text = std::fs::read_to_string(path).ok()?;
        let cal: Self = serde_json::from_str(&text).ok()?;
        cal.matches(ctx).then_some(cal)
    }

    /// The cached calibration, or a fresh short one (saved to the cache; a failure to save is ignored).
    pub fn load_or_calibrate(ctx: &Arc<Context>) -> Result<Self> {
        if let Some(c) = Self::load(ctx) {
            return Ok(c);
        }
        let c = Self::measure(ctx, None)?;
        let _ = c.save(ctx);
        Ok(c)
    }

    /// Measures roofline, fixed dispatch cost and the efficiency of every available algorithm at a few sizes:
    /// every sort algorithm of `SortAlgorithm::ALL` (on u32 keys), every scan algorithm, reduction, compaction
    /// and the copy. `roofline` reuses a roofline measured elsewhere in the same run.
    ///
    /// Says what it measures on standard error (one line), and shows a progress bar of the measurements on a
    /// terminal.
    pub fn measure(ctx: &Arc<Context>, roofline: Option<f64>) -> Result<Self> {
        let caps = ctx.caps();
        let specs = ops::calibration_ops();
        eprintln!(
            "vksort: calibrating the performance model on {}: the copy roofline, the cost of a dispatch, and {} \
             algorithms timed at two sizes each (once per device and driver; cached)",
            caps.name,
            specs.len()
        );
        let bar = crate::progress::bar(specs.len() as u64 + 2);
        bar.set_message("compute-copy roofline");
        let roofline = match roofline {
            Some(r) => r,
            None => measure_roofline(ctx)?,
        };
        bar.inc(1);
        bar.set_message("fixed cost of a dispatch");
        let fixed = measure_fixed_cost(ctx)?;
        bar.inc(1);
        let mut cal = Calibration {
            device_name: caps.name.clone(),
            device_uuid: uuid_hex(&caps.device_uuid),
            driver_version: caps.driver_version,
            driver_info: caps.driver_info.clone(),
            roofline_bytes_per_s: roofline,
            fixed_ns_per_dispatch: fixed,
            efficiency: BTreeMap::new(),
            overhead_ns: BTreeMap::new(),
            algorithms: calibrated_algorithms(caps),
            vksort_version: env!("CARGO_PKG_VERSION").into(),
            created_unix_s: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        };
        let log2 = if caps.is_cpu() { 12 } else { 21 };
        let n = 1usize << log2;
        for spec in specs {
            bar.set_message(format!("{} {}", spec.family(), spec.algo()));
            // Algorithms with a published range (the one-workgroup and MSD radix sorts) are calibrated over
            // it; one that reports a capacity below 4n (Error::AlgorithmLimit) is measured again below it; one
            // the device or configuration cannot run at all is left out (the model then assumes 0.5).
            let mut n = ops::calibration_size(ctx.caps(), &spec, n);
            let measured = loop {
                match ops::measure_efficiency(ctx, &spec, n, &cal) {
                    Ok(m) => break Some((n, m)),
                    Err(Error::AlgorithmLimit { max, .. })
                        if max / 4 >= 16 && max / 4 < n as u64 =>
                    {
                        n = (max / 4) as usize;
                    }
                    Err(_) => break None,
                }
            };
            bar.inc(1);
            let Some((n, (eff, overhead))) = measured else {
                crate::progress::debug(format!(
                    "calibration: {} {} cannot run here (left out)",
                    spec.family(),
                    spec.algo()
                ));
                continue;
            };
            crate::progress::debug(format!(
                "calibration: {} {} at {n} and {}: efficiency {eff:.3}, overhead {:.1} us",
                spec.family(),
                spec.algo(),
                4 * n,
                overhead / 1e3
            ));
            let key = spec.shape(n as u64, caps).algo_key();
            cal.efficiency.insert(key.clone(), eff);
            cal.overhead_ns.insert(key, overhead);
        }
        bar.finish_and_clear();
        Ok(cal)
    }
}

/// The efficiency keys a calibration measures in this build.
pub fn calibrated_algorithms(caps: &vksort::gpu::DeviceCaps) -> Vec<String> {
    ops::calibration_ops()
        .iter()
        .map(|o| o.shape(1 << 12, caps).algo_key())
        .collect()
}

/// The compute-copy roofline over a size suited to the device (256 MiB on GPUs, 16 MiB on CPU devices),
/// bytes per second (read + write).
pub fn measure_roofline(ctx: &Arc<Context>) -> Result<f64> {
    let caps = ctx.caps();
    let want: u64 = if caps.is_cpu() { 16 << 20 } else { 256 << 20 };
    let bytes = want
        .min(caps.max_storage_buffer_range)
        .min(caps.device_local_bytes / 8)
        .max(1 << 16)
        / 16
        * 16;
    vksort::copy::measure_roofline(ctx, bytes, if caps.is_cpu() { 3 } else { 10 })
}

/// The GPU time of a trivial dispatch (a 16-byte copy) with its barrier: the fixed cost per pass, nanoseconds.
pub fn measure_fixed_cost(ctx: &Arc<Context>) -> Result<f64> {
    let a = Buffer::device_local(ctx, "vksort::calibrate::a", 16)?;
    let b = Buffer::device_local(ctx, "vksort::calibrate::b", 16)?;
    const K: usize = 8;
    let mut prof = Profiler::new(ctx, K as u32 + 2)?;
    let mut samples = Vec::new();
    for _ in 0..5 {
        ctx.submit_profiled("vksort::calibrate::fixed", Some(&mut prof), |rec| {
            for _ in 0..K {
                vksort::copy::cmd_copy(rec, a.as_ref(), b.as_ref(), 16)?;
                rec.barrier();
            }
            Ok(())
        })?;
        let r = prof.results()?;
        // the first pass includes the submission start; take the others
        samples.extend(r.iter().skip(1).map(|p| p.ns));
    }
    if samples.is_empty() {
        return Err(Error::InvalidArgument("no timestamps".into()));
    }
    samples.sort_by(|x, y| x.total_cmp(y));
    Ok(samples[samples.len() / 2].max(1.0))
}
