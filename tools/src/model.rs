//! The performance model: for every pass of every algorithm, the bytes it reads and writes and its work per key
//! as formulas of N, key and value width and policy; a per-device calibration (roofline, fixed cost per
//! dispatch, per-algorithm efficiency) cached on disk; predictions; and the `--algo auto` choice.
//!
//! Workloads (bytes; k = key bytes, v = value bytes, e = element bytes, D = digit passes = ceil(bits / d),
//! R = 2^d digits, T = tiles = ceil(N / tile)). The sorts' formulas live in the library, one per family
//! (`SortBackend::workload`, e.g. `vksort::sort::radix::workload`; the bitonic sort's in `vksort::sort::bitonic`);
//! a [`Shape::Sort`] carries the passes its sorter reports (`Sorter::workload`), so every registered family is
//! modelled without a line here. The radix sorts' workloads, for reference:
//! - Onesweep radix sort: an upfront histogram pass reads N k once for all digit places and writes D R counters;
//!   each of the D passes reads N (k + v) and writes N (k + v), plus the look-back's T R counters (written,
//!   read about twice); when D is odd a final copy moves N (k + v) back (read + write).
//! - Reduce-then-scan radix sort (Merrill & Grimshaw's workload, their Fig. 6): per digit place an upsweep reads
//!   N k and writes T R counts, a spine scans the T R counts (read + write), a downsweep reads N (k + v) and the
//!   counts and writes N (k + v): 3N words keys only, 5N with values, per place.
//! - Small (one workgroup) sort: reads and writes N (k + v) once.
//! - MSD sort (small N): a differ pass reads N k (none for one split tile); a split pass reads one AND/OR word set
//!   per split tile in each workgroup, reads N (k + v) and writes it to the scratch with a run table (R words per
//!   tile); a bucket pass reads two run-table rows per bucket and N (k + v), and writes N (k + v) back.
//! - Scans: decoupled look-back 2N e (+ tile descriptors); reduce-then-scan 3N e (reduce N, spine, downsweep
//!   reads N writes N); Blelloch ~4N e (block scan read+write, block sums, uniform add read+write);
//!   Hillis-Steele 2N e per step, ceil(log2 N) steps.
//! - Compaction: reads N e (and N 4 of flags), writes the kept fraction of N e and a count.
//! - Reduction: reads N e, writes one partial per workgroup and the result.
//! - Copy: reads and writes N e.
//!
//! Prediction = fixed cost x dispatches + overhead of the algorithm + bytes / (roofline x efficiency of the
//! algorithm), where the roofline
//! is the compute-copy bandwidth (read + write counted) measured on the device, the fixed cost the time of a
//! trivial dispatch, and efficiency and overhead the slope and intercept of the algorithm's time measured at
//! two sizes (N and 4N: 2^21 on GPUs, 2^12 on CPU devices), every run verified.
//! The calibration is cached as JSON under `dirs::cache_dir()/vksort/` (or `$VKSORT_CACHE_DIR`), keyed by
//! device UUID and driver version, and recomputed when either changes.

use crate::bench::data::{self, ElemType};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use vksort::gpu::Context;
use vksort::sort::{Selector, SortConfig, Sorter};
use vksort::workload::CostModel;

pub use vksort::workload::PassModel;

/// What an algorithm run does, in the model's terms.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Sort {
        /// The algorithm that runs (Auto resolved).
        algo: String,
        key: ElemType,
        value: Option<ElemType>,
        /// Key bits taken into account (hi - lo of `--bits`, else the key width).
        key_bits: u32,
        n: u64,
        /// The library's modelled passes of the run (`Sorter::workload`; empty where unknown).
        passes: Vec<PassModel>,
    },
    Scan {
        algo: String,
        elem: ElemType,
        n: u64,
        tile: u64,
        /// The most elements the look-back scan takes in one workgroup, with no status cleared.
        single: u64,
        /// Whether the look-back run clears a status first (`ScanPolicy::clears_status`).
        clears: bool,
    },
    Compact {
        elem: ElemType,
        n: u64,
        flags: bool,
        kept_fraction: f64,
        /// Whether the run clears a status first (`CompactPolicy::clears_status`: never in one workgroup).
        clears: bool,
    },
    Reduce {
        elem: ElemType,
        n: u64,
    },
    Copy {
        elem: ElemType,
        n: u64,
    },
}

impl Shape {
    /// The efficiency key of the calibration (`sort/onesweep`, `scan/lookback`, `compact`, `copy`).
    pub fn algo_key(&self) -> String {
        match self {
            Shape::Sort { algo, .. } => format!("sort/{algo}"),
            Shape::Scan { algo, .. } => format!("scan/{algo}"),
            Shape::Compact { .. } => "compact".into(),
            Shape::Reduce { .. } => "reduce".into(),
            Shape::Copy { .. } => "copy".into(),
        }
    }

    pub fn n(&self) -> u64 {
        match self {
            Shape::Sort { n, .. }
            | Shape::Scan { n, .. }
            | Shape::Compact { n, .. }
            | Shape::Reduce { n, .. }
            | Shape::Copy { n, .. } => *n,
        }
    }
}

/// The pass group of a profiler label: per-place labels (`vksort::radix::onesweep::place3`) count as their
/// pass (`vksort::radix::onesweep`).
pub fn pass_group(label: &str) -> String {
    match label.rsplit_once("::place") {
        Some((head, tail)) if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) => {
            head.to_string()
        }
        _ => label.to_string(),
    }
}

/// The passes of an algorithm run and their workloads (see the module docs), labelled as the profiler reports
/// them after [`pass_group`].
pub fn passes(shape: &Shape) -> Vec<PassModel> {
    match shape {
        Shape::Sort { passes, .. } => passes.clone(),
        Shape::Scan {
            algo,
            elem,
            n,
            tile,
            single,
            clears,
        } => {
            let e = elem.bytes() as f64;
            let nf = *n as f64;
            let tile = (*tile).max(2) as f64;
            let tiles = (nf / tile).ceil().max(1.0);
            match algo.as_str() {
                "reduce-then-scan" => vec![
                    PassModel::new("vksort::scan::reduce", 1, nf * e, tiles * e, 1.0),
                    PassModel::new("vksort::scan::spine", 1, tiles * e, tiles * e, 0.0),
                    PassModel::new(
                        "vksort::scan::downsweep",
                        1,
                        nf * e + tiles * e,
                        nf * e,
                        2.0,
                    ),
                ],
                "blelloch" => {
                    // a tile scan per level (writing the level's tile sums), then a uniform add per lower level
                    let mut levels = 1u32;
                    let mut m = nf;
                    let mut tile_bytes = 0.0;
                    let mut add_bytes = 0.0;
                    loop {
                        let t = (m / tile).ceil().max(1.0);
                        tile_bytes += 2.0 * m * e + t * e;
                        if t <= 1.0 {
                            break;
                        }
                        add_bytes += 2.0 * m * e + t * e;
                        m = t;
                        levels += 1;
                    }
                    vec![
                        PassModel::new(
                            "vksort::scan::blelloch_tile",
                            levels,
                            tile_bytes / 2.0,
                            tile_bytes / 2.0,
                            2.0,
                        ),
                        PassModel::new(
                            "vksort::scan::add",
                            levels - 1,
                            add_bytes / 2.0,
                            add_bytes / 2.0,
                            1.0,
                        ),
                    ]
                }
                "hillis-steele" => {
                    let steps = nf.max(2.0).log2().ceil() as u32;
                    vec![
                        PassModel::new(
                            "vksort::scan::hillis_steele",
                            steps,
                            steps as f64 * 2.0 * nf * e,
                            steps as f64 * nf * e,
                            steps as f64,
                        ),
                        PassModel::new("vksort::scan::shift", 1, nf * e, nf * e, 0.0),
                    ]
                }
                _ if n <= single => vec![PassModel::new(
                    "vksort::scan::lookback",
                    1,
                    nf * e,
                    nf * e,
                    1.0,
                )],
                _ => {
                    let mut passes = vec![PassModel::new(
                        "vksort::scan::lookback",
                        1,
                        nf * e + 2.0 * tiles * 2.0 * e,
                        nf * e + tiles * 2.0 * e,
                        2.0,
                    )];
                    if *clears {
                        let clear = 16.0 + tiles * 2.0 * e;
                        passes.insert(0, PassModel::new("vksort::scan::clear", 1, 0.0, clear, 0.0));
                    }
                    passes
                }
            }
        }
        Shape::Compact {
            elem,
            n,
            flags,
            kept_fraction,
            clears,
        } => {
            let e = elem.bytes() as f64;
            let nf = *n as f64;
            let tiles = (nf / 4096.0).ceil().max(1.0);
            let clear = PassModel::new("vksort::compact::clear", 1, 0.0, 16.0 + tiles * 8.0, 0.0);
            let pass = PassModel::new(
                "vksort::compact",
                1,
                nf * e + if *flags { nf * 4.0 } else { 0.0 } + 2.0 * tiles * 8.0,
                nf * e * kept_fraction + 4.0 + tiles * 8.0,
                2.0,
            );
            if *clears {
                vec![clear, pass]
            } else {
                vec![pass]
            }
        }
        Shape::Reduce { elem, n } => {
            let e = elem.bytes() as f64;
            vec![
                PassModel::new("vksort::reduce::clear", 1, 0.0, 16.0, 0.0),
                PassModel::new("vksort::reduce", 1, *n as f64 * e, 1024.0 * e + e, 1.0),
            ]
        }
        Shape::Copy { elem, n } => {
            let b = *n as f64 * elem.bytes() as f64;
            vec![PassModel::new("vksort::copy", 1, b, b, 0.0)]
        }
    }
}

/// Total modelled bytes (read + write) of a run.
pub fn bytes_moved(shape: &Shape) -> f64 {
    passes(shape).iter().map(PassModel::bytes).sum()
}

/// Total modelled dispatches of a run.
pub fn dispatches(shape: &Shape) -> u32 {
    passes(shape).iter().map(|p| p.dispatches).sum()
}

/// What bounds a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    /// At least half the roofline (modelled bytes over the measured time).
    Bandwidth,
    /// Dominated by the fixed cost of launching dispatches and their latency (at most twice the calibrated
    /// per-dispatch cost).
    Latency,
    /// Neither: below the roofline with work to do (compute, synchronization, poor access patterns).
    Compute,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Bandwidth => "bandwidth",
            Bound::Latency => "latency/launch",
            Bound::Compute => "compute/sync",
        }
    }
}

/// The per-device calibration of the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub device_name: String,
    /// Hex of the device UUID.
    pub device_uuid: String,
    pub driver_version: u32,
    pub driver_info: String,
    /// Compute-copy bandwidth, bytes per second, read + write counted.
    pub roofline_bytes_per_s: f64,
    /// Time of one trivial dispatch (with its barrier), nanoseconds.
    pub fixed_ns_per_dispatch: f64,
    /// Per algorithm (`sort/onesweep`, `scan/lookback`, ...): modelled bytes per second over the roofline.
    pub efficiency: BTreeMap<String, f64>,
    /// Per algorithm: fixed time beyond the per-dispatch cost (waits, single-workgroup passes), nanoseconds.
    pub overhead_ns: BTreeMap<String, f64>,
    /// The algorithms this build had when calibrating (a build with other algorithms recalibrates).
    pub algorithms: Vec<String>,
    pub vksort_version: String,
    /// Seconds since the Unix epoch when measured.
    pub created_unix_s: u64,
}

/// Hex of a UUID.
pub fn uuid_hex(u: &[u8; 16]) -> String {
    u.iter().map(|b| format!("{b:02x}")).collect()
}

impl Calibration {
    /// The efficiency of `algo_key`, or 0.5 where it was never measured.
    pub fn efficiency_of(&self, algo_key: &str) -> f64 {
        self.efficiency.get(algo_key).copied().unwrap_or(0.5)
    }

    /// The library's cost model with this calibration's numbers (what Auto uses with
    /// [`vksort::sort::Selector::Model`]).
    pub fn cost_model(&self) -> CostModel {
        CostModel {
            roofline_bps: self.roofline_bytes_per_s,
            fixed_ns: self.fixed_ns_per_dispatch,
            efficiency: self.efficiency.clone(),
            overhead_ns: self.overhead_ns.clone(),
        }
    }

    /// Predicted time of one pass in nanoseconds.
    pub fn predict_pass_ns(&self, algo_key: &str, pass: &PassModel) -> f64 {
        self.cost_model().predict_pass_ns(algo_key, pass)
    }

    /// Predicted time of a run in nanoseconds: its passes plus the algorithm's calibrated overhead.
    pub fn predict_ns(&self, shape: &Shape) -> f64 {
        self.cost_model()
            .predict_ns(&shape.algo_key(), &passes(shape))
    }

    /// What bounds a pass that took `measured_ns`.
    pub fn bound(&self, pass: &PassModel, measured_ns: f64) -> Bound {
        let launch = self.fixed_ns_per_dispatch * pass.dispatches as f64;
        let bw_ns = pass.bytes() / self.roofline_bytes_per_s * 1e9;
        if measured_ns <= 2.0 * launch {
            Bound::Latency
        } else if bw_ns >= 0.5 * measured_ns {
            Bound::Bandwidth
        } else {
            Bound::Compute
        }
    }

    /// The cache file for a device: `$VKSORT_CACHE_DIR` or `dirs::cache_dir()/vksort/`, then
    /// `calibration-<device uuid>.json`.
    pub fn cache_path(ctx: &Context) -> Option<PathBuf> {
        Some(Self::cache_dir()?.join(format!(
            "calibration-{}.json",
            uuid_hex(&ctx.caps().device_uuid)
        )))
    }

    /// The cache directory: `$VKSORT_CACHE_DIR`, else `dirs::cache_dir()/vksort`.
    pub fn cache_dir() -> Option<PathBuf> {
        match std::env::var_os("VKSORT_CACHE_DIR") {
            Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
            _ => Some(dirs::cache_dir()?.join("vksort")),
        }
    }

    /// Writes the calibration to the cache (temporary file, then rename).
    pub fn save(&self, ctx: &Context) -> std::io::Result<PathBuf> {
        let path = Self::cache_path(ctx)
            .ok_or_else(|| std::io::Error::other("no cache directory on this system"))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension(format!("json.tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_string_pretty(self).unwrap())?;
        std::fs::rename(&tmp, &path)?;
        Ok(path)
    }

    /// What `--algo auto` sorts (key, value, bits, N) with: the library's Auto with this calibration as its
    /// cost model ([`vksort::sort::Selector::Model`]), and the predicted time in nanoseconds.
    pub fn choose_sort(
        &self,
        ctx: &Arc<Context>,
        key: ElemType,
        value: Option<ElemType>,
        bits: Option<(u32, u32)>,
        n: u64,
    ) -> Option<(String, f64)> {
        let config = SortConfig {
            key: data::key_type(key).ok()?,
            value: data::value_type(value).ok()?,
            bits,
            max_n: n.max(1),
            ..Default::default()
        };
        let (a, ns) = Sorter::builder(ctx, config)
            .selector(Selector::Model(Arc::new(self.cost_model())))
            .choose(n)
            .ok()?;
        Some((a.name().to_string(), ns?))
    }
}
