//! Stable stream compaction of u32: keeps, in input order, the elements that pass a [`Predicate`] on themselves
//! or on their flag (a separate u32 buffer). One pass, `vksort::compact` (after the `vksort::compact::clear` fill
//! of its status region), on the scan's decoupled look-back: per tile, count the kept elements, look back over
//! the predecessors' counts, scatter. [`Compactor::cmd_compact_if`] states the contract.

use crate::error::{Error, Result};
use crate::gpu::{
    check_disjoint, Buffer, BufferRef, Context, DeviceCaps, Recorder, Region, StatusLease,
};
use crate::policy::SubgroupPlan;
use crate::scan::{
    check_count, check_data, check_device, min_items, owns_status, record_status, status_bytes,
    ScanElem, ScanPolicy, MIN_TILE,
};
use ash::vk;
use std::sync::Arc;

crate::gpu::push_block! {
/// Push constants of `glsl/compact.comp` (both variants).
internal struct CompactPush {
    pub n: u32,
    /// Workgroups dispatched (= tiles, at least 1).
    pub groups: u32,
    /// The predicate (see `Predicate::push`: 0 non-zero, 1 bits equal, 2 range): mode and its two operands.
    pub mode: u32,
    pub a: u32,
    pub b: u32,
    /// 1: the status is the Compactor's own, zero at the start and left so (`lookback.glsl`, `LB_RESET`).
    pub reset: u32,
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
    /// The whole tile staged in shared memory in output order (4 bytes per element; `Direct` if it won't fit).
    Tile,
    /// Each subgroup's 16-byte row staged in its slice of shared memory (16 bytes per invocation, any tile).
    Subgroup,
}

crate::policy::leaf_field! {
    CompactStaging => |v| match v {
        0 => Ok(CompactStaging::Direct),
        1 => Ok(CompactStaging::Tile),
        2 => Ok(CompactStaging::Subgroup),
        _ => Err(format!("{v}: the staging is 0 (direct), 1 (tile) or 2 (subgroup)")),
    };
}

crate::policy::tunable! {
    /// A size tier of the compaction: the tile of compactions of at most `max` elements.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct CompactTier {
        /// Elements up to which this tier's tile applies (0: no tier).
        pub max: u64,
        /// Invocations per workgroup when tiled.
        pub workgroup_size: u32,
        /// Elements per invocation.
        pub items_per_invocation: u32,
    }
}

crate::policy::tunable! {
    /// Tuning of the compaction pass: the tile and look-back ([`ScanPolicy`]), the stores, and three size tiers
    /// below the scan's tile (override keys: the field paths, e.g. `scan.workgroup_size`, `mid.max`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct CompactPolicy {
        /// Tile shape and look-back. Default: [`ScanPolicy::for_device_compact`].
        pub scan: ScanPolicy,
        /// How kept elements are stored (0 direct, 1 tile, 2 subgroup). Default: [`CompactStaging::Subgroup`].
        pub staging: CompactStaging,
        /// The tile up to `small.max` elements (default 16 per invocation up to 2^22; NVIDIA 512 x 16 up to 2^21).
        pub small: CompactTier,
        /// The tile above `small.max`, up to `mid.max` elements (default none; NVIDIA 1024 x 16 up to 2^23).
        pub mid: CompactTier,
        /// The tile above `mid.max`, up to `large.max` elements (default none; NVIDIA 1024 x 32 up to 2^26).
        pub large: CompactTier,
    }
}

impl crate::policy::Policy for CompactPolicy {
    const FAMILY: &'static str = "compact";
}

impl CompactPolicy {
    /// The policy for a device: subgroup staging, so that shared memory does not grow with the tile.
    pub fn for_device(caps: &DeviceCaps) -> Self {
        let scan = ScanPolicy::for_device_compact(caps);
        let t = &crate::tuning::for_class(caps.class).compact;
        // A tier's workgroup: 0 is the scan's; else a power of two the device takes, at least the scan's.
        let tier = |t: &CompactTier| {
            let wg = match t.workgroup_size {
                0 => scan.workgroup_size,
                w => SubgroupPlan::for_device(caps)
                    .pow2_workgroup_size(caps, w)
                    .max(scan.workgroup_size),
            };
            CompactTier {
                max: t.max,
                workgroup_size: wg,
                items_per_invocation: t.items_per_invocation.max(min_items(wg)),
            }
        };
        Self {
            small: tier(&t.small),
            mid: tier(&t.mid),
            large: tier(&t.large),
            ..Self::from(scan)
        }
    }

    /// (invocations, elements per invocation) of a tile of a compaction of `n` elements (`n = 0` as 1): the
    /// first tier whose `max` it is within, else the scan's.
    pub fn tile_for(&self, n: u64) -> (u32, u32) {
        let n = n.max(1);
        match self.tiers().into_iter().find(|t| n <= t.max) {
            Some(t) => (t.workgroup_size, t.items_per_invocation),
            None => (self.scan.workgroup_size, self.scan.items_per_invocation),
        }
    }

    /// The most elements one workgroup takes in a compaction of `n` ([`ScanPolicy::single_workgroup_size`]).
    pub fn single_tile(&self, n: u64) -> u32 {
        self.scan.single_workgroup() * self.tile_for(n).1
    }

    /// (invocations, elements per invocation) of a compaction of `n` elements: one workgroup where it fits.
    pub(crate) fn shape(&self, n: u64) -> (u32, u32) {
        let (wg, items) = self.tile_for(n);
        if n <= self.single_tile(n) as u64 {
            (self.scan.single_workgroup(), items)
        } else {
            (wg, items)
        }
    }

    /// Tiles (workgroups) of a compaction of `n` elements.
    pub(crate) fn tiles(&self, n: u64) -> u64 {
        let (wg, items) = self.shape(n);
        n.div_ceil((wg * items) as u64).max(1)
    }

    /// [`ScanPolicy::clears_status`] for a [`Compactor`]'s run over `n` elements with this policy's tiles (the
    /// free functions, [`cmd_compact`] and [`compact_u32`], clear it whenever they take several tiles).
    pub fn clears_status(&self, n: u64) -> bool {
        let tiles = self.tiles(n);
        tiles > 1 && !owns_status(&self.scan, tiles, ScanElem::U32)
    }

    /// Checks every tile shape against the device.
    pub fn validate(&self, caps: &DeviceCaps) -> Result<()> {
        self.scan.validate(caps)?;
        for t in self.tiers() {
            ScanPolicy {
                workgroup_size: t.workgroup_size,
                items_per_invocation: t.items_per_invocation,
                ..self.scan
            }
            .validate(caps)?;
        }
        Ok(())
    }

    /// The tiers, smallest first ([`CompactPolicy::tile_for`] takes the first that holds a size).
    fn tiers(&self) -> [CompactTier; 3] {
        [self.small, self.mid, self.large]
    }

    /// The smallest tile of any tier (and the scan's): the status's size.
    fn smallest_tile(&self) -> u32 {
        self.tiers()
            .iter()
            .map(|t| t.workgroup_size * t.items_per_invocation)
            .fold(self.scan.tile(), u32::min)
    }
}

impl From<ScanPolicy> for CompactPolicy {
    /// `scan`'s tile for every size (no tiers), with the default staging.
    fn from(scan: ScanPolicy) -> Self {
        let none = CompactTier {
            max: 0,
            workgroup_size: scan.workgroup_size,
            items_per_invocation: scan.items_per_invocation,
        };
        Self {
            scan,
            staging: CompactStaging::Subgroup,
            small: none,
            mid: none,
            large: none,
        }
    }
}

/// Scratch bytes of a compaction of up to `max_n` elements with any valid policy.
pub fn compact_scratch_bytes(max_n: u64) -> u64 {
    status_bytes(max_n.div_ceil(MIN_TILE as u64).max(1), ScanElem::U32)
}

/// A planned compaction (policy and kernels), for the context it was made on: recorded on another context's
/// recorder it returns [`Error::WrongContext`] (its kernels live in its own context). Holds a status block as
/// a [`Scanner`](crate::scan::Scanner) does.
pub struct Compactor {
    policy: CompactPolicy,
    plan: SubgroupPlan,
    /// The id of the context whose kernels it built.
    ctx_id: u64,
    /// The look-back's own zeroed status (`gpu/status.rs`); None for the free functions' one-off compactors.
    status: Option<StatusLease>,
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
            ctx_id: ctx.id,
            status: Some(StatusLease::new(ctx)?),
        };
        // Every shape: each tier's first count (one workgroup where it fits) and the first past its single tile.
        let (mut end, mut firsts) = (0, Vec::new());
        for t in policy.tiers() {
            if t.max > end {
                firsts.push(end + 1);
                end = t.max;
            }
        }
        firsts.push(end + 1);
        for first in firsts {
            let tiled = first.max(policy.single_tile(first) as u64 + 1);
            for flags in [false, true] {
                c.kernel(ctx, flags, first)?;
                c.kernel(ctx, flags, tiled)?;
            }
        }
        Ok(c)
    }

    /// The kernel of a compaction of `n` elements.
    fn kernel(&self, ctx: &Context, flags: bool, n: u64) -> Result<Arc<crate::gpu::Kernel>> {
        let (wg, items) = self.policy.shape(n);
        use crate::shaders::compact as sh;
        let shader = if flags { sh::FLAGS } else { sh::VALUES };
        // The staging words must fit beside the look-back's and the local scan's (2 KiB margin); else direct stores.
        let scan = &self.policy.scan;
        let (mode, words) = match self.policy.staging {
            CompactStaging::Direct => (0, 1),
            CompactStaging::Tile => (1, wg * items),
            CompactStaging::Subgroup => (2, wg * 4),
        };
        let fits = words as u64 * 4 + 2048 <= ctx.caps().max_shared_memory as u64;
        let (mode, words) = if fits { (mode, words) } else { (0, 1) };
        let spec = crate::shaders::Spec::new()
            .with(sh::VECS, items / 4)
            .with(sh::STAGE_ELEMS, words)
            .with(sh::STAGE_MODE, mode)
            .merge(scan.lookback_spec());
        self.plan.kernel(ctx, shader, wg, spec)
    }

    /// Elements per tile of a compaction of `n` elements ([`CompactPolicy::tile_for`], one workgroup).
    pub fn tile_size(&self, n: u64) -> u32 {
        let (wg, items) = self.policy.shape(n);
        wg * items
    }

    /// Scratch bytes of a compaction of up to `max_n` elements (sized by the smaller tile).
    pub fn scratch_bytes(&self, max_n: u64) -> u64 {
        let smallest = self.policy.smallest_tile() as u64;
        status_bytes(max_n.div_ceil(smallest).max(1), ScanElem::U32)
    }

    /// [`Compactor::cmd_compact_if`] keeping the non-zero elements (or those with a non-zero flag).
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

    /// Records the compaction that keeps the elements for which `predicate` holds (on the element, or on its
    /// flag): reads `n` elements of `input` (and `flags`), writes the kept ones to `output[0..count)` (room for
    /// `n`, the rest untouched, no overlap with `input` or `flags`) and the u32 count to `count_out[0]`; `scratch`
    /// ([`Compactor::scratch_bytes`], `STORAGE_BUFFER | TRANSFER_DST`) is garbage afterwards. Barriers as in
    /// [`crate::gpu::recorder`]; every input checked before anything is recorded. `n = 0` writes a count of 0.
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
        if ctx.id != self.ctx_id {
            return Err(Error::WrongContext { what: "compactor" });
        }
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
        let scratch_bytes = self.scratch_bytes(n);
        scratch.check(
            ctx,
            "scratch",
            scratch_bytes,
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        // What the pass writes shares no byte with anything else; input and flags, only read, may overlap.
        let written = [
            ("output", output, bytes),
            ("count_out", count_out, 4),
            ("scratch", scratch, scratch_bytes),
        ];
        check_disjoint(&[&[("input", input, bytes)], &written[..]].concat())?;
        if let Some(f) = flags {
            check_disjoint(&[&[("flags", f, bytes)], &written[..]].concat())?;
        }
        let kernel = self.kernel(ctx, flags.is_some(), n)?;
        let tiles = self.policy.tiles(n) as u32;
        let (mode, a, b) = predicate.push();
        // Bindings may not be empty: with n = 0 (no element read or written) the count region stands in.
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
        bindings.extend([data(output), count_out.slice(0, 4)]);
        rec.scope("vksort::compact", |rec| {
            let (status, reset) = record_status(
                rec,
                self.status.as_ref(),
                &self.policy.scan,
                ScanElem::U32,
                tiles,
                scratch.slice(0, scratch_bytes),
                "vksort::compact::clear",
            )?;
            bindings.push(status);
            let push = CompactPush {
                n: n as u32,
                groups: tiles,
                mode,
                a,
                b,
                reset,
            };
            rec.pass("vksort::compact", &kernel)
                .bind(&bindings)
                .push(&push)
                .groups(tiles)
        })
    }
}

/// [`Compactor::cmd_compact`] with the default policy, its kernel built when first recorded (see [`Compactor`]).
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
        ctx_id: ctx.id,
        status: None,
    };
    c.cmd_compact_if(rec, input, flags, predicate, output, count_out, scratch, n)
}

/// Compacts `data` on the GPU with the default policy, keeping the non-zero elements (or flags).
pub fn compact_u32(ctx: &Arc<Context>, data: &[u32], flags: Option<&[u32]>) -> Result<Vec<u32>> {
    compact_u32_with(ctx, data, flags, None)
}

/// [`compact_u32`] with `policy` (e.g. the look-back stall emulation).
pub fn compact_u32_with(
    ctx: &Arc<Context>,
    data: &[u32],
    flags: Option<&[u32]>,
    policy: Option<CompactPolicy>,
) -> Result<Vec<u32>> {
    compact_u32_if(ctx, data, flags, Predicate::NonZero, policy)
}

/// Compacts `data` on the GPU, keeping the elements (or flags) that pass `predicate`, with `policy` (or the default).
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

#[cfg(test)]
mod policy_keys {
    use super::{CompactPolicy, CompactStaging};
    use crate::policy::Policy;

    /// Override keys are the field paths (the scan's under `scan.`).
    #[test]
    fn override_keys_are_field_paths() {
        let keys = crate::policy::legend_paths::<CompactPolicy>();
        assert_eq!(keys[0], "scan.workgroup_size");
        assert_eq!(
            keys[keys.len() - 10..],
            [
                "staging",
                "small.max",
                "small.workgroup_size",
                "small.items_per_invocation",
                "mid.max",
                "mid.workgroup_size",
                "mid.items_per_invocation",
                "large.max",
                "large.workgroup_size",
                "large.items_per_invocation"
            ]
        );
        let p = CompactPolicy::from(crate::scan::TEST_POLICY);
        let q = p
            .with_overrides("staging=0, small.max=4096, mid.max=65536, scan.workgroup_size=256")
            .unwrap();
        assert_eq!(
            (q.staging, q.small.max, q.mid.max, q.scan.workgroup_size),
            (CompactStaging::Direct, 4096, 65536, 256)
        );
        for bad in ["staging=3", "small_max=8", "small=8", "workgroup_size=64"] {
            assert!(p.with_overrides(bad).is_err(), "{bad}");
        }
    }
}
