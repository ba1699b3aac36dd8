//! Split radix sorts (issue 17): LSD radix sorts whose every pass is made of stable 1-bit splits, in the two
//! forms of the seed documents, as two public algorithms so that the command line and the benchmark run them
//! side by side (`--algo split-radix`, `--algo split-radix-bit`):
//!
//! - [`SortAlgorithm::SplitRadix`], the blocked form (Satish et al., "Fast Sort on CPUs, GPUs and Intel MIC"):
//!   D-bit passes (D = [`SplitPolicy::digit_bits`], 1..=8, default 4). Per pass, every tile counts its digits
//!   (`histogram`), one exclusive scan of the digit-major histograms gives every (digit, tile) its first output
//!   position, then every tile sorts itself on the digit by D 1-bit splits in shared memory (per-invocation
//!   sequential "vertical" scans plus a workgroup scan built on subgroup scans) and writes each key to its
//!   global position (`scatter`; a digit's keys leave a tile as one contiguous run).
//! - [`SortAlgorithm::SplitRadixBit`], the per-bit form (CIS 565's radix sort, Seed 002): one global 1-bit split
//!   per bit: map each key to a flag (1 = its bit is 0, `flags`), exclusive scan of the flags, and scatter
//!   (`bit_scatter`: zeros to their scanned position, ones after all zeros in input order).
//!
//! Both are stable (equal keys keep their input order, in both orders), take every key type (u128 too: the
//! digits are bits of the transformed key, whatever its width), values of 0, 4 or 8 bytes, ascending or
//! descending order, bit ranges and GPU-side counts.
//!
//! # Which passes run: decided on the GPU
//! Seed 002 first reduces the maximum key to skip the empty high bits; here a `differ` pass ORs the transformed
//! keys and their complements, so every bit that does not vary (the high bits of small keys, the low bits of
//! keys that are multiples of a power of two, sign bits, exponent bits that all keys share ...) is skipped, not
//! only the high ones. The `plan` pass (one invocation) lists the K varying bits inside the bit range's mask and
//! makes pass i sort on the varying bits `i * per_pass .. (i + 1) * per_pass` (per_pass = 1, or D for the
//! blocked form, whose digits are thus made of varying bits only: keys that vary in 9 scattered bits take 3
//! passes of 4 bits, not 8). It writes the indirect arguments of every recorded pass: the first P = ceil(K /
//! per_pass) passes get their workgroups, the others 0 (they do nothing, their scan included: the scan is
//! dispatched indirectly too, [`crate::scan::Scanner::cmd_scan_indirect`]). Pass i reads the keys from side
//! i % 2 (the caller's buffers, then the scratch copy) and writes the other side, so the running passes keep
//! the ping-pong parity whatever P is; when P is odd a final `copy` (indirect, 0 workgroups otherwise) brings
//! the keys back. No host round trip: the recording is the same whatever the keys are. Recorded passes: the
//! bit range's width (per-bit form) or its width / D rounded up (blocked form).
//!
//! # Passes (labels) and bytes moved per key (k = key bytes, v = value bytes, R = 2^D, B = tile keys)
//! - `vksort::split::clear` (fill of the 8 OR words), `vksort::sort::count` (GPU-side counts only).
//! - `vksort::split::differ`: reads k.
//! - `vksort::split::plan`: one invocation; a few hundred bytes.
//! - per pass, per-bit form: `vksort::split::flags` (reads k, writes 4), `vksort::scan::clear` and
//!   `vksort::scan::lookback` (in place on the flags: reads 4, writes 4), `vksort::split::bit_scatter` (reads
//!   k + v + 4, writes k + v).
//! - per pass, blocked form: `vksort::split::histogram` (reads k, writes 4R / B), `vksort::scan::clear` and
//!   `vksort::scan::lookback` (in place on the histograms: 4R / B each way), `vksort::split::scatter` (reads
//!   k + v + 4R / B, writes k + v).
//! - `vksort::split::copy` when P is odd: reads and writes k + v.
//!
//! The scans are vksort's look-back scan through its public recording API (labels `vksort::scan::*`, inside
//! the sort's `vksort::sort` label scope), with the length decided on the GPU: the scan is recorded for the
//! capacity's length (n flags, or R x tiles(capacity) counters) and dispatched with the workgroups the plan
//! wrote (length n, or R x tiles(n)).
//!
//! # Scratch layout ([`crate::sort::Sorter::storage_requirements`]; regions aligned for binding)
//! control block (1 KiB, [`crate::sort::count`] words, then [`CTRL_OR`], [`CTRL_NOR`], [`CTRL_VARYING`],
//! [`CTRL_PASSES`], [`CTRL_BITS`]) | the other side's keys (n k) | its values (n v) | flags (n u32, per-bit form)
//! or histograms (R x tiles u32, blocked form) | the scan's status (`Scanner::scratch_bytes` of that length) |
//! indirect arguments (12 bytes for the copy, 32 bytes per recorded pass). Usage: storage, transfer destination
//! (the fills) and indirect (the arguments).

mod bit_scatter;
mod copy;
mod differ;
mod flags;
mod histogram;
mod plan;
pub mod policy;
mod scatter;

pub use policy::{SplitPolicy, MAX_DIGIT_BITS, MAX_TILE};

use crate::error::Result;
use crate::gpu::{Region, Context, Recorder};
use crate::policy::SubgroupPlan;
use crate::scan::{ScanAlgorithm, ScanConfig, ScanElem, ScanKind, Scanner};
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::{
    Capabilities, Overrides, SortBackend, SortBuffers, StorageRequirements,
};
use crate::sort::config::SortConfig;
use crate::sort::count::Count;
use crate::sort::items::{self, ItemPush, Items, Regions};
use crate::sort::backend::Family;
use crate::sort::types::{transform, KeyType, Order};
use crate::workload::PassModel;
use ash::vk;
use std::sync::Arc;

/// The most keys a split radix sort takes (positions and scan elements are u32).
pub const MAX_KEYS: u64 = 1 << 31;

/// Control block word: the OR of the transformed keys (4 words, lowest first), from `vksort::split::differ`.
pub const CTRL_OR: u64 = 8;
/// Control block word: the OR of the complements of the transformed keys (4 words).
pub const CTRL_NOR: u64 = 12;
/// Control block word: K, how many bits of the transformed key (within the bit range) vary between the keys.
pub const CTRL_VARYING: u64 = 16;
/// Control block word: P, the passes that ran.
pub const CTRL_PASSES: u64 = 17;
/// Control block word: the first of the K varying bits, lowest first (up to 128 words).
pub const CTRL_BITS: u64 = 32;

/// Usage flags the scratch of a split radix sort needs.
pub const SCRATCH_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw()
        | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw(),
);

/// Words of the arguments region before the first pass's (the copy's 3, padded).
const ARGS_PASS: u64 = 4;
/// Words of the arguments region per recorded pass (tile passes' 3, padded, then the scan's 3, padded).
const ARGS_STRIDE: u64 = 8;

/// The split family in the sort registry.
pub(crate) const FAMILY: Family = Family {
    name: "split",
    algorithms: &[SortAlgorithm::SplitRadix, SortAlgorithm::SplitRadixBit],
    supports: |_| None,
    new: |ctx, config, overrides, reachable| {
        Ok(Box::new(SplitSort::new(ctx, config, overrides, reachable)?))
    },
    parse_overrides: |ctx, config, spec, overrides| {
        overrides
            .set(SplitPolicy::for_sort(ctx.caps(), config.key, config.value).with_overrides(spec)?);
        Ok(())
    },
};

/// The two forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// Seed 002: one global 1-bit split per pass.
    PerBit,
    /// Seed 001: D 1-bit splits per pass inside each tile, then a global scatter.
    Blocked,
}

impl Form {
    fn of(algorithm: SortAlgorithm) -> Self {
        match algorithm {
            SortAlgorithm::SplitRadixBit => Form::PerBit,
            _ => Form::Blocked,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Form::PerBit => SortAlgorithm::SplitRadixBit.name(),
            Form::Blocked => SortAlgorithm::SplitRadix.name(),
        }
    }
}

/// Byte offsets and sizes of the scratch regions of a sort of up to `n` keys.
#[derive(Clone, Copy, Debug)]
struct Layout {
    alt_keys: (u64, u64),
    alt_vals: (u64, u64),
    /// The flags (per-bit form) or histograms (blocked form).
    offsets: (u64, u64),
    /// Elements of the scan recorded for this n.
    scan_len: u64,
    scan: (u64, u64),
    args: (u64, u64),
    total: u64,
}

/// The split radix sorts behind a [`crate::sort::Sorter`].
pub struct SplitSort {
    ctx: Arc<Context>,
    pub policy: SplitPolicy,
    pub(crate) plan: SubgroupPlan,
    pub(crate) items: Items,
    scanner: Scanner,
    /// The forms the sorter may record (its storage covers them).
    forms: Vec<Form>,
}

impl SplitSort {
    /// The split radix sort for `config`, with a [`SplitPolicy`] from `overrides` or the device's, for sorts
    /// with the `reachable` algorithms (Auto standing for the policy's choice, the blocked form).
    pub(crate) fn new(
        ctx: &Arc<Context>,
        config: &SortConfig,
        overrides: &Overrides,
        reachable: &[SortAlgorithm],
    ) -> Result<Self> {
        let items = Items::new(config)?;
        let policy = overrides
            .get::<SplitPolicy>()
            .unwrap_or_else(|| SplitPolicy::for_items(ctx.caps(), &items));
        policy.check(ctx.caps(), &items)?;
        crate::policy::require_sort_subgroup_ops(ctx)?;
        let scanner = Scanner::new(
            ctx,
            ScanConfig {
                algorithm: ScanAlgorithm::DecoupledLookback,
                kind: ScanKind::Exclusive,
                elem: ScanElem::U32,
                policy: Some(policy.scan),
            },
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            policy,
            plan: SubgroupPlan::for_device(ctx.caps()),
            items,
            scanner,
            forms: reachable.iter().map(|&a| Form::of(a)).collect(),
        })
    }

    /// Bits of the bit range (all key bits without one).
    fn range_bits(&self) -> u32 {
        self.items.mask.iter().map(|w| w.count_ones()).sum()
    }

    /// Passes recorded by `algorithm` (those beyond the varying bits do nothing): one per bit of the bit range
    /// (per-bit form), or the range's bits / `digit_bits` rounded up (blocked form).
    pub fn recorded_passes(&self, algorithm: SortAlgorithm) -> u32 {
        match Form::of(algorithm) {
            Form::PerBit => self.range_bits(),
            Form::Blocked => self.range_bits().div_ceil(self.policy.digit_bits),
        }
    }

    /// Elements of the scan of one pass of a sort of `n` keys.
    fn scan_len(&self, form: Form, n: u64) -> u64 {
        match form {
            Form::PerBit => n,
            Form::Blocked => self.policy.radix() * n.div_ceil(self.policy.tile()),
        }
    }

    fn layout(&self, form: Form, n: u64) -> Layout {
        let mut r = Regions::after_control(&self.ctx);
        let alt_keys = r.take(self.items.key_bytes(n));
        let alt_vals = r.take(self.items.val_bytes(n));
        let scan_len = self.scan_len(form, n);
        let offsets = r.take(scan_len * 4);
        let scan = r.take(self.scanner.scratch_bytes(scan_len.max(1)));
        let recorded = match form {
            Form::PerBit => self.recorded_passes(SortAlgorithm::SplitRadixBit),
            Form::Blocked => self.recorded_passes(SortAlgorithm::SplitRadix),
        };
        let args = r.take((ARGS_PASS + ARGS_STRIDE * recorded as u64) * 4);
        Layout {
            alt_keys,
            alt_vals,
            offsets,
            scan_len,
            scan,
            args,
            total: r.total,
        }
    }

    fn cmd_sort(
        &self,
        rec: &mut Recorder,
        form: Form,
        buffers: SortBuffers,
        count: Count,
    ) -> Result<()> {
        let ctx = rec.ctx();
        let n = count.max_n();
        let lay = self.layout(form, n);
        let c = items::check(
            ctx,
            &self.items,
            form.name(),
            MAX_KEYS,
            &buffers,
            &count,
            lay.total,
        )?;
        buffers
            .scratch
            .check(ctx, "scratch", lay.total, SCRATCH_USAGE)?;
        crate::scan::check_count(ctx.caps(), lay.scan_len, 4)?;
        if c.count.is_none() && n <= 1 {
            return Ok(());
        }
        rec.scope("vksort::sort", |rec| {
            let s = c.scratch;
            rec.fill_region(
                "vksort::split::clear",
                s.slice(CTRL_OR * 4, (CTRL_NOR + 4 - CTRL_OR) * 4),
                0,
            )?;
            rec.barrier();
            items::record_count(ctx, &self.plan, rec, &c, n)?;
            if n <= 1 {
                return Ok(());
            }
            let region = |(off, bytes): (u64, u64)| s.slice(off, bytes);
            let args = region(lay.args);
            let recorded = self.recorded_passes(match form {
                Form::PerBit => SortAlgorithm::SplitRadixBit,
                Form::Blocked => SortAlgorithm::SplitRadix,
            });
            differ::record(self, rec, &c, &count)?;
            rec.barrier();
            plan::record(self, rec, &c, &count, form, recorded, args)?;
            rec.barrier();
            let sides = [
                (c.keys, c.values),
                (
                    region(lay.alt_keys),
                    if self.items.val_words > 0 {
                        region(lay.alt_vals)
                    } else {
                        c.values
                    },
                ),
            ];
            let offsets = region(lay.offsets);
            let scan_scratch = region(lay.scan);
            for pass in 0..recorded {
                let src = sides[pass as usize % 2];
                let dst = sides[1 - pass as usize % 2];
                let tile_args = args.slice((ARGS_PASS + ARGS_STRIDE * pass as u64) * 4, 12);
                let scan_args = args.slice((ARGS_PASS + ARGS_STRIDE * pass as u64 + 4) * 4, 12);
                let pass_io = PassIo {
                    src,
                    dst,
                    offsets,
                    tile_args,
                };
                match form {
                    Form::PerBit => flags::record(self, rec, &c, &count, pass, &pass_io)?,
                    Form::Blocked => histogram::record(self, rec, &c, &count, pass, &pass_io)?,
                }
                rec.barrier();
                self.scanner.scan_indirect(
                    rec,
                    offsets,
                    offsets,
                    scan_scratch,
                    lay.scan_len,
                    scan_args,
                )?;
                rec.barrier();
                match form {
                    Form::PerBit => bit_scatter::record(self, rec, &c, &count, pass, &pass_io)?,
                    Form::Blocked => scatter::record(self, rec, &c, &count, pass, &pass_io)?,
                }
                rec.barrier();
            }
            copy::record(self, rec, &c, &count, sides[1], args.slice(0, 12))
        })
    }
}

/// The buffers of one pass: the side it reads (keys, values), the side it writes, the flags or histograms,
/// and its tile passes' indirect arguments.
pub(crate) struct PassIo {
    pub src: (Region, Region),
    pub dst: (Region, Region),
    pub offsets: Region,
    pub tile_args: Region,
}

/// Push constants of the per-pass shaders (flags, bit_scatter, histogram, scatter).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PassPush {
    pub items: ItemPush,
    /// The recorded pass (its bits are in the control block from [`CTRL_BITS`] on).
    pub pass: u32,
}

/// CPU reference of `vksort::split::differ` and `vksort::split::plan`: the bits of the transformed keys (raw
/// bits, narrower keys in the low bits) within the bit range that vary between the keys, lowest first (what the
/// plan leaves at [`CTRL_BITS`], [`CTRL_VARYING`] of them).
pub fn cpu_varying_bits(
    key: KeyType,
    order: Order,
    bits: Option<(u32, u32)>,
    raw: &[u128],
) -> Vec<u32> {
    let (lo, hi) = bits.unwrap_or((0, key.bits()));
    let (mut or, mut nor) = (0u128, 0u128);
    for &r in raw {
        let t = transform(key, r, order);
        or |= t;
        nor |= !t;
    }
    (lo..hi).filter(|&b| (or & nor) >> b & 1 == 1).collect()
}

impl SortBackend for SplitSort {
    fn capabilities(&self, _: SortAlgorithm) -> Capabilities {
        Capabilities {
            max_keys: MAX_KEYS,
            stable: true,
        }
    }

    fn policy_choice(&self, _: u64) -> SortAlgorithm {
        SortAlgorithm::SplitRadix
    }

    fn storage_requirements(&self, max_n: u64) -> StorageRequirements {
        StorageRequirements {
            scratch_bytes: self
                .forms
                .iter()
                .map(|&f| self.layout(f, max_n).total)
                .max()
                .unwrap_or(items::CONTROL_BYTES),
            scratch_usage: SCRATCH_USAGE,
        }
    }

    fn control_offset(&self, _: u64) -> u64 {
        0
    }

    /// The passes' kernels do not depend on n: a few sizes (with host and GPU-side counts) cover them all.
    fn prepare(&self, algorithms: &[SortAlgorithm], max_n: u64) -> Result<()> {
        let t = self.policy.tile();
        let mut sizes = vec![0, 1, 2, 3, t - 1, t, t + 1, max_n];
        sizes.retain(|&n| n <= max_n);
        sizes.sort_unstable();
        sizes.dedup();
        for &a in algorithms {
            let form = Form::of(a);
            items::prepare_by_planning(
                &self.ctx,
                &self.items,
                &sizes,
                |n| self.layout(form, n).total,
                SCRATCH_USAGE,
                |rec, buffers, count| self.cmd_sort(rec, form, buffers, count),
            )?;
        }
        Ok(())
    }

    fn record(
        &self,
        rec: &mut Recorder,
        algorithm: SortAlgorithm,
        buffers: SortBuffers,
        count: Count,
    ) -> Result<()> {
        self.cmd_sort(rec, Form::of(algorithm), buffers, count)
    }

    /// The passes of a sort of `n` keys whose every bit in the range varies (uniform keys): fewer run where
    /// fewer bits vary (those recorded for the other bits cost their dispatches only). Nothing for n <= 1.
    fn workload(&self, algorithm: SortAlgorithm, n: u64) -> Vec<PassModel> {
        if n <= 1 {
            return Vec::new();
        }
        let k = (self.items.key_words * 4) as f64;
        let v = (self.items.val_words * 4) as f64;
        let nf = n as f64;
        let form = Form::of(algorithm);
        let r = self.recorded_passes(algorithm);
        let rf = r as f64;
        let scan = self.scan_len(form, n) as f64 * 4.0;
        let mut passes = vec![
            PassModel::new("vksort::split::differ", 1, nf * k, 0.0, 2.0),
            PassModel::new("vksort::split::plan", 1, 64.0, 64.0 * rf, 0.0),
        ];
        let (first, last) = match form {
            Form::PerBit => (
                PassModel::new("vksort::split::flags", r, rf * nf * k, rf * nf * 4.0, 2.0),
                PassModel::new(
                    "vksort::split::bit_scatter",
                    r,
                    rf * nf * (k + v + 4.0),
                    rf * nf * (k + v),
                    4.0,
                ),
            ),
            Form::Blocked => {
                let d = self.policy.digit_bits as f64;
                (
                    PassModel::new("vksort::split::histogram", r, rf * nf * k, rf * scan, 3.0),
                    PassModel::new(
                        "vksort::split::scatter",
                        r,
                        rf * (nf * (k + v) + scan),
                        rf * nf * (k + v),
                        6.0 + 6.0 * d,
                    ),
                )
            }
        };
        passes.push(first);
        passes.push(PassModel::new(
            "vksort::scan::lookback",
            2 * r,
            rf * scan,
            rf * scan,
            2.0,
        ));
        passes.push(last);
        let copy = if r % 2 == 1 { nf * (k + v) } else { 0.0 };
        passes.push(PassModel::new("vksort::split::copy", 1, copy, copy, 1.0));
        passes
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
