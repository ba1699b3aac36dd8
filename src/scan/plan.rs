//! The plan of a scan: its [`ScanPolicy`] (measured in docs/tuning.md "ScanPolicy") and the [`Scanner`].

use super::passes::{status_bytes, ScanIo};
use super::{check_device, region_align, ScanAlgorithm, ScanConfig, ScanElem, ScanKind};
use crate::error::{Error, Result};
use crate::gpu::{
    check_disjoint, BufferRef, Context, DeviceCaps, Kernel, Recorder, Region, StatusLease,
};
use crate::policy::SubgroupPlan;
use ash::vk;
use std::sync::Arc;

/// What the stalled tiles of the look-back emulation do (see [`ScanPolicy::stall_every`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StallMode {
    /// Publish nothing, ever: every successor must reduce the stalled tile itself.
    #[default]
    NeverPublish,
    /// Publish no aggregate, and the inclusive prefix only after a long delay (successors may see it late).
    PublishLate,
}

crate::policy::tunable! {
/// Tuning of the scan, reduce and compaction passes, passed to the shaders as specialization constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScanPolicy {
    /// Invocations per workgroup: a power of two, a multiple of the largest subgroup size (default 256, CPU 128).
    pub workgroup_size: u32,
    /// Elements per invocation of a look-back, reduce-then-scan, reduce or compaction tile: a multiple of 4 in
    /// 4..=64, the tile at least 512 (default 32, CPU 16, or more to reach 512). Blelloch uses min(this, 8) as a
    /// power of two that fits shared memory; Hillis-Steele 4.
    pub items_per_invocation: u32,
    /// Look-back: spin rounds on unpublished predecessors before reducing them itself, 1..=60000 (lavapipe
    /// ends loops after 65535 rounds); default 2048, CPU 256.
    pub spin_limit: u32,
    /// Look-back emulation of a device without forward progress: tiles with id % stall_every ==
    /// 1 % stall_every stall as [`ScanPolicy::stall_mode`] says. 0 (the default) = off.
    pub stall_every: u32,
    /// What stalled tiles do. Default: [`StallMode::NeverPublish`].
    pub stall_mode: StallMode,
    /// Look-back: a memory barrier between a fallback reduction and the re-read of the predecessor's status
    /// (`glsl/include/lookback.glsl`); default on, off on CPU devices (lavapipe breaks barriers around it).
    pub recheck_fence: bool,
    /// Look-back scans and compactions of at most [`ScanPolicy::single_tile`] elements run as one workgroup of
    /// this many invocations (at least `workgroup_size`), with no status to clear: a power of two, a multiple of
    /// the largest subgroup size; default 1024 where the device allows, CPU 0.
    pub single_workgroup_size: u32,
}
}

crate::policy::leaf_field! {
    StallMode => |v| match v {
        0 => Ok(StallMode::NeverPublish),
        1 => Ok(StallMode::PublishLate),
        _ => Err(format!("{v}: the stall mode is 0 (never publish) or 1 (publish late)")),
    };
}

impl crate::policy::Policy for ScanPolicy {
    const FAMILY: &'static str = "scan";
}

/// The smallest tile (elements) a look-back policy may have: sizes [`crate::compact::compact_scratch_bytes`].
pub(crate) const MIN_TILE: u32 = 512;

/// The fewest elements per invocation (a multiple of 4) that make a tile of [`MIN_TILE`] with `wg` invocations.
pub(crate) fn min_items(wg: u32) -> u32 {
    MIN_TILE.div_ceil(wg).next_multiple_of(4)
}

impl ScanPolicy {
    /// The policy for a device.
    pub fn for_device(caps: &DeviceCaps) -> Self {
        let t = &crate::tuning::for_class(caps.class).scan;
        let plan = SubgroupPlan::for_device(caps);
        let pow2 = |wish: u32| plan.pow2_workgroup_size(caps, wish);
        let wg = pow2(t.workgroup_size);
        let single = match t.single_workgroup_size {
            0 => 0,
            w => pow2(w),
        };
        Self {
            workgroup_size: wg,
            items_per_invocation: t.items_per_invocation.max(min_items(wg)).min(64),
            spin_limit: t.spin_limit,
            stall_every: 0,
            stall_mode: StallMode::NeverPublish,
            recheck_fence: t.recheck_fence,
            single_workgroup_size: single,
        }
    }

    /// The tile of compaction's default policy ([`crate::compact::CompactPolicy::for_device`]): the scan's.
    pub fn for_device_compact(caps: &DeviceCaps) -> Self {
        Self::for_device(caps)
    }

    /// Checks the policy against the device.
    pub fn validate(&self, caps: &DeviceCaps) -> Result<()> {
        let invalid = |what: String| {
            Err(Error::InvalidPolicy {
                family: "scan",
                what,
            })
        };
        let plan = SubgroupPlan::for_device(caps);
        let (wg, items) = (self.workgroup_size, self.items_per_invocation);
        if wg == 0
            || !wg.is_power_of_two()
            || wg % plan.max != 0
            || wg > caps.max_workgroup_invocations
        {
            return invalid(format!(
                "workgroup_size {wg} must be a power of two, a multiple of {} and at most {}",
                plan.max, caps.max_workgroup_invocations
            ));
        }
        let single = self.single_workgroup_size;
        if single != 0
            && (!single.is_power_of_two()
                || single % plan.max != 0
                || single > caps.max_workgroup_invocations)
        {
            return invalid(format!(
                "single_workgroup_size {single} must be 0 or a power of two, a multiple of {} and at most {}",
                plan.max, caps.max_workgroup_invocations
            ));
        }
        if items % 4 != 0 || !(4..=64).contains(&items) {
            return invalid(format!(
                "items_per_invocation {items} must be a multiple of 4 in 4..=64"
            ));
        }
        if wg * items < MIN_TILE {
            return invalid(format!(
                "the tile {} (workgroup_size x items_per_invocation) is below {MIN_TILE}",
                wg * items
            ));
        }
        if !(1..=60000).contains(&self.spin_limit) {
            return invalid(format!("spin_limit {} outside 1..=60000", self.spin_limit));
        }
        Ok(())
    }

    /// Elements per look-back / reduce-then-scan tile.
    pub fn tile(&self) -> u32 {
        self.workgroup_size * self.items_per_invocation
    }

    /// Invocations of the one-workgroup form: `single_workgroup_size`, at least `workgroup_size`.
    pub(crate) fn single_workgroup(&self) -> u32 {
        self.single_workgroup_size.max(self.workgroup_size)
    }

    /// The most elements a look-back scan takes in one workgroup (one dispatch, no status cleared first).
    pub fn single_tile(&self) -> u32 {
        self.single_workgroup() * self.items_per_invocation
    }

    /// Whether a [`Scanner`]'s look-back run over `n` elements clears its status in the scratch first (one more
    /// dispatch): past 4,096 tiles of u64 / 8,192 of u32 (its own block's size), or with the stall emulation.
    pub fn clears_status(&self, elem: ScanElem, n: u64) -> bool {
        n > self.single_tile() as u64 && !owns_status(self, n.div_ceil(self.tile() as u64), elem)
    }

    /// The specialization constants of `lookback.glsl`.
    pub(crate) fn lookback_spec(&self) -> crate::shaders::Spec {
        use crate::shaders::include::lookback as lb;
        let stall_mode = match self.stall_mode {
            StallMode::NeverPublish => 0,
            StallMode::PublishLate => 1,
        };
        crate::shaders::Spec::new()
            .with(lb::SPIN_LIMIT, self.spin_limit)
            .with(lb::STALL_EVERY, self.stall_every)
            .with(lb::STALL_MODE, stall_mode)
            .with(lb::LB_FENCE, self.recheck_fence as u32)
    }
}

/// Whether a look-back run of `tiles` tiles keeps its status in its Scanner's (or Compactor's) own block.
pub(crate) fn owns_status(policy: &ScanPolicy, tiles: u64, elem: ScanElem) -> bool {
    tiles > 1
        && policy.stall_every == 0
        && super::status_bytes(tiles, elem) <= crate::gpu::STATUS_BLOCK_BYTES
}

/// The three kernels of a multi-pass scan, in recording order.
type ThreeKernels = (Arc<Kernel>, Arc<Kernel>, Arc<Kernel>);

/// A planned scan: configuration, policy and kernels (cached in the context). A look-back Scanner holds a 64 KiB
/// zeroed status block of its context, so its runs need no clear ([`ScanPolicy::clears_status`], [`Recorder::new`]).
pub struct Scanner {
    pub(super) ctx: Arc<Context>,
    pub(super) config: ScanConfig,
    pub(super) policy: ScanPolicy,
    plan: SubgroupPlan,
    /// The look-back's own zeroed status (`gpu/status.rs`): no clear before a run that fits it.
    pub(super) status: Option<StatusLease>,
}

/// Elements per invocation of the Hillis-Steele and uniform-add passes.
pub(super) const SIMPLE_ITEMS: u32 = 4;

impl Scanner {
    /// Plans a scan. Fails with [`Error::Unsupported`] when the device lacks what the kernels need and with
    /// [`Error::InvalidPolicy`] for a policy that does not fit the device. Builds the kernels now.
    pub fn new(ctx: &Arc<Context>, config: ScanConfig) -> Result<Self> {
        check_device(ctx.caps(), config.elem)?;
        let policy = config
            .policy
            .unwrap_or_else(|| ScanPolicy::for_device(ctx.caps()));
        policy.validate(ctx.caps())?;
        let status = match config.algorithm {
            ScanAlgorithm::DecoupledLookback => Some(StatusLease::new(ctx)?),
            _ => None,
        };
        let s = Self {
            ctx: ctx.clone(),
            config,
            policy,
            plan: SubgroupPlan::for_device(ctx.caps()),
            status,
        };
        s.warm()?;
        Ok(s)
    }

    /// The configuration.
    pub fn config(&self) -> &ScanConfig {
        &self.config
    }

    /// The policy in use.
    pub fn policy(&self) -> &ScanPolicy {
        &self.policy
    }

    pub(super) fn inclusive(&self) -> bool {
        self.config.kind == ScanKind::Inclusive
    }

    /// Vectors per invocation of the tiled passes.
    fn vecs(&self) -> u32 {
        self.policy.items_per_invocation / self.config.elem.per_vec()
    }

    /// Blelloch: (workgroup size, items per invocation), tile a power of two that fits shared memory.
    pub(super) fn blelloch_shape(&self) -> (u32, u32) {
        let wg = self.policy.workgroup_size;
        let mut items = self.policy.items_per_invocation.min(8);
        items = 1 << (31 - items.leading_zeros());
        let eb = self.config.elem.bytes() as u32;
        let banks = self.log_banks();
        let fits = |items: u32| {
            let tile = wg * items;
            (tile + (tile >> banks) + 1) * eb <= self.ctx.caps().max_shared_memory
        };
        while items > 1 && !fits(items) {
            items /= 2;
        }
        (wg, items)
    }

    /// log2 of the shared-memory bank count the Blelloch padding assumes: the subgroup size (at most 32).
    fn log_banks(&self) -> u32 {
        let banks = self.ctx.caps().subgroup_size.clamp(4, 32);
        31 - banks.leading_zeros()
    }

    /// Elements per workgroup of one pass of the configured algorithm (the unit of the edge cases).
    pub fn tile_size(&self) -> u32 {
        match self.config.algorithm {
            ScanAlgorithm::DecoupledLookback | ScanAlgorithm::ReduceThenScan => self.policy.tile(),
            ScanAlgorithm::Blelloch => {
                let (wg, items) = self.blelloch_shape();
                wg * items
            }
            ScanAlgorithm::HillisSteele => self.policy.workgroup_size * SIMPLE_ITEMS,
        }
    }

    /// The kernel of the element type's variant among `[u32, u64]`.
    fn kernel(
        &self,
        [u32, u64]: [crate::shaders::ShaderId; 2],
        wg: u32,
        spec: crate::shaders::Spec,
    ) -> Result<Arc<Kernel>> {
        let shader = match self.config.elem {
            ScanElem::U32 => u32,
            ScanElem::U64 => u64,
        };
        self.plan.kernel(&self.ctx, shader, wg, spec)
    }

    /// Builds (or finds in the cache) every kernel of the configured algorithm.
    fn warm(&self) -> Result<()> {
        match self.config.algorithm {
            ScanAlgorithm::DecoupledLookback => {
                self.kernel_lookback(false, false)?;
                self.kernel_lookback(false, true)?;
            }
            ScanAlgorithm::ReduceThenScan => {
                self.kernels_rts()?;
            }
            ScanAlgorithm::Blelloch => {
                self.kernels_blelloch()?;
            }
            ScanAlgorithm::HillisSteele => {
                self.kernel_hs()?;
            }
        }
        Ok(())
    }

    /// The look-back kernel; `in_place`: the `coherent` variant (lookback.glsl); `single`: one workgroup's size.
    pub(super) fn kernel_lookback(&self, in_place: bool, single: bool) -> Result<Arc<Kernel>> {
        use crate::shaders::{scan_lookback as sh, Spec};
        let variants = if in_place {
            [sh::U32_INPLACE, sh::U64_INPLACE]
        } else {
            [sh::U32, sh::U64]
        };
        let spec = Spec::new()
            .with(sh::VECS, self.vecs())
            .with(sh::INCLUSIVE, self.inclusive() as u32)
            .merge(self.policy.lookback_spec());
        let wg = if single {
            self.policy.single_workgroup()
        } else {
            self.policy.workgroup_size
        };
        self.kernel(variants, wg, spec)
    }

    /// The reduce-then-scan kernels: (reduce, spine, downsweep).
    pub(super) fn kernels_rts(&self) -> Result<ThreeKernels> {
        use crate::shaders::{scan_downsweep, scan_reduce, scan_spine, Spec};
        let (wg, v) = (self.policy.workgroup_size, self.vecs());
        let k_reduce = self.kernel(
            [scan_reduce::U32, scan_reduce::U64],
            wg,
            Spec::new().with(scan_reduce::VECS, v),
        )?;
        let k_spine = self.kernel(
            [scan_spine::U32, scan_spine::U64],
            wg,
            Spec::new().with(scan_spine::VECS, v),
        )?;
        let k_down = self.kernel(
            [scan_downsweep::U32, scan_downsweep::U64],
            wg,
            Spec::new()
                .with(scan_downsweep::VECS, v)
                .with(scan_downsweep::INCLUSIVE, self.inclusive() as u32),
        )?;
        Ok((k_reduce, k_spine, k_down))
    }

    /// The Blelloch kernels: (first level's tile scan, the other levels' exclusive tile scan, add).
    pub(super) fn kernels_blelloch(&self) -> Result<ThreeKernels> {
        use crate::shaders::{scan_add, scan_blelloch_tile as tile, Spec};
        let (bwg, items) = self.blelloch_shape();
        let tile_spec = |inclusive: bool| {
            Spec::new()
                .with(tile::ITEMS, items)
                .with(tile::INCLUSIVE, inclusive as u32)
                .with(tile::LOG_BANKS, self.log_banks())
        };
        let k_first = self.kernel([tile::U32, tile::U64], bwg, tile_spec(self.inclusive()))?;
        let k_excl = self.kernel([tile::U32, tile::U64], bwg, tile_spec(false))?;
        let k_add = self.kernel(
            [scan_add::U32, scan_add::U64],
            self.policy.workgroup_size,
            Spec::new().with(scan_add::ITEMS, SIMPLE_ITEMS),
        )?;
        Ok((k_first, k_excl, k_add))
    }

    /// The Hillis-Steele kernel.
    pub(super) fn kernel_hs(&self) -> Result<Arc<Kernel>> {
        use crate::shaders::{scan_hillis_steele as sh, Spec};
        self.kernel(
            [sh::U32, sh::U64],
            self.policy.workgroup_size,
            Spec::new().with(sh::ITEMS, SIMPLE_ITEMS),
        )
    }

    pub(super) fn tiles(&self, n: u64) -> u64 {
        n.div_ceil(self.tile_size() as u64)
    }

    /// Blelloch levels: (elements, tiles) of each level, the first being the input; the last has one tile.
    pub(super) fn blelloch_levels(&self, n: u64) -> Vec<(u64, u64)> {
        let t = self.tile_size() as u64;
        let mut levels = Vec::new();
        let mut count = n;
        loop {
            let tiles = count.div_ceil(t).max(1);
            levels.push((count, tiles));
            if tiles == 1 {
                break;
            }
            count = tiles;
        }
        levels
    }

    /// Scratch bytes a scan of up to `max_n` elements needs.
    pub fn scratch_bytes(&self, max_n: u64) -> u64 {
        let eb = self.config.elem.bytes();
        let a = region_align(self.ctx.caps());
        match self.config.algorithm {
            ScanAlgorithm::DecoupledLookback => status_bytes(self.tiles(max_n), self.config.elem),
            ScanAlgorithm::ReduceThenScan => (self.tiles(max_n) * eb).max(16),
            ScanAlgorithm::Blelloch => self
                .blelloch_levels(max_n)
                .iter()
                .map(|&(_, tiles)| (tiles * eb).next_multiple_of(a))
                .sum(),
            ScanAlgorithm::HillisSteele => 2 * (max_n * eb).next_multiple_of(a),
        }
    }

    /// Records the scan of `n` elements of `input` into `output`. It reads `n` elements of `input` and writes `n`
    /// of `output`, nothing else of it; `input` may be `output` itself (in place, except with the
    /// [`StallMode::NeverPublish`] emulation), partial overlaps are rejected. `scratch` (at least
    /// [`Scanner::scratch_bytes`]`(n)` bytes, disjoint from both) is garbage afterwards. Barriers as in
    /// [`crate::gpu::recorder`]. Checked before anything is recorded (a typed [`Error`]): sizes, `STORAGE_BUFFER`
    /// usage (and `TRANSFER_DST` on look-back scratch), 16-byte aligned input and output offsets, `n * elem`
    /// within `maxStorageBufferRange`, the device's subgroup operations and 64-bit support. `n = 0` records nothing.
    /// A look-back run over several tiles records a barrier (or [`ScanPolicy::clears_status`]: a clear) first.
    pub fn cmd_scan(
        &self,
        rec: &mut Recorder,
        input: BufferRef<'_>,
        output: BufferRef<'_>,
        scratch: BufferRef<'_>,
        n: u64,
    ) -> Result<()> {
        let (input, output, scratch) = (input.region(), output.region(), scratch.region());
        let same = self.check_scan(rec.ctx(), &input, &output, &scratch, n)?;
        if n == 0 {
            return Ok(());
        }
        let bytes = n * self.config.elem.bytes();
        let (input, output, n) = (input.slice(0, bytes), output.slice(0, bytes), n as u32);
        let io = ScanIo {
            input,
            output,
            scratch,
            n,
        };
        rec.scope("vksort::scan", |rec| match self.config.algorithm {
            ScanAlgorithm::DecoupledLookback => self.record_lookback(rec, io, same, None),
            ScanAlgorithm::ReduceThenScan => self.record_rts(rec, io),
            ScanAlgorithm::Blelloch => self.record_blelloch(rec, io),
            ScanAlgorithm::HillisSteele => self.record_hs(rec, io),
        })
    }

    /// Records a look-back scan whose length is decided on the GPU: [`Scanner::cmd_scan`] for up to `max_n`
    /// elements (buffers, scratch and checks as for `max_n`), its workgroup count read from `args` (a
    /// `VkDispatchIndirectCommand`, 4-byte aligned, `INDIRECT_BUFFER` usage, written before the caller's last
    /// barrier): `x * y` workgroups scan the first `min(x * y * tile_size(), max_n)` elements, 0 nothing; the
    /// rest of `output` is not written. Other algorithms: [`Error::InvalidPolicy`]. `max_n = 0` records nothing.
    pub fn cmd_scan_indirect(
        &self,
        rec: &mut Recorder,
        input: BufferRef<'_>,
        output: BufferRef<'_>,
        scratch: BufferRef<'_>,
        max_n: u64,
        args: BufferRef<'_>,
    ) -> Result<()> {
        let (input, output, scratch) = (input.region(), output.region(), scratch.region());
        self.scan_indirect(rec, input, output, scratch, max_n, args.region())
    }

    /// [`Scanner::cmd_scan_indirect`] on crate-internal regions (the split sorts' offsets scan).
    pub(crate) fn scan_indirect(
        &self,
        rec: &mut Recorder,
        input: Region,
        output: Region,
        scratch: Region,
        max_n: u64,
        args: Region,
    ) -> Result<()> {
        if self.config.algorithm != ScanAlgorithm::DecoupledLookback {
            return Err(Error::InvalidPolicy {
                family: "scan",
                what: format!(
                    "an indirect scan needs the look-back algorithm, not {}",
                    self.config.algorithm.name()
                ),
            });
        }
        let ctx = rec.ctx();
        let same = self.check_scan(ctx, &input, &output, &scratch, max_n)?;
        if args.offset % 4 != 0 {
            return Err(Error::Misaligned {
                what: "indirect arguments",
                offset: args.offset,
                alignment: 4,
            });
        }
        args.check(
            ctx,
            "indirect arguments",
            12,
            vk::BufferUsageFlags::INDIRECT_BUFFER,
        )?;
        let bytes = max_n * self.config.elem.bytes();
        check_disjoint(&[
            ("indirect arguments", args, 12),
            ("output", output, bytes),
            ("scratch", scratch, self.scratch_bytes(max_n)),
        ])?;
        if max_n == 0 {
            return Ok(());
        }
        let (input, output, n) = (input.slice(0, bytes), output.slice(0, bytes), max_n as u32);
        let io = ScanIo {
            input,
            output,
            scratch,
            n,
        };
        rec.scope("vksort::scan", |rec| {
            self.record_lookback(rec, io, same, Some(args))
        })
    }
}

/// A CPU-like policy for unit tests.
#[cfg(test)]
pub(crate) const TEST_POLICY: ScanPolicy = ScanPolicy {
    workgroup_size: 128,
    items_per_invocation: 16,
    spin_limit: 256,
    stall_every: 0,
    stall_mode: StallMode::NeverPublish,
    recheck_fence: false,
    single_workgroup_size: 0,
};

#[cfg(test)]
mod policy_keys {
    use super::{ScanPolicy, StallMode, TEST_POLICY};
    use crate::policy::Policy;

    /// Override keys are the field names, each in the legend.
    #[test]
    fn override_keys_are_field_paths() {
        let keys: Vec<String> = ScanPolicy::legend().into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                "workgroup_size",
                "items_per_invocation",
                "spin_limit",
                "stall_every",
                "stall_mode",
                "recheck_fence",
                "single_workgroup_size"
            ]
        );
        let p = TEST_POLICY;
        let q = p
            .with_overrides("stall_every=3,stall_mode=1,recheck_fence=1")
            .unwrap();
        assert_eq!(q.stall_every, 3);
        assert_eq!(q.stall_mode, StallMode::PublishLate);
        assert!(q.recheck_fence);
        for bad in ["wg=64", "stall_mode=2", "recheck_fence=2", "spin_limit.x=1"] {
            assert!(p.with_overrides(bad).is_err(), "{bad}");
        }
    }
}
