//! The benchmark: sweeps operations x algorithms x key types x value widths x sizes x distributions, times each
//! configuration with timestamp queries (warm-up, then repeats: median, min, max), verifies every
//! configuration's result (a wrong result is reported as FAILED, never as a number: on the CPU, or for sorts of
//! [`BenchOptions::gpu_check_min`] keys or more where the result lies, with [`vksort::sort::check`], reading
//! it back for the CPU check only when that fails), measures the
//! compute-copy roofline in the same run, and relates every figure to the model ([`crate::model`]): bytes moved
//! per the design over the measured time, as a fraction of the roofline; per-pass predicted versus measured
//! time; the calibrated model's choice versus the best measured algorithm. [`report`] prints and writes CSV/JSON,
//! [`plot`] draws SVG, [`compare`] reads CUB's figures (the CSV of `cub_bench.cu`).
//!
//! Inputs are generated once per (element types, distribution, N) and shared by the algorithms that run them;
//! in-place sorts restore their input from the pristine copy before each run (not timed).
//!
//! Sort algorithms come from the library's `SortAlgorithm::ALL` (`--algos all`). A configuration an algorithm
//! cannot run is skipped with the reason, never dropped silently: the library refuses the key type (the radix
//! sorts and u128 keys), the size is above the algorithm's capacity (the one-workgroup sorts), or the device
//! cannot hold it. The reasons appear under the text table, in `bench.md` (the issue tables: algorithm x
//! distribution per N, rate by N per key type, key-width ratios, the fastest algorithm per N) and in
//! `skipped.csv`.
//!
//! GPU-side counts (`--counts host,gpu`, [`BenchOptions::counts`]): every sort configuration is also run as a
//! renderer records a sort of a count that lives on the GPU, with `Sorter::cmd_sort_indirect`: a device-local
//! count buffer holding N (written once; the sort only reads it), a capacity of 2N (the sorter's `max_n`,
//! the key and value buffers and the scratch made for 2N keys; the keys and values past N hold a copy of the
//! input, so that a sort reading past the count would fail its check), the first N restored before each run and
//! verified as the host form's are. Its rows carry the operation name with [`ops::GPU_COUNT_SUFFIX`]
//! (`sort_keys_u32_gpucount`: their own tables and plots; compared with CUB's figures of the operation without
//! it) and `count` = `gpu`; their algorithm (`ran`) is what the sorter runs for the capacity (Auto chooses by
//! the capacity with a GPU-side count). [`tables::count_comparison`] sets each beside its host form.

pub mod compare;
pub mod data;
pub mod dist;
pub mod ops;
pub mod plot;
pub mod report;
pub mod tables;
pub mod verify;

use crate::model::{self, Calibration};
use data::ElemType;
use dist::Dist;
use ops::{CountForm, DeviceInput, FlagMode, Input, OpSpec};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use vksort::gpu::Context;
use vksort::{Error, Result};

/// See [`BenchOptions::max_run_ms`].
pub const SLOW_FACTOR: f64 = 10.0;

/// What to sweep.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// log2 of the sizes.
    pub sizes: Vec<u32>,
    /// Families: `sort`, `scan`, `compact`, `reduce`, `copy`.
    pub ops: Vec<String>,
    /// Sort algorithms (default: every one of this build).
    pub sort_algos: Option<Vec<String>>,
    /// Scan algorithms (default: every one of this build).
    pub scan_algos: Option<Vec<String>>,
    /// Key types of sorts (scans take the u32/u64 ones, compaction and copy u32).
    pub keys: Vec<ElemType>,
    /// Value widths of sorts (`None`: keys only).
    pub values: Vec<Option<ElemType>>,
    pub dists: Vec<Dist>,
    /// Timed repeats per configuration (at most: see `budget_ms`).
    pub reps: usize,
    /// GPU time in milliseconds that bounds a slow configuration's timed repeats (at least 3 are taken; see
    /// [`ops::time`]); 0: always `reps`. Default 1000.
    pub budget_ms: f64,
    /// Sorts whose run would take longer than this many milliseconds and more than [`SLOW_FACTOR`] times the
    /// fastest of the sweep's algorithms for the same operation and size are skipped (listed with the
    /// estimate); 0: none. The estimate scales the configuration's time at the last size it was measured at
    /// (2^20 keys or more) linearly in N (an underestimate for the O(n log^2 n) sorts). Default 50: the
    /// standard sweep's slowest comparison sorts at 2^26-2^28 keys on an H200 (WarpSort 0.2-0.8 s per run,
    /// quicksort 0.06-0.26 s) took seconds each for figures 25-75x off the radix sorts'.
    pub max_run_ms: f64,
    /// Untimed runs before them.
    pub warmup: usize,
    pub seed: u64,
    /// Also sweep descending sorts.
    pub descending: bool,
    /// Also sweep key-only sorts on this bit range (CUB's `sort_keys_u32_bits0-16`).
    pub bits: Option<(u32, u32)>,
    /// The count forms of every sort configuration: the host's n (`Sorter::cmd_sort`) and/or a GPU-side count
    /// (`Sorter::cmd_sort_indirect`: a count buffer holding N, capacity 2N; see the module's docs). Default
    /// host only.
    pub counts: Vec<CountForm>,
    /// Up to this N, results are verified with the exact O(n log n) checks (a CPU sort each); above, with the
    /// linear ones. Default 2^18 (at 2^20 the CPU sorts took 10 s of a standard sweep on an H200 host).
    pub exact_check_max: usize,
    /// From this N on, sorts are checked where their result lies
    /// ([`vksort::sort::check`]: order, stability, a fingerprint against the input's) and read back only when
    /// that check fails, for the CPU check that names the fault; 0: every result is read back. Default 2^22
    /// (reading results back took 54 s of a standard sweep on the H200 machine, at ~2.6 GB/s).
    pub gpu_check_min: u64,
}

impl BenchOptions {
    /// The standard sweep: 2^10..2^28 every 2 (clipped to the device), u32/f32/u64 keys, keys only and u32
    /// values, uniform keys, every family.
    pub fn standard() -> Self {
        Self {
            sizes: (10..=28).step_by(2).collect(),
            ops: vec![
                "sort".into(),
                "scan".into(),
                "compact".into(),
                "copy".into(),
            ],
            sort_algos: None,
            scan_algos: None,
            keys: vec![ElemType::U32, ElemType::F32, ElemType::U64],
            values: vec![None, Some(ElemType::U32)],
            dists: vec![Dist::Uniform],
            reps: 10,
            budget_ms: 1000.0,
            max_run_ms: 50.0,
            warmup: 2,
            seed: 1234,
            descending: false,
            bits: None,
            counts: vec![CountForm::Host],
            exact_check_max: 1 << 18,
            gpu_check_min: 1 << 22,
        }
    }

    /// `--quick`: a few small sizes, u32 keys, 3 repeats (under a minute on lavapipe).
    pub fn quick() -> Self {
        Self {
            sizes: vec![10, 14],
            keys: vec![ElemType::U32],
            reps: 3,
            warmup: 1,
            ..Self::standard()
        }
    }

    /// Every configuration, in an order that keeps configurations sharing an input together; sorts an
    /// algorithm cannot run carry the reason ([`ops::sort_check`]: the library's check, the published
    /// capacities) and are skipped.
    pub fn plan(&self, ctx: &Arc<Context>) -> Vec<Planned> {
        let mut out: Vec<Planned> = Vec::new();
        let mut checked: HashMap<String, std::result::Result<(), String>> = HashMap::new();
        let has = |f: &str| self.ops.iter().any(|o| o == f);
        let sort_algos: Vec<String> = match &self.sort_algos {
            Some(a) => a.clone(),
            None => ops::sort_algorithms()
                .iter()
                .map(|s| s.to_string())
                .collect(),
        };
        let scan_algos: Vec<String> = match &self.scan_algos {
            Some(a) => a.clone(),
            None => ops::scan_algorithms()
                .iter()
                .map(|s| s.to_string())
                .collect(),
        };
        for &lg in &self.sizes {
            let n = 1u64 << lg;
            for &dist in &self.dists {
                if has("sort") {
                    for &key in &self.keys {
                        for &value in &self.values {
                            for desc in [false, true] {
                                if desc && !self.descending {
                                    continue;
                                }
                                let ranges = match self.bits {
                                    Some(b) if value.is_none() && !desc && b.1 <= key.bits() => {
                                        vec![None, Some(b)]
                                    }
                                    _ => vec![None],
                                };
                                for bits in ranges {
                                    // each algorithm's count forms side by side (the same input)
                                    for (algo, &count) in sort_algos
                                        .iter()
                                        .flat_map(|a| self.counts.iter().map(move |c| (a, c)))
                                    {
                                        let spec = OpSpec::Sort {
                                            algo: algo.clone(),
                                            key,
                                            value,
                                            descending: desc,
                                            bits,
                                            count,
                                        };
                                        let skip = checked
                                            .entry(format!("{spec:?}|{n}"))
                                            .or_insert_with(|| ops::sort_check(ctx, &spec, n))
                                            .clone()
                                            .err();
                                        out.push(Planned {
                                            spec,
                                            dist,
                                            n,
                                            skip,
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
                if has("scan") {
                    for &elem in self
                        .keys
                        .iter()
                        .filter(|k| matches!(k, ElemType::U32 | ElemType::U64))
                    {
                        for algo in &scan_algos {
                            // Hillis-Steele moves 2N log N words: keep it to moderate sizes.
                            if algo == "hillis-steele" && lg > 24 {
                                continue;
                            }
                            out.push(Planned::run(
                                OpSpec::Scan {
                                    algo: algo.clone(),
                                    elem,
                                    inclusive: false,
                                },
                                dist,
                                n,
                            ));
                        }
                    }
                }
                if has("compact") {
                    out.push(Planned::run(
                        OpSpec::Compact {
                            elem: ElemType::U32,
                            flags: FlagMode::Odd,
                        },
                        dist,
                        n,
                    ));
                }
                if has("reduce") {
                    for &elem in self
                        .keys
                        .iter()
                        .filter(|k| matches!(k, ElemType::U32 | ElemType::U64))
                    {
                        out.push(Planned::run(
                            OpSpec::Reduce {
                                elem,
                                op: "sum".into(),
                            },
                            dist,
                            n,
                        ));
                    }
                }
                if has("copy") {
                    out.push(Planned::run(
                        OpSpec::Copy {
                            elem: ElemType::U32,
                        },
                        dist,
                        n,
                    ));
                }
            }
        }
        out
    }
}

/// One configuration of a sweep.
#[derive(Clone, Debug)]
pub struct Planned {
    pub spec: OpSpec,
    pub dist: Dist,
    pub n: u64,
    /// Why it will not run (known before running it), if so.
    pub skip: Option<String>,
}

impl Planned {
    fn run(spec: OpSpec, dist: Dist, n: u64) -> Self {
        Self {
            spec,
            dist,
            n,
            skip: None,
        }
    }
}

/// Why a configuration was not run.
#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    pub op: String,
    /// The operation without its distribution suffix (as [`Row::base_op`]).
    pub base_op: String,
    pub family: String,
    pub algo: String,
    pub key: String,
    pub value: String,
    pub dist: String,
    pub n: u64,
    pub reason: String,
    /// `host`, or `gpu` for a sort with a GPU-side count.
    pub count: CountForm,
}

/// One pass of a measured configuration, next to the model.
#[derive(Clone, Debug, Serialize)]
pub struct PassRow {
    pub label: String,
    pub ms: f64,
    /// Predicted by the calibrated model (absent for passes the model does not know).
    pub model_ms: Option<f64>,
    pub model_bytes: Option<f64>,
    /// Modelled bytes over the measured time, GB/s.
    pub gbytes_per_s: Option<f64>,
    pub roofline_fraction: Option<f64>,
    pub bound: Option<String>,
}

/// One measured configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// CUB-style operation name (`sort_pairs_u32_u32`, `sort_keys_u32_gaussian`, ...).
    pub op: String,
    /// The operation name without the distribution suffix (`sort_keys_u32`).
    pub base_op: String,
    pub family: String,
    pub algo: String,
    /// The algorithm that ran (what `auto` resolved to; the same as `algo` otherwise).
    pub ran: String,
    pub key: String,
    pub value: String,
    pub dist: String,
    pub n: u64,
    /// Key bits sorted on (sorts; the element width otherwise).
    pub key_bits: u32,
    pub reps: usize,
    /// Whether the result matched the CPU. Rows that failed carry no timings.
    pub verified: bool,
    pub failure: Option<String>,
    pub ms_median: f64,
    pub ms_min: f64,
    pub ms_max: f64,
    /// Items per second, billions.
    pub gitems_per_s: f64,
    /// Bytes the design moves per run (the model), over the median time: GB/s.
    pub model_bytes: f64,
    pub gbytes_per_s: f64,
    /// `gbytes_per_s` over the roofline measured in this run.
    pub roofline_fraction: f64,
    pub predicted_ms: f64,
    /// The median run's summed per-pass times (runs with a stamp after every pass), ms: more than `ms_median`
    /// by what those stamps cost.
    pub per_pass_sum_ms: f64,
    pub passes: Vec<PassRow>,
    /// CUB's median for the same op and N (with `--compare`).
    pub cub_ms: Option<f64>,
    /// CUB time / vksort time (> 1: vksort is faster).
    pub cub_ratio: Option<f64>,
    /// CUB's merge sort median for the same op and N (`merge_<op>` in the CUB file: `cub_bench.cu`,
    /// `scripts/anchors/cub_merge_bench.cu`).
    pub cub_merge_ms: Option<f64>,
    /// CUB merge sort time / vksort time.
    pub cub_merge_ratio: Option<f64>,
    /// Wall time of this configuration, seconds, by phase as [`Report::phases_s`] (inputs, prepare, timing,
    /// readback, checks; inputs only where this configuration generated and uploaded them).
    pub wall_s: [f64; 5],
    /// `host`, or `gpu` for a sort with a GPU-side count ([`CountForm`]: `Sorter::cmd_sort_indirect`, a count
    /// buffer holding N, capacity 2N; its `op` ends in [`ops::GPU_COUNT_SUFFIX`]).
    pub count: CountForm,
}

/// For a sort (op, distribution, N): what `--algo model` picks (the calibrated model; `auto` is not calibrated),
/// and how its measured time compares with the best measured algorithm.
#[derive(Clone, Debug, Serialize)]
pub struct AutoRow {
    pub op: String,
    pub dist: String,
    pub n: u64,
    pub choice: String,
    /// The model's prediction for the choice (for a GPU-count sort, whose choice is made for the capacity 2N:
    /// the prediction of a sort of 2N keys).
    pub choice_predicted_ms: f64,
    pub choice_ms: Option<f64>,
    pub best_algo: String,
    pub best_ms: f64,
    /// best time / choice's time (1.0: auto picked the best).
    pub efficiency: Option<f64>,
}

/// A benchmark run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub device: String,
    pub driver: String,
    pub vksort_version: String,
    /// Compute-copy roofline of this run, GB/s (read + write).
    pub roofline_gbps: f64,
    pub fixed_us_per_dispatch: f64,
    pub calibration: Calibration,
    pub rows: Vec<Row>,
    pub auto: Vec<AutoRow>,
    pub skipped: Vec<Skipped>,
    /// The device line of the CUB file compared with.
    pub cub_device: Option<String>,
    /// CUB's figures compared with (for the tables' CUB rows).
    #[serde(skip)]
    pub cub: Option<compare::CubFigures>,
    /// Where the sweep's wall time went, in seconds: `inputs` (generation and upload), `prepare` (sorters and
    /// kernels), `timing` (probe, warm-up, timed and per-pass runs), `readback`, `checks` (CPU verification, on
    /// threads of its own while the next configuration is prepared and timed: not part of the wall time).
    pub phases_s: Vec<(String, f64)>,
}

impl Report {
    /// Rows whose result was wrong.
    pub fn failures(&self) -> Vec<&Row> {
        self.rows.iter().filter(|r| !r.verified).collect()
    }
}

/// Largest N of `spec` the device can hold (one binding per array within `maxStorageBufferRange`, except sorts
/// where device addresses are enabled; inputs,
/// working copies, outputs and scratch within about 60% of device memory).
pub fn max_items(ctx: &Context, spec: &OpSpec) -> u64 {
    let caps = ctx.caps();
    let widest = match spec {
        OpSpec::Sort { key, value, .. } => key.bytes().max(value.map_or(0, |v| v.bytes())),
        _ => spec.elem().bytes(),
    } as u64;
    // Sorts larger than one binding are cut into portions and written through device addresses.
    let by_range = match spec {
        OpSpec::Sort { .. } if caps.buffer_device_address => u64::MAX,
        _ => caps.max_storage_buffer_range / widest,
    };
    let by_memory =
        (caps.device_local_bytes as f64 * 0.6 / (4.0 * spec.item_bytes() as f64)) as u64;
    // A sort with a GPU-side count holds its capacity, 2N, in its arrays and scratch.
    by_range.min(by_memory) / spec.capacity(1)
}

/// Progress callback: (configurations done, total, what is running, the row just measured if any).
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize, &str, Option<&Row>);

/// Runs the sweep. `cal` is the calibrated model (see [`Calibration::load_or_calibrate`]); `roofline` the
/// compute-copy bandwidth measured in this run.
pub fn run(
    ctx: &Arc<Context>,
    opts: &BenchOptions,
    cal: &Calibration,
    roofline: f64,
    progress: Progress,
) -> Result<Report> {
    let plan = opts.plan(ctx);
    let total = plan.len();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    // the input (and its fingerprint, for GPU-side checks, once needed) shared by consecutive configurations
    let mut cache: Option<CachedInput> = None;
    // The last configuration's check, on threads of its own while the next one is prepared and timed.
    let mut pending: Option<Pending> = None;
    // capacities sorters reported (Error::AlgorithmLimit), by algorithm and element types
    let mut limits: HashMap<String, (u64, String)> = HashMap::new();
    let mut phases = [0.0f64; 5]; // inputs, prepare, timing, readback, checks

    // The sorts' kernels, built on every host thread first (the sweep then finds them in the context's cache).
    let t = std::time::Instant::now();
    let sorts: Vec<(&OpSpec, u64)> = plan
        .iter()
        .filter(|p| p.skip.is_none() && p.spec.family() == "sort" && p.spec.available())
        .filter(|p| p.n <= max_items(ctx, &p.spec))
        .map(|p| (&p.spec, p.n))
        .collect();
    progress(
        0,
        plan.len(),
        &format!(
            "building {} sorters (compiling their pipelines)",
            sorts.len()
        ),
        None,
    );
    crate::progress::debug(format!(
        "building {} sorters on every host thread",
        sorts.len()
    ));
    ops::prebuild_sorters(ctx, &sorts);
    crate::progress::debug(format!(
        "sorters built in {:.1} s",
        t.elapsed().as_secs_f64()
    ));
    phases[1] += t.elapsed().as_secs_f64();
    // --max-ms: each sort configuration's last measured time per run (its N, ms), by (operation, configuration)
    let mut measured = Measured::new();
    // Waits for the pending check, if any, and records its row.
    macro_rules! finish_pending {
        () => {
            if let Some(p) = pending.take() {
                finish(
                    p,
                    &plan,
                    cal,
                    roofline,
                    ctx,
                    &mut rows,
                    &mut measured,
                    &mut phases,
                    progress,
                );
            }
        };
    }
    for (i, planned) in plan.iter().enumerate() {
        let (spec, dist, n) = (&planned.spec, &planned.dist, &planned.n);
        // this configuration's wall time by phase (added to the sweep's at the end of each phase)
        let mut wall = [0.0f64; 5];
        let mut phase = |k: usize, t: std::time::Instant| {
            let dt = t.elapsed().as_secs_f64();
            wall[k] += dt;
            phases[k] += dt;
        };
        let name = spec.op_name(*dist);
        progress(
            i,
            total,
            &format!("{name} {} 2^{}", spec.algo(), n.trailing_zeros()),
            None,
        );
        let skip = |reason: String| skipped_entry(spec, *dist, *n, reason);
        if let Some(reason) = &planned.skip {
            skipped.push(skip(reason.clone()));
            continue;
        }
        if !spec.available() {
            skipped.push(skip("not in this build".into()));
            continue;
        }
        if *n > max_items(ctx, spec) {
            skipped.push(skip("larger than the device holds".into()));
            continue;
        }
        if let Some(reason) = too_slow(&measured, &config_key(spec, *dist), *n, opts.max_run_ms) {
            skipped.push(skip(reason));
            continue;
        }
        let limit_key = format!("{}|{:?}|{:?}", spec.algo(), spec.item_types(), spec.count());
        if let Some((max, note)) = limits.get(&limit_key) {
            // (a GPU-count sort's capacity is 2N)
            if spec.capacity(*n) > *max {
                skipped.push(skip(note.clone()));
                continue;
            }
        }
        let mut remember = |e: &Error| -> String {
            if let Error::AlgorithmLimit { algorithm, max, .. } = e {
                let note = ops::capacity_note_for(spec, algorithm, *max);
                limits.insert(limit_key.clone(), (*max, note.clone()));
                return note;
            }
            e.to_string()
        };
        // inputs shared by configurations with the same element types, flags, distribution and size
        let input_key = format!(
            "{:?}|{:?}|{dist}|{n}",
            spec.elem(),
            match spec {
                OpSpec::Sort { value, .. } => format!("{value:?}"),
                OpSpec::Compact { flags, .. } => format!("{flags:?}"),
                _ => String::new(),
            }
        );
        let t = std::time::Instant::now();
        if cache.as_ref().map(|c| &c.0) != Some(&input_key) {
            cache = None; // free the previous input first
            let input = Input::generate(spec, *n as usize, *dist, opts.seed);
            match DeviceInput::upload(ctx, &input) {
                Ok(dev) => cache = Some((input_key, Arc::new(input), dev, OnceLock::new())),
                Err(e) if ctx.is_lost() => return Err(e),
                Err(e) => {
                    skipped.push(skip(format!("upload: {e}")));
                    continue;
                }
            }
        }
        phase(0, t);
        let (_, input, dev, input_fp) = cache.as_ref().unwrap();
        let t = std::time::Instant::now();
        let runner = match ops::prepare(ctx, spec, dev) {
            Ok(r) => r,
            Err(e) if ctx.is_lost() => return Err(e),
            Err(e) => {
                skipped.push(skip(remember(&e)));
                continue;
            }
        };
        phase(1, t);
        let t = std::time::Instant::now();
        let timing = match ops::time(ctx, runner.as_ref(), opts.warmup, opts.reps, opts.budget_ms) {
            Ok(t) => t,
            Err(e @ Error::AlgorithmLimit { .. }) => {
                skipped.push(skip(remember(&e)));
                continue;
            }
            // A timeout or a lost device ends the sweep: the context frees nothing any more (Context::is_lost)
            // and every later run would fail the same way.
            Err(e) if ctx.is_lost() => return Err(e),
            Err(e) => {
                skipped.push(skip(format!("run: {e}")));
                continue;
            }
        };
        phase(2, t);
        // Large sorts: checked on the GPU first; the result travels only if that check fails.
        let exact = (*n as usize) <= opts.exact_check_max;
        let gpu_checked = if opts.gpu_check_min > 0 && *n >= opts.gpu_check_min {
            let t = std::time::Instant::now();
            let report = runner.gpu_check();
            let expected = input_fp.get_or_init(|| ops::input_fingerprint(spec, input));
            let outcome = match (report, expected) {
                (Some(Ok(r)), Some(fp)) if r.passes(*fp) => Some(Ok(())),
                (Some(Ok(r)), Some(fp)) => Some(Err(gpu_check_fault(&r, *fp))),
                (Some(Err(e)), _) if ctx.is_lost() => return Err(e),
                (Some(Err(e)), _) => Some(Err(format!("the GPU-side check could not run: {e}"))),
                _ => None,
            };
            outcome.map(|o| (o, t.elapsed().as_secs_f64()))
        } else {
            None
        };
        let sort_run = runner.sort_run();
        // What is left to check: nothing when the GPU-side check passed; else the result, read back here and
        // checked on the CPU, which names the fault (and a GPU-side fault the CPU does not see still fails the
        // row: one of the two checks is wrong).
        let check: CheckJob = match gpu_checked {
            Some((Ok(()), secs)) => {
                drop(runner);
                Box::new(move || (None, secs))
            }
            gpu_checked => {
                let t = std::time::Instant::now();
                let output = match runner.output() {
                    Ok(o) => o,
                    Err(e) if ctx.is_lost() => return Err(e),
                    Err(e) => {
                        skipped.push(skip(format!("reading the result: {e}")));
                        continue;
                    }
                };
                drop(runner);
                phase(3, t);
                let (spec_c, input_c) = (spec.clone(), input.clone());
                let gpu_fault = gpu_checked.and_then(|(o, _)| o.err());
                Box::new(move || {
                    let t = std::time::Instant::now();
                    let check = ops::verify(&spec_c, &input_c, &output, exact).err();
                    let check = check.or(gpu_fault.map(|f| verify::Mismatch {
                        index: 0,
                        message: format!("{f}, but the CPU check of the result read back passed"),
                    }));
                    (check, t.elapsed().as_secs_f64())
                })
            }
        };
        // The check runs while the next configuration is prepared and timed (the CPU is idle then); the
        // previous check is collected first, so checks never overlap one another.
        finish_pending!();
        pending = Some(Pending {
            index: i,
            timing,
            sort_run,
            wall,
            check: std::thread::spawn(check),
        });
    }
    finish_pending!();
    progress(total, total, "done", None);
    let auto = auto_rows(&rows, cal, ctx);
    Ok(Report {
        device: ctx.caps().name.clone(),
        driver: ctx.caps().driver_info.clone(),
        vksort_version: env!("CARGO_PKG_VERSION").into(),
        roofline_gbps: roofline / 1e9,
        fixed_us_per_dispatch: cal.fixed_ns_per_dispatch / 1e3,
        calibration: cal.clone(),
        phases_s: ["inputs", "prepare", "timing", "readback", "checks"]
            .iter()
            .zip(phases)
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        rows,
        auto,
        skipped,
        cub_device: None,
        cub: None,
    })
}

/// A configuration's check, run on a thread of its own: the fault it found, if any, and its seconds.
type CheckJob = Box<dyn FnOnce() -> (Option<verify::Mismatch>, f64) + Send>;

/// A sweep's current input: its key, the host and device copies, and its fingerprint once a GPU-side check
/// needed it ([`ops::input_fingerprint`]).
type CachedInput = (String, Arc<Input>, DeviceInput, OnceLock<Option<u64>>);

/// Each sort configuration's last measured time per run: (operation, configuration) -> (N, ms).
type Measured = HashMap<(String, String), (u64, f64)>;

/// The key of a configuration in [`Measured`]: its operation and the whole configuration.
fn config_key(spec: &OpSpec, dist: Dist) -> (String, String) {
    (spec.op_name(dist), format!("{spec:?}"))
}

/// Why `--max-ms` skips configuration `key` at `n` keys, if it does ([`BenchOptions::max_run_ms`]; 0: never):
/// its time per run, estimated from its last size of 2^20 keys or more linearly in N (below, fixed costs
/// dominate and the estimate would run far over), is above `max_ms` and above [`SLOW_FACTOR`] times the
/// fastest estimate of the same operation's configurations.
fn too_slow(measured: &Measured, key: &(String, String), n: u64, max_ms: f64) -> Option<String> {
    if max_ms <= 0.0 {
        return None;
    }
    let scaled = |&(m, ms): &(u64, f64)| ms * n as f64 / m.max(1) as f64;
    let est = scaled(measured.get(key).filter(|(m, _)| *m >= 1 << 20)?);
    let best = measured
        .iter()
        .filter(|((op, _), _)| *op == key.0)
        .map(|(_, v)| scaled(v))
        .fold(f64::INFINITY, f64::min);
    (est > max_ms && est > SLOW_FACTOR * best).then(|| {
        format!(
            "about {est:.0} ms per run (from the last size), over --max-ms {max_ms} and {SLOW_FACTOR}x the \
             fastest ({best:.1} ms)"
        )
    })
}

/// What a failed GPU-side check found.
fn gpu_check_fault(r: &vksort::sort::check::CheckReport, expected: u64) -> String {
    let mut what = Vec::new();
    if let Some(i) = r.first_unsorted {
        what.push(format!("out of order at index {i}"));
    }
    if let Some(i) = r.first_unstable {
        what.push(format!("equal keys out of input order at index {i}"));
    }
    if r.fingerprint != expected {
        what.push(format!(
            "fingerprint {:#018x} where the input's is {expected:#018x}",
            r.fingerprint
        ));
    }
    format!("the GPU-side check found the result {}", what.join(", "))
}

/// A measured configuration whose check is still running.
struct Pending {
    /// Its place in the plan.
    index: usize,
    timing: ops::Timing,
    sort_run: Option<ops::SortRun>,
    wall: [f64; 5],
    /// The check's fault, if any, and its seconds.
    check: std::thread::JoinHandle<(Option<verify::Mismatch>, f64)>,
}

/// Waits for a configuration's check and records its row (and, for `--max-ms`, its time).
#[allow(clippy::too_many_arguments)]
fn finish(
    p: Pending,
    plan: &[Planned],
    cal: &Calibration,
    roofline: f64,
    ctx: &Arc<Context>,
    rows: &mut Vec<Row>,
    measured: &mut Measured,
    phases: &mut [f64; 5],
    progress: Progress,
) {
    let planned = &plan[p.index];
    let (failure, secs) = p.check.join().unwrap_or_else(|_| {
        let m = verify::Mismatch {
            index: 0,
            message: "the check panicked".into(),
        };
        (Some(m), 0.0)
    });
    let mut wall = p.wall;
    wall[4] = secs;
    phases[4] += secs;
    rows.push(make_row(
        &planned.spec,
        planned.dist,
        planned.n,
        p.timing.runs_ns.len(),
        &p.timing,
        cal,
        roofline,
        failure,
        ctx.caps(),
        p.sort_run.as_ref(),
        wall,
    ));
    let row = rows.last().unwrap();
    if planned.spec.family() == "sort" && row.verified {
        measured.insert(
            config_key(&planned.spec, planned.dist),
            (planned.n, row.ms_median),
        );
    }
    progress(p.index + 1, plan.len(), "", Some(row));
}

/// The skip entry of a configuration.
fn skipped_entry(spec: &OpSpec, dist: Dist, n: u64, reason: String) -> Skipped {
    let (key, value) = spec.type_names();
    Skipped {
        op: spec.op_name(dist),
        base_op: spec.op_name(Dist::Uniform),
        family: spec.family().into(),
        algo: spec.algo(),
        key,
        value,
        dist: dist.to_string(),
        n,
        reason,
        count: spec.count(),
    }
}

#[allow(clippy::too_many_arguments)]
fn make_row(
    spec: &OpSpec,
    dist: Dist,
    n: u64,
    reps: usize,
    timing: &ops::Timing,
    cal: &Calibration,
    roofline: f64,
    failure: Option<verify::Mismatch>,
    caps: &vksort::gpu::DeviceCaps,
    sort_run: Option<&ops::SortRun>,
    wall_s: [f64; 5],
) -> Row {
    let shape = spec.shape_with(n, caps, sort_run);
    let model_passes = model::passes(&shape);
    let key = shape.algo_key();
    let bytes = model::bytes_moved(&shape);
    let verified = failure.is_none();
    let ns = if verified {
        timing.median_ns()
    } else {
        f64::NAN
    };
    let mut passes: Vec<PassRow> = timing
        .passes
        .iter()
        .map(|p| {
            let m = model_passes.iter().find(|m| m.label == p.label);
            PassRow {
                label: p.label.clone(),
                ms: p.ns / 1e6,
                model_ms: m.map(|m| cal.predict_pass_ns(&key, m) / 1e6),
                model_bytes: m.map(|m| m.bytes()),
                gbytes_per_s: m.map(|m| m.bytes() / p.ns.max(1.0)),
                roofline_fraction: m.map(|m| m.bytes() / (p.ns.max(1.0) * 1e-9) / roofline),
                bound: m.map(|m| cal.bound(m, p.ns).name().to_string()),
            }
        })
        .collect();
    for m in &model_passes {
        if !passes.iter().any(|p| p.label == m.label) && m.bytes() > 0.0 {
            passes.push(PassRow {
                label: m.label.clone(),
                ms: 0.0,
                model_ms: Some(cal.predict_pass_ns(&key, m) / 1e6),
                model_bytes: Some(m.bytes()),
                gbytes_per_s: None,
                roofline_fraction: None,
                bound: Some("(not measured)".into()),
            });
        }
    }
    let (key_name, value_name) = spec.type_names();
    Row {
        op: spec.op_name(dist),
        base_op: spec.op_name(Dist::Uniform),
        family: spec.family().into(),
        algo: spec.algo(),
        ran: sort_run.map_or_else(|| spec.algo(), |r| r.algorithm.name().to_string()),
        key: key_name,
        value: value_name,
        dist: dist.to_string(),
        n,
        key_bits: match spec {
            OpSpec::Sort { key, bits, .. } => bits.map_or(key.bits(), |(lo, hi)| hi - lo),
            _ => spec.elem().bits(),
        },
        reps,
        verified,
        failure: failure.map(|f| f.to_string()),
        ms_median: ns / 1e6,
        ms_min: if verified {
            timing.min_ns() / 1e6
        } else {
            f64::NAN
        },
        ms_max: if verified {
            timing.max_ns() / 1e6
        } else {
            f64::NAN
        },
        gitems_per_s: n as f64 / ns.max(1e-3),
        model_bytes: bytes,
        gbytes_per_s: bytes / ns.max(1e-3),
        roofline_fraction: bytes / (ns.max(1e-3) * 1e-9) / roofline,
        predicted_ms: cal.predict_ns(&shape) / 1e6,
        per_pass_sum_ms: timing.per_pass_sum_ns / 1e6,
        passes,
        cub_ms: None,
        cub_ratio: None,
        cub_merge_ms: None,
        cub_merge_ratio: None,
        wall_s,
        count: spec.count(),
    }
}

fn auto_rows(rows: &[Row], cal: &Calibration, ctx: &Arc<Context>) -> Vec<AutoRow> {
    let mut out: Vec<AutoRow> = Vec::new();
    for r in rows.iter().filter(|r| r.family == "sort" && r.verified) {
        if out
            .iter()
            .any(|a| a.op == r.op && a.n == r.n && a.dist == r.dist)
        {
            continue;
        }
        let same: Vec<&Row> = rows
            .iter()
            .filter(|x| {
                x.family == "sort" && x.op == r.op && x.n == r.n && x.dist == r.dist && x.verified
            })
            .collect();
        let Some(best) = same
            .iter()
            .filter(|x| x.algo != "auto")
            .min_by(|a, b| a.ms_median.total_cmp(&b.ms_median))
        else {
            continue;
        };
        let key = ElemType::from_name(&r.key).unwrap_or(ElemType::U32);
        let value = ElemType::from_name(&r.value);
        let bits = (r.key_bits < key.bits()).then_some((0, r.key_bits));
        // a GPU-side count: the model chooses for the capacity, as the sorter does
        let capacity = r.count.capacity(r.n);
        let Some((choice, pred)) = cal.choose_sort(ctx, key, value, bits, capacity) else {
            continue;
        };
        let choice_ms = same.iter().find(|x| x.algo == choice).map(|x| x.ms_median);
        out.push(AutoRow {
            op: r.op.clone(),
            dist: r.dist.clone(),
            n: r.n,
            choice,
            choice_predicted_ms: pred / 1e6,
            choice_ms,
            best_algo: best.algo.clone(),
            best_ms: best.ms_median,
            efficiency: choice_ms.map(|c| best.ms_median / c.max(1e-9)),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_ms_skips_only_slow_outliers_measured_at_2_20_or_more() {
        let k = |op: &str, algo: &str| (op.to_string(), algo.to_string());
        let mut m = Measured::new();
        m.insert(k("sort_keys_u32", "onesweep"), (1 << 24, 0.7));
        m.insert(k("sort_keys_u32", "warpsort"), (1 << 24, 46.0));
        m.insert(k("sort_keys_u32", "bitonic"), (1 << 24, 5.5));
        m.insert(k("sort_keys_u32", "tiny"), (1 << 16, 30.0));
        m.insert(k("sort_keys_u64", "onesweep"), (1 << 24, 1.7));
        let n = 1 << 26;
        // 184 ms estimated, 66x the fastest (2.8 ms): skipped
        let r = too_slow(&m, &k("sort_keys_u32", "warpsort"), n, 50.0).unwrap();
        assert!(r.contains("about 184 ms") && r.contains("2.8 ms"), "{r}");
        // 22 ms: under the bound; 8x the fastest: under the factor
        assert_eq!(too_slow(&m, &k("sort_keys_u32", "bitonic"), n, 50.0), None);
        assert_eq!(too_slow(&m, &k("sort_keys_u32", "bitonic"), n, 10.0), None);
        // last measured below 2^20: never estimated; never measured: never skipped; 0 turns it off
        assert_eq!(too_slow(&m, &k("sort_keys_u32", "tiny"), n, 50.0), None);
        assert_eq!(too_slow(&m, &k("sort_keys_u32", "merge"), n, 50.0), None);
        assert_eq!(too_slow(&m, &k("sort_keys_u32", "warpsort"), n, 0.0), None);
        // the fastest is taken within the operation only
        assert_eq!(too_slow(&m, &k("sort_keys_u64", "onesweep"), n, 1.0), None);
    }
}
