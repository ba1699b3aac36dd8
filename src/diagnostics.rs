//! Diagnostics, not sorting primitives: a kernel that keeps the GPU busy on purpose (the tests prove every wait
//! bounded with it) and a residency probe ([`cmd_residency`]): how many workgroups of a shape a device keeps
//! resident at once, per SM where the device names its SMs. `examples/residency` sweeps it; docs/tuning.md has
//! the table.

use crate::error::Result;
use crate::gpu::{push_block, BufferRef, Context, DeviceCaps, DeviceClass, Recorder};
use crate::policy::SubgroupPlan;
use crate::shaders::{debug_residency as sh, ShaderId, Spec};
use ash::vk;

push_block! {
    /// Push constants of `glsl/debug_spin.comp` ([`crate::shaders::debug_spin`]).
    pub struct SpinPush {
        /// Rounds of the hash chain.
        pub iterations: u32,
    }
}

/// Records the pass `label` of `shader` over `groups` workgroups of the largest subgroup size, bound to
/// `buffer` (8 bytes of storage, named `what`).
fn busy_pass<P: crate::gpu::PushBlock>(
    rec: &mut Recorder,
    label: &str,
    shader: ShaderId,
    buffer: BufferRef<'_>,
    what: &'static str,
    push: &P,
    groups: u32,
) -> Result<()> {
    let region = buffer.region();
    let ctx = rec.ctx();
    region.check(ctx, what, 8, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    let plan = SubgroupPlan::for_device(ctx.caps());
    let kernel = plan.kernel(ctx, shader, plan.max, Spec::new())?;
    rec.pass(label, &kernel)
        .bind(&[region])
        .push(push)
        .groups(groups)
}

/// Records `groups` workgroups whose invocations each run `iterations` (at most 65535) rounds of a dependent
/// hash chain, summed into `counter` (8 bytes).
pub fn cmd_spin(
    rec: &mut Recorder,
    counter: BufferRef<'_>,
    iterations: u32,
    groups: u32,
) -> Result<()> {
    let shader = crate::shaders::debug_spin::SHADER;
    let push = SpinPush { iterations };
    busy_pass(
        rec,
        "vksort::diagnostics::spin",
        shader,
        counter,
        "counter",
        &push,
        groups,
    )
}

/// Records workgroups that poll `flag` (8 bytes, host-visible) until the host writes a non-zero u32 at its
/// start, then add one per invocation to its second word; each invocation polls at most 2^24 times. One
/// workgroup, except on CPU drivers, which end loops early (lavapipe: after 65535 iterations): there
/// [`WAIT_FLAG_CPU_GROUPS`] workgroups make the wait long. (On a GPU, a grid of them would fill every SM with
/// a kernel that outlives a lost context.)
pub fn cmd_wait_flag(rec: &mut Recorder, flag: BufferRef<'_>) -> Result<()> {
    let groups = match rec.ctx().caps().class {
        DeviceClass::Cpu => WAIT_FLAG_CPU_GROUPS,
        _ => 1,
    };
    let shader = crate::shaders::debug_wait_flag::SHADER;
    busy_pass(
        rec,
        "vksort::diagnostics::wait_flag",
        shader,
        flag,
        "flag",
        &(),
        groups,
    )
}

/// The workgroups [`cmd_wait_flag`] records on a CPU driver.
pub const WAIT_FLAG_CPU_GROUPS: u32 = 65535;

/// The shape of the workgroups a residency probe runs ([`cmd_residency`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidencyShape {
    /// Invocations per workgroup (a multiple of the largest subgroup size).
    pub workgroup_size: u32,
    /// Shared memory each workgroup declares and writes, in bytes (rounded up to 4; at least 4).
    pub shared_bytes: u32,
    /// 32-bit words each invocation keeps live across the probe's loop (1..=255): the register demand.
    pub live_words: u32,
    /// How the probe declares and uses its shared memory. Default [`ResidencyMemory::Plain`].
    pub memory: ResidencyMemory,
}

/// How a residency probe declares and uses its shared memory: to ask whether a kind of pipeline changes how
/// much shared memory the driver gives an SM (`docs/tuning.md`, "The finding that shapes everything").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResidencyMemory {
    /// A plain `shared` array.
    #[default]
    Plain,
    /// The array inside a shared block (`VK_KHR_workgroup_memory_explicit_layout`: explicit offsets, the layout
    /// that lets blocks alias); needs [`crate::gpu::DeviceCaps::explicit_layout`] and per-SM slots.
    Block,
    /// A plain array, and a 16 x 16 x 16 half-float cooperative-matrix multiply-add per round of the loop
    /// (`VK_NV_cooperative_matrix`, operands loaded from the shared memory: at least 512 bytes); needs
    /// [`crate::gpu::DeviceCaps::cooperative_matrix`] and per-SM slots.
    CooperativeMatrix,
}

impl ResidencyMemory {
    pub const ALL: [ResidencyMemory; 3] = [Self::Plain, Self::Block, Self::CooperativeMatrix];

    pub fn name(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::Block => "block",
            Self::CooperativeMatrix => "coop-matrix",
        }
    }

    /// Whether `caps` can run probes of this kind.
    pub fn supported(self, caps: &DeviceCaps) -> bool {
        match self {
            Self::Plain => true,
            Self::Block => caps.explicit_layout && caps.sm_builtins,
            Self::CooperativeMatrix => caps.cooperative_matrix && caps.sm_builtins,
        }
    }
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

push_block! {
    /// Push constants of `glsl/debug_residency.comp` ([`crate::shaders::debug_residency`]).
    pub struct ResidencyPush {
        /// Rounds of the probe's loop.
        pub iterations: u32,
        /// Counter slots.
        pub slots: u32,
    }
}

/// Records a residency probe: zeroes `counters` (at least [`ResidencySlots::counter_bytes`]), then runs `groups`
/// workgroups of `shape`, each holding its shared memory and registers for `iterations` (at most 65535) rounds
/// of a dependent loop. Afterwards word `slots + i` of `counters` is the most workgroups that were resident at
/// once in slot `i` (an SM, or the device). Builds its kernel while recording (a diagnostic, not a sort pass).
pub fn cmd_residency(
    rec: &mut Recorder,
    counters: BufferRef<'_>,
    shape: ResidencyShape,
    slots: ResidencySlots,
    iterations: u32,
    groups: u32,
) -> Result<()> {
    let counters = counters.region();
    let ctx = rec.ctx();
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
    counters.check(ctx, "counters", slots.counter_bytes(), usage)?;
    let plan = SubgroupPlan::for_device(ctx.caps());
    check_shape(ctx.caps(), &plan, &shape)?;
    let shader = residency_shader(ctx, slots, &shape)?;
    let spec = Spec::new()
        .with(sh::SHARED_WORDS, shape.shared_bytes.div_ceil(4).max(1))
        .with(sh::LIVE_REGS, shape.live_words);
    let kernel = plan.kernel(ctx, shader, shape.workgroup_size, spec)?;
    let region = counters.slice(0, slots.counter_bytes());
    rec.fill_region("vksort::diagnostics::residency::clear", region, 0)?;
    rec.barrier();
    let push = ResidencyPush {
        iterations: iterations.min(65535),
        slots: slots.count(),
    };
    rec.pass("vksort::diagnostics::residency", &kernel)
        .bind(&[region])
        .push(&push)
        .groups(groups)
}

/// The [`crate::Error::InvalidPolicy`] of a residency probe.
fn bad_shape(what: String) -> crate::Error {
    crate::Error::InvalidPolicy {
        family: "residency",
        what,
    }
}

/// Checks a probe's shape against the device: the workgroup size, the shared memory and the live words.
fn check_shape(caps: &DeviceCaps, plan: &SubgroupPlan, shape: &ResidencyShape) -> Result<()> {
    let wg = shape.workgroup_size;
    if wg == 0 || wg % plan.max != 0 || wg > caps.max_workgroup_invocations {
        return Err(bad_shape(format!(
            "workgroup_size {wg} must be a multiple of {} within {}",
            plan.max, caps.max_workgroup_invocations
        )));
    }
    if shape.shared_bytes > caps.max_shared_memory || !(1..=255).contains(&shape.live_words) {
        return Err(bad_shape(format!(
            "shared_bytes {} (device: {}) or live_words {} (1..=255) out of range",
            shape.shared_bytes, caps.max_shared_memory, shape.live_words
        )));
    }
    Ok(())
}

/// The probe's shader for its slots and memory kind, once the device can run it.
fn residency_shader(
    ctx: &Context,
    slots: ResidencySlots,
    shape: &ResidencyShape,
) -> Result<ShaderId> {
    let caps = ctx.caps();
    Ok(match (slots, shape.memory) {
        (ResidencySlots::PerSm { .. }, _) if !caps.sm_builtins => {
            return Err(ctx.unsupported(
                "a per-SM residency probe needs VK_NV_shader_sm_builtins (ContextOptions::shader_clock)",
            ));
        }
        (_, m) if !m.supported(caps) => {
            return Err(ctx.unsupported(format!(
                "a `{}` residency probe needs per-SM slots and {} (ContextOptions::shader_clock and \
                 residency_probes)",
                m.name(),
                match m {
                    ResidencyMemory::Block => "VK_KHR_workgroup_memory_explicit_layout",
                    _ => "VK_NV_cooperative_matrix with shaderFloat16 and vulkanMemoryModel (device scope)",
                }
            )));
        }
        (ResidencySlots::Device, ResidencyMemory::Plain) => sh::DEVICE,
        (ResidencySlots::Device, _) => {
            return Err(ctx.unsupported("block and cooperative-matrix probes count per SM"));
        }
        (_, ResidencyMemory::Plain) => sh::SM,
        (_, ResidencyMemory::Block) => sh::SM_BLOCK,
        (_, ResidencyMemory::CooperativeMatrix) => {
            if shape.shared_bytes < 512 {
                return Err(bad_shape(
                    "a cooperative-matrix probe loads its operands from 512 bytes of shared memory"
                        .into(),
                ));
            }
            sh::SM_COOP
        }
    })
}

/// Elements of `out` per workgroup of [`cmd_wg_scan`]: the `workgroup_size` prefixes and two totals.
pub fn wg_scan_out_elems(workgroup_size: u32) -> u64 {
    workgroup_size as u64 + 2
}

/// Records the workgroup-scan probe (`glsl/debug_wg_scan.comp`): `groups` workgroups of `workgroup_size`
/// invocations, each running the shaders' shared workgroup scan over its `workgroup_size` elements of `values`
/// and writing to `out` ([`wg_scan_out_elems`] per workgroup) every exclusive prefix, the scan's total and the
/// total as the scan formerly took it. `subgroup` requires a subgroup size (subgroup size control), `None`
/// keeps the device's. Refused before recording: a shape or element type the device cannot run, short regions.
pub fn cmd_wg_scan(
    rec: &mut Recorder,
    values: BufferRef<'_>,
    out: BufferRef<'_>,
    elem: crate::scan::ScanElem,
    workgroup_size: u32,
    subgroup: Option<u32>,
    groups: u32,
) -> Result<()> {
    let ctx = rec.ctx();
    let caps = ctx.caps();
    let mut plan = SubgroupPlan::for_device(caps);
    if let Some(s) = subgroup {
        let offered = caps.subgroup_size_control
            && s.is_power_of_two()
            && (caps.min_subgroup_size..=caps.max_subgroup_size).contains(&s);
        if !offered {
            return Err(ctx.unsupported(format!("a required subgroup size of {s}")));
        }
        plan = SubgroupPlan {
            required: Some(s),
            min: s,
            max: s,
        };
    }
    let wg = workgroup_size;
    if wg == 0 || wg % plan.max != 0 || wg > caps.max_workgroup_invocations || groups > 65535 {
        return Err(bad_shape(format!(
            "workgroup_size {wg} must be a multiple of {} within {}, groups {groups} at most 65535",
            plan.max, caps.max_workgroup_invocations
        )));
    }
    let shader = match elem {
        crate::scan::ScanElem::U32 => crate::shaders::debug_wg_scan::U32,
        crate::scan::ScanElem::U64 if caps.int64 => crate::shaders::debug_wg_scan::U64,
        crate::scan::ScanElem::U64 => {
            return Err(
                ctx.unsupported("64-bit elements need shaderInt64 and shaderSubgroupExtendedTypes")
            )
        }
    };
    let (bytes, usage) = (
        elem.bytes() * groups as u64,
        vk::BufferUsageFlags::STORAGE_BUFFER,
    );
    let (values, out) = (values.region(), out.region());
    values.check(ctx, "values", bytes * wg as u64, usage)?;
    out.check(ctx, "out", bytes * wg_scan_out_elems(wg), usage)?;
    let kernel = plan.kernel(ctx, shader, wg, Spec::new())?;
    rec.pass("vksort::diagnostics::wg_scan", &kernel)
        .bind(&[values, out])
        .groups(groups)
}
