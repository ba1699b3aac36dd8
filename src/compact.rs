//! Stable stream compaction of u32: keeps, in input order, the elements that pass a [`Predicate`] (non-zero,
//! a bit pattern such as "odd", or a range), tested on the element itself or on its flag (a separate u32
//! buffer). Pass `vksort::compact` (`glsl/compact.comp`, after the `vksort::compact::clear` fill of its
//! status region).
//!
//! Single pass over the decoupled look-back machinery of the scan (`glsl/include/lookback.glsl`, shared,
//! not duplicated): per tile, count the kept elements, scan the counts locally, look back over the
//! predecessors' counts (bounded spin, then reduce a stuck predecessor's flags itself), scatter. The last
//! tile writes the kept count to `count_out[0]`. Per element: reads 4 bytes (+ 4 bytes of flags) and writes
//! 4 bytes per kept element; 8 status bytes per tile. A predicate on the element itself needs no flags
//! buffer: "odd" reads 4 bytes per element where flags = value & 1 would read 8.
//!
//! Contract of [`Compactor::cmd_compact`] (and [`Compactor::cmd_compact_if`], which takes the predicate):
//! reads `n` elements of `input` (and of `flags`), writes the kept elements to `output[0..count)` (which
//! must hold `n` elements; the rest is untouched) and the count (u32) to `count_out[0]`. `output` must not
//! overlap `input` or `flags`. `scratch` (at least
//! [`Compactor::scratch_bytes`] / [`compact_scratch_bytes`] bytes, `STORAGE_BUFFER | TRANSFER_DST`) is
//! garbage afterwards. Barriers as in [`crate::gpu::recorder`]; every input is checked before anything is
//! recorded. `n = 0` writes a count of 0.

use crate::error::Result;
use crate::gpu::{check_disjoint, Buffer, BufferRef, Context, Recorder, Region};
use crate::policy::SubgroupPlan;
use crate::scan::{check_count, check_data, check_device, ScanElem, ScanPolicy, MIN_TILE};
use ash::vk;
use std::sync::Arc;

internal! {
/// Push constants of `glsl/compact.comp` (both variants).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct CompactPush {
    pub n: u32,
    /// Workgroups dispatched (= tiles, at least 1).
    pub groups: u32,
    /// The predicate (see `Predicate::push`: 0 non-zero, 1 bits equal, 2 range): mode and its two operands.
    pub mode: u32,
    pub a: u32,
    pub b: u32,
}
}

/// Which elements a compaction keeps: a test on each element, or on its flag when a flags buffer is given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Predicate {
    /// `x != 0` (the default).
    #[default]
    NonZero,
    /// `x & mask == value`: [`Predicate::ODD`] is `{ mask: 1, value: 1 }`, "even" `{ mask: 1, value: 0 }`.
    BitsEqual {
        /// The bits tested.
        mask: u32,
        /// What they must equal.
        value: u32,
    },
    /// `lo <= x < hi` (unsigned); nothing is kept when `hi <= lo`.
    InRange {
        /// The smallest value kept.
        lo: u32,
        /// One past the largest value kept.
        hi: u32,
    },
}

impl Predicate {
    /// The odd elements (CUB's `select_if_odd` benchmark).
    pub const ODD: Predicate = Predicate::BitsEqual { mask: 1, value: 1 };

    /// Whether `x` passes (the CPU reference of the shader's `keep`).
    pub fn test(self, x: u32) -> bool {
        match self {
            Predicate::NonZero => x != 0,
            Predicate::BitsEqual { mask, value } => x & mask == value,
            Predicate::InRange { lo, hi } => lo <= x && x < hi,
        }
    }

    /// (mode, a, b) of the shader: 0 `x != 0`, 1 `x & a == b`, 2 `x - a < b` (wrapping: `a <= x < a + b`).
    fn push(self) -> (u32, u32, u32) {
        match self {
            Predicate::NonZero => (0, 0, 0),
            Predicate::BitsEqual { mask, value } => (1, mask, value),
            Predicate::InRange { lo, hi } => (2, lo, hi.saturating_sub(lo)),
        }
    }
}

/// How a compaction stores its kept elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompactStaging {
    /// Each kept element stored by the invocation that holds it (scattered stores, no shared memory).
    Direct,
    /// The whole tile staged in shared memory in output order, then stored by consecutive invocations
    /// (4 bytes of shared memory per tile element; falls back to `Direct` where the tile does not fit).
    Tile,
    /// Per subgroup and 16-byte row: the row's kept elements staged in the subgroup's slice of shared memory,
    /// then stored by consecutive lanes (16 bytes of shared memory per invocation, whatever the tile).
    Subgroup,
}

/// Tuning of the compaction pass: the tile and look-back ([`ScanPolicy`]) and the stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompactPolicy {
    /// Tile shape and look-back. Default: [`ScanPolicy::for_device_compact`].
    pub scan: ScanPolicy,
    /// How kept elements are stored. Default: [`CompactStaging::Subgroup`].
    pub staging: CompactStaging,
    /// Elements per invocation (a multiple of 4 in 4..=64, tile at least 512) of compactions of at most
    /// [`CompactPolicy::small_max`] elements: a smaller tile gives a small input more workgroups. Default: 16.
    pub small_items_per_thread: u32,
    /// Elements up to which `small_items_per_thread` applies. Default: 2^22 on GPUs (H200, select_if_odd with
    /// subgroup staging: 256 x 16 0.0163 ms against 256 x 32 0.0179 at 2^20, 0.0642 against 0.0583 at 2^24;
    /// between those sizes not measured), 0 (never) on CPU devices.
    pub small_max: u64,
}

impl CompactPolicy {
    /// The policy for a device: subgroup staging, so that shared memory does not grow with the tile
    /// (H200, select_if_odd u32 at 2^20 / 2^24 / 2^28, ms: tile staging 256 x 16 0.0157 / 0.0921 / 1.362,
    /// direct stores 0.0164 / 0.0768 / 1.025, subgroup staging 256 x 16 0.0163 / 0.0642 / 0.849,
    /// 256 x 32 0.0179 / 0.0583 / 0.753; docs/tuning.md "CompactPolicy").
    pub fn for_device(caps: &crate::gpu::DeviceCaps) -> Self {
        let scan = ScanPolicy::for_device_compact(caps);
        Self {
            small_items_per_thread: 16
                .max(MIN_TILE.div_ceil(scan.workgroup_size).next_multiple_of(4)),
            small_max: if caps.is_cpu() { 0 } else { 1 << 22 },
            ..Self::from(scan)
        }
    }

    /// Elements per invocation of a compaction of `n` elements.
    pub fn items_for(&self, n: u64) -> u32 {
        if n <= self.small_max {
            self.small_items_per_thread
        } else {
            self.scan.items_per_thread
        }
    }

    /// Checks both tile shapes against the device.
    pub fn validate(&self, caps: &crate::gpu::DeviceCaps) -> Result<()> {
        self.scan.validate(caps)?;
        ScanPolicy {
            items_per_thread: self.small_items_per_thread,
            ..self.scan
        }
        .validate(caps)
    }
}

impl From<ScanPolicy> for CompactPolicy {
    /// `scan`'s tile for every size (no small tier), with the default staging.
    fn from(scan: ScanPolicy) -> Self {
        Self {
            scan,
            staging: CompactStaging::Subgroup,
            small_items_per_thread: scan.items_per_thread,
            small_max: 0,
        }
    }
}

/// Scratch bytes of a compaction of up to `max_n` elements with any valid policy.
pub fn compact_scratch_bytes(max_n: u64) -> u64 {
    16 + max_n.div_ceil(MIN_TILE as u64).max(1) * 8
}

/// A planned compaction (policy and kernels).
pub struct Compactor {
    policy: CompactPolicy,
    plan: SubgroupPlan,
}

impl Compactor {
    /// Plans compactions with `policy` (default: [`CompactPolicy::for_device`]); builds the kernels now.
    pub fn new(ctx: &Arc<Context>, policy: Option<CompactPolicy>) -> Result<Self> {
        check_device(ctx.caps(), ScanElem::U32)?;
        let policy = policy.unwrap_or_else(|| CompactPolicy::for_device(ctx.caps()));
        policy.validate(ctx.caps())?;
        let c = Self {
            policy,
            plan: SubgroupPlan::for_device(ctx.caps()),
        };
        for flags in [false, true] {
            c.kernel(ctx, flags, policy.scan.items_per_thread)?;
            if policy.small_max > 0 {
                c.kernel(ctx, flags, policy.small_items_per_thread)?;
            }
        }
        Ok(c)
    }

    fn kernel(&self, ctx: &Context, flags: bool, items: u32) -> Result<Arc<crate::gpu::Kernel>> {
        use crate::shaders::compact as sh;
        let shader = if flags { sh::FLAGS } else { sh::VALUES };
        // STAGE_ELEMS: the staging words, when they fit beside the look-back's and the local scan's few
        // words (2 KiB margin); else the stores are direct.
        let scan = &self.policy.scan;
        let (mode, words) = match self.policy.staging {
            CompactStaging::Direct => (0, 1),
            CompactStaging::Tile => (1, scan.workgroup_size * items),
            CompactStaging::Subgroup => (2, scan.workgroup_size * 4),
        };
        let fits = words as u64 * 4 + 2048 <= ctx.caps().max_shared_memory as u64;
        let (mode, words) = if fits { (mode, words) } else { (0, 1) };
        let spec = crate::shaders::Spec::new()
            .with(sh::VECS, items / 4)
            .with(sh::STAGE_ELEMS, words)
            .with(sh::STAGE_MODE, mode)
            .merge(scan.lookback_spec());
        self.plan.kernel(ctx, shader, scan.workgroup_size, spec)
    }

    /// Elements per tile of a compaction of `n` elements (see [`CompactPolicy::small_max`]).
    pub fn tile_size(&self, n: u64) -> u32 {
        self.policy.scan.workgroup_size * self.policy.items_for(n)
    }

    fn tiles(&self, n: u64) -> u64 {
        n.div_ceil(self.tile_size(n) as u64).max(1)
    }

    /// Scratch bytes of a compaction of up to `max_n` elements (of any count up to it: the smaller tile's
    /// count of tiles).
    pub fn scratch_bytes(&self, max_n: u64) -> u64 {
        let p = &self.policy;
        let small = p.scan.workgroup_size * p.small_items_per_thread.min(p.scan.items_per_thread);
        16 + max_n.div_ceil(small as u64).max(1) * 8
    }

    /// Records the compaction that keeps the non-zero elements (or those with a non-zero flag); see the
    /// module docs.
    #[allow(clippy::too_many_arguments)]
    pub fn cmd_compact(
        &self,
        rec: &mut Recorder,
        input: BufferRef<'_>,
        flags: Option<BufferRef<'_>>,
        output: BufferRef<'_>,
        count_out: BufferRef<'_>,
        scratch: BufferRef<'_>,
        n: u64,
    ) -> Result<()> {
        let pred = Predicate::NonZero;
        self.cmd_compact_if(rec, input, flags, pred, output, count_out, scratch, n)
    }

    /// Records the compaction that keeps the elements for which `predicate` holds, tested on the element
    /// or, with `flags`, on its flag (see the module docs).
    #[allow(clippy::too_many_arguments)]
    pub fn cmd_compact_if(
        &self,
        rec: &mut Recorder,
        input: BufferRef<'_>,
        flags: Option<BufferRef<'_>>,
        predicate: Predicate,
        output: BufferRef<'_>,
        count_out: BufferRef<'_>,
        scratch: BufferRef<'_>,
        n: u64,
    ) -> Result<()> {
        let (input, flags, output) = (input.region(), flags.map(|f| f.region()), output.region());
        let (count_out, scratch) = (count_out.region(), scratch.region());
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
        // What the pass writes (output, count, scratch) shares no byte with anything else; the input and the
        // flags are only read and may overlap each other.
        let written = [
            ("output", output, bytes),
            ("count_out", count_out, 4),
            ("scratch", scratch, status_bytes),
        ];
        check_disjoint(&[&[("input", input, bytes)], &written[..]].concat())?;
        if let Some(f) = flags {
            check_disjoint(&[&[("flags", f, bytes)], &written[..]].concat())?;
        }
        let kernel = self.kernel(ctx, flags.is_some(), self.policy.items_for(n))?;
        let tiles = self.tiles(n) as u32;
        let (mode, a, b) = predicate.push();
        let status = scratch.slice(0, status_bytes);
        // Bindings may not be empty: with n = 0 the count region stands in for the data bindings (the shader
        // reads and writes no element then).
        let data = |b: Region| {
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
            rec.fill_region("vksort::compact::clear", status, 0)?;
            rec.barrier();
            rec.dispatch(
                "vksort::compact",
                &kernel,
                &bindings,
                &CompactPush {
                    n: n as u32,
                    groups: tiles,
                    mode,
                    a,
                    b,
                },
                tiles,
            )
        })
    }
}

/// [`Compactor::cmd_compact`] with the device's default policy. Convenience form: it builds its kernel
/// (cached by the context) the first time it records; a renderer creates a [`Compactor`] up front instead.
#[allow(clippy::too_many_arguments)]
pub fn cmd_compact(
    rec: &mut Recorder,
    input: BufferRef<'_>,
    flags: Option<BufferRef<'_>>,
    output: BufferRef<'_>,
    count_out: BufferRef<'_>,
    scratch: BufferRef<'_>,
    n: u64,
) -> Result<()> {
    let pred = Predicate::NonZero;
    cmd_compact_if(rec, input, flags, pred, output, count_out, scratch, n)
}

/// [`Compactor::cmd_compact_if`] with the device's default policy (kernels as [`cmd_compact`]).
#[allow(clippy::too_many_arguments)]
pub fn cmd_compact_if(
    rec: &mut Recorder,
    input: BufferRef<'_>,
    flags: Option<BufferRef<'_>>,
    predicate: Predicate,
    output: BufferRef<'_>,
    count_out: BufferRef<'_>,
    scratch: BufferRef<'_>,
    n: u64,
) -> Result<()> {
    let ctx = rec.ctx();
    check_device(ctx.caps(), ScanElem::U32)?;
    let c = Compactor {
        policy: CompactPolicy::for_device(ctx.caps()),
        plan: SubgroupPlan::for_device(ctx.caps()),
    };
    c.cmd_compact_if(rec, input, flags, predicate, output, count_out, scratch, n)
}

/// Compacts `data` on the GPU with the default policy (keeps the non-zero elements, or those with a
/// non-zero flag).
pub fn compact_u32(ctx: &Arc<Context>, data: &[u32], flags: Option<&[u32]>) -> Result<Vec<u32>> {
    compact_u32_with(ctx, data, flags, None)
}

/// Compacts `data` on the GPU with `policy` (e.g. the look-back stall emulation), keeping the non-zero
/// elements (or those with a non-zero flag).
pub fn compact_u32_with(
    ctx: &Arc<Context>,
    data: &[u32],
    flags: Option<&[u32]>,
    policy: Option<CompactPolicy>,
) -> Result<Vec<u32>> {
    compact_u32_if(ctx, data, flags, Predicate::NonZero, policy)
}

/// Compacts `data` on the GPU: keeps the elements for which `predicate` holds (on the element, or with
/// `flags` on its flag), with `policy` (default: the device's).
pub fn compact_u32_if(
    ctx: &Arc<Context>,
    data: &[u32],
    flags: Option<&[u32]>,
    predicate: Predicate,
    policy: Option<CompactPolicy>,
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
        c.cmd_compact_if(
            rec,
            input.as_ref(),
            flag_buf.as_ref().map(|b| b.as_ref()),
            predicate,
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

internal! {
/// CPU reference of [`compact_u32`].
fn cpu_compact_u32(data: &[u32], flags: Option<&[u32]>) -> Vec<u32> {
    cpu_compact_u32_if(data, flags, Predicate::NonZero)
}
}

internal! {
/// CPU reference of [`compact_u32_if`].
fn cpu_compact_u32_if(data: &[u32], flags: Option<&[u32]>, predicate: Predicate) -> Vec<u32> {
    match flags {
        Some(f) => data
            .iter()
            .zip(f)
            .filter(|(_, &f)| predicate.test(f))
            .map(|(&x, _)| x)
            .collect(),
        None => data
            .iter()
            .copied()
            .filter(|&x| predicate.test(x))
            .collect(),
    }
}
}
