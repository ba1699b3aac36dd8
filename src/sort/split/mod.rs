//! Split radix sorts: LSD radix sorts whose every pass is made of stable 1-bit splits, in two forms:
//! [`SortAlgorithm::SplitRadix`] (blocked: per pass of D bits every tile counts its digits, one scan, then every
//! tile splits itself D times in shared memory and scatters) and [`SortAlgorithm::SplitRadixBit`] (per bit: flags,
//! one scan, a scatter). Stable, every key type, values of 0, 4 or 8 bytes, both orders, bit ranges and
//! GPU-side counts. A `differ` and a `plan` pass decide on the GPU which bits vary, so which recorded passes run;
//! the recording never depends on the keys. docs/architecture.md ("The split radix sorts") has the passes, the
//! bytes they move and the scratch layout.

pub mod policy;

pub use policy::{SplitPolicy, MAX_DIGIT_BITS, MAX_TILE};

use crate::error::Result;
use crate::gpu::{Context, Kernel, Recorder, Region};
use crate::policy::{Policy as _, SubgroupPlan};
use crate::scan::{ScanAlgorithm, ScanConfig, ScanElem, ScanKind, Scanner};
use crate::shaders::include::split_common as glsl;
use crate::shaders::{
    split_bit_scatter, split_copy, split_differ, split_flags, split_histogram, split_plan,
    split_scatter, ShaderId, Spec,
};
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::{
    Capabilities, Family, Overrides, SortBackend, SortBuffers, StorageRequirements,
};
use crate::sort::config::SortConfig;
use crate::sort::count::Count;
use crate::sort::items::{self, Checked, ItemPush, Items, Regions};
use crate::sort::types::{transform, KeyType, Order};
use crate::workload::PassModel;
use ash::vk;
use std::sync::Arc;

/// The most keys a split radix sort takes (positions and scan elements are u32).
pub const MAX_KEYS: u64 = 1 << 31;

/// Control block word: the OR of the transformed keys (4 words, lowest first), from `vksort::split::differ`.
pub const CTRL_OR: u64 = glsl::CTRL_OR as u64;
/// Control block word: the OR of the complements of the transformed keys (4 words).
pub const CTRL_NOR: u64 = glsl::CTRL_NOR as u64;
/// Control block word: K, how many bits of the transformed key (within the bit range) vary between the keys.
pub const CTRL_VARYING: u64 = glsl::CTRL_VARYING as u64;
/// Control block word: P, the passes that ran.
pub const CTRL_PASSES: u64 = glsl::CTRL_PASSES as u64;
/// Control block word: the first of the K varying bits, lowest first (up to 128 words).
pub const CTRL_BITS: u64 = glsl::CTRL_BITS as u64;

/// Usage flags the scratch of a split radix sort needs.
pub const SCRATCH_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw()
        | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw(),
);

/// Words of the arguments region before the first pass's (the copy's 3, padded).
const ARGS_PASS: u64 = glsl::ARGS_PASS as u64;
/// Words of the arguments region per recorded pass (tile passes' 3, padded, then the scan's 3, padded).
const ARGS_STRIDE: u64 = glsl::ARGS_STRIDE as u64;

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

    fn algorithm(self) -> SortAlgorithm {
        match self {
            Form::PerBit => SortAlgorithm::SplitRadixBit,
            Form::Blocked => SortAlgorithm::SplitRadix,
        }
    }

    /// The pass before each scan and the one after it: (label, shader, whether it takes the digit bits).
    fn steps(self) -> [(&'static str, ShaderId, bool); 2] {
        match self {
            Form::PerBit => [
                ("vksort::split::flags", split_flags::SHADER, false),
                (
                    "vksort::split::bit_scatter",
                    split_bit_scatter::SHADER,
                    false,
                ),
            ],
            Form::Blocked => [
                ("vksort::split::histogram", split_histogram::SHADER, true),
                ("vksort::split::scatter", split_scatter::SHADER, true),
            ],
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

/// One recorded sort: its form, the checked buffers, the two sides (keys, values; side 0 the caller's), the
/// flags or histograms, the scan's scratch and length, and the indirect arguments.
struct Bindings {
    form: Form,
    c: Checked,
    sides: [(Region, Region); 2],
    offsets: Region,
    scan: Region,
    args: Region,
    scan_len: u64,
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
        let (items, policy, plan) = items::family_parts(
            ctx,
            config,
            overrides,
            SplitPolicy::for_items,
            |p, caps, items| p.check(caps, items),
        )?;
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
            plan,
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
        let recorded = self.recorded_passes(form.algorithm());
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

    /// A kernel of the split sort: `shader` with workgroup size `wg`, the items' constants and `spec`.
    fn kernel(&self, ctx: &Context, shader: ShaderId, wg: u32, spec: Spec) -> Result<Arc<Kernel>> {
        items::kernel(ctx, &self.plan, &self.items, false, shader, wg, spec)
    }

    /// A tile pass's kernel: the policy's workgroup and keys per invocation (and with `digits` its digit bits).
    fn tile_kernel(&self, ctx: &Context, shader: ShaderId, digits: bool) -> Result<Arc<Kernel>> {
        let p = &self.policy;
        let mut spec = Spec::new().with(split_scatter::KPT, p.items_per_invocation);
        if digits {
            spec.set(split_scatter::DIGIT_BITS, p.digit_bits);
        }
        self.kernel(ctx, shader, p.workgroup_size, spec)
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
            form.algorithm().name(),
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
        let b = self.bindings(form, c, &lay);
        rec.scope("vksort::sort", |rec| {
            rec.fill_region(
                "vksort::split::clear",
                c.scratch.slice(CTRL_OR * 4, (CTRL_NOR + 4 - CTRL_OR) * 4),
                0,
            )?;
            rec.barrier();
            items::record_count(ctx, &self.plan, rec, &c, n)?;
            if n <= 1 {
                return Ok(());
            }
            self.record_plan(rec, &b, &count)?;
            self.record_splits(rec, &b, &count)
        })
    }

    /// The regions of a sort in `form` of layout `lay` on the checked buffers `c`.
    fn bindings(&self, form: Form, c: Checked, lay: &Layout) -> Bindings {
        let region = |(off, bytes): (u64, u64)| c.scratch.slice(off, bytes);
        let alt_vals = if self.items.val_words > 0 {
            region(lay.alt_vals)
        } else {
            c.values
        };
        Bindings {
            form,
            c,
            sides: [(c.keys, c.values), (region(lay.alt_keys), alt_vals)],
            offsets: region(lay.offsets),
            scan: region(lay.scan),
            args: region(lay.args),
            scan_len: lay.scan_len,
        }
    }

    /// `differ` and `plan`: the varying bits, the passes that run and every recorded pass's indirect arguments.
    fn record_plan(&self, rec: &mut Recorder, b: &Bindings, count: &Count) -> Result<()> {
        let (ctx, p, items, c) = (rec.ctx(), &self.policy, self.items.push(count), &b.c);
        let k = self.tile_kernel(ctx, split_differ::SHADER, false)?;
        rec.pass("vksort::split::differ", &k)
            .bind(&[c.keys, c.meta])
            .push(&items)
            .groups(count.max_n().div_ceil(p.tile()) as u32)?;
        rec.barrier();
        let wg = self.plan.workgroup_size(ctx.caps(), 1);
        let k = self.kernel(ctx, split_plan::SHADER, wg, Spec::new())?;
        let (per_pass, scan_per_tile) = match b.form {
            Form::PerBit => (1, 0),
            Form::Blocked => (p.digit_bits, p.radix() as u32),
        };
        let push = PlanPush {
            items,
            recorded: self.recorded_passes(b.form.algorithm()),
            per_pass,
            tile_keys: p.tile() as u32,
            scan_tile: self.scanner.tile_size(),
            scan_per_tile,
            copy_keys: p.tile() as u32,
            max_x: ctx.caps().max_workgroup_count[0],
        };
        rec.pass("vksort::split::plan", &k)
            .bind(&[c.meta, b.args])
            .push(&push)
            .groups(1)?;
        rec.barrier();
        Ok(())
    }

    /// Every recorded pass (the step before the scan, the scan, the step after it; pass i reads side i % 2),
    /// then the copy back when an odd number ran.
    fn record_splits(&self, rec: &mut Recorder, b: &Bindings, count: &Count) -> Result<()> {
        let (ctx, c) = (rec.ctx(), &b.c);
        let items = self.items.push(count);
        let [(first, first_shader, digits), (last, last_shader, _)] = b.form.steps();
        for pass in 0..self.recorded_passes(b.form.algorithm()) {
            let (src, dst) = (b.sides[pass as usize % 2], b.sides[1 - pass as usize % 2]);
            let at = (ARGS_PASS + ARGS_STRIDE * pass as u64) * 4;
            let push = PassPush { items, pass };
            let k = self.tile_kernel(ctx, first_shader, digits)?;
            rec.pass(first, &k)
                .bind(&[src.0, b.offsets, c.meta])
                .push(&push)
                .indirect(b.args.slice(at, 12))?;
            rec.barrier();
            let scan_args = b.args.slice(at + 16, 12);
            self.scanner
                .scan_indirect(rec, b.offsets, b.offsets, b.scan, b.scan_len, scan_args)?;
            rec.barrier();
            let k = self.tile_kernel(ctx, last_shader, digits)?;
            rec.pass(last, &k)
                .bind(&[src.0, dst.0, src.1, dst.1, b.offsets, c.meta])
                .push(&push)
                .indirect(b.args.slice(at, 12))?;
            rec.barrier();
        }
        let k = self.tile_kernel(ctx, split_copy::SHADER, false)?;
        let alt = b.sides[1];
        rec.pass("vksort::split::copy", &k)
            .bind(&[c.keys, alt.0, c.values, alt.1, c.meta])
            .push(&items)
            .indirect(b.args.slice(0, 12))
    }
}

crate::gpu::push_block! {
    /// Push constants of the per-pass shaders (flags, bit_scatter, histogram, scatter).
    pub struct PassPush {
        pub items: ItemPush,
        /// The recorded pass (its bits are in the control block from [`CTRL_BITS`] on).
        pub pass: u32,
    }
}

crate::gpu::push_block! {
    /// Push constants of `split_plan`.
    pub(crate) struct PlanPush {
        items: ItemPush,
        /// Passes recorded.
        recorded: u32,
        /// Varying bits per pass (1: the per-bit form).
        per_pass: u32,
        /// Keys per workgroup of the tile passes.
        tile_keys: u32,
        /// Elements per workgroup of the scan.
        scan_tile: u32,
        /// Scan elements per key tile (2^digit_bits); 0: one per key (the per-bit form's flags).
        scan_per_tile: u32,
        /// Keys per workgroup of the final copy.
        copy_keys: u32,
        /// `maxComputeWorkGroupCount[0]`.
        max_x: u32,
    }
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
