//! Diagnostics: a kernel that keeps the GPU busy on purpose (`vksort::diagnostics::spin`), used by the tests to
//! prove that every wait is bounded. Not a sorting primitive.

use crate::error::Result;
use crate::gpu::{BufferRef, Recorder};
use crate::policy::SubgroupPlan;
use ash::vk;

/// Push constants of `glsl/debug_spin.comp` ([`crate::shaders::debug_spin`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SpinPush {
    pub iterations: u32,
}

/// Records `groups` workgroups whose invocations each run `iterations` (at most 65535) rounds of a dependent
/// hash chain, summed into `counter` (8 bytes).
pub fn cmd_spin(
    rec: &mut Recorder,
    counter: BufferRef,
    iterations: u32,
    groups: u32,
) -> Result<()> {
    let ctx = rec.ctx();
    counter.check(ctx, "counter", 8, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    let plan = SubgroupPlan::for_device(ctx.caps());
    let kernel = plan.kernel(
        ctx,
        crate::shaders::debug_spin::SHADER,
        plan.max,
        crate::shaders::Spec::new(),
    )?;
    rec.dispatch(
        "vksort::diagnostics::spin",
        &kernel,
        &[counter],
        &SpinPush { iterations },
        groups,
    )
}
