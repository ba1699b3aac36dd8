//! The performance model's library side: the passes of a run with the bytes they move ([`PassModel`]) and the
//! cost model that predicts their time ([`CostModel`], used by [`crate::sort::Selector::Model`]): fixed cost x
//! dispatches + the algorithm's overhead + bytes / (roofline x the algorithm's efficiency). `vksort calibrate`
//! measures the terms (docs/architecture.md, "The cost model").

use std::collections::BTreeMap;

/// One pass (or group of identical dispatches) of an algorithm run.
#[derive(Clone, Debug, PartialEq)]
pub struct PassModel {
    /// The pass label the profiler reports, per-place suffixes removed (`vksort::radix::onesweep`).
    pub label: String,
    /// Dispatches (or fills/copies) of this pass.
    pub dispatches: u32,
    /// Bytes read from device memory.
    pub read_bytes: f64,
    /// Bytes written to device memory.
    pub write_bytes: f64,
    /// Work per key in simple operations (digit extraction, scan steps, ranking), a rough compute indicator.
    pub ops_per_key: f64,
}

impl PassModel {
    /// A pass of `dispatches` dependent dispatches reading `read` and writing `write` bytes, `ops` per key.
    pub fn new(label: &str, dispatches: u32, read: f64, write: f64, ops: f64) -> Self {
        Self {
            label: label.into(),
            dispatches,
            read_bytes: read,
            write_bytes: write,
            ops_per_key: ops,
        }
    }

    /// Bytes read and written.
    pub fn bytes(&self) -> f64 {
        self.read_bytes + self.write_bytes
    }
}

/// A device's calibrated cost model.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CostModel {
    /// Compute-copy bandwidth, bytes per second (read + write).
    pub roofline_bps: f64,
    /// Time of one trivial dispatch with its barrier, nanoseconds.
    pub fixed_ns: f64,
    /// Fraction of the roofline each algorithm reaches, by efficiency key (`sort/onesweep`, `scan/lookback`).
    pub efficiency: BTreeMap<String, f64>,
    /// Each algorithm's time beyond its bytes and dispatches, nanoseconds, by efficiency key.
    pub overhead_ns: BTreeMap<String, f64>,
}

impl CostModel {
    /// The efficiency of `algo_key`, or 0.5 where it was never measured.
    pub fn efficiency_of(&self, algo_key: &str) -> f64 {
        self.efficiency.get(algo_key).copied().unwrap_or(0.5)
    }

    /// Predicted time of one pass, nanoseconds.
    pub fn predict_pass_ns(&self, algo_key: &str, pass: &PassModel) -> f64 {
        let eff = self.efficiency_of(algo_key).max(1e-3);
        self.fixed_ns * pass.dispatches as f64 + pass.bytes() / (self.roofline_bps * eff) * 1e9
    }

    /// Predicted time of a run made of `passes`, nanoseconds.
    pub fn predict_ns(&self, algo_key: &str, passes: &[PassModel]) -> f64 {
        let overhead = self.overhead_ns.get(algo_key).copied().unwrap_or(0.0);
        passes
            .iter()
            .map(|p| self.predict_pass_ns(algo_key, p))
            .sum::<f64>()
            + overhead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> CostModel {
        CostModel {
            roofline_bps: 1e9,
            fixed_ns: 1_000.0,
            efficiency: BTreeMap::from([("sort/onesweep".to_string(), 0.25)]),
            overhead_ns: BTreeMap::from([("sort/onesweep".to_string(), 500.0)]),
        }
    }

    #[test]
    fn a_pass_costs_its_dispatches_and_its_bytes_at_the_algorithm_efficiency() {
        let pass = PassModel::new("vksort::radix::onesweep", 3, 600.0, 400.0, 1.0);
        assert_eq!(pass.bytes(), 1000.0);
        // 3 dispatches x 1 us + 1000 B at a quarter of 1 GB/s (4 us).
        assert_eq!(model().predict_pass_ns("sort/onesweep", &pass), 7_000.0);
        // An algorithm never measured runs at half the roofline (2 us).
        assert_eq!(model().predict_pass_ns("sort/merge", &pass), 5_000.0);
    }

    #[test]
    fn a_run_adds_its_overhead_once() {
        let passes = [
            PassModel::new("a", 1, 0.0, 0.0, 0.0),
            PassModel::new("b", 2, 0.0, 0.0, 0.0),
        ];
        assert_eq!(model().predict_ns("sort/onesweep", &passes), 3_500.0);
        assert_eq!(model().predict_ns("sort/merge", &passes), 3_000.0);
        assert_eq!(model().predict_ns("sort/onesweep", &[]), 500.0);
    }
}
