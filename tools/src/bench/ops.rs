//! The adapters between the benchmark/CLI and vksort's primitives: one [`OpSpec`] per thing that can be run,
//! device inputs uploaded once per workload ([`DeviceInput`]), a [`Runner`] that records one run into a
//! [`Recorder`] (after restoring in-place inputs under the label [`RESTORE`], which timing leaves out), reads
//! back the result ([`Output`]) and checks it against the CPU ([`verify()`]), and the model [`Shape`] of a run.
//!
//! Sorts take their algorithm names from the library's `SortAlgorithm::ALL` (every family registered there
//! appears here without a change), ask the library whether an algorithm takes a configuration
//! ([`sort_check`]: a family that refuses a key type says so through `Error::UnsupportedAlgorithm` before
//! anything is built), and take a run's resolved algorithm and modelled passes from the sorter that runs it
//! ([`Runner::sort_run`]), so the model and `auto` know every family.
//!
//! This is the only file that names the sort, scan, compaction and reduction APIs.

use super::data::{Column, ElemType};
use super::dist::Dist;
use super::verify::{self, Mismatch, SortSpec};
use crate::model::{self, Calibration, Shape};
use serde::Serialize;
use std::sync::Arc;
use vksort::gpu::{
    sum_by_label, Buffer, BufferRef, Context, DeviceCaps, MemoryLocation, PassTime, Profiler,
    Recorder,
};
use vksort::scan::{ScanAlgorithm, ScanPolicy};
use vksort::sort::check::{CheckReport, SortChecker};
use vksort::sort::radix::RadixPolicy;
use vksort::sort::{Order, SortAlgorithm, SortConfig, Sorter};
use vksort::workload::PassModel;
use vksort::{Error, Result};

/// The label of the copies that restore an in-place input before each run; left out of every timing.
pub const RESTORE: &str = "vksort::restore_inputs";

/// The namespace of the buffers this module allocates (`vksort::bench` in a sweep, `vksort::cli` for the CLI's
/// one-off runs, so that a capture of a plain `vksort sort` names no benchmark objects): [`set_namespace`].
static NAMESPACE: std::sync::RwLock<&'static str> = std::sync::RwLock::new("vksort::bench");

/// Sets the namespace of the buffers allocated from now on (see [`NAMESPACE`]).
pub fn set_namespace(ns: &'static str) {
    *NAMESPACE.write().unwrap_or_else(|e| e.into_inner()) = ns;
}

/// `NAMESPACE::what`: the debug name of a buffer this module allocates.
fn object_name(what: &str) -> String {
    format!(
        "{}::{what}",
        NAMESPACE.read().unwrap_or_else(|e| e.into_inner())
    )
}

/// Which elements a compaction keeps (on the device: a flags buffer for `Given`, else a predicate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlagMode {
    /// The non-zero elements (no flags buffer).
    NonZero,
    /// The odd elements (value & 1, no flags buffer), CUB's `select_if_odd`.
    Odd,
    /// Flags given with the input.
    Given,
    /// The elements (or, with flags given, the elements whose flag) x with lo <= x < hi.
    Range { lo: u32, hi: u32, flags: bool },
}

impl FlagMode {
    /// Whether a flags buffer comes with the input.
    pub fn has_flags(self) -> bool {
        matches!(self, FlagMode::Given | FlagMode::Range { flags: true, .. })
    }

    /// The predicate the compaction applies (to the element, or to its flag when flags are given).
    pub fn predicate(self) -> vksort::compact::Predicate {
        match self {
            FlagMode::Odd => vksort::compact::Predicate::ODD,
            FlagMode::NonZero | FlagMode::Given => vksort::compact::Predicate::NonZero,
            FlagMode::Range { lo, hi, .. } => vksort::compact::Predicate::InRange { lo, hi },
        }
    }
}

/// Where a sort's count lives: known on the host when the sort is recorded (`Sorter::cmd_sort`), or a u32 in
/// a device buffer written before the sort runs (`Sorter::cmd_sort_indirect`: a renderer's cull count). The
/// benchmark's GPU-count form ([`prepare`]) sorts N keys through a device-local count buffer holding N, with
/// a capacity of 2N (the sorter's `max_n`, the key and value buffers and the scratch are made for 2N keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CountForm {
    /// `Sorter::cmd_sort` with the host's n.
    #[default]
    Host,
    /// `Sorter::cmd_sort_indirect`: a count buffer holding N, capacity 2N.
    Gpu,
}

impl CountForm {
    pub const ALL: [CountForm; 2] = [CountForm::Host, CountForm::Gpu];

    /// `host` or `gpu` (the bench's `--counts` values and its rows' `count` column).
    pub fn name(self) -> &'static str {
        match self {
            CountForm::Host => "host",
            CountForm::Gpu => "gpu",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == s)
    }

    pub fn is_host(&self) -> bool {
        *self == CountForm::Host
    }

    /// What the form adds to a sort's operation name ([`OpSpec::op_name`]): nothing for host counts,
    /// [`GPU_COUNT_SUFFIX`] for GPU-side ones.
    pub fn suffix(self) -> &'static str {
        match self {
            CountForm::Host => "",
            CountForm::Gpu => GPU_COUNT_SUFFIX,
        }
    }

    /// The capacity a sort of `n` keys is made for: n, or 2n with a GPU-side count.
    pub fn capacity(self, n: u64) -> u64 {
        match self {
            CountForm::Host => n,
            CountForm::Gpu => n.saturating_mul(2),
        }
    }
}

/// The end of the operation name of a sort with a GPU-side count (`sort_keys_u32_gpucount`,
/// `sort_pairs_u32_u32_gaussian_gpucount`): after everything CUB's names carry, so that
/// [`cub_op_name`] recovers CUB's name of the same sort by dropping it.
pub const GPU_COUNT_SUFFIX: &str = "_gpucount";

/// CUB's name of an operation (what CUB's figures are keyed by): the name without [`GPU_COUNT_SUFFIX`] (a sort
/// with a GPU-side count is compared with CUB's sort of the same keys).
pub fn cub_op_name(op: &str) -> &str {
    op.strip_suffix(GPU_COUNT_SUFFIX).unwrap_or(op)
}

/// One runnable operation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "family", rename_all = "lowercase")]
pub enum OpSpec {
    Sort {
        algo: String,
        key: ElemType,
        value: Option<ElemType>,
        descending: bool,
        bits: Option<(u32, u32)>,
        /// Host or GPU-side count ([`CountForm`]; left out of the JSON for host counts).
        #[serde(default, skip_serializing_if = "CountForm::is_host")]
        count: CountForm,
    },
    Scan {
        algo: String,
        elem: ElemType,
        inclusive: bool,
    },
    Compact {
        elem: ElemType,
        flags: FlagMode,
    },
    Reduce {
        elem: ElemType,
        /// `sum`, `min` or `max`.
        op: String,
    },
    Copy {
        elem: ElemType,
    },
}

impl OpSpec {
    /// `sort`, `scan`, `compact` or `copy`.
    pub fn family(&self) -> &'static str {
        match self {
            OpSpec::Sort { .. } => "sort",
            OpSpec::Scan { .. } => "scan",
            OpSpec::Compact { .. } => "compact",
            OpSpec::Reduce { .. } => "reduce",
            OpSpec::Copy { .. } => "copy",
        }
    }

    /// The algorithm's name (`onesweep`, `lookback`, `compute-copy`, ...).
    pub fn algo(&self) -> String {
        match self {
            OpSpec::Sort { algo, .. } | OpSpec::Scan { algo, .. } => algo.clone(),
            OpSpec::Compact { .. } => "compact".into(),
            OpSpec::Reduce { .. } => "reduce".into(),
            OpSpec::Copy { .. } => "compute-copy".into(),
        }
    }

    /// The operation's name in CUB's benchmark (`sort_pairs_u32_u32`, `exclusive_sum_u32`,
    /// `select_if_odd_u32`, `memcpy_u32`, `sort_keys_u32_entropy0.544`, ...), so rows can be matched with it;
    /// a sort with a GPU-side count ends in [`GPU_COUNT_SUFFIX`] (`sort_keys_u32_gpucount`: [`cub_op_name`]
    /// gives CUB's name back).
    pub fn op_name(&self, dist: Dist) -> String {
        let mut s = match self {
            OpSpec::Sort {
                key,
                value,
                descending,
                bits,
                ..
            } => {
                let mut s = match value {
                    None => format!("sort_keys_{key}"),
                    Some(v) => format!("sort_pairs_{key}_{v}"),
                };
                if *descending {
                    s.push_str("_desc");
                }
                if let Some((lo, hi)) = bits {
                    s.push_str(&format!("_bits{lo}-{hi}"));
                }
                s
            }
            OpSpec::Scan {
                elem, inclusive, ..
            } => format!(
                "{}_sum_{elem}",
                if *inclusive { "inclusive" } else { "exclusive" }
            ),
            OpSpec::Compact { elem, flags } => match flags {
                FlagMode::Odd => format!("select_if_odd_{elem}"),
                FlagMode::NonZero => format!("select_nonzero_{elem}"),
                FlagMode::Given => format!("select_flagged_{elem}"),
                FlagMode::Range { flags: false, .. } => format!("select_range_{elem}"),
                FlagMode::Range { flags: true, .. } => format!("select_flagged_range_{elem}"),
            },
            OpSpec::Reduce { elem, op } => format!("reduce_{op}_{elem}"),
            OpSpec::Copy { elem } => format!("memcpy_{elem}"),
        };
        match dist {
            Dist::Uniform => {}
            Dist::Entropy(_) => s.push_str(&format!("_entropy{:.3}", dist.bit_entropy().unwrap())),
            d => s.push_str(&format!("_{d}")),
        }
        s.push_str(self.count().suffix());
        s
    }

    /// Where a sort's count lives ([`CountForm::Host`] for every other operation).
    pub fn count(&self) -> CountForm {
        match self {
            OpSpec::Sort { count, .. } => *count,
            _ => CountForm::Host,
        }
    }

    /// The most items a run over `n` is made for: n, or a GPU-count sort's capacity 2n
    /// ([`CountForm::capacity`]).
    pub fn capacity(&self, n: u64) -> u64 {
        self.count().capacity(n)
    }

    /// The element type of the main input.
    pub fn elem(&self) -> ElemType {
        match self {
            OpSpec::Sort { key, .. } => *key,
            OpSpec::Scan { elem, .. }
            | OpSpec::Compact { elem, .. }
            | OpSpec::Reduce { elem, .. }
            | OpSpec::Copy { elem } => *elem,
        }
    }

    /// The (key, value) type names of a row: a sort's key and value types (`none` without values), the element
    /// type and `none` otherwise.
    pub fn type_names(&self) -> (String, String) {
        match self {
            OpSpec::Sort { key, value, .. } => (
                key.name().to_string(),
                value.map_or("none".to_string(), |v| v.name().to_string()),
            ),
            _ => (self.elem().name().to_string(), "none".to_string()),
        }
    }

    /// The element types of the main input and of the values (sorts).
    pub fn item_types(&self) -> (ElemType, Option<ElemType>) {
        match self {
            OpSpec::Sort { key, value, .. } => (*key, *value),
            _ => (self.elem(), None),
        }
    }

    /// Bytes per item the caller's arrays hold (keys + values), for the size limits.
    pub fn item_bytes(&self) -> u64 {
        match self {
            OpSpec::Sort { key, value, .. } => {
                (key.bytes() + value.map_or(0, |v| v.bytes())) as u64
            }
            OpSpec::Compact { elem, flags } => {
                elem.bytes() as u64 + if flags.has_flags() { 4 } else { 0 }
            }
            _ => self.elem().bytes() as u64,
        }
    }

    /// The model's shape of a run over `n` items on a device with `caps` (whose policies set tile sizes). A
    /// sort's algorithm and passes come from `run` (the sorter that runs it: [`Runner::sort_run`]) when given,
    /// else from the library's radix workload formulas (other families' passes are known only to their
    /// sorters: empty here).
    pub fn shape_with(&self, n: u64, caps: &DeviceCaps, run: Option<&SortRun>) -> Shape {
        match (self, run) {
            (
                OpSpec::Sort {
                    key, value, bits, ..
                },
                Some(r),
            ) => Shape::Sort {
                algo: r.algorithm.name().to_string(),
                key: *key,
                value: *value,
                key_bits: bits.map_or(key.bits(), |(lo, hi)| hi.saturating_sub(lo)),
                n,
                passes: r.passes.clone(),
            },
            _ => self.shape(n, caps),
        }
    }

    /// The model's shape of a run over `n` items without a sorter at hand (see [`OpSpec::shape_with`]).
    pub fn shape(&self, n: u64, caps: &DeviceCaps) -> Shape {
        match self {
            OpSpec::Sort {
                algo,
                key,
                value,
                bits,
                count,
                ..
            } => {
                // a GPU-side count: the algorithm Auto picks for the capacity, the passes of n keys
                let algo = resolve_sort_algo(algo, count.capacity(n), *key, *value, caps);
                let key_bits = bits.map_or(key.bits(), |(lo, hi)| hi.saturating_sub(lo));
                Shape::Sort {
                    passes: radix_workload(caps, &algo, *key, *value, key_bits, n),
                    algo,
                    key: *key,
                    value: *value,
                    key_bits,
                    n,
                }
            }
            OpSpec::Scan { algo, elem, .. } => {
                let policy = ScanPolicy::for_device(caps);
                Shape::Scan {
                    algo: algo.clone(),
                    elem: *elem,
                    n,
                    tile: policy.tile() as u64,
                    single: policy.single_tile() as u64,
                    clears: policy.clears_status(scan_elem(*elem), n),
                }
            }
            OpSpec::Compact { elem, flags } => Shape::Compact {
                elem: *elem,
                n,
                flags: flags.has_flags(),
                kept_fraction: 0.5,
                clears: vksort::compact::CompactPolicy::for_device(caps).clears_status(n),
            },
            OpSpec::Reduce { elem, .. } => Shape::Reduce { elem: *elem, n },
            OpSpec::Copy { elem } => Shape::Copy { elem: *elem, n },
        }
    }

    /// Whether this build of vksort can run it.
    pub fn available(&self) -> bool {
        match self {
            OpSpec::Sort { algo, .. } => sort_algorithms().contains(&algo.as_str()),
            OpSpec::Scan { algo, .. } => scan_algorithms().contains(&algo.as_str()),
            OpSpec::Compact { .. } => has_compact(),
            OpSpec::Reduce { .. } | OpSpec::Copy { .. } => true,
        }
    }
}

/// Host input of a run.
#[derive(Clone, Debug)]
pub struct Input {
    pub keys: Column,
    pub values: Option<Column>,
    pub flags: Option<Column>,
}

impl Input {
    /// Random input for `spec`: keys of `dist`; values (sorts) are the input index. No flags: `Odd`
    /// compactions test the element itself (`Predicate::ODD`), as CUB's `select_if_odd` does.
    pub fn generate(spec: &OpSpec, n: usize, dist: Dist, seed: u64) -> Input {
        let keys = dist.generate(spec.elem(), n, seed);
        let values = match spec {
            OpSpec::Sort { value: Some(v), .. } => Some(Column::index(*v, n)),
            _ => None,
        };
        Input {
            keys,
            values,
            flags: None,
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// Host output of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub keys: Column,
    pub values: Option<Column>,
    /// The sort algorithm that ran (what `auto` resolved to); None for other operations.
    pub algorithm: Option<SortAlgorithm>,
}

/// An input uploaded to the device (each buffer padded to a multiple of 16 bytes).
pub struct DeviceInput {
    pub n: usize,
    pub keys: Buffer,
    pub values: Option<Buffer>,
    pub flags: Option<Buffer>,
}

fn upload(ctx: &Arc<Context>, name: &str, col: &Column) -> Result<Buffer> {
    let bytes = col.as_bytes();
    let buf = Buffer::device_local(ctx, name, (bytes.len() as u64).next_multiple_of(16).max(16))?;
    buf.write(0, bytes)?;
    Ok(buf)
}

fn download(buf: &Buffer, ty: ElemType, n: usize) -> Result<Column> {
    let mut col = Column::zeroed(ty, n);
    buf.read_into(0, col.as_bytes_mut())?;
    Ok(col)
}

impl DeviceInput {
    pub fn upload(ctx: &Arc<Context>, input: &Input) -> Result<Self> {
        Ok(Self {
            n: input.len(),
            keys: upload(ctx, &object_name("input_keys"), &input.keys)?,
            values: input
                .values
                .as_ref()
                .map(|v| upload(ctx, &object_name("input_values"), v))
                .transpose()?,
            flags: input
                .flags
                .as_ref()
                .map(|f| upload(ctx, &object_name("input_flags"), f))
                .transpose()?,
        })
    }
}

/// One prepared operation: buffers allocated, ready to record runs.
pub trait Runner {
    /// Records the restore of in-place inputs (under [`RESTORE`]) that precedes each run; none by default.
    fn restore(&self, _rec: &mut Recorder) -> Result<()> {
        Ok(())
    }
    /// Records one run (after [`Runner::restore`] and a barrier).
    fn record(&self, rec: &mut Recorder) -> Result<()>;
    /// Reads back the result of the last run.
    fn output(&self) -> Result<Output>;
    /// A sort's resolved algorithm and modelled passes, from the library's sorter; None for other operations.
    fn sort_run(&self) -> Option<SortRun> {
        None
    }
    /// The last run's result checked where it lies ([`vksort::sort::check`]: order, stability with index
    /// values, fingerprint); None for operations without a GPU-side check.
    fn gpu_check(&self) -> Option<Result<CheckReport>> {
        None
    }
}

/// What a sorter runs for one size: the algorithm (Auto resolved) and the library's modelled passes.
#[derive(Clone, Debug, PartialEq)]
pub struct SortRun {
    pub algorithm: SortAlgorithm,
    pub passes: Vec<PassModel>,
}

/// Prepares `spec` over the uploaded `input`.
pub fn prepare<'a>(
    ctx: &Arc<Context>,
    spec: &OpSpec,
    input: &'a DeviceInput,
) -> Result<Box<dyn Runner + 'a>> {
    match spec {
        OpSpec::Copy { elem } => {
            let bytes = (input.n * elem.bytes()) as u64;
            let padded = bytes.next_multiple_of(16);
            let dst = Buffer::device_local(ctx, &object_name("copy_dst"), padded.max(16))?;
            Ok(Box::new(CopyRunner {
                src: input,
                dst,
                padded,
                elem: *elem,
            }))
        }
        OpSpec::Sort { .. } => prepare_sort(ctx, spec, input),
        _ => scans::prepare(ctx, spec, input),
    }
}

struct CopyRunner<'a> {
    src: &'a DeviceInput,
    dst: Buffer,
    padded: u64,
    elem: ElemType,
}

impl Runner for CopyRunner<'_> {
    fn record(&self, rec: &mut Recorder) -> Result<()> {
        if self.padded == 0 {
            return Ok(());
        }
        vksort::copy::cmd_copy(rec, self.src.keys.as_ref(), self.dst.as_ref(), self.padded)
    }
    fn output(&self) -> Result<Output> {
        Ok(Output {
            keys: download(&self.dst, self.elem, self.src.n)?,
            values: None,
            algorithm: None,
        })
    }
}

/// Sort algorithms of this build (`SortAlgorithm::ALL` names, `auto` first).
pub fn sort_algorithms() -> Vec<&'static str> {
    SortAlgorithm::ALL.iter().map(|a| a.name()).collect()
}

/// Scan algorithms of this build (`ScanAlgorithm::ALL` names).
pub fn scan_algorithms() -> Vec<&'static str> {
    ScanAlgorithm::ALL.iter().map(|a| a.name()).collect()
}

/// The canonical name of a sort algorithm (the library's `SortAlgorithm::from_name` accepts aliases).
pub fn sort_algorithm_name(s: &str) -> Option<&'static str> {
    SortAlgorithm::from_name(s).map(|a| a.name())
}

/// The canonical name of a scan algorithm (`ScanAlgorithm::from_name` accepts aliases such as `naive`).
pub fn scan_algorithm_name(s: &str) -> Option<&'static str> {
    ScanAlgorithm::from_name(s).map(|a| a.name())
}

/// Whether this build has stream compaction.
pub fn has_compact() -> bool {
    true
}

pub use crate::bench::data::{key_type, value_type};

/// The radix policy the sort uses for (key, value) on a device (the device's for keys the radix sorts do not
/// take).
pub fn radix_policy(caps: &DeviceCaps, key: ElemType, value: Option<ElemType>) -> RadixPolicy {
    match (key_type(key), value_type(value)) {
        (Ok(k), Ok(v)) if k.bits() <= 64 => RadixPolicy::for_sort(caps, k, v),
        _ => RadixPolicy::for_device(caps),
    }
}

/// The family (registry name) that runs sort algorithm `algo`, if any (none for `auto`).
pub fn sort_family(algo: &str) -> Option<&'static str> {
    let a = SortAlgorithm::from_name(algo)?;
    vksort::sort::registry::families()
        .find(|(_, algos)| algos.contains(&a))
        .map(|(name, _)| name)
}

/// The library's modelled passes of a radix sort without building a sorter (empty for other families, whose
/// passes come from their sorters: [`Runner::sort_run`]).
fn radix_workload(
    caps: &DeviceCaps,
    algo: &str,
    key: ElemType,
    value: Option<ElemType>,
    key_bits: u32,
    n: u64,
) -> Vec<PassModel> {
    match (
        SortAlgorithm::from_name(algo),
        sort_family(algo),
        key_type(key),
        value_type(value),
    ) {
        (Some(a), Some("radix"), Ok(k), Ok(v)) if k.bits() <= 64 => {
            vksort::sort::radix::workload(&radix_policy(caps, key, value), a, k, v, key_bits, n)
        }
        _ => Vec::new(),
    }
}

/// The most keys sort algorithm `algo` takes for (key, value) on a device, where the library publishes it
/// without building a sorter (the one-workgroup radix sort's capacity, the MSD sort's limit); None otherwise
/// (a sorter then reports `Error::AlgorithmLimit` when asked for more, which the benchmark remembers).
pub fn sort_capacity(
    algo: &str,
    key: ElemType,
    value: Option<ElemType>,
    caps: &DeviceCaps,
) -> Option<u64> {
    match algo {
        "small" => Some(radix_policy(caps, key, value).small_capacity() as u64),
        "msd" => Some(vksort::sort::radix::MSD_MAX_KEYS),
        "hybrid" => Some(radix_policy(caps, key, value).hybrid_capacity()),
        _ => None,
    }
}

/// The library's configuration of a sort spec for `n` keys: `max_n` is n, or with a GPU-side count the
/// capacity 2n ([`OpSpec::capacity`]).
pub fn sort_config(spec: &OpSpec, n: u64) -> Result<SortConfig> {
    let OpSpec::Sort {
        algo,
        key,
        value,
        descending,
        bits,
        ..
    } = spec
    else {
        return Err(Error::InvalidArgument("not a sort".into()));
    };
    Ok(SortConfig {
        key: key_type(*key)?,
        value: value_type(*value)?,
        order: if *descending {
            Order::Descending
        } else {
            Order::Ascending
        },
        bits: *bits,
        algorithm: SortAlgorithm::from_name(algo)
            .ok_or_else(|| Error::InvalidArgument(format!("unknown sort algorithm {algo}")))?,
        stable: false,
        max_n: spec.capacity(n.max(1)),
    })
}

/// Why sort `spec` cannot run `n` keys on this device, or Ok: the library's own check of the configuration
/// (a family that does not take the key type, a bad bit range, a missing device feature: the sorter's
/// assembly, which builds no pipeline), then the algorithm's published capacity ([`sort_capacity`]). A sort
/// with a GPU-side count is checked at its capacity (2n).
pub fn sort_check(ctx: &Arc<Context>, spec: &OpSpec, n: u64) -> std::result::Result<(), String> {
    let OpSpec::Sort {
        algo, key, value, ..
    } = spec
    else {
        return Ok(());
    };
    let config = sort_config(spec, n).map_err(|e| e.to_string())?;
    let capacity = config.max_n;
    Sorter::builder(ctx, config)
        .choose(capacity)
        .map_err(|e| e.to_string())?;
    match sort_capacity(algo, *key, *value, ctx.caps()) {
        Some(cap) if capacity > cap => Err(capacity_note_for(spec, algo, cap)),
        _ => Ok(()),
    }
}

/// The note of a sort skipped above its algorithm's capacity (no N in it, so that notes group).
pub fn capacity_note(algo: &str, cap: u64) -> String {
    format!("the {algo} sort takes at most {cap} keys")
}

/// [`capacity_note`] for `spec`: with a GPU-side count, saying that the capacity is 2N.
pub fn capacity_note_for(spec: &OpSpec, algo: &str, cap: u64) -> String {
    match spec.count() {
        CountForm::Host => capacity_note(algo, cap),
        CountForm::Gpu => format!(
            "{} (a GPU-side count's capacity is 2N)",
            capacity_note(algo, cap)
        ),
    }
}

/// The sort algorithms of this build that take `spec`'s configuration for `n` keys (for error messages).
pub fn sort_algorithms_for(ctx: &Arc<Context>, spec: &OpSpec, n: u64) -> Vec<&'static str> {
    let OpSpec::Sort { .. } = spec else {
        return Vec::new();
    };
    sort_algorithms()
        .into_iter()
        .filter(|a| {
            let mut s = spec.clone();
            if let OpSpec::Sort { algo, .. } = &mut s {
                *algo = a.to_string();
            }
            sort_check(ctx, &s, n).is_ok()
        })
        .collect()
}

/// Whether sort algorithm `algo` keeps equal keys in input order (the library's `SortAlgorithm::stable`;
/// `auto` is resolved before it runs, see [`Output::algorithm`]).
pub fn sort_stable(algo: SortAlgorithm) -> bool {
    algo.stable()
}

/// The size calibration measures `spec` at (and at 4x): `default` (2^21 on GPUs), or for the radix sorts with
/// a published range, a size inside it (a quarter of the one-workgroup sort's capacity; the MSD sort between
/// 2^10 and 2^15 keys).
pub fn calibration_size(caps: &DeviceCaps, spec: &OpSpec, default: usize) -> usize {
    match spec {
        OpSpec::Sort {
            algo, key, value, ..
        } if algo == "small" => (small_capacity(caps, *key, *value) / 4).max(16) as usize,
        OpSpec::Sort {
            algo, key, value, ..
        } if algo == "msd" => (msd_max(caps, *key, *value) / 4).clamp(1 << 10, 1 << 15) as usize,
        _ => default,
    }
}

/// Largest N `auto` gives the MSD sort for (key, value) (0: none).
pub fn msd_max(caps: &DeviceCaps, key: ElemType, value: Option<ElemType>) -> u64 {
    radix_policy(caps, key, value).msd.max as u64
}

/// Largest N of the one-workgroup sort for (key, value): its capacity.
pub fn small_capacity(caps: &DeviceCaps, key: ElemType, value: Option<ElemType>) -> u64 {
    radix_policy(caps, key, value).small_capacity() as u64
}

/// The algorithm the library's `auto` runs for `n` keys without a cost model, as far as it is known without
/// building a sorter: the radix policy's choice for keys the radix sorts take; other names unchanged. (A
/// sorter knows for sure: [`Runner::sort_run`].)
pub fn resolve_sort_algo(
    algo: &str,
    n: u64,
    key: ElemType,
    value: Option<ElemType>,
    caps: &DeviceCaps,
) -> String {
    if algo != "auto" || key.bits() > 64 {
        return algo.to_string();
    }
    radix_policy(caps, key, value)
        .auto_algorithm(n)
        .name()
        .into()
}

/// The scan's element type for a bench element type (u64, else u32).
fn scan_elem(elem: ElemType) -> vksort::scan::ScanElem {
    match elem {
        ElemType::U64 => vksort::scan::ScanElem::U64,
        _ => vksort::scan::ScanElem::U32,
    }
}

/// The policies vksort picks on a device, one line each (for `vksort info`).
pub fn policy_summary(caps: &DeviceCaps) -> Vec<String> {
    vec![
        format!("radix: {:?}", RadixPolicy::for_device(caps)),
        format!("scan: {:?}", ScanPolicy::for_device(caps)),
        format!(
            "compact: {:?}",
            vksort::compact::CompactPolicy::for_device(caps)
        ),
    ]
}

/// Most keys one radix sort takes (beyond the device's memory limits).
pub fn sort_max_keys() -> u64 {
    vksort::sort::radix::MAX_KEYS
}

/// The sort families of this build and their algorithms, one line each (for `vksort info`).
pub fn sort_families_summary() -> Vec<String> {
    vksort::sort::registry::families()
        .map(|(name, algos)| {
            format!(
                "{name}: {}",
                algos
                    .iter()
                    .map(|a| if a.stable() {
                        a.name().to_string()
                    } else {
                        format!("{} (unstable)", a.name())
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect()
}

/// GPU times of repeated runs.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// GPU time of each timed run (restores left out; two stamps around the run), nanoseconds.
    pub runs_ns: Vec<f64>,
    /// Per pass label, the median over the per-pass runs of the pass's summed time, in first-seen order.
    pub passes: Vec<PassTime>,
    /// The median over the per-pass runs of a run's summed pass times, nanoseconds: more than
    /// [`Timing::median_ns`] by what a stamp after every pass costs.
    pub per_pass_sum_ns: f64,
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

impl Timing {
    pub fn median_ns(&self) -> f64 {
        median(&mut self.runs_ns.clone())
    }
    pub fn min_ns(&self) -> f64 {
        self.runs_ns.iter().copied().fold(f64::INFINITY, f64::min)
    }
    pub fn max_ns(&self) -> f64 {
        self.runs_ns.iter().copied().fold(0.0, f64::max)
    }
}

/// Keeps the GPU busy for about `ms` milliseconds with compute copies of a 64 MiB buffer (one submission), so
/// that its clocks are up when timed runs start. After the host-side set-up of a configuration (data, sorter,
/// pipelines) the GPU has idled and its clocks fallen; a warm-up made of the configuration's own runs is only a
/// few milliseconds of GPU work for small sorts (its count is bounded by wall time), too short to raise them.
/// Seen on an H100 (2026-11-25): the same one-workgroup sort of 2^10 keys measured 0.017 and 0.061 ms in one
/// process, and a bitonic sort of 2^24 keys 5.8 ms after a long warm-up and 28 ms without one (the clocks go
/// from 345 to 1980 MHz).
pub fn warm_clocks(ctx: &Arc<Context>, ms: f64) -> Result<()> {
    let bytes = (64u64 << 20).min(ctx.caps().max_storage_buffer_range / 2) & !255;
    let a = Buffer::device_local(ctx, "vksort::bench::clock_warmup", 2 * bytes)?;
    // ~2 TB/s (read + write) is a floor on a data-centre GPU's copy rate; the exact duration does not matter.
    let per_copy_ns = (2 * bytes) as f64 / 2.0e12 * 1e9;
    let copies = ((ms * 1e6) / per_copy_ns).ceil().clamp(1.0, 8192.0) as usize;
    ctx.submit_timed("vksort::bench::clock_warmup", None, |rec| {
        for i in 0..copies {
            let (src, dst) = if i % 2 == 0 { (0, bytes) } else { (bytes, 0) };
            vksort::copy::cmd_copy(rec, a.slice(src, bytes), a.slice(dst, bytes), bytes)?;
            rec.barrier();
        }
        Ok(())
    })
}

/// Runs `runner` `warmup` times untimed and up to `reps` times timed, timed by timestamp queries.
///
/// Runs are recorded back to back in one submission (warm-up in one, timed runs in another): a loop of one
/// short submission and one host wait looks idle to the driver, whose clocks then fall (seen on an H200: 1980 ->
/// 345 MHz). When any warm-up is asked for on a GPU, the warm-up submission holds up to ~300 ms of the
/// configuration's runs, bounded by ~1 s of wall time (validation layers make recording slow), after
/// [`warm_clocks`] kept the GPU busy for ~200 ms (always: ~100 ms of a configuration's own runs without the
/// copies left 2^28-element Blelloch scans at 2-4x their time on an H200, the clocks settled low); when the
/// previous timing ended less than [`STILL_WARM`] ago (a sweep's next configuration, the GPU's clocks still
/// up), ~50 ms of runs and no [`warm_clocks`]. The warm-up runs are timed too: while the reported runs' median
/// differs from theirs by more than [`SETTLE_TOLERANCE`] (clocks still changing), the reported runs are taken
/// again, at most [`SETTLE_RETRIES`] times, each against the last. `warmup == 0` (a one-off run, as `vksort
/// sort` does) warms nothing.
///
/// `budget_ms` (> 0) bounds a slow configuration's runs by the probe run's GPU time: as many timed runs as fit
/// in `budget_ms` (at most `reps`; then [`PASS_REPS`] more for the per-pass breakdown) where at least 3 fit;
/// otherwise 1 or 2 timed runs, the probe's per-pass breakdown and no further warm-up (the probe ran for a
/// third of the budget or more). So a sweep of every algorithm up to 2^28 keys stays in minutes; the runs
/// taken are [`Timing::runs_ns`]' length (the `reps` column of the bench's tables).
///
/// Two kinds of timed runs: the reported time of a run ([`Timing::runs_ns`]) comes from two stamps around it
/// (after its restore, and after its last pass), as CUDA events time a CUB call; the per-pass breakdown
/// ([`Timing::passes`]) from further runs with a stamp after every pass, whose sum
/// ([`Timing::per_pass_sum_ns`]) is larger by what those stamps cost. Timed submissions record no
/// breadcrumbs (the probe run, which has them, already ran the same work).
pub fn time(
    ctx: &Arc<Context>,
    runner: &dyn Runner,
    warmup: usize,
    reps: usize,
    budget_ms: f64,
) -> Result<Timing> {
    let reps = reps.max(1);
    let warm_gpu = !ctx.caps().is_cpu() && warmup > 0;
    let still_warm = warm_gpu
        && LAST_TIMED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some_and(|t| t.elapsed() < STILL_WARM);
    // One probe run: the passes a run records and how long it takes (GPU and wall).
    // Room for the longest runs (u128 keys by one-bit splits record 128 x 6 passes and more).
    let mut probe = Profiler::new(ctx, 8192)?;
    let t0 = std::time::Instant::now();
    ctx.submit_profiled("vksort::bench::probe", Some(&mut probe), |rec| {
        record_run(rec, runner)
    })?;
    let wall_ns = t0.elapsed().as_nanos().max(1) as f64;
    let probe_passes = probe.results()?;
    if probe_passes.is_empty() {
        // Nothing reaches the GPU (n = 0): nothing to time.
        return Ok(Timing {
            runs_ns: vec![0.0; reps],
            passes: Vec::new(),
            per_pass_sum_ns: 0.0,
        });
    }
    let per_run = probe_passes.len();
    let gpu_ns = probe_passes.iter().map(|p| p.ns).sum::<f64>().max(1.0);
    // Runs that fit the budget: at least 3 where 3 fit; a slower configuration gets 1 or 2 timed runs, its
    // per-pass breakdown from the probe, and no warm-up beyond the probe (itself a third of the budget or more).
    let fit = if budget_ms > 0.0 {
        (budget_ms * 1e6 / gpu_ns).floor() as usize
    } else {
        usize::MAX
    };
    let slow = fit < 3;
    if warmup == 0 && reps == 1 {
        // A one-off run (the CLI). On a GPU the probe was the first run (cold caches, low clocks): one more
        // run with a stamp after every pass gives both the time and the breakdown. On a CPU device (lavapipe) a
        // run of a million keys takes seconds: the probe's stamps are the timing (its first dispatches include
        // llvmpipe's shader compilation, which lavapipe does when a pipeline first runs).
        let stamped = if ctx.caps().is_cpu() {
            probe_passes
        } else {
            let mut prof = Profiler::new(ctx, (per_run as u32 + 2).max(512))?;
            ctx.submit_timed("vksort::timed_run", Some(&mut prof), |rec| {
                record_run(rec, runner)
            })?;
            prof.results()?
        };
        let passes: Vec<PassTime> = sum_by_label(
            &stamped
                .iter()
                .map(|p| PassTime {
                    label: model::pass_group(&p.label),
                    ns: p.ns,
                })
                .collect::<Vec<_>>(),
        )
        .into_iter()
        .filter(|p| p.label != RESTORE)
        .collect();
        let sum = passes.iter().map(|p| p.ns).sum::<f64>();
        *LAST_TIMED.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::time::Instant::now());
        return Ok(Timing {
            runs_ns: vec![sum],
            passes,
            per_pass_sum_ns: sum,
        });
    }
    let reps = if slow { fit.max(1) } else { reps.min(fit) };
    let mut warm = if slow { 0 } else { warmup.saturating_sub(1) };
    if warm_gpu && !slow {
        let target_ns = if still_warm { 50e6 } else { 300e6 };
        let by_gpu = (target_ns / gpu_ns).ceil() as usize;
        let by_wall = (1e9 / wall_ns).floor().max(1.0) as usize;
        warm = warm.max(by_gpu.min(by_wall).min(4096));
    }
    if warm_gpu && !still_warm && !slow {
        warm_clocks(ctx, 200.0)?;
    }
    let capacity = 4096u32.max(2 * per_run as u32 + 2);
    // Runs timed as the reported ones are: two stamps each (restore done, run done), in as few submissions as
    // fit.
    let mut prof = Profiler::per_run(ctx, capacity)?;
    let mut timed_runs = |count: usize, label: &str| -> Result<Vec<f64>> {
        let mut runs = Vec::new();
        let runs_per_submit = ((capacity as usize - 1) / 2).clamp(1, count.max(1));
        while runs.len() < count {
            let batch = runs_per_submit.min(count - runs.len());
            ctx.submit_timed(label, Some(&mut prof), |rec| {
                for _ in 0..batch {
                    runner.restore(rec)?;
                    rec.barrier();
                    rec.stamp(RESTORE);
                    runner.record(rec)?;
                    rec.stamp(RUN);
                    rec.barrier();
                }
                Ok(())
            })?;
            let spans = prof.results()?;
            runs.extend(spans.iter().filter(|p| p.label == RUN).map(|p| p.ns));
        }
        Ok(runs)
    };
    let warm_runs = timed_runs(warm, "vksort::bench::warmup")?;
    let mut runs = timed_runs(reps, "vksort::bench")?;
    // Clocks still rising: the reported runs' median differs from the warm-up's by more than SETTLE_TOLERANCE.
    // Repeat them (at most SETTLE_RETRIES times), each time against the previous repeat.
    if warm_gpu && !slow && !warm_runs.is_empty() {
        let mut prev = median(&mut warm_runs.clone());
        for _ in 0..SETTLE_RETRIES {
            let m = median(&mut runs.clone());
            if (m - prev).abs() <= SETTLE_TOLERANCE * prev {
                break;
            }
            prev = m;
            runs = timed_runs(reps, "vksort::bench")?;
        }
    }
    // The per-pass breakdown: a stamp after every pass (a slow configuration's: the probe's).
    let pass_reps = if slow { 0 } else { reps.min(PASS_REPS) };
    let runs_per_submit = ((capacity as usize - 1) / per_run).clamp(1, pass_reps.max(1));
    let mut prof = Profiler::new(ctx, capacity)?;
    let mut sums = Vec::new();
    let mut per_label: Vec<(String, Vec<f64>)> = Vec::new();
    let mut add_run = |one: &[PassTime]| {
        let grouped: Vec<PassTime> = one
            .iter()
            .map(|p| PassTime {
                label: model::pass_group(&p.label),
                ns: p.ns,
            })
            .collect();
        let passes: Vec<PassTime> = sum_by_label(&grouped)
            .into_iter()
            .filter(|p| p.label != RESTORE)
            .collect();
        sums.push(passes.iter().map(|p| p.ns).fold(0.0, |a, b| a + b));
        for p in passes {
            match per_label.iter_mut().find(|(l, _)| *l == p.label) {
                Some((_, v)) => v.push(p.ns),
                None => per_label.push((p.label, vec![p.ns])),
            }
        }
    };
    if slow {
        add_run(&probe_passes);
    }
    let mut done = 0;
    while done < pass_reps {
        let batch = runs_per_submit.min(pass_reps - done);
        ctx.submit_timed("vksort::bench::passes", Some(&mut prof), |rec| {
            for _ in 0..batch {
                record_run(rec, runner)?;
                rec.barrier();
            }
            Ok(())
        })?;
        let all = prof.results()?;
        if all.len() != batch * per_run {
            return Err(Error::InvalidArgument(format!(
                "a run recorded {} passes, the probe {per_run}",
                all.len() / batch.max(1)
            )));
        }
        all.chunks(per_run).for_each(&mut add_run);
        done += batch;
    }
    let timing = Ok(Timing {
        runs_ns: runs,
        passes: per_label
            .into_iter()
            .map(|(label, mut v)| PassTime {
                ns: median(&mut v),
                label,
            })
            .collect(),
        per_pass_sum_ns: median(&mut sums),
    });
    *LAST_TIMED.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::time::Instant::now());
    timing
}

/// How long after a timing the GPU's clocks count as still up (see [`time`]): a sweep's next configuration
/// usually starts within milliseconds; host work longer than this (inputs of 2^26+ keys, their checks) gets the
/// full warm-up again.
pub const STILL_WARM: std::time::Duration = std::time::Duration::from_millis(100);

/// Runs with a stamp after every pass, for the per-pass breakdown (its median per pass): 3 (10 until
/// 2026-11-26 doubled the GPU time of a sweep for a breakdown that 3 runs give within a few %).
pub const PASS_REPS: usize = 3;

/// Warm-up settles when the reported runs' median is within this fraction of the warm-up runs' (see [`time`]).
pub const SETTLE_TOLERANCE: f64 = 0.03;
/// Repeats of the reported runs while their median has not settled (see [`time`]).
pub const SETTLE_RETRIES: usize = 3;

/// When the last [`time`] ended.
static LAST_TIMED: std::sync::Mutex<Option<std::time::Instant>> = std::sync::Mutex::new(None);

/// The label of a timed run's closing stamp.
const RUN: &str = "vksort::bench::run";

/// One run as the probe and the per-pass runs record it: the restore, a barrier, the operation.
/// One run as every timing records it: the restore of in-place inputs, a barrier, the run.
pub fn record_run(rec: &mut Recorder, runner: &dyn Runner) -> Result<()> {
    runner.restore(rec)?;
    rec.barrier();
    runner.record(rec)
}

/// Checks `out` against the CPU. `exact` uses the O(n log n) checks; otherwise the linear ones
/// ([`verify::check_sort_fast`]): sorts of index-valued inputs (the generated ones) a multiset hash of the pairs
/// (the exact per-element check only when it differs), key-only sorts a multiset hash of the keys.
pub fn verify(
    spec: &OpSpec,
    input: &Input,
    out: &Output,
    exact: bool,
) -> std::result::Result<(), Mismatch> {
    match spec {
        OpSpec::Sort {
            descending,
            bits,
            algo,
            ..
        } => {
            let ran = out.algorithm.or_else(|| SortAlgorithm::from_name(algo));
            let s = SortSpec {
                descending: *descending,
                bits: *bits,
                unstable: ran.is_some_and(|a| !sort_stable(a)),
            };
            let values = match (&input.values, &out.values) {
                (Some(a), Some(b)) => Some((a, b)),
                (None, None) => None,
                _ => {
                    return Err(Mismatch {
                        index: 0,
                        message: "values missing from the output".into(),
                    })
                }
            };
            if exact {
                verify::check_sort(&input.keys, &out.keys, values, &s)
            } else {
                verify::check_sort_fast(&input.keys, &out.keys, values.map(|v| v.1), &s)
            }
        }
        OpSpec::Scan { inclusive, .. } => verify::check_scan(&input.keys, &out.keys, *inclusive),
        OpSpec::Compact { flags, .. } => verify::check_compact(
            &input.keys,
            input.flags.as_ref(),
            flags.predicate(),
            &out.keys,
        ),
        OpSpec::Reduce { op, .. } => {
            let expected = verify::cpu_reduce(&input.keys, op);
            match out.keys.len() {
                1 if out.keys.raw_bits(0) == expected => Ok(()),
                1 => Err(Mismatch {
                    index: 0,
                    message: format!(
                        "{op} is {} where {expected} is expected",
                        out.keys.format(0)
                    ),
                }),
                l => Err(Mismatch {
                    index: 0,
                    message: format!("{l} results instead of 1"),
                }),
            }
        }
        OpSpec::Copy { .. } => {
            match (0..input.len()).find(|&i| input.keys.raw_bits(i) != out.keys.raw_bits(i)) {
                None if input.len() == out.keys.len() => Ok(()),
                i => Err(Mismatch {
                    index: i.unwrap_or(out.keys.len()),
                    message: "copy differs from its source".into(),
                }),
            }
        }
    }
}

/// Uploads `input`, runs `spec` once (timed) and reads the result back: the CLI's path.
pub fn run_once(ctx: &Arc<Context>, spec: &OpSpec, input: &Input) -> Result<(Output, Timing)> {
    run_once_with(ctx, spec, input, |_| Ok::<(), Error>(()))
}

/// [`run_once`], calling `first` with the prepared runner before the timed run (the CLI's `--capture` records
/// one run of its own there, with [`record_run`], inside a RenderDoc capture).
pub fn run_once_with<E: From<Error>>(
    ctx: &Arc<Context>,
    spec: &OpSpec,
    input: &Input,
    first: impl FnOnce(&dyn Runner) -> std::result::Result<(), E>,
) -> std::result::Result<(Output, Timing), E> {
    let step = |what: &str, t: std::time::Instant| {
        crate::progress::debug(format!("{what}: {:.0} ms", t.elapsed().as_secs_f64() * 1e3))
    };
    let t = std::time::Instant::now();
    let dev = DeviceInput::upload(ctx, input)?;
    step("upload", t);
    let t = std::time::Instant::now();
    let runner = prepare(ctx, spec, &dev)?;
    step(
        "prepare (buffers; a sort's Sorter::new with its pipelines)",
        t,
    );
    first(runner.as_ref())?;
    let t = std::time::Instant::now();
    let timing = time(ctx, runner.as_ref(), 0, 1, 0.0)?;
    step(
        "runs (a first run; on a GPU then a timed run with a stamp after every pass)",
        t,
    );
    let t = std::time::Instant::now();
    let out = runner.output()?;
    step("read back", t);
    Ok((out, timing))
}

/// The operations calibration measures: every sort and scan algorithm of this build on u32 keys, compaction,
/// and the copy.
pub fn calibration_ops() -> Vec<OpSpec> {
    let mut out: Vec<OpSpec> = sort_algorithms()
        .into_iter()
        .filter(|a| *a != "auto")
        .map(|a| OpSpec::Sort {
            algo: a.into(),
            key: ElemType::U32,
            value: None,
            descending: false,
            bits: None,
            count: CountForm::Host,
        })
        .collect();
    out.extend(scan_algorithms().into_iter().map(|a| OpSpec::Scan {
        algo: a.into(),
        elem: ElemType::U32,
        inclusive: false,
    }));
    out.push(OpSpec::Reduce {
        elem: ElemType::U32,
        op: "sum".into(),
    });
    if has_compact() {
        out.push(OpSpec::Compact {
            elem: ElemType::U32,
            flags: FlagMode::Odd,
        });
    }
    out.push(OpSpec::Copy {
        elem: ElemType::U32,
    });
    out
}

/// Calibrates `spec`: times it at `n` and `4n` and fits `time = launches + overhead + bytes / (roofline x
/// efficiency)`: the efficiency from the slope (so fixed costs drop out), the overhead (a per-algorithm fixed
/// cost beyond the calibrated per-dispatch cost, at least 0) from the intercept. Each run is verified. A sort's
/// bytes and dispatches are the library's model of the passes its sorter records. Returns (efficiency,
/// overhead in ns); the library's error when the algorithm cannot run that many keys (`AlgorithmLimit`).
pub fn measure_efficiency(
    ctx: &Arc<Context>,
    spec: &OpSpec,
    n: usize,
    cal: &Calibration,
) -> Result<(f64, f64)> {
    let mut points = Vec::new();
    for m in [n, 4 * n] {
        let input = Input::generate(spec, m, Dist::Uniform, 7);
        let dev = DeviceInput::upload(ctx, &input)?;
        let runner = prepare(ctx, spec, &dev)?;
        let t = time(ctx, runner.as_ref(), 1, 5, 0.0)?;
        if let Err(e) = verify(spec, &input, &runner.output()?, false) {
            return Err(Error::InvalidArgument(format!(
                "calibration run of {} failed verification: {e}",
                spec.algo()
            )));
        }
        let shape = spec.shape_with(m as u64, ctx.caps(), runner.sort_run().as_ref());
        let launch = cal.fixed_ns_per_dispatch * model::dispatches(&shape) as f64;
        points.push((model::bytes_moved(&shape), t.median_ns(), launch));
    }
    let (b1, t1, l1) = points[0];
    let (b2, t2, l2) = points[1];
    let eff = if t2 - l2 > t1 - l1 && b2 > b1 {
        (b2 - b1) / ((t2 - l2 - (t1 - l1)) * 1e-9) / cal.roofline_bytes_per_s
    } else {
        // no measurable growth: the large run less its launch costs
        b2 / ((t2 - l2).max(t2 * 0.1).max(1.0) * 1e-9) / cal.roofline_bytes_per_s
    };
    let eff = eff.clamp(0.005, 2.0);
    let overhead = (t1 - l1 - b1 / (cal.roofline_bytes_per_s * eff) * 1e9).max(0.0);
    Ok((eff, overhead))
}

fn scratch(ctx: &Arc<Context>, bytes: u64, usage: ash::vk::BufferUsageFlags) -> Result<Buffer> {
    Buffer::new(
        ctx,
        &object_name("scratch"),
        bytes.max(16),
        usage | ctx.default_usage(),
        MemoryLocation::GpuOnly,
    )
}

/// The sorter of sort `spec` for up to `n` keys, as the sweep builds it (its kernels are built with it).
fn build_sorter(ctx: &Arc<Context>, spec: &OpSpec, n: u64) -> Result<Sorter> {
    let config = sort_config(spec, n)?;
    // Tuning sweeps: VKSORT_POLICY overrides fields of the policy of the algorithm's family (see each
    // policy's `legend()`: keys are field paths; Auto: the radix policy).
    let mut builder = Sorter::builder(ctx, config);
    if let Ok(overrides) = std::env::var("VKSORT_POLICY") {
        if !overrides.is_empty() {
            builder = builder.policy_overrides(&overrides)?;
        }
    }
    // Timing experiments: VKSORT_RADIX_DEBUG sets the radix sort's diagnostics knobs
    // (vksort::sort::radix::RadixDebug::with_overrides; some make results wrong, which the check then reports).
    if let Ok(knobs) = std::env::var("VKSORT_RADIX_DEBUG") {
        if !knobs.is_empty() {
            builder =
                builder.tuning(vksort::sort::radix::RadixDebug::default().with_overrides(&knobs)?);
        }
    }
    builder.build()
}

/// Builds the sorters (and so the kernels, cached in the context) of the sorts `configs` (spec, N) on every host
/// thread, before a sweep measures them one at a time: on a fresh pipeline cache the NVIDIA driver compiles
/// each kernel for 0.1-1 s. Errors are left to the sweep, which reports them per configuration.
pub fn prebuild_sorters(ctx: &Arc<Context>, configs: &[(&OpSpec, u64)]) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(configs.len());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(spec, n)) = configs.get(i) else {
                    break;
                };
                if ctx.is_lost() {
                    break;
                }
                let _ = build_sorter(ctx, spec, n);
            });
        }
    });
}

fn prepare_sort<'a>(
    ctx: &Arc<Context>,
    spec: &OpSpec,
    input: &'a DeviceInput,
) -> Result<Box<dyn Runner + 'a>> {
    let n = input.n;
    let OpSpec::Sort {
        key, value, bits, ..
    } = spec
    else {
        unreachable!("prepare_sort takes sorts")
    };
    // With a GPU-side count, the sorter, the key and value buffers and the scratch are made for the capacity 2n.
    let capacity = spec.capacity(n as u64);
    let sorter = build_sorter(ctx, spec, n as u64)?;
    let req = sorter.storage_requirements(capacity)?;
    let kb = (n * key.bytes()) as u64;
    let vb = (n * value.map_or(0, |v| v.bytes())) as u64;
    let (cap_kb, cap_vb) = (
        capacity * key.bytes() as u64,
        capacity * value.map_or(0, |v| v.bytes()) as u64,
    );
    let runner = SortRunner {
        ctx: ctx.clone(),
        input,
        keys: Buffer::device_local(ctx, &object_name("keys"), cap_kb.max(16))?,
        values: value
            .map(|_| Buffer::device_local(ctx, &object_name("values"), cap_vb.max(16)))
            .transpose()?,
        scratch: scratch(ctx, req.scratch_bytes, req.scratch_usage)?,
        sorter,
        key: *key,
        value: *value,
        key_bits: bits.map_or(key.bits(), |(lo, hi)| hi.saturating_sub(lo)),
        kb,
        vb,
        gpu_count: None,
    };
    if spec.count() == CountForm::Host {
        return Ok(Box::new(runner));
    }
    // The count buffer holds n, written once: the sort only reads it (the clamped count, the raw count and
    // the overflow flag go to the scratch's control block).
    let count = Buffer::device_local(ctx, &object_name("count"), 16)?;
    let words = [
        u32::try_from(n)
            .map_err(|_| Error::InvalidArgument(format!("a GPU-side count is a u32, not {n}")))?,
        0,
        0,
        0,
    ];
    count.write(0, bytemuck::cast_slice(&words))?;
    // Keys and values past n hold a copy of the input, written once: a sort that read past the count would
    // sort those too, and its first n items would then (but for inputs of one repeated key) not be a
    // permutation of the input's, which the checks see. Each run restores the first n only.
    let label = object_name("gpu_count_tail");
    ctx.submit(&label, |rec| {
        if kb > 0 {
            let (src, dst) = (input.keys.slice(0, kb), runner.keys.slice(kb, kb));
            rec.copy(&label, src, dst, kb)?;
        }
        if let (Some(src), Some(dst)) = (&input.values, &runner.values) {
            if vb > 0 {
                rec.copy(&label, src.slice(0, vb), dst.slice(vb, vb), vb)?;
            }
        }
        Ok(())
    })?;
    Ok(Box::new(SortRunner {
        gpu_count: Some(GpuCount {
            buffer: count,
            capacity,
        }),
        ..runner
    }))
}

/// A GPU-count sort's count buffer (holding n) and capacity.
struct GpuCount {
    buffer: Buffer,
    capacity: u64,
}

struct SortRunner<'a> {
    ctx: Arc<Context>,
    input: &'a DeviceInput,
    /// Keys and values: n items (host count) or the capacity (GPU-side count), of which the first n are
    /// restored from the input before each run, sorted and checked.
    keys: Buffer,
    values: Option<Buffer>,
    scratch: Buffer,
    sorter: Sorter,
    key: ElemType,
    value: Option<ElemType>,
    key_bits: u32,
    /// Bytes of n keys and of n values.
    kb: u64,
    vb: u64,
    /// Set for the GPU-count form: the sort is recorded with `Sorter::cmd_sort_indirect`.
    gpu_count: Option<GpuCount>,
}

impl Runner for SortRunner<'_> {
    fn restore(&self, rec: &mut Recorder) -> Result<()> {
        rec.copy(
            RESTORE,
            self.input.keys.as_ref(),
            self.keys.as_ref(),
            self.kb,
        )?;
        if let (Some(src), Some(dst)) = (&self.input.values, &self.values) {
            rec.copy(RESTORE, src.as_ref(), dst.as_ref(), self.vb)?;
        }
        Ok(())
    }
    fn record(&self, rec: &mut Recorder) -> Result<()> {
        match &self.gpu_count {
            None => {
                let (keys, values) = self.regions(self.input.n as u64);
                self.sorter.cmd_sort(
                    rec,
                    keys,
                    values,
                    self.scratch.as_ref(),
                    self.input.n as u64,
                )
            }
            Some(c) => {
                let (keys, values) = self.regions(c.capacity);
                self.sorter.cmd_sort_indirect(
                    rec,
                    keys,
                    values,
                    self.scratch.as_ref(),
                    c.buffer.slice(0, 4),
                    c.capacity,
                )
            }
        }
    }
    fn output(&self) -> Result<Output> {
        Ok(Output {
            keys: download(&self.keys, self.key, self.input.n)?,
            values: match (&self.values, self.value) {
                (Some(b), Some(t)) => Some(download(b, t, self.input.n)?),
                _ => None,
            },
            algorithm: Some(self.algorithm()),
        })
    }
    fn sort_run(&self) -> Option<SortRun> {
        let n = self.input.n as u64;
        let algorithm = self.algorithm();
        let passes = match &self.gpu_count {
            None => self.sorter.workload(n),
            Some(c) => self.gpu_count_workload(algorithm, n, c.capacity),
        };
        Some(SortRun { algorithm, passes })
    }
    fn gpu_check(&self) -> Option<Result<CheckReport>> {
        let n = self.input.n as u64;
        // the generated values are the input indices: a stable sort's equal keys carry rising ones
        let stable = self.algorithm().stable();
        // the first n items (of the capacity, with a GPU-side count)
        let (keys, values) = self.regions(n);
        Some(
            SortChecker::new(&self.ctx, self.sorter.config(), stable)
                .and_then(|c| c.check(keys, values, n)),
        )
    }
}

impl SortRunner<'_> {
    /// The regions of the first `items` keys and values.
    fn regions(&self, items: u64) -> (BufferRef<'_>, Option<BufferRef<'_>>) {
        let kb = items * self.key.bytes() as u64;
        let vb = items * self.value.map_or(0, |v| v.bytes()) as u64;
        (
            self.keys.slice(0, kb.max(4)),
            self.values.as_ref().map(|v| v.slice(0, vb.max(4))),
        )
    }

    /// The algorithm the sort runs: what the sorter picks for n keys, or with a GPU-side count for its capacity
    /// (`Sorter::cmd_sort_indirect` chooses by the capacity: Auto may pick another algorithm than for n).
    fn algorithm(&self) -> SortAlgorithm {
        let n = self.input.n as u64;
        self.sorter
            .algorithm_for(self.gpu_count.as_ref().map_or(n, |c| c.capacity))
    }

    /// The modelled passes of a GPU-count sort of `n` keys with `algorithm` (the sorter's choice for the
    /// capacity): the sorter's workload of n keys where it picks the same algorithm for n; else, for a radix
    /// sort, the library's radix formulas at n; else the sorter's workload at the capacity (an overestimate:
    /// the passes of a sort of `capacity` keys).
    fn gpu_count_workload(
        &self,
        algorithm: SortAlgorithm,
        n: u64,
        capacity: u64,
    ) -> Vec<PassModel> {
        if self.sorter.algorithm_for(n) == algorithm {
            return self.sorter.workload(n);
        }
        let caps = self.ctx.caps();
        let radix = radix_workload(
            caps,
            algorithm.name(),
            self.key,
            self.value,
            self.key_bits,
            n,
        );
        if !radix.is_empty() {
            return radix;
        }
        self.sorter.workload(capacity)
    }
}

/// The fingerprint of a sort's input pairs ([`vksort::sort::check::fingerprint`]; keys only without values),
/// hashed on every host thread; None for other operations.
pub fn input_fingerprint(spec: &OpSpec, input: &Input) -> Option<u64> {
    let OpSpec::Sort { key, value, .. } = spec else {
        return None;
    };
    let (kt, vt) = (key_type(*key).ok()?, value_type(*value).ok()?);
    let (kb, vb) = (key.bytes(), value.map_or(0, |v| v.bytes()));
    let keys = input.keys.as_bytes();
    let values = input.values.as_ref().map_or(&[][..], |v| v.as_bytes());
    let parts = super::data::par_map(input.len(), |r| {
        vksort::sort::check::fingerprint(
            kt,
            vt,
            &keys[r.start * kb..r.end * kb],
            &values[r.start * vb..r.end * vb],
        )
    });
    Some(parts.into_iter().fold(0, u64::wrapping_add))
}

mod scans {
    //! The scan and compaction adapters (against `vksort::scan`, `vksort::compact`).
    use super::*;
    use vksort::compact;
    use vksort::gpu::DEFAULT_USAGE;
    use vksort::reduce::{self, ReduceOp};
    use vksort::scan::{ScanConfig, ScanElem, ScanKind, Scanner};

    fn invalid(what: String) -> Error {
        Error::InvalidArgument(what)
    }

    pub fn prepare<'a>(
        ctx: &Arc<Context>,
        spec: &OpSpec,
        input: &'a DeviceInput,
    ) -> Result<Box<dyn Runner + 'a>> {
        let n = input.n;
        match spec {
            OpSpec::Scan {
                algo,
                elem,
                inclusive,
            } => {
                let config = ScanConfig {
                    algorithm: ScanAlgorithm::from_name(algo)
                        .ok_or_else(|| invalid(format!("unknown scan algorithm {algo}")))?,
                    kind: if *inclusive {
                        ScanKind::Inclusive
                    } else {
                        ScanKind::Exclusive
                    },
                    elem: match elem {
                        ElemType::U32 => ScanElem::U32,
                        ElemType::U64 => ScanElem::U64,
                        e => return Err(invalid(format!("scans take u32 or u64, not {e}"))),
                    },
                    ..Default::default()
                };
                let scanner = Scanner::new(ctx, config)?;
                let bytes = (n * elem.bytes()) as u64;
                Ok(Box::new(ScanRunner {
                    input,
                    output: Buffer::device_local(ctx, &object_name("scan_out"), bytes.max(16))?,
                    scratch: scratch(ctx, scanner.scratch_bytes(n as u64), DEFAULT_USAGE)?,
                    scanner,
                    elem: *elem,
                }))
            }
            OpSpec::Compact { elem, flags } => {
                if *elem != ElemType::U32 {
                    return Err(invalid(format!("compaction takes u32, not {elem}")));
                }
                let bytes = (n * 4) as u64;
                Ok(Box::new(CompactRunner {
                    compactor: compact::Compactor::new(ctx, Some(compact_policy(ctx)?))?,
                    predicate: flags.predicate(),
                    input,
                    output: Buffer::device_local(ctx, &object_name("compact_out"), bytes.max(16))?,
                    count: Buffer::device_local(ctx, &object_name("compact_count"), 16)?,
                    scratch: scratch(ctx, compact::compact_scratch_bytes(n as u64), DEFAULT_USAGE)?,
                }))
            }
            OpSpec::Reduce { elem, op } => {
                let op = match op.as_str() {
                    "sum" => ReduceOp::Sum,
                    "min" => ReduceOp::Min,
                    "max" => ReduceOp::Max,
                    o => return Err(invalid(format!("unknown reduction `{o}` (sum, min, max)"))),
                };
                let elem_s = match elem {
                    ElemType::U32 => ScanElem::U32,
                    ElemType::U64 => ScanElem::U64,
                    e => return Err(invalid(format!("reductions take u32 or u64, not {e}"))),
                };
                Ok(Box::new(ReduceRunner {
                    input,
                    output: Buffer::device_local(ctx, &object_name("reduce_out"), 16)?,
                    scratch: scratch(ctx, reduce::reduce_scratch_bytes(n as u64), DEFAULT_USAGE)?,
                    op,
                    elem: *elem,
                    elem_s,
                }))
            }
            OpSpec::Copy { .. } | OpSpec::Sort { .. } => unreachable!("handled by the caller"),
        }
    }

    struct ScanRunner<'a> {
        input: &'a DeviceInput,
        output: Buffer,
        scratch: Buffer,
        scanner: Scanner,
        elem: ElemType,
    }

    impl Runner for ScanRunner<'_> {
        fn record(&self, rec: &mut Recorder) -> Result<()> {
            let bytes = (self.input.n * self.elem.bytes()) as u64;
            self.scanner.cmd_scan(
                rec,
                self.input.keys.slice(0, bytes.max(4)),
                self.output.slice(0, bytes.max(4)),
                self.scratch.as_ref(),
                self.input.n as u64,
            )
        }
        fn output(&self) -> Result<Output> {
            Ok(Output {
                keys: download(&self.output, self.elem, self.input.n)?,
                values: None,
                algorithm: None,
            })
        }
    }

    /// The device's compaction policy, with the tuning sweeps' overrides: VKSORT_COMPACT_STAGING
    /// (`direct`, `tile`, `subgroup`), VKSORT_COMPACT_ITEMS (elements per invocation, then for every size)
    /// and VKSORT_COMPACT_WG (invocations per workgroup).
    fn compact_policy(ctx: &Arc<Context>) -> Result<compact::CompactPolicy> {
        let mut p = compact::CompactPolicy::for_device(ctx.caps());
        if let Ok(v) = std::env::var("VKSORT_COMPACT_STAGING") {
            p.staging = match v.as_str() {
                "" => p.staging,
                "direct" => compact::CompactStaging::Direct,
                "tile" => compact::CompactStaging::Tile,
                "subgroup" => compact::CompactStaging::Subgroup,
                o => {
                    return Err(invalid(format!(
                        "VKSORT_COMPACT_STAGING `{o}`: direct, tile or subgroup"
                    )))
                }
            };
        }
        let num = |var: &str, field: &mut u32| -> Result<()> {
            match std::env::var(var) {
                Ok(v) if !v.is_empty() => {
                    *field = v
                        .parse()
                        .map_err(|_| invalid(format!("{var} `{v}` is not a number")))?;
                    Ok(())
                }
                _ => Ok(()),
            }
        };
        let items = p.scan.items_per_invocation;
        num("VKSORT_COMPACT_ITEMS", &mut p.scan.items_per_invocation)?;
        if p.scan.items_per_invocation != items {
            (p.small.max, p.mid.max, p.large.max) = (0, 0, 0); // one tile for every size
        }
        num("VKSORT_COMPACT_WG", &mut p.scan.workgroup_size)?;
        Ok(p)
    }

    struct CompactRunner<'a> {
        compactor: compact::Compactor,
        predicate: compact::Predicate,
        input: &'a DeviceInput,
        output: Buffer,
        count: Buffer,
        scratch: Buffer,
    }

    impl Runner for CompactRunner<'_> {
        fn record(&self, rec: &mut Recorder) -> Result<()> {
            let bytes = (self.input.n * 4) as u64;
            self.compactor.cmd_compact_if(
                rec,
                self.input.keys.slice(0, bytes.max(4)),
                self.input.flags.as_ref().map(|f| f.slice(0, bytes.max(4))),
                self.predicate,
                self.output.slice(0, bytes.max(4)),
                self.count.slice(0, 4),
                self.scratch.as_ref(),
                self.input.n as u64,
            )
        }
        fn output(&self) -> Result<Output> {
            let count = self.count.read_vec::<u32>(1)?[0] as usize;
            if count > self.input.n {
                return Err(Error::InvalidArgument(format!(
                    "compaction reported {count} kept of {}",
                    self.input.n
                )));
            }
            Ok(Output {
                keys: download(&self.output, ElemType::U32, count)?,
                values: None,
                algorithm: None,
            })
        }
    }

    struct ReduceRunner<'a> {
        input: &'a DeviceInput,
        output: Buffer,
        scratch: Buffer,
        op: ReduceOp,
        elem: ElemType,
        elem_s: ScanElem,
    }

    impl Runner for ReduceRunner<'_> {
        fn record(&self, rec: &mut Recorder) -> Result<()> {
            let bytes = (self.input.n * self.elem.bytes()) as u64;
            reduce::cmd_reduce(
                rec,
                self.input.keys.slice(0, bytes.max(4)),
                self.output.slice(0, self.elem.bytes() as u64),
                self.scratch.as_ref(),
                self.input.n as u64,
                self.op,
                self.elem_s,
            )
        }
        fn output(&self) -> Result<Output> {
            Ok(Output {
                keys: download(&self.output, self.elem, 1)?,
                values: None,
                algorithm: None,
            })
        }
    }
}
