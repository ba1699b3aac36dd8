//! `vksort::radix::onesweep::place<p>` (glsl/sort/radix/radix_onesweep.comp, variants `ballot` / `partitioned`): one digit
//! place in one pass. Tiles are claimed through the place's counter in the control block; each tile ranks its
//! keys locally (subgroup multisplit + workgroup multi-scan), finds the count of each digit in earlier tiles by
//! decoupled look-back over the place's status region (bounded spin, then self-counting), and scatters keys and
//! values through shared memory to the other side. Dispatched indirectly (0 groups when the plan skipped the
//! place). Policy-selected code paths (specialization constants 10 and 11, see [`super::RadixPolicy`]):
//! `rank2` (CUB-style `[digit][subgroup]` counters and one workgroup scan; 2: 16-bit packed counters) and
//! `keep_digit` (wide exchange: a second word travels with each key through shared memory); `exchange_parts`
//! (the exchange moves the tile through shared memory in parts, spec constant 18).
//!
//! `vksort::radix::onesweep::fused` (variants `fused` / `fused_partitioned`; sorts of up to the policy's
//! `fused_max` keys, one portion): the upfront histogram, the plan and every place in one dispatch. Its
//! workgroups claim items from one counter: the upfront chunks first (the last to finish plans), then each
//! place's tiles in place order; a tile waits until every tile of the place before it is done, then runs as
//! above. Each wait is on items claimed earlier by running workgroups, so it needs no co-residency. Up to the
//! policy's `fused_loop_max` keys one workgroup per tile claims items in a loop (a place's tiles spread over
//! the SMs as the grid does); above it one workgroup per item runs the item it claims (fewer registers).

use super::layout::CTRL_UPFRONT_ARGS;
use super::{Bindings, RadixSort, CTRL_PASS};
use crate::error::Result;
use crate::gpu::Recorder;

/// Push constants of `radix_onesweep_*` (also the downsweep variants).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OnesweepPush {
    pub shift: u32,
    pub pass_bits: u32,
    pub pass_index: u32,
    pub key_kind: u32,
    pub flags: u32,
    /// Meta word offset of this portion's global digit offsets (Onesweep).
    pub hist_off: u32,
    /// Meta word offset where the portion's last tile leaves the next portion's offsets (Onesweep).
    pub next_off: u32,
    pub portion: u32,
    pub portion_tiles: u32,
    /// Index of the first key the source bindings hold.
    pub src_base: u32,
    pub pad: [u32; 2],
    /// Wide variants: device addresses (lo, hi) of keys, scratch keys, values, scratch values.
    pub addr: [u32; 8],
}

/// Push constants of place `p`, portion `q` whose sources start at key `first`.
pub(crate) fn push(s: &RadixSort, b: &Bindings, p: u32, q: u64, first: u64) -> OnesweepPush {
    let (shift, bits) = s.pass_shift(p);
    let radix = s.policy.radix() as u64;
    // Two running-offset arrays per place: the plan's (portion 0 reads it), and the second one.
    let run = |k: u64| (b.layout.hist_word + (k % 2 * s.places as u64 + p as u64) * radix) as u32;
    OnesweepPush {
        shift,
        pass_bits: bits,
        pass_index: p,
        key_kind: s.key.kind(),
        flags: s.flags(),
        hist_off: run(q),
        next_off: run(q + 1),
        portion: q as u32,
        portion_tiles: b.layout.portions.tiles as u32,
        src_base: first as u32,
        pad: {
            // Diagnostics: this place's clock records (see super::clocks).
            let tiles = b.layout.portions.count * b.layout.portions.tiles;
            let at = match s.debug.tile_clocks {
                0 => 0,
                base => base + p as u64 * tiles * super::clocks::RECORD_BYTES,
            };
            [at as u32, (at >> 32) as u32]
        },
        addr: b.addr,
    }
}

/// Push constants of `radix_onesweep_fused*`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FusedPush {
    /// The sorted bits [lo, hi).
    pub lo: u32,
    pub hi: u32,
    pub key_kind: u32,
    pub flags: u32,
    /// Meta word offset of the histograms (then the global digit offsets).
    pub hist_off: u32,
    /// Words per place of the status binding.
    pub slot_words: u32,
    /// Most upfront items.
    pub upfront_items: u32,
    /// The plan's fields (see [`super::upfront::PlanPush`]).
    pub max_x: u32,
    pub copy_chunk: u32,
    pub portion_tiles: u32,
    pub copy_len: u32,
}

/// Whether the sort of `b` runs fused: Onesweep over one portion within the binding range that the policy
/// fuses ([`super::RadixPolicy::fuses`]), and no diagnostics that time or change single places.
pub(crate) fn fused(s: &RadixSort, b: &Bindings, algorithm: crate::sort::SortAlgorithm) -> bool {
    algorithm == crate::sort::SortAlgorithm::Onesweep
        && b.hybrid == 0
        && b.layout.portions.count == 1
        && !b.layout.portions.wide
        && s.policy.fuses(b.max_n, s.places)
        && s.debug.tile_clocks == 0
        && s.debug.debug_mode == 0
}

/// The fused kernel's forms (its FUSED_LOOP specialization constant).
#[derive(Clone, Copy)]
enum FusedForm {
    /// One workgroup per item of the capacity, each running the one item it claims.
    OneItem = 0,
    /// Workgroups claim items until none is left.
    Claim = 1,
    /// Chosen in the kernel by the GPU-side count: claiming up to `fused_loop_max` keys, else one item each.
    ByCount = 2,
}

/// The fused dispatch's grid: its form, its direct grid (the capacity's), and for a GPU-side count the grid the
/// setup pass computes from the count instead (`setup::FusedArgs`).
pub(crate) struct FusedGrid {
    form: FusedForm,
    groups: u32,
    loop_max: u32,
    upfront_items: u32,
    indirect: Option<super::setup::FusedArgs>,
}

/// Plans the fused dispatch (see [`record_fused`]).
pub(crate) fn fused_grid(s: &RadixSort, b: &Bindings) -> FusedGrid {
    let p = &s.policy;
    let caps = s.ctx.caps();
    // CPU drivers: one workgroup, which claims every item itself and never waits on another (lavapipe ends an
    // invocation's loops after 65,535 iterations in all, so a long wait there would end every loop early).
    // Elsewhere one workgroup per tile of the capacity, each claiming items until none is left, or (above the
    // policy's fused_loop_max, where that grid fits the device's limit) one workgroup per item: the upfront
    // items, then every place's tiles.
    let max_x = caps.max_workgroup_count[0] as u64;
    let tiles = b.layout.portions.tiles;
    let upfront_items = p.upfront_max_groups.max(1);
    let items = tiles.min(upfront_items as u64) + s.places as u64 * tiles;
    // A GPU-side count whose capacity takes the one-item grid may still be small enough for the claiming form:
    // the kernel chooses by the count (FUSED_LOOP 2).
    let (groups, form, loop_max) = if caps.is_cpu() {
        (1, FusedForm::Claim, 0)
    } else if p.fused_loops(b.max_n) || items > max_x {
        (tiles.min(max_x) as u32, FusedForm::Claim, 0)
    } else if b.count.is_some() && p.fused_loop_max > 0 {
        (items as u32, FusedForm::ByCount, p.fused_loop_max)
    } else {
        (items as u32, FusedForm::OneItem, 0)
    };
    // A GPU-side count on a GPU: the setup pass sizes the grid for the count (no workgroups that only leave).
    let indirect = (b.count.is_some() && !caps.is_cpu()).then(|| super::setup::FusedArgs {
        tile: p.tile(),
        places: s.places,
        loop_max: match form {
            FusedForm::Claim => u32::MAX,
            FusedForm::ByCount => loop_max,
            FusedForm::OneItem => 0,
        },
        upfront_items,
        most: groups,
    });
    FusedGrid {
        form,
        groups,
        loop_max,
        upfront_items,
        indirect,
    }
}

impl FusedGrid {
    /// What the setup pass writes for the fused dispatch (GPU-side counts on GPUs).
    pub(crate) fn setup_args(&self) -> Option<super::setup::FusedArgs> {
        self.indirect
    }
}

/// Records the fused sort (see the module documentation): one dispatch, whose grid covers the capacity's tiles
/// (claiming form) or items (one item per workgroup, or, for a GPU-side count, the form the count picks), or is
/// one workgroup on CPU drivers; with a GPU-side count on a GPU, the grid the setup pass computed from the
/// count. The setup pass comes before it (with `g.setup_args()`), the final copy after it when the places are
/// odd.
pub(crate) fn record_fused(s: &RadixSort, rec: &mut Recorder, b: &Bindings, g: &FusedGrid) -> Result<()> {
    use crate::shaders::radix_onesweep as sh;
    let shader = if s.policy.use_partitioned {
        sh::FUSED_PARTITIONED
    } else {
        sh::FUSED
    };
    let p = &s.policy;
    let l = &b.layout;
    let caps = s.ctx.caps();
    let k = s.kernel(
        shader,
        p.workgroup_size,
        spec(s)
            .with(sh::FUSED_PLACES, s.places)
            .with(sh::FUSED_LOOP, g.form as u32)
            .with(sh::FUSED_LOOP_MAX, g.loop_max),
    )?;
    let push = FusedPush {
        lo: s.lo,
        hi: s.hi,
        key_kind: s.key.kind(),
        flags: s.flags(),
        hist_off: l.hist_word as u32,
        slot_words: (l.status_slot_bytes / 4) as u32,
        upfront_items: g.upfront_items,
        max_x: caps.max_workgroup_count[0],
        copy_chunk: s.copy_chunk(),
        portion_tiles: l.portions.tiles as u32,
        copy_len: b.source_portions().1 as u32,
    };
    let [ka, kb, va, vb] = b.sources(s, 0).refs;
    let status = b.status.slice(0, l.status_slot_bytes * s.places as u64);
    let bindings = [ka, kb, va, vb, b.meta, status];
    let label = "vksort::radix::onesweep::fused";
    match g.indirect {
        Some(_) => rec.dispatch_indirect(label, &k, &bindings, &push, b.args(CTRL_UPFRONT_ARGS)),
        None => rec.dispatch(label, &k, &bindings, &push, g.groups),
    }
}

/// The ranking kernels' specialization constants (all variants).
fn spec(s: &RadixSort) -> crate::shaders::Spec {
    use crate::shaders::{radix_onesweep as sh, Spec};
    let p = &s.policy;
    Spec::new()
        .with(sh::KPT, p.keys_per_thread)
        .with(sh::DIGIT_BITS, p.digit_bits)
        .with(sh::KEY_WORDS, s.key_words)
        .with(sh::VAL_WORDS, s.val_words)
        .with(sh::SPIN_LIMIT, p.spin_limit)
        .with(sh::STALL_EVERY, s.debug.stall_every)
        .with(sh::EARLY_COUNTS, p.early_counts as u32)
        .with(sh::DEBUG_MODE, s.debug.debug_mode)
        .with(sh::RANK2, p.rank_counters.spec())
        .with(sh::KEEP_DIGIT, p.keep_digit as u32)
        .with(sh::BALLOT_WORDS, s.ballot_words())
        .with(sh::MATCH_OR, p.peer_match.spec())
        .with(sh::LB_BATCH, p.lookback_batch)
        .with(sh::SUB_TILES, p.sub_tiles)
        .with(sh::XPARTS, p.exchange_parts)
}

/// The ranking kernel: `downsweep` selects the reduce-then-scan variant.
/// `wide`: the variant that writes through device addresses.
pub(crate) fn kernel(
    s: &RadixSort,
    downsweep: bool,
    wide: bool,
) -> Result<std::sync::Arc<crate::gpu::Kernel>> {
    use crate::shaders::radix_onesweep as sh;
    // The clock variants exist for the Onesweep (not the downsweep) pass, without `wide`.
    let clocks = s.debug.tile_clocks != 0 && !downsweep && !wide;
    let shader = match (downsweep, s.policy.use_partitioned, wide, clocks) {
        (false, false, _, true) => sh::BALLOT_CLOCK,
        (false, true, _, true) => sh::PARTITIONED_CLOCK,
        (false, false, false, false) => sh::BALLOT,
        (false, true, false, false) => sh::PARTITIONED,
        (true, false, false, _) => sh::DOWNSWEEP,
        (true, true, false, _) => sh::DOWNSWEEP_PARTITIONED,
        (false, false, true, false) => sh::BALLOT_WIDE,
        (false, true, true, false) => sh::PARTITIONED_WIDE,
        (true, false, true, _) => sh::DOWNSWEEP_WIDE,
        (true, true, true, _) => sh::DOWNSWEEP_PARTITIONED_WIDE,
    };
    s.kernel(shader, s.policy.workgroup_size, spec(s))
}

/// Records place `p`'s pass over portion `q` (label `...::place<p>`, `...::place<p>::portion<q>` when the
/// sort has several portions).
pub(crate) fn record(
    s: &RadixSort,
    rec: &mut Recorder,
    b: &Bindings,
    p: u32,
    q: u64,
) -> Result<()> {
    let k = kernel(s, false, b.layout.portions.wide)?;
    let src = b.sources(s, q);
    let [ka, kb, va, vb] = src.refs;
    rec.dispatch_indirect(
        &super::pass_label("onesweep", p, q, b.layout.portions.count),
        &k,
        &[ka, kb, va, vb, b.meta, b.status_slot(p, q)],
        &push(s, b, p, q, src.first),
        b.args(CTRL_PASS + 8 * p as u64),
    )
}
