//! `vksort::radix::setup` (glsl/radix_setup.comp): the GPU-side count (clamped to the capacity, overflow
//! recorded, upfront's indirect arguments written); and `vksort::radix::copy` (glsl/radix_copy.comp): the final
//! copy from the scratch side to the caller's buffers, dispatched indirectly with 0 groups when the number of
//! executed passes was even.

use super::{Bindings, RadixSort, CTRL_COPY_ARGS};
use crate::error::Result;
use crate::gpu::{BufferRef, Recorder};

/// Push constants of `radix_setup`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetupPush {
    pub count_word: u32,
    pub capacity: u32,
    pub chunk: u32,
    pub max_x: u32,
    pub max_groups: u32,
}

const COPY_WG: u32 = 256;
const COPY_KPT: u32 = 4;

pub(crate) fn copy_chunk(s: &RadixSort) -> u32 {
    s.plan.workgroup_size(s.ctx.caps(), COPY_WG) * COPY_KPT
}

pub(crate) fn record(
    s: &RadixSort,
    rec: &mut Recorder,
    b: &Bindings,
    count: BufferRef,
    word: u32,
) -> Result<()> {
    let wg = s.plan.workgroup_size(s.ctx.caps(), 32);
    let k = s.kernel("radix_setup", wg, &[])?;
    let push = SetupPush {
        count_word: word,
        capacity: b.max_n as u32,
        chunk: super::upfront::upfront_wg(s) * s.policy.upfront_keys_per_thread,
        max_x: s.ctx.caps().max_workgroup_count[0],
        max_groups: s.policy.upfront_max_groups,
    };
    rec.dispatch("vksort::radix::setup", &k, &[count, b.meta], &push, 1)
}

/// Push constants of `radix_copy`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CopyPush {
    pub first: u32,
    pub portion_len: u32,
}

pub(crate) fn record_copy(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    let wg = s.plan.workgroup_size(s.ctx.caps(), COPY_WG);
    let k = s.kernel("radix_copy", wg, &[COPY_KPT, s.key_words, s.val_words])?;
    let (count, len) = b.source_portions();
    for q in 0..count {
        // Portions touch disjoint keys, but share the bindings the validation layers track (histogram
        // atomics, unused value bindings): one barrier between them costs little at these sizes.
        if q > 0 {
            rec.barrier();
        }
        let src = b.sources(s, q);
        let [ka, kb, va, vb] = src.refs;
        let label = super::portion_label("vksort::radix::copy", q, count);
        rec.dispatch_indirect(
            &label,
            &k,
            &[ka, kb, va, vb, b.meta],
            &CopyPush {
                first: src.first as u32,
                portion_len: len as u32,
            },
            b.args(CTRL_COPY_ARGS),
        )?;
    }
    Ok(())
}
