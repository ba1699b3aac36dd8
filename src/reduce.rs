//! Reduction (sum, min, max) of u32 or u64 into one element: pass `vksort::reduce` after `vksort::reduce::clear`
//! (a fill of the scratch header). At most 1024 workgroups each reduce every `groups`-th tile into a partial in
//! scratch (16-byte header, one element per workgroup); the last to finish reduces the partials into
//! `output[0]`. Sums wrap; `n = 0` writes the identity (0 for sum and max, all ones for min).

use crate::error::Result;
use crate::gpu::{check_disjoint, Buffer, BufferRef, Context, Recorder};
use crate::policy::SubgroupPlan;
use crate::scan::{check_count, check_data, check_device, ScanElem, ScanPolicy};
use ash::vk;
use std::sync::Arc;

/// The reduction operator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Wrapping sum.
    #[default]
    Sum,
    /// The smallest element (unsigned).
    Min,
    /// The largest element (unsigned).
    Max,
}

crate::gpu::push_block! {
/// Push constants of `glsl/reduce.comp` (every variant).
internal struct ReducePush {
    pub n: u32,
    pub tiles: u32,
    pub groups: u32,
}
}

internal! {
/// The most workgroups (and partials) of one reduction.
const MAX_GROUPS: u32 = 1024;
}

/// Scratch bytes of a reduction of up to `max_n` elements (of either width).
pub fn reduce_scratch_bytes(_max_n: u64) -> u64 {
    16 + MAX_GROUPS as u64 * 8
}

/// Records the reduction of `n` elements of `input` into `output[0]`; `scratch` (at least
/// [`reduce_scratch_bytes`], `STORAGE_BUFFER | TRANSFER_DST`) is garbage afterwards. Barriers as in
/// [`crate::gpu::recorder`]. Checked before anything is recorded: the device, the count, each region
/// ([`crate::Error::BufferTooSmall`], usage, alignment, context) and that input, output and scratch share no
/// byte ([`crate::Error::Overlap`]).
pub fn cmd_reduce(
    rec: &mut Recorder,
    input: BufferRef<'_>,
    output: BufferRef<'_>,
    scratch: BufferRef<'_>,
    n: u64,
    op: ReduceOp,
    elem: ScanElem,
) -> Result<()> {
    let (input, output, scratch) = (input.region(), output.region(), scratch.region());
    let ctx = rec.ctx();
    let caps = ctx.caps();
    check_device(caps, elem)?;
    let eb = elem.bytes();
    check_count(caps, n, eb)?;
    check_data(ctx, &input, "input", n * eb)?;
    output.check(ctx, "output", eb, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    scratch.check(
        ctx,
        "scratch",
        reduce_scratch_bytes(n),
        vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
    )?;
    check_disjoint(&[
        ("input", input, n * eb),
        ("output", output, eb),
        ("scratch", scratch, reduce_scratch_bytes(n)),
    ])?;
    let policy = ScanPolicy::for_device(caps);
    let plan = SubgroupPlan::for_device(caps);
    let vecs = policy.items_per_invocation / elem.per_vec();
    let shader = {
        use crate::shaders::reduce as sh;
        match (elem, op) {
            (ScanElem::U32, ReduceOp::Sum) => sh::U32_SUM,
            (ScanElem::U32, ReduceOp::Min) => sh::U32_MIN,
            (ScanElem::U32, ReduceOp::Max) => sh::U32_MAX,
            (ScanElem::U64, ReduceOp::Sum) => sh::U64_SUM,
            (ScanElem::U64, ReduceOp::Min) => sh::U64_MIN,
            (ScanElem::U64, ReduceOp::Max) => sh::U64_MAX,
        }
    };
    let kernel = plan.kernel(
        ctx,
        shader,
        policy.workgroup_size,
        crate::shaders::Spec::new().with(crate::shaders::reduce::VECS, vecs),
    )?;
    let tiles = n.div_ceil(policy.tile() as u64) as u32;
    let groups = tiles.clamp(1, MAX_GROUPS);
    let scratch = scratch.slice(0, 16 + groups as u64 * eb);
    rec.scope("vksort::reduce", |rec| {
        rec.fill_region("vksort::reduce::clear", scratch.slice(0, 16), 0)?;
        rec.barrier();
        // n = 0 reads nothing: the output region stands in for an empty input binding.
        let data = if n == 0 { output } else { input };
        let push = ReducePush {
            n: n as u32,
            tiles,
            groups,
        };
        rec.pass("vksort::reduce", &kernel)
            .bind(&[data.slice(0, n.max(1) * eb), output.slice(0, eb), scratch])
            .push(&push)
            .groups(groups)
    })
}

fn reduce_host<T: bytemuck::Pod>(
    ctx: &Arc<Context>,
    data: &[T],
    op: ReduceOp,
    elem: ScanElem,
) -> Result<T> {
    let n = data.len() as u64;
    let input = Buffer::from_slice(ctx, "vksort::reduce::input", data)?;
    let output = Buffer::device_local(ctx, "vksort::reduce::output", elem.bytes())?;
    let scratch = Buffer::device_local(ctx, "vksort::reduce::scratch", reduce_scratch_bytes(n))?;
    ctx.submit("vksort::reduce", |rec| {
        cmd_reduce(
            rec,
            input.as_ref(),
            output.as_ref(),
            scratch.as_ref(),
            n,
            op,
            elem,
        )
    })?;
    Ok(output.read_vec::<T>(1)?[0])
}

/// Reduces `data` on the GPU.
pub fn reduce_u32(ctx: &Arc<Context>, data: &[u32], op: ReduceOp) -> Result<u32> {
    reduce_host(ctx, data, op, ScanElem::U32)
}

/// Reduces `data` on the GPU (needs `shaderInt64` and `shaderSubgroupExtendedTypes`: [`crate::DeviceCaps::int64`]).
pub fn reduce_u64(ctx: &Arc<Context>, data: &[u64], op: ReduceOp) -> Result<u64> {
    reduce_host(ctx, data, op, ScanElem::U64)
}

internal! {
/// CPU reference of [`reduce_u32`].
fn cpu_reduce_u32(data: &[u32], op: ReduceOp) -> u32 {
    cpu_reduce(data, op, u32::MAX, u32::wrapping_add)
}
}

internal! {
/// CPU reference of [`reduce_u64`].
fn cpu_reduce_u64(data: &[u64], op: ReduceOp) -> u64 {
    cpu_reduce(data, op, u64::MAX, u64::wrapping_add)
}
}

fn cpu_reduce<T: Copy + Ord + Default>(data: &[T], op: ReduceOp, max: T, add: fn(T, T) -> T) -> T {
    let values = data.iter().copied();
    match op {
        ReduceOp::Sum => values.fold(T::default(), add),
        ReduceOp::Min => values.min().unwrap_or(max),
        ReduceOp::Max => values.max().unwrap_or_default(),
    }
}
