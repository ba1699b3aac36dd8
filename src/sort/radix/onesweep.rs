//! `vksort::radix::onesweep::place<p>` (radix_onesweep.comp): one digit place in one pass. Each tile claimed
//! from the place's counter ranks its keys locally, finds each digit's count in earlier tiles by decoupled
//! look-back (bounded spin, then counting them itself) and scatters through shared memory; indirect, 0 groups
//! when the plan skipped the place. `vksort::radix::onesweep::fused` (sorts up to `fused.max` keys): the
//! upfront pass, the plan and every place in one dispatch, whose waits are only on items claimed earlier.

use super::layout::CTRL_UPFRONT_ARGS;
use super::{Bindings, RadixSort, CTRL_PASS};
use crate::error::Result;
use crate::gpu::{push_block, Recorder};

push_block! {
    /// Push constants of `radix_onesweep_*` (also the downsweep variants).
    pub struct OnesweepPush {
        pub shift: u32,
        pub pass_bits: u32,
        pub pass_index: u32,
        pub key_kind: u32,
        pub flags: u32,
        /// Meta word offset of this portion's global digit offsets.
        pub hist_off: u32,
        /// Meta word offset where the portion's last tile leaves the next portion's offsets.
        pub next_off: u32,
        pub portion: u32,
        pub portion_tiles: u32,
        /// Index of the first key the source bindings hold.
        pub src_base: u32,
        /// Diagnostics: this place's clock records' address (lo, hi; see [`super::clocks`]).
        pub pad: [u32; 2],
        /// Wide variants: device addresses (lo, hi) of keys, scratch keys, values, scratch values.
        pub addr: [u32; 8],
    }
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

push_block! {
    /// Push constants of `radix_onesweep_fused*`.
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
}

/// Whether the sort of `b` runs fused (see [`fuses`]).
pub(crate) fn fused(s: &RadixSort, b: &Bindings, algorithm: crate::sort::SortAlgorithm) -> bool {
    fuses(s, algorithm, b.hybrid, &b.layout.portions, b.max_n)
}

/// Whether a sort of up to `max_n` keys with `algorithm` (resolved: not Auto, a hybrid sort's shape `hybrid`)
/// over `portions` runs fused: Onesweep over one portion that the policy fuses, and no diagnostics.
pub(crate) fn fuses(
    s: &RadixSort,
    algorithm: crate::sort::SortAlgorithm,
    hybrid: u32,
    portions: &super::Portions,
    max_n: u64,
) -> bool {
    algorithm == crate::sort::SortAlgorithm::Onesweep
        && hybrid == 0
        && portions.count == 1
        && !portions.wide
        && s.policy.fuses(max_n, s.places)
        && s.debug.tile_clocks == 0
        && s.debug.debug_mode == 0
}

/// Control block word the fused kernel's place wait sets when it gives up (the sort's result is then wrong;
/// the setup pass zeroes it with the rest of the control block before every sort).
pub(crate) const CTRL_FUSED_STALLED: u64 =
    crate::shaders::include::radix_common::CTRL_FUSED_STALLED as u64;

/// The fused kernel's forms (its FUSED_LOOP specialization constant).
#[derive(Clone, Copy)]
enum FusedForm {
    /// One workgroup per item of the capacity, each running the one item it claims.
    OneItem = 0,
    /// Workgroups claim items until none is left.
    Claim = 1,
    /// Chosen in the kernel by the GPU-side count: claiming up to `fused.loop_max` keys, else one item each.
    ByCount = 2,
}

/// The fused dispatch's form, its grid (the capacity's), and for a GPU-side count on a GPU what the setup pass
/// needs to compute the count's grid instead.
pub(crate) struct FusedGrid {
    form: FusedForm,
    groups: u32,
    loop_max: u32,
    upfront_items: u32,
    indirect: Option<super::setup::FusedArgs>,
}

/// Plans the fused dispatch.
pub(crate) fn fused_grid(s: &RadixSort, b: &Bindings) -> FusedGrid {
    let p = &s.policy;
    let caps = s.ctx.caps();
    let cpu = crate::tuning::for_class(caps.class)
        .radix
        .fused_one_workgroup;
    // CPU drivers: one workgroup claims every item and never waits on another (lavapipe ends an invocation's
    // loops after 65,535 iterations). Elsewhere one workgroup per tile claiming items, or (above fused.loop_max,
    // where that grid fits) one per item: the upfront items, then every place's tiles.
    let max_x = caps.max_workgroup_count[0] as u64;
    let tiles = b.layout.portions.tiles;
    let upfront_items = p.upfront.max_groups.max(1);
    let items = tiles.min(upfront_items as u64) + s.places as u64 * tiles;
    let (groups, form, loop_max) = if cpu {
        (1, FusedForm::Claim, 0)
    } else if p.fused_loops(b.max_n) || items > max_x {
        (tiles.min(max_x) as u32, FusedForm::Claim, 0)
    } else if b.count.is_some() && p.fused.loop_max > 0 {
        (items as u32, FusedForm::ByCount, p.fused.loop_max)
    } else {
        (items as u32, FusedForm::OneItem, 0)
    };
    let indirect = (b.count.is_some() && !cpu).then(|| super::setup::FusedArgs {
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

/// Records the fused sort over grid `g`, after the setup pass (given `g.setup_args()`).
pub(crate) fn record_fused(
    s: &RadixSort,
    rec: &mut Recorder,
    b: &Bindings,
    g: &FusedGrid,
) -> Result<()> {
    use crate::shaders::radix_onesweep as sh;
    let shader = if s.policy.tile.partitioned {
        sh::FUSED_PARTITIONED
    } else {
        sh::FUSED
    };
    let p = &s.policy;
    let l = &b.layout;
    let caps = s.ctx.caps();
    let k = s.kernel(
        shader,
        p.tile.workgroup_size,
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
    let pass = rec
        .pass("vksort::radix::onesweep::fused", &k)
        .bind(&bindings)
        .push(&push);
    match g.indirect {
        Some(_) => pass.indirect(b.args(CTRL_UPFRONT_ARGS)),
        None => pass.groups(g.groups),
    }
}

/// The ranking kernels' specialization constants (all variants).
fn spec(s: &RadixSort) -> crate::shaders::Spec {
    use crate::shaders::{radix_onesweep as sh, Spec};
    let p = &s.policy;
    Spec::new()
        .with(sh::KPT, p.tile.items_per_invocation)
        .with(sh::DIGIT_BITS, p.tile.digit_bits)
        .with(sh::KEY_WORDS, s.key_words)
        .with(sh::VAL_WORDS, s.val_words)
        .with(sh::SPIN_LIMIT, p.lookback.spin_limit)
        .with(sh::STALL_EVERY, s.debug.stall_every)
        .with(sh::EARLY_COUNTS, p.lookback.early_counts as u32)
        .with(sh::DEBUG_MODE, s.debug.debug_mode)
        .with(sh::RANK2, p.tile.rank_counters.spec())
        .with(sh::KEEP_DIGIT, p.tile.keep_digit as u32)
        .with(sh::BALLOT_WORDS, s.ballot_words())
        .with(sh::MATCH_OR, p.tile.peer_match.spec())
        .with(sh::LB_BATCH, p.lookback.batch)
        .with(sh::SUB_TILES, p.tile.sub_tiles)
        .with(sh::XPARTS, p.tile.exchange_parts)
}

/// The ranking kernel: `downsweep` the reduce-then-scan variant, `wide` the one writing through addresses.
pub(crate) fn kernel(
    s: &RadixSort,
    downsweep: bool,
    wide: bool,
) -> Result<std::sync::Arc<crate::gpu::Kernel>> {
    use crate::shaders::radix_onesweep as sh;
    // The clock variants exist for the Onesweep (not the downsweep) pass, without `wide`.
    let clocks = s.debug.tile_clocks != 0 && !downsweep && !wide;
    let shader = match (downsweep, s.policy.tile.partitioned, wide, clocks) {
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
    s.kernel(shader, s.policy.tile.workgroup_size, spec(s))
}

/// Records place `p`'s pass over portion `q`.
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
    rec.pass(
        &super::pass_label("onesweep", p, q, b.layout.portions.count),
        &k,
    )
    .bind(&[ka, kb, va, vb, b.meta, b.status_slot(p, q)])
    .push(&push(s, b, p, q, src.first))
    .indirect(b.args(CTRL_PASS + 8 * p as u64))
}
