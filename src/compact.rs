//! Stable stream compaction of u32: keeps the elements that are non-zero, or whose flag (a separate u32
//! buffer) is non-zero, in input order. Pass `vksort::compact` (`glsl/compact.comp`, after the
//! `vksort::compact::clear` fill of its status region).
//!
//! Single pass over the decoupled look-back machinery of the scan (`glsl/include/lookback.glsl`, shared,
//! not duplicated): per tile, count the kept elements, scan the counts locally, look back over the
//! predecessors' counts (bounded spin, then reduce a stuck predecessor's flags itself), scatter. The last
//! tile writes the kept count to `count_out[0]`. Per element: reads 4 bytes (+ 4 bytes of flags) and writes
//! 4 bytes per kept element; 8 status bytes per tile.
//!
//! Contract of [`Compactor::cmd_compact`]: reads `n` elements of `input` (and of `flags`), writes the kept
//! elements to `output[0..count)` (which must hold `n` elements; the rest is untouched) and the count (u32)
//! to `count_out[0]`. `output` must not overlap `input` or `flags`. `scratch` (at least
//! [`Compactor::scratch_bytes`] / [`compact_scratch_bytes`] bytes, `STORAGE_BUFFER | TRANSFER_DST`) is
//! garbage afterwards. Barriers as in [`crate::gpu::recorder`]; every input is checked before anything is
//! recorded. `n = 0` writes a count of 0.

use crate::error::Result;
use crate::gpu::{Buffer, BufferRef, Context, Recorder};
use crate::policy::SubgroupPlan;
use crate::scan::{check_count, check_data, check_device, ScanElem, ScanPolicy, MIN_TILE};
use ash::vk;
use std::sync::Arc;

/// Push constants of `glsl/compact.comp` (both variants).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CompactPush {
    pub n: u32,
    /// Workgroups dispatched (= tiles, at least 1).
    pub groups: u32,
}

/// Scratch bytes of a compaction of up to `max_n` elements with any valid policy.
pub fn compact_scratch_bytes(max_n: u64) -> u64 {
    16 + max_n.div_ceil(MIN_TILE as u64).max(1) * 8
}

/// A planned compaction (policy and kernels).
pub struct Compactor {
    policy: ScanPolicy,
    plan: SubgroupPlan,
}

impl Compactor {
    /// Plans compactions with `policy` (default: [`ScanPolicy::for_device_compact`]); builds the kernels now.
    pub fn new(ctx: &Arc<Context>, policy: Option<ScanPolicy>) -> Result<Self> {
        check_device(ctx.caps(), ScanElem::U32)?;
        let policy = policy.unwrap_or_else(|| ScanPolicy::for_device_compact(ctx.caps()));
        policy.validate(ctx.caps())?;
        let c = Self {
            policy,
            plan: SubgroupPlan::for_device(ctx.caps()),
        };
        c.kernel(ctx, false)?;
        c.kernel(ctx, true)?;
        Ok(c)
    }

    fn kernel(&self, ctx: &Context, flags: bool) -> Result<Arc<crate::gpu::Kernel>> {
        use crate::shaders::compact as sh;
        let shader = if flags { sh::FLAGS } else { sh::VALUES };
        // STAGE_ELEMS: shared staging of the kept elements when the tile (4 bytes each) fits beside the
        // look-back's and the local scan's few words (2 KiB margin).
        let tile = self.policy.tile();
        let stage = if tile as u64 * 4 + 2048 <= ctx.caps().max_shared_memory as u64 {
            tile
        } else {
            1
        };
        let spec = crate::shaders::Spec::new()
            .with(sh::VECS, self.policy.items_per_thread / 4)
            .with(sh::STAGE_ELEMS, stage)
            .merge(self.policy.lookback_spec());
        self.plan
            .kernel(ctx, shader, self.policy.workgroup_size, spec)
    }

    /// Elements per tile.
    pub fn tile_size(&self) -> u32 {
        self.policy.tile()
    }

    fn tiles(&self, n: u64) -> u64 {
        n.div_ceil(self.policy.tile() as u64).max(1)
    }

    /// Scratch bytes of a compaction of up to `max_n` elements.
    pub fn scratch_bytes(&self, max_n: u64) -> u64 {
        16 + self.tiles(max_n) * 8
    }

    /// Records the compaction (see the module docs).
    #[allow(clippy::too_many_arguments)]
    pub fn cmd_compact(
        &self,
        rec: &mut Recorder,
        input: BufferRef,
        flags: Option<BufferRef>,
        output: BufferRef,
        count_out: BufferRef,
        scratch: BufferRef,
        n: u64,
    ) -> Result<()> {
        let ctx = rec.ctx();
        let caps = ctx.caps();
        check_device(caps, ScanElem::U32)?;
        check_count(caps, n, 4)?;
        let bytes = n * 4;
        check_data(ctx, &input, "input", bytes)?;
        if let Some(f) = &flags {
            check_data(ctx, f, "flags", bytes)?;
        }
        output.check(ctx, "output", bytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
        count_out.check(ctx, "count_out", 4, vk::BufferUsageFlags::STORAGE_BUFFER)?;
        let status_bytes = self.scratch_bytes(n);
        scratch.check(
            ctx,
            "scratch",
            status_bytes,
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        let overlap = crate::scan::overlaps(&input, &output, bytes)
            || flags.is_some_and(|f| crate::scan::overlaps(&f, &output, bytes));
        if overlap {
            return Err(crate::Error::Overlap {
                what: "compaction output overlaps its input or flags",
            });
        }
        let kernel = self.kernel(ctx, flags.is_some())?;
        let tiles = self.tiles(n) as u32;
        let status = scratch.slice(0, status_bytes);
        // Bindings may not be empty: with n = 0 the count region stands in for the data bindings (the shader
        // reads and writes no element then).
        let data = |b: BufferRef| {
            if n == 0 {
                count_out.slice(0, 4)
            } else {
                b.slice(0, bytes)
            }
        };
        let mut bindings = vec![data(input)];
        if let Some(f) = flags {
            bindings.push(data(f));
        }
        bindings.extend([data(output), count_out.slice(0, 4), status]);
        rec.scope("vksort::compact", |rec| {
            rec.fill("vksort::compact::clear", status, 0)?;
            rec.barrier();
            rec.dispatch(
                "vksort::compact",
                &kernel,
                &bindings,
                &CompactPush {
                    n: n as u32,
                    groups: tiles,
                },
                tiles,
            )
        })
    }
}

/// [`Compactor::cmd_compact`] with the device's default policy.
#[allow(clippy::too_many_arguments)]
pub fn cmd_compact(
    rec: &mut Recorder,
    input: BufferRef,
    flags: Option<BufferRef>,
    output: BufferRef,
    count_out: BufferRef,
    scratch: BufferRef,
    n: u64,
) -> Result<()> {
    let ctx = rec.ctx();
    check_device(ctx.caps(), ScanElem::U32)?;
    let policy = ScanPolicy::for_device_compact(ctx.caps());
    let c = Compactor {
        policy,
        plan: SubgroupPlan::for_device(ctx.caps()),
    };
    c.cmd_compact(rec, input, flags, output, count_out, scratch, n)
}

/// Compacts `data` on the GPU with the default policy.
pub fn compact_u32(ctx: &Arc<Context>, data: &[u32], flags: Option<&[u32]>) -> Result<Vec<u32>> {
    compact_u32_with(ctx, data, flags, None)
}

/// Compacts `data` on the GPU with `policy` (e.g. the look-back stall emulation).
pub fn compact_u32_with(
    ctx: &Arc<Context>,
    data: &[u32],
    flags: Option<&[u32]>,
    policy: Option<ScanPolicy>,
) -> Result<Vec<u32>> {
    if let Some(f) = flags {
        if f.len() != data.len() {
            return Err(crate::Error::LengthMismatch {
                what: "flags",
                expected: data.len() as u64,
                got: f.len() as u64,
            });
        }
    }
    let c = Compactor::new(ctx, policy)?;
    let n = data.len() as u64;
    let input = Buffer::from_slice(ctx, "vksort::compact::input", data)?;
    let flag_buf = flags
        .map(|f| Buffer::from_slice(ctx, "vksort::compact::flags", f))
        .transpose()?;
    let output = Buffer::device_local(ctx, "vksort::compact::output", n * 4)?;
    let count = Buffer::device_local(ctx, "vksort::compact::count", 4)?;
    let scratch = Buffer::device_local(ctx, "vksort::compact::scratch", c.scratch_bytes(n))?;
    ctx.submit("vksort::compact", |rec| {
        c.cmd_compact(
            rec,
            input.as_ref(),
            flag_buf.as_ref().map(|b| b.as_ref()),
            output.as_ref(),
            count.as_ref(),
            scratch.as_ref(),
            n,
        )
    })?;
    let kept = count.read_vec::<u32>(1)?[0] as usize;
    if kept > data.len() {
        return Err(crate::Error::InvalidGpuResult {
            what: format!("GPU reported {kept} kept elements of {}", data.len()),
        });
    }
    output.read_vec::<u32>(kept)
}

/// CPU reference of [`compact_u32`].
pub fn cpu_compact_u32(data: &[u32], flags: Option<&[u32]>) -> Vec<u32> {
    match flags {
        Some(f) => data
            .iter()
            .zip(f)
            .filter(|(_, &f)| f != 0)
            .map(|(&x, _)| x)
            .collect(),
        None => data.iter().copied().filter(|&x| x != 0).collect(),
    }
}
