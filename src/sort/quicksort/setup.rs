//! `vksort::quicksort::setup` (glsl/sort/quicksort/quicksort_setup.comp): one workgroup zeroes the round states
//! and the global slot of the bookkeeping (every indirect grid (0, 1, 1)) before phase one. Writes
//! 32 x (rounds + 1) bytes.

use super::layout::{Layout, RS_WORDS};
use super::{Bound, QuicksortSort};
use crate::error::Result;
use crate::gpu::Recorder;

/// Push constants of `quicksort_setup`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SetupPush {
    pub rs_off: u32,
    pub words: u32,
}

pub(crate) fn record(s: &QuicksortSort, rec: &mut Recorder, b: &Bound, lay: &Layout) -> Result<()> {
    use crate::shaders::{quicksort_setup as sh, Spec};
    let ctx = rec.ctx();
    let wg = s.plan.workgroup_size(ctx.caps(), 64);
    let k = s.plan.kernel(ctx, sh::SHADER, wg, Spec::new())?;
    rec.dispatch(
        "vksort::quicksort::setup",
        &k,
        &[b.meta],
        &SetupPush {
            rs_off: lay.rs_off,
            words: ((lay.rounds as u64 + 1) * RS_WORDS) as u32,
        },
        1,
    )
}
