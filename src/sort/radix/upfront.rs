//! `vksort::radix::upfront` (glsl/sort/radix/radix_upfront.comp): all digit histograms in one read of the keys; and
//! `vksort::radix::plan` (glsl/sort/radix/radix_plan.comp): global digit offsets, skipped places, and the later passes'
//! indirect arguments; with one portion, the upfront pass's last workgroup plans and no plan pass is recorded. Reads the keys (caller's buffer) and the control block; writes the histogram and
//! control regions of the meta scratch (cleared before). Kernel variants: `radix_upfront_scalar` (default) and
//! `radix_upfront_vec4` (policy `upfront_vec4`: keys read as 16-byte vectors through a third binding, the keys
//! again, viewed as uvec4[] with the range rounded down to 16 bytes; used only when upfront_keys_per_thread x
//! key words is a multiple of 4 and the keys' offset is 16-byte aligned).

use super::layout::CTRL_UPFRONT_ARGS;
use super::{Bindings, RadixSort};
use crate::error::Result;
use crate::gpu::Recorder;

/// Push constants of `radix_upfront`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
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

/// Push constants of `radix_plan`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
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

/// Shared histogram copies of the upfront pass: the policy's, at most one per (smallest) subgroup and within
/// the shared memory.
pub(crate) fn hist_copies(s: &RadixSort, wg: u32) -> u32 {
    let one = s.places * s.policy.radix() * 4;
    let fit = s.ctx.caps().max_shared_memory / one.max(1);
    s.policy
        .upfront_hist_copies
        .min(wg / s.plan.min.max(1))
        .min(fit)
        .max(1)
}

pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    let wg = s.upfront_wg();
    let kpt = s.policy.upfront_keys_per_thread;
    // The 16-byte-vector variant: whole vectors per invocation, a 16-byte aligned keys offset, >= 1 vector.
    let key_bytes = b.max_n * s.key_words as u64 * 4;
    let vec4 = s.policy.upfront_vec4
        && (kpt * s.key_words) % 4 == 0
        && b.keys.offset % 16 == 0
        && key_bytes >= 16;
    use crate::shaders::{radix_upfront as sh, Spec};
    let k = s.kernel(
        if vec4 { sh::VEC4 } else { sh::SCALAR },
        wg,
        Spec::new()
            .with(sh::KPT, kpt)
            .with(sh::DIGIT_BITS, s.policy.digit_bits)
            .with(sh::KEY_WORDS, s.key_words)
            .with(sh::PLACES, s.places)
            .with(sh::HIST_COPIES, hist_copies(s, wg)),
    )?;
    let (count, len) = b.source_portions();
    for q in 0..count {
        // Portions touch disjoint keys, but share the bindings the validation layers track (histogram
        // atomics, unused value bindings): one barrier between them costs little at these sizes.
        if q > 0 {
            rec.barrier();
        }
        let src = b.sources(s, q);
        let keys = src.refs[0];
        let plan = plan_push(s, b);
        let push = UpfrontPush {
            lo: s.lo,
            hi: s.hi,
            key_kind: s.key.kind(),
            // Timing experiments (debug_mode bit 6): the pass stops after its shared-memory counting.
            flags: s.flags() | if s.debug.debug_mode & 64 != 0 { 2 } else { 0 },
            hist_off: b.layout.hist_word as u32,
            max_groups: s.policy.upfront_max_groups,
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
        let keys4 = keys.slice(0, keys.size / 16 * 16);
        let bindings_vec4 = [keys, b.meta, keys4];
        let bindings: &[crate::gpu::Region] = if vec4 {
            &bindings_vec4
        } else {
            &bindings_vec4[..2]
        };
        let label = super::portion_label("vksort::radix::upfront", q, count);
        match b.count {
            None => {
                let n_q = b.max_n.saturating_sub(src.first).min(len);
                let groups =
                    (n_q.div_ceil((wg * kpt) as u64) as u32).min(s.policy.upfront_max_groups);
                rec.dispatch(&label, &k, bindings, &push, groups)?
            }
            Some(_) => {
                rec.dispatch_indirect(&label, &k, bindings, &push, b.args(CTRL_UPFRONT_ARGS))?
            }
        }
    }
    Ok(())
}

/// Whether the upfront pass's last workgroup plans (one portion: one upfront dispatch), so that no plan pass
/// is recorded.
pub(crate) fn plan_fused(b: &Bindings) -> bool {
    b.layout.portions.count == 1
}

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
    let wg = s.plan.workgroup_size(s.ctx.caps(), 256);
    let k = s.kernel(
        crate::shaders::radix_plan::SHADER,
        wg,
        crate::shaders::Spec::new()
            .with(crate::shaders::radix_plan::DIGIT_BITS, s.policy.digit_bits),
    )?;
    rec.dispatch("vksort::radix::plan", &k, &[b.meta], &plan_push(s, b), 1)
}
