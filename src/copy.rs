//! The compute-shader copy: the bandwidth roofline every pass is measured against (on NVIDIA a compute copy
//! moves several times what `vkCmdCopyBuffer` does). Pass: `vksort::copy`.
//!
//! Contract of [`cmd_copy`]: copies `bytes` (a multiple of 16: [`Error::SizeNotMultiple`]) from `src` to `dst`
//! (both `STORAGE_BUFFER`, at least `bytes` from their offsets, within `maxStorageBufferRange`: the
//! buffer errors of [`crate::BufferRef`] or [`Error::TooLarge`]), checked before anything is
//! recorded; the regions must not overlap. Barriers: as in [`crate::gpu::recorder`]; no scratch memory.

use crate::error::{Error, Result};
use crate::gpu::{check_disjoint, Buffer, BufferRef, Context, Profiler, Recorder};
use crate::policy::SubgroupPlan;
use ash::vk;
use std::sync::Arc;

crate::gpu::push_block! {
/// Push constants of `glsl/copy.comp`.
internal struct CopyPush {
    pub n_vec4: u32,
    pub group_count: u32,
}
}

/// uvec4 words per invocation.
const ITEMS: u32 = 4;

/// Records a copy of `bytes` (a multiple of 16) from `src` to `dst`.
pub fn cmd_copy(
    rec: &mut Recorder,
    src: BufferRef<'_>,
    dst: BufferRef<'_>,
    bytes: u64,
) -> Result<()> {
    let (src, dst) = (src.region(), dst.region());
    let ctx = rec.ctx();
    if bytes % 16 != 0 {
        return Err(Error::SizeNotMultiple {
            what: "copy",
            size: bytes,
            multiple: 16,
        });
    }
    src.check(ctx, "src", bytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    dst.check(ctx, "dst", bytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    check_disjoint(&[("src", src, bytes), ("dst", dst, bytes)])?;
    if bytes > ctx.caps().max_storage_buffer_range || bytes / 16 > u32::MAX as u64 {
        return Err(Error::TooLarge {
            n: bytes / 16,
            max: ctx
                .caps()
                .max_storage_buffer_range
                .min(u32::MAX as u64 * 16)
                / 16,
            limit: "one storage-buffer binding (16-byte vectors)",
        });
    }
    let plan = SubgroupPlan::for_device(ctx.caps());
    let wg = plan.workgroup_size(ctx.caps(), 256);
    let kernel = plan.kernel(
        ctx,
        crate::shaders::copy::SHADER,
        wg,
        crate::shaders::Spec::new().with(crate::shaders::copy::ITEMS, ITEMS),
    )?;
    let n_vec4 = (bytes / 16) as u32;
    let groups = n_vec4.div_ceil(wg * ITEMS);
    let push = CopyPush {
        n_vec4,
        group_count: groups,
    };
    rec.pass("vksort::copy", &kernel)
        .bind(&[src.slice(0, bytes), dst.slice(0, bytes)])
        .push(&push)
        .groups(groups)
}

internal! {
/// Measures the compute-copy bandwidth over `bytes` (read + write counted) in bytes per second: the median of
/// `reps` timed copies in one submission, after warm-up copies on a GPU (its clocks fall to idle while it waits
/// on the host and take a while to come back).
fn measure_roofline(ctx: &Arc<Context>, bytes: u64, reps: usize) -> Result<f64> {
    let bytes = bytes.next_multiple_of(16);
    let a = Buffer::device_local(ctx, "vksort::roofline::src", bytes)?;
    let b = Buffer::device_local(ctx, "vksort::roofline::dst", bytes)?;
    let reps = reps.clamp(1, 64);
    let mut prof = Profiler::new(ctx, reps as u32 + 2)?;
    let record = |prof: &mut Profiler| -> Result<Vec<f64>> {
        ctx.submit_profiled("vksort::roofline", Some(prof), |rec| {
            for i in 0..reps {
                // Alternate directions so that consecutive copies do not write what the previous one reads.
                let (s, d) = if i % 2 == 0 { (&a, &b) } else { (&b, &a) };
                cmd_copy(rec, s.as_ref(), d.as_ref(), bytes)?;
                rec.barrier();
            }
            Ok(())
        })?;
        Ok(prof.results()?.iter().map(|p| p.ns).collect())
    };
    let warm_ns = crate::tuning::for_class(ctx.caps().class)
        .copy
        .roofline_warm_ns;
    let (mut spent, started) = (0.0, std::time::Instant::now());
    while spent < warm_ns && started.elapsed() < std::time::Duration::from_secs(1) {
        spent += record(&mut prof)?.iter().sum::<f64>();
    }
    let mut times = record(&mut prof)?;
    times.sort_by(|x, y| x.total_cmp(y));
    let ns = times[times.len() / 2].max(1.0);
    Ok(2.0 * bytes as f64 / (ns * 1e-9))
}
}
