//! Diagnostics, not sorting primitives:
//! - a kernel that keeps the GPU busy on purpose (`vksort::diagnostics::spin`), used by the tests to prove that
//!   every wait is bounded;
//! - a residency probe (`vksort::diagnostics::residency`, [`cmd_residency`]): how many workgroups of a given
//!   shape (invocations, shared memory, live registers) a device keeps resident at once, per SM where the device
//!   names its SMs (`VK_NV_shader_sm_builtins`). `examples/residency` sweeps it; `docs/tuning.md` has the table.

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

/// The shape of the workgroups a residency probe runs ([`cmd_residency`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidencyShape {
    /// Invocations per workgroup (a multiple of the largest subgroup size).
    pub workgroup_size: u32,
    /// Shared memory each workgroup declares and writes, in bytes (rounded up to 4; at least 4).
    pub shared_bytes: u32,
    /// 32-bit words each invocation keeps live across the probe's loop (1..=255): the register demand.
    pub live_words: u32,
}

/// Where a residency probe counts its workgroups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResidencySlots {
    /// One counter per SM (`gl_SMIDNV`; needs [`crate::gpu::DeviceCaps::sm_builtins`]): `sms` counters.
    PerSm { sms: u32 },
    /// One counter for the whole device.
    Device,
}

impl ResidencySlots {
    /// Counter slots.
    pub fn count(self) -> u32 {
        match self {
            Self::PerSm { sms } => sms.max(1),
            Self::Device => 1,
        }
    }

    /// Bytes of the counter buffer [`cmd_residency`] needs: in-flight and peak words per slot, and a sink word.
    pub fn counter_bytes(self) -> u64 {
        (2 * self.count() as u64 + 1) * 4
    }
}

/// Push constants of `glsl/debug_residency.comp` ([`crate::shaders::debug_residency`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ResidencyPush {
    pub iterations: u32,
    pub slots: u32,
}

/// Records a residency probe: zeroes `counters` (at least [`ResidencySlots::counter_bytes`]), then runs `groups`
/// workgroups of `shape`, each holding its shared memory and registers for `iterations` (at most 65535) rounds
/// of a dependent loop. Afterwards word `slots + i` of `counters` is the most workgroups that were resident at
/// once in slot `i` (an SM, or the device). Label `vksort::diagnostics::residency`. Builds its kernel while
/// recording (a diagnostic, not a sort pass).
pub fn cmd_residency(
    rec: &mut Recorder,
    counters: BufferRef,
    shape: ResidencyShape,
    slots: ResidencySlots,
    iterations: u32,
    groups: u32,
) -> Result<()> {
    let ctx = rec.ctx();
    let caps = ctx.caps();
    counters.check(
        ctx,
        "counters",
        slots.counter_bytes(),
        vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
    )?;
    let plan = SubgroupPlan::for_device(caps);
    let wg = shape.workgroup_size;
    if wg == 0 || wg % plan.max != 0 || wg > caps.max_workgroup_invocations {
        return Err(crate::Error::InvalidPolicy {
            family: "residency",
            what: format!(
                "workgroup_size {wg} must be a multiple of {} within {}",
                plan.max, caps.max_workgroup_invocations
            ),
        });
    }
    if shape.shared_bytes > caps.max_shared_memory || !(1..=255).contains(&shape.live_words) {
        return Err(crate::Error::InvalidPolicy {
            family: "residency",
            what: format!(
                "shared_bytes {} (device: {}) or live_words {} (1..=255) out of range",
                shape.shared_bytes, caps.max_shared_memory, shape.live_words
            ),
        });
    }
    let shader = match slots {
        ResidencySlots::PerSm { .. } => {
            if !caps.sm_builtins {
                return Err(ctx.unsupported(
                    "a per-SM residency probe needs VK_NV_shader_sm_builtins (ContextOptions::shader_clock)",
                ));
            }
            crate::shaders::debug_residency::SM
        }
        ResidencySlots::Device => crate::shaders::debug_residency::DEVICE,
    };
    use crate::shaders::debug_residency::{LIVE_REGS, SHARED_WORDS};
    let spec = crate::shaders::Spec::new()
        .with(SHARED_WORDS, shape.shared_bytes.div_ceil(4).max(1))
        .with(LIVE_REGS, shape.live_words);
    let kernel = plan.kernel(ctx, shader, wg, spec)?;
    let region = counters.slice(0, slots.counter_bytes());
    rec.fill("vksort::diagnostics::residency::clear", region, 0)?;
    rec.barrier();
    rec.dispatch(
        "vksort::diagnostics::residency",
        &kernel,
        &[region],
        &ResidencyPush {
            iterations: iterations.min(65535),
            slots: slots.count(),
        },
        groups,
    )
}
