//! `vksort::radix::upfront`: every digit place's histogram in one read of the keys; `vksort::radix::plan`:
//! global digit offsets, skipped places and the later passes' indirect arguments. With one portion the
//! upfront pass's last workgroup plans and no plan pass is recorded.

use super::layout::CTRL_UPFRONT_ARGS;
use super::{Bindings, RadixSort};
use crate::error::Result;
use crate::gpu::{push_block, Recorder, Region};

push_block! {
    /// Push constants of `radix_upfront`.
    pub struct UpfrontPush {
        pub lo: u32,
        pub hi: u32,
        pub key_kind: u32,
        pub flags: u32,
        pub hist_off: u32,
        pub max_groups: u32,
        /// Index of the portion's first key (the keys binding's first key).
        pub first: u32,
        /// Keys per portion.
        pub portion_len: u32,
        /// 1: the last workgroup runs the plan (sorts of one portion); the plan's fields follow.
        pub plan_fused: u32,
        pub tile: u32,
        pub max_x: u32,
        pub copy_chunk: u32,
        pub portion_tiles: u32,
        pub copy_len: u32,
        /// The hybrid sort's plan word (MSD places | log2 of the groups << 8; 0 for the LSD sorts).
        pub hybrid: u32,
    }
}

push_block! {
    /// Push constants of `radix_plan`.
    pub struct PlanPush {
        pub places: u32,
        pub tile: u32,
        pub max_x: u32,
        pub hist_off: u32,
        pub copy_chunk: u32,
        pub portion_tiles: u32,
        /// Keys per dispatch of the final copy.
        pub copy_len: u32,
        /// The sorted bits [lo, hi).
        pub lo: u32,
        pub hi: u32,
        /// The hybrid sort's plan word (0 for the LSD sorts).
        pub hybrid: u32,
    }
}

/// Shared histogram copies of the upfront pass: the policy's, within its subgroups and shared memory.
pub(crate) fn hist_copies(s: &RadixSort, wg: u32) -> u32 {
    let one = s.places * s.policy.radix() * 4;
    let fit = s.ctx.caps().max_shared_memory / one.max(1);
    s.policy
        .upfront
        .hist_copies
        .min(wg / s.plan.min.max(1))
        .min(fit)
        .max(1)
}

/// Records the upfront pass, one dispatch per source portion (indirect for a GPU-side count).
pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    let wg = s.upfront_wg();
    let kpt = s.policy.upfront.items_per_invocation;
    // The vector variant: whole vectors per invocation, a 16-byte aligned keys offset, at least one vector.
    let key_bytes = b.max_n * s.key_words as u64 * 4;
    let vec4 = s.policy.upfront.vec4
        && (kpt * s.key_words) % 4 == 0
        && b.keys.offset % 16 == 0
        && key_bytes >= 16;
    use crate::shaders::{radix_upfront as sh, Spec};
    let k = s.kernel(
        if vec4 { sh::VEC4 } else { sh::SCALAR },
        wg,
        Spec::new()
            .with(sh::KPT, kpt)
            .with(sh::DIGIT_BITS, s.policy.tile.digit_bits)
            .with(sh::KEY_WORDS, s.key_words)
            .with(sh::PLACES, s.places)
            .with(sh::HIST_COPIES, hist_copies(s, wg)),
    )?;
    let plan = plan_push(s, b);
    b.per_source_portion(s, rec, |rec, q, count, len, src| {
        let keys = src.refs[0];
        let push = UpfrontPush {
            lo: s.lo,
            hi: s.hi,
            key_kind: s.key.kind(),
            // debug_mode bit 6 (timing): the pass stops after its shared-memory counting.
            flags: s.flags() | if s.debug.debug_mode & 64 != 0 { 2 } else { 0 },
            hist_off: b.layout.hist_word as u32,
            max_groups: s.policy.upfront.max_groups,
            first: src.first as u32,
            portion_len: len as u32,
            plan_fused: (plan_fused(b) && s.debug.debug_mode & 32 == 0) as u32,
            tile: plan.tile,
            max_x: plan.max_x,
            copy_chunk: plan.copy_chunk,
            portion_tiles: plan.portion_tiles,
            copy_len: plan.copy_len,
            hybrid: b.hybrid,
        };
        let with_vec4 = [keys, b.meta, keys.slice(0, keys.size / 16 * 16)];
        let bindings: &[Region] = if vec4 { &with_vec4 } else { &with_vec4[..2] };
        let label = super::portion_label("vksort::radix::upfront", q, count);
        let pass = rec.pass(&label, &k).bind(bindings).push(&push);
        match b.count {
            None => {
                let n_q = b.max_n.saturating_sub(src.first).min(len);
                let groups = n_q.div_ceil((wg * kpt) as u64) as u32;
                pass.groups(groups.min(s.policy.upfront.max_groups))
            }
            Some(_) => pass.indirect(b.args(CTRL_UPFRONT_ARGS)),
        }
    })
}

/// Whether the upfront pass's last workgroup plans (one portion), so that no plan pass is recorded.
pub(crate) fn plan_fused(b: &Bindings) -> bool {
    b.layout.portions.count == 1
}

/// The plan's push constants (also the upfront pass's plan fields).
fn plan_push(s: &RadixSort, b: &Bindings) -> PlanPush {
    PlanPush {
        places: s.places,
        tile: s.policy.tile(),
        max_x: s.ctx.caps().max_workgroup_count[0],
        hist_off: b.layout.hist_word as u32,
        copy_chunk: s.copy_chunk(),
        portion_tiles: b.layout.portions.tiles as u32,
        copy_len: b.source_portions().1 as u32,
        lo: s.lo,
        hi: s.hi,
        hybrid: b.hybrid,
    }
}

/// Records the plan pass (sorts of several portions; see [`plan_fused`]).
pub(crate) fn record_plan(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    use crate::shaders::{radix_plan as sh, Spec};
    let wg = s.plan.workgroup_size(s.ctx.caps(), 256);
    let k = s.kernel(
        sh::SHADER,
        wg,
        Spec::new().with(sh::DIGIT_BITS, s.policy.tile.digit_bits),
    )?;
    rec.pass("vksort::radix::plan", &k)
        .bind(&[b.meta])
        .push(&plan_push(s, b))
        .groups(1)
}
