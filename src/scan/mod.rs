//! Prefix sums (exclusive and inclusive) of u32 and u64 with wrapping addition, by four algorithms.
//!
//! | [`ScanAlgorithm`]   | passes (labels)                                                        |
//! |---------------------|------------------------------------------------------------------------|
//! | `DecoupledLookback` | `vksort::scan::clear` (fill), `vksort::scan::lookback`                 |
//! | `ReduceThenScan`    | `vksort::scan::reduce`, `vksort::scan::spine`, `vksort::scan::downsweep` |
//! | `Blelloch`          | `vksort::scan::blelloch_tile` per level, then `vksort::scan::add` per level |
//! | `HillisSteele`      | `vksort::scan::hillis_steele` x ceil(log2 n), then `vksort::scan::shift` |
//!
//! Contract of [`Scanner::cmd_scan`]:
//! - Reads `n` elements of `input`, writes `n` elements of `output` (nothing else of it), and uses
//!   `scratch` (at least [`Scanner::scratch_bytes`]`(n)` bytes; its content on entry does not matter and is
//!   garbage afterwards). `input` may be the same region as `output` (an in-place scan) for every algorithm
//!   (except with the [`StallMode::NeverPublish`] test emulation); partially overlapping regions are rejected.
//!   Scratch must not overlap input or output.
//! - Barriers: as in [`crate::gpu::recorder`]: the caller makes its writes of `input` visible before, and
//!   waits for `output` after; between its own passes the scanner records [`Recorder::barrier`].
//! - Checks every input before recording anything: buffer sizes, `STORAGE_BUFFER` usage (and `TRANSFER_DST`
//!   on scratch where it is cleared with a fill), 16-byte aligned offsets of input and output (the passes load
//!   16-byte vectors; the device's `minStorageBufferOffsetAlignment` too), `n * elem` within
//!   `maxStorageBufferRange`, the device's subgroup operations and 64-bit support. A rejected call returns
//!   a typed [`Error`] and records nothing.
//! - `n = 0` records nothing.
//! - [`Scanner::cmd_scan_indirect`] (look-back only): the same for up to `max_n` elements, the workgroup count
//!   read on the GPU from a `VkDispatchIndirectCommand` (a prefix of the tiles is scanned; 0 groups scan
//!   nothing), for callers whose length is decided on the GPU (the split radix sorts).
//!
//! Scratch layouts (every region starts at a multiple of max(16, `minStorageBufferOffsetAlignment`)):
//! - `DecoupledLookback`: 16-byte header (tile counter, fallback counter) + 2 (u32) or 4 (u64) status words
//!   per tile, see `glsl/include/lookback.glsl`. Cleared by `vksort::scan::clear` (a `vkCmdFillBuffer`).
//! - `ReduceThenScan`: one element per tile (tile sums, scanned in place by the spine).
//! - `Blelloch`: the tile sums of each level (one element per tile of the level below).
//! - `HillisSteele`: two ping-pong arrays of n elements.
//!
//! Host forms: [`scan_u32`], [`scan_u64`] and their `_profiled` variants (which attach a [`Profiler`]; each
//! pass then gets a timestamp under its label).

internal! { mod add; }
internal! { mod blelloch_tile; }
internal! { mod downsweep; }
internal! { mod hillis_steele; }
internal! { mod lookback; }
internal! { mod reduce; }
internal! { mod spine; }

use crate::error::{Error, Result};
use crate::gpu::{
    check_disjoint, Buffer, BufferRef, Context, DeviceCaps, Profiler, Recorder, Region,
};
use crate::policy::SubgroupPlan;
use ash::vk;
use std::sync::Arc;

/// The scan algorithms. All give bitwise identical results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScanAlgorithm {
    /// Naive: ceil(log2 n) global doubling passes through scratch, then a shift (exclusive) or copy pass.
    HillisSteele,
    /// Work-efficient up/down-sweep per tile in shared memory, tile sums scanned recursively, uniform add.
    Blelloch,
    /// Merrill & Grimshaw: reduce per tile, spine scan of the tile sums (one workgroup), downsweep.
    ReduceThenScan,
    /// Single-pass chained scan with decoupled look-back (the default).
    #[default]
    DecoupledLookback,
}

impl ScanAlgorithm {
    /// Every algorithm.
    pub const ALL: [ScanAlgorithm; 4] = [
        ScanAlgorithm::HillisSteele,
        ScanAlgorithm::Blelloch,
        ScanAlgorithm::ReduceThenScan,
        ScanAlgorithm::DecoupledLookback,
    ];

    /// The CLI name: "hillis-steele", "blelloch", "reduce-then-scan", "lookback".
    pub fn name(self) -> &'static str {
        match self {
            ScanAlgorithm::HillisSteele => "hillis-steele",
            ScanAlgorithm::Blelloch => "blelloch",
            ScanAlgorithm::ReduceThenScan => "reduce-then-scan",
            ScanAlgorithm::DecoupledLookback => "lookback",
        }
    }

    /// The algorithm of a CLI name (also accepts "decoupled-lookback", "naive", "rts").
    pub fn from_name(s: &str) -> Option<Self> {
        let s = s.to_ascii_lowercase().replace('_', "-");
        Self::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .or(match s.as_str() {
                "decoupled-lookback" | "decoupled-look-back" | "look-back" => {
                    Some(ScanAlgorithm::DecoupledLookback)
                }
                "naive" | "hillis" => Some(ScanAlgorithm::HillisSteele),
                "rts" | "reduce-scan" => Some(ScanAlgorithm::ReduceThenScan),
                "work-efficient" => Some(ScanAlgorithm::Blelloch),
                _ => None,
            })
    }
}

/// Exclusive (`out[i] = sum of in[..i]`) or inclusive (`out[i] = sum of in[..=i]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScanKind {
    /// `out[i] = in[0] + ... + in[i - 1]`, `out[0] = 0` (the default).
    #[default]
    Exclusive,
    /// `out[i] = in[0] + ... + in[i]`.
    Inclusive,
}

/// The element type: u32 or u64, added with wrapping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScanElem {
    /// 32-bit unsigned elements (the default).
    #[default]
    U32,
    /// 64-bit unsigned elements (needs `shaderInt64` and `shaderSubgroupExtendedTypes`).
    U64,
}

impl ScanElem {
    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            ScanElem::U32 => 4,
            ScanElem::U64 => 8,
        }
    }

    /// Elements per 16-byte vector.
    pub(crate) fn per_vec(self) -> u32 {
        match self {
            ScanElem::U32 => 4,
            ScanElem::U64 => 2,
        }
    }
}

/// What the stalled tiles of the look-back emulation do (see [`ScanPolicy::stall_every`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StallMode {
    /// Publish nothing, ever: every successor must reduce the stalled tile itself.
    #[default]
    NeverPublish,
    /// Publish no aggregate, and the inclusive prefix only after a long delay (successors may see it late).
    PublishLate,
}

/// Tuning of the scan, reduce and compaction passes, passed to the shaders as specialization constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScanPolicy {
    /// Invocations per workgroup: a power of two, a multiple of the device's largest subgroup size.
    /// Default: 256 (128 on CPU devices).
    pub workgroup_size: u32,
    /// Elements per invocation of a look-back / reduce-then-scan / reduce / compaction tile: a multiple of
    /// 4 in 4..=64 (loaded as 16-byte vectors). The tile is `workgroup_size * items_per_thread` elements
    /// (at least 512). Default: 32 on GPUs, 16 on CPU devices (or more, up to 64, to reach a 512-element
    /// tile); compaction's default is the same ([`ScanPolicy::for_device_compact`]). Blelloch uses min(this, 8)
    /// rounded down to a power of two (and less if shared memory is short); Hillis-Steele 4.
    pub items_per_thread: u32,
    /// Look-back: spin rounds on a window of unpublished predecessors before the waiting workgroup reduces
    /// them itself, 1..=60000 (lavapipe ends loops after 65535 rounds). Default: 2048 (256 on CPU devices).
    pub spin_limit: u32,
    /// Look-back emulation of a device without forward progress: tiles with id % stall_every ==
    /// 1 % stall_every stall as [`ScanPolicy::stall_mode`] says. 0 (the default) = off.
    pub stall_every: u32,
    /// What stalled tiles do. Default: [`StallMode::NeverPublish`].
    pub stall_mode: StallMode,
    /// Look-back: a memory barrier between a fallback reduction and the re-read of the predecessor's
    /// status (the in-place ordering, see `glsl/include/lookback.glsl`). Default: true, false on CPU
    /// devices (lavapipe breaks workgroup barriers around memory barriers in divergent control flow).
    pub recheck_fence: bool,
}

/// The smallest tile (elements) a look-back policy may have: sizes [`crate::compact::compact_scratch_bytes`].
pub(crate) const MIN_TILE: u32 = 512;

impl ScanPolicy {
    /// The policy for a device.
    pub fn for_device(caps: &DeviceCaps) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let wish = if caps.is_cpu() { 128 } else { 256 };
        let mut wg = plan.workgroup_size(caps, wish);
        if !wg.is_power_of_two() {
            wg = (1u32 << (31 - wg.leading_zeros())).max(plan.max);
        }
        // 32 elements per invocation on GPUs: the look-back's fixed per-tile cost (status round trips while
        // the workgroup waits) is amortized over 8192-element tiles (H200, 2^28 u32: 0.72 ms vs 0.85 ms with 16).
        let wish_items = if caps.is_cpu() { 16 } else { 32 };
        let items = wish_items
            .max(MIN_TILE.div_ceil(wg).next_multiple_of(4))
            .min(64);
        Self {
            workgroup_size: wg,
            items_per_thread: items,
            spin_limit: if caps.is_cpu() { 256 } else { 2048 },
            stall_every: 0,
            stall_mode: StallMode::NeverPublish,
            recheck_fence: !caps.is_cpu(),
        }
    }

    /// The tile of compaction's default policy ([`crate::compact::CompactPolicy::for_device`]): as
    /// [`ScanPolicy::for_device`] (32 elements per invocation on GPUs, 16 on CPU devices). With the subgroup
    /// staging, 32 measured fastest on an H200 (select_if_odd at 2^24: 0.058 ms against 0.064 with 16); the
    /// whole-tile staging wanted 16, since its shared memory grows with the tile.
    pub fn for_device_compact(caps: &DeviceCaps) -> Self {
        let p = Self::for_device(caps);
        let wish = if caps.is_cpu() { 16 } else { 32 };
        Self {
            items_per_thread: (wish as u32)
                .max(MIN_TILE.div_ceil(p.workgroup_size).next_multiple_of(4))
                .min(64),
            ..p
        }
    }

    /// Checks the policy against the device.
    pub fn validate(&self, caps: &DeviceCaps) -> Result<()> {
        let plan = SubgroupPlan::for_device(caps);
        let wg = self.workgroup_size;
        if wg == 0
            || !wg.is_power_of_two()
            || wg % plan.max != 0
            || wg > caps.max_workgroup_invocations
        {
            return Err(Error::InvalidPolicy {
                family: "scan",
                what: format!(
                "scan workgroup size {wg} must be a power of two, a multiple of {} and at most {}",
                plan.max, caps.max_workgroup_invocations
            ),
            });
        }
        let items = self.items_per_thread;
        if items % 4 != 0 || !(4..=64).contains(&items) {
            return Err(Error::InvalidPolicy {
                family: "scan",
                what: format!("scan items per thread {items} must be a multiple of 4 in 4..=64"),
            });
        }
        if wg * items < MIN_TILE {
            return Err(Error::InvalidPolicy {
                family: "scan",
                what: format!(
                    "scan tile {} (workgroup size x items per thread) is below {MIN_TILE}",
                    wg * items
                ),
            });
        }
        if !(1..=60000).contains(&self.spin_limit) {
            return Err(Error::InvalidPolicy {
                family: "scan",
                what: format!("scan spin limit {} outside 1..=60000", self.spin_limit),
            });
        }
        Ok(())
    }

    /// Elements per look-back / reduce-then-scan tile.
    pub fn tile(&self) -> u32 {
        self.workgroup_size * self.items_per_thread
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

/// What a [`Scanner`] computes, and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScanConfig {
    /// Default: [`ScanAlgorithm::DecoupledLookback`].
    pub algorithm: ScanAlgorithm,
    /// Default: [`ScanKind::Exclusive`].
    pub kind: ScanKind,
    /// Default: [`ScanElem::U32`].
    pub elem: ScanElem,
    /// Default (`None`): [`ScanPolicy::for_device`].
    pub policy: Option<ScanPolicy>,
}

/// The subgroup operations every scan, reduce and compaction kernel uses.
pub(crate) const SUBGROUP_OPS: vk::SubgroupFeatureFlags = vk::SubgroupFeatureFlags::from_raw(
    vk::SubgroupFeatureFlags::BASIC.as_raw()
        | vk::SubgroupFeatureFlags::ARITHMETIC.as_raw()
        | vk::SubgroupFeatureFlags::BALLOT.as_raw()
        | vk::SubgroupFeatureFlags::VOTE.as_raw(),
);

internal! {
/// Checks that a device can run the scan family with elements `elem`: subgroup basic, vote, arithmetic and
/// ballot operations in compute shaders ("needs subgroup ballot ..."), and for u64 `shaderInt64` with
/// `shaderSubgroupExtendedTypes` ([`DeviceCaps::int64`]). Returns [`Error::Unsupported`] naming the device.
fn check_device(caps: &DeviceCaps, elem: ScanElem) -> Result<()> {
    let unsupported = |what: &str| Error::Unsupported {
        device: caps.name.clone(),
        what: what.into(),
    };
    if !caps.has_subgroup_ops(SUBGROUP_OPS) {
        return Err(unsupported(
            "needs subgroup ballot, arithmetic, vote and basic operations in compute shaders",
        ));
    }
    if elem == ScanElem::U64 && !caps.int64 {
        return Err(unsupported(
            "needs shaderInt64 and shaderSubgroupExtendedTypes for 64-bit elements",
        ));
    }
    Ok(())
}
}

/// Offsets of scratch sub-regions are multiples of this.
pub(crate) fn region_align(caps: &DeviceCaps) -> u64 {
    caps.min_storage_buffer_offset_alignment.max(16)
}

/// Checks `n` elements of `elem_bytes` against the device's storage-buffer range.
pub(crate) fn check_count(caps: &DeviceCaps, n: u64, elem_bytes: u64) -> Result<()> {
    let limit = caps.max_storage_buffer_range.min(u32::MAX as u64);
    if n.saturating_mul(elem_bytes) > limit {
        return Err(Error::TooLarge {
            n,
            max: limit / elem_bytes.max(1),
            limit: "one storage-buffer binding",
        });
    }
    Ok(())
}

/// Checks a data region: `n` elements, storage usage, and a 16-byte aligned offset (vector loads).
pub(crate) fn check_data(
    ctx: &Context,
    buf: &Region,
    what: &'static str,
    bytes: u64,
) -> Result<()> {
    buf.check(ctx, what, bytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    if buf.offset % 16 != 0 {
        return Err(Error::Misaligned {
            what,
            offset: buf.offset,
            alignment: 16,
        });
    }
    Ok(())
}

/// A planned scan: configuration, policy and kernels. Cheap to create (kernels are cached in the context).
pub struct Scanner {
    ctx: Arc<Context>,
    config: ScanConfig,
    policy: ScanPolicy,
    plan: SubgroupPlan,
}

/// Elements per invocation of the Hillis-Steele and uniform-add passes.
pub(crate) const SIMPLE_ITEMS: u32 = 4;

impl Scanner {
    /// Plans a scan. Fails with [`Error::Unsupported`] when the device lacks what the kernels need and with
    /// [`Error::InvalidPolicy`] for a policy that does not fit the device. Builds the kernels now.
    pub fn new(ctx: &Arc<Context>, config: ScanConfig) -> Result<Self> {
        check_device(ctx.caps(), config.elem)?;
        let policy = config
            .policy
            .unwrap_or_else(|| ScanPolicy::for_device(ctx.caps()));
        policy.validate(ctx.caps())?;
        let s = Self {
            ctx: ctx.clone(),
            config,
            policy,
            plan: SubgroupPlan::for_device(ctx.caps()),
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

    fn inclusive(&self) -> bool {
        self.config.kind == ScanKind::Inclusive
    }

    /// Vectors per invocation of the tiled passes.
    fn vecs(&self) -> u32 {
        self.policy.items_per_thread / self.config.elem.per_vec()
    }

    /// Blelloch: (workgroup size, items per invocation), tile a power of two that fits shared memory.
    fn blelloch_shape(&self) -> (u32, u32) {
        let wg = self.policy.workgroup_size;
        let mut items = self.policy.items_per_thread.min(8);
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
    ) -> Result<Arc<crate::gpu::Kernel>> {
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
                self.kernel_lookback(false)?;
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

    /// The look-back kernel; `in_place`: the variant with `coherent` data (the in-place protocol of
    /// lookback.glsl).
    fn kernel_lookback(&self, in_place: bool) -> Result<Arc<crate::gpu::Kernel>> {
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
        self.kernel(variants, self.policy.workgroup_size, spec)
    }

    /// The reduce-then-scan kernels: (reduce, spine, downsweep).
    fn kernels_rts(&self) -> Result<ThreeKernels> {
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
    fn kernels_blelloch(&self) -> Result<ThreeKernels> {
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
    fn kernel_hs(&self) -> Result<Arc<crate::gpu::Kernel>> {
        use crate::shaders::{scan_hillis_steele as sh, Spec};
        self.kernel(
            [sh::U32, sh::U64],
            self.policy.workgroup_size,
            Spec::new().with(sh::ITEMS, SIMPLE_ITEMS),
        )
    }

    fn tiles(&self, n: u64) -> u64 {
        n.div_ceil(self.tile_size() as u64)
    }

    /// Blelloch levels: (elements, tiles) of each level, the first being the input; the last has one tile.
    fn blelloch_levels(&self, n: u64) -> Vec<(u64, u64)> {
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
            ScanAlgorithm::DecoupledLookback => {
                lookback::status_bytes(self.tiles(max_n), self.config.elem)
            }
            ScanAlgorithm::ReduceThenScan => (self.tiles(max_n) * eb).max(16),
            ScanAlgorithm::Blelloch => self
                .blelloch_levels(max_n)
                .iter()
                .map(|&(_, tiles)| (tiles * eb).next_multiple_of(a))
                .sum(),
            ScanAlgorithm::HillisSteele => 2 * (max_n * eb).next_multiple_of(a),
        }
    }

    /// Records the scan of `n` elements of `input` into `output` (see the module docs for the contract).
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
        let input = input.slice(0, bytes);
        let output = output.slice(0, bytes);
        let n32 = n as u32;
        rec.scope("vksort::scan", |rec| match self.config.algorithm {
            ScanAlgorithm::DecoupledLookback => {
                self.record_lookback(rec, input, output, scratch, n32, same)
            }
            ScanAlgorithm::ReduceThenScan => self.record_rts(rec, input, output, scratch, n32),
            ScanAlgorithm::Blelloch => self.record_blelloch(rec, input, output, scratch, n32),
            ScanAlgorithm::HillisSteele => self.record_hs(rec, input, output, scratch, n32),
        })
    }

    /// Records a scan whose length is decided on the GPU: like [`Scanner::cmd_scan`] for up to `max_n`
    /// elements (buffers, scratch and checks as for `max_n`), but the look-back pass is dispatched indirectly
    /// with the workgroup count in `args` (a `VkDispatchIndirectCommand` at a 4-byte aligned offset, with
    /// `INDIRECT_BUFFER` usage, written before the caller's last barrier). A grid of `x * y` workgroups scans
    /// the first `min(x * y * tile_size(), max_n)` elements (the other elements of `output` are not written;
    /// `x * y` beyond `max_n.div_ceil(tile_size())` counts as that); 0 workgroups scan nothing. Passes:
    /// `vksort::scan::clear` (the fill of the status region, always) and `vksort::scan::lookback`
    /// (indirect). Only [`ScanAlgorithm::DecoupledLookback`] (its tiles are claimed in order, so any prefix
    /// of the tiles is a complete scan); other algorithms are rejected with [`Error::InvalidPolicy`].
    /// `max_n = 0` records nothing.
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
        let bytes = max_n * self.config.elem.bytes();
        let kernel = self.kernel_lookback(same)?;
        let tiles = self.tiles(max_n) as u32;
        let status = scratch.slice(0, lookback::status_bytes(tiles as u64, self.config.elem));
        rec.scope("vksort::scan", |rec| {
            lookback::record_indirect(
                rec,
                &kernel,
                input.slice(0, bytes),
                output.slice(0, bytes),
                status,
                max_n as u32,
                tiles,
                args,
            )
        })
    }

    /// The checks of [`Scanner::cmd_scan`] for `n` elements; returns whether the scan is in place.
    fn check_scan(
        &self,
        ctx: &Context,
        input: &Region,
        output: &Region,
        scratch: &Region,
        n: u64,
    ) -> Result<bool> {
        if ctx.id != self.ctx.id {
            return Err(Error::WrongContext { what: "scanner" });
        }
        let caps = ctx.caps();
        check_device(caps, self.config.elem)?;
        let eb = self.config.elem.bytes();
        check_count(caps, n, eb)?;
        let bytes = n * eb;
        check_data(ctx, input, "input", bytes)?;
        check_data(ctx, output, "output", bytes)?;
        let mut scratch_usage = vk::BufferUsageFlags::STORAGE_BUFFER;
        if self.config.algorithm == ScanAlgorithm::DecoupledLookback {
            scratch_usage |= vk::BufferUsageFlags::TRANSFER_DST;
        }
        let same = input.buffer == output.buffer && input.offset == output.offset;
        if !same {
            // (only an identical region is allowed: an in-place scan)
            check_disjoint(&[("input", *input, bytes), ("output", *output, bytes)])?;
        }
        if same
            && self.config.algorithm == ScanAlgorithm::DecoupledLookback
            && self.policy.stall_every != 0
            && self.policy.stall_mode == StallMode::NeverPublish
        {
            return Err(Error::InvalidPolicy {
                family: "scan",
                what: "the NeverPublish stall emulation needs separate input and output (a tile that \
                       never publishes would overwrite input that its successors reduce); use PublishLate \
                       in place"
                    .into(),
            });
        }
        let scratch_needed = if n == 0 { 0 } else { self.scratch_bytes(n) };
        scratch.check(ctx, "scratch", scratch_needed, scratch_usage)?;
        check_disjoint(&[
            ("input", *input, bytes),
            ("scratch", *scratch, scratch_needed),
        ])?;
        check_disjoint(&[
            ("output", *output, bytes),
            ("scratch", *scratch, scratch_needed),
        ])?;
        Ok(same)
    }

    fn record_lookback(
        &self,
        rec: &mut Recorder,
        input: Region,
        output: Region,
        scratch: Region,
        n: u32,
        in_place: bool,
    ) -> Result<()> {
        let kernel = self.kernel_lookback(in_place)?;
        let tiles = self.tiles(n as u64) as u32;
        let status = scratch.slice(0, lookback::status_bytes(tiles as u64, self.config.elem));
        lookback::record(rec, &kernel, input, output, status, n, tiles)
    }

    fn record_rts(
        &self,
        rec: &mut Recorder,
        input: Region,
        output: Region,
        scratch: Region,
        n: u32,
    ) -> Result<()> {
        let tiles = self.tiles(n as u64) as u32;
        let partials = scratch.slice(0, tiles as u64 * self.config.elem.bytes());
        let (k_reduce, k_spine, k_down) = self.kernels_rts()?;
        reduce::record(rec, &k_reduce, input, partials, n, tiles)?;
        rec.barrier();
        spine::record(rec, &k_spine, partials, tiles)?;
        rec.barrier();
        downsweep::record(rec, &k_down, input, output, partials, n, tiles)
    }

    fn record_blelloch(
        &self,
        rec: &mut Recorder,
        input: Region,
        output: Region,
        scratch: Region,
        n: u32,
    ) -> Result<()> {
        let eb = self.config.elem.bytes();
        let a = region_align(rec.ctx().caps());
        let (bwg, items) = self.blelloch_shape();
        let tile = bwg * items;
        let (k_first, k_excl, k_add) = self.kernels_blelloch()?;
        let levels = self.blelloch_levels(n as u64);
        // sums[l]: the tile sums of level l.
        let mut sums = Vec::new();
        let mut off = 0;
        for &(_, tiles) in &levels {
            sums.push(scratch.slice(off, tiles * eb));
            off += (tiles * eb).next_multiple_of(a);
        }
        let data = |l: usize| if l == 0 { output } else { sums[l - 1] };
        for (l, &(count, tiles)) in levels.iter().enumerate() {
            let src = if l == 0 { input } else { sums[l - 1] };
            let k = if l == 0 { &k_first } else { &k_excl };
            blelloch_tile::record(rec, k, src, data(l), sums[l], count as u32, tiles as u32)?;
            rec.barrier();
        }
        for l in (0..levels.len() - 1).rev() {
            let (count, _) = levels[l];
            add::record(
                rec,
                &k_add,
                data(l),
                sums[l],
                count as u32,
                tile,
                self.policy.workgroup_size * SIMPLE_ITEMS,
            )?;
            if l > 0 {
                rec.barrier();
            }
        }
        Ok(())
    }

    fn record_hs(
        &self,
        rec: &mut Recorder,
        input: Region,
        output: Region,
        scratch: Region,
        n: u32,
    ) -> Result<()> {
        let eb = self.config.elem.bytes();
        let a = region_align(rec.ctx().caps());
        let bytes = n as u64 * eb;
        let bufs = [
            scratch.slice(0, bytes),
            scratch.slice(bytes.next_multiple_of(a), bytes),
        ];
        let wg = self.policy.workgroup_size;
        let k = self.kernel_hs()?;
        let per_group = wg * SIMPLE_ITEMS;
        let mut src = input;
        let mut stride = 1u32;
        let mut i = 0;
        while stride < n {
            let dst = bufs[i % 2];
            hillis_steele::record(rec, &k, src, dst, n, stride, false, false, per_group)?;
            rec.barrier();
            src = dst;
            stride = stride.saturating_mul(2);
            i += 1;
        }
        hillis_steele::record(
            rec,
            &k,
            src,
            output,
            n,
            0,
            true,
            self.inclusive(),
            per_group,
        )
    }
}

internal! {
/// CPU reference: the exclusive or inclusive wrapping prefix sum of `data`.
fn cpu_scan_u32(data: &[u32], kind: ScanKind) -> Vec<u32> {
    cpu_scan(data, kind, 0, u32::wrapping_add)
}
}

internal! {
/// CPU reference: the exclusive or inclusive wrapping prefix sum of `data`.
fn cpu_scan_u64(data: &[u64], kind: ScanKind) -> Vec<u64> {
    cpu_scan(data, kind, 0, u64::wrapping_add)
}
}

fn cpu_scan<T: Copy>(data: &[T], kind: ScanKind, zero: T, add: fn(T, T) -> T) -> Vec<T> {
    let mut acc = zero;
    data.iter()
        .map(|&x| {
            let before = acc;
            acc = add(acc, x);
            if kind == ScanKind::Inclusive {
                acc
            } else {
                before
            }
        })
        .collect()
}

fn scan_host<T: bytemuck::Pod>(
    ctx: &Arc<Context>,
    data: &[T],
    config: ScanConfig,
    profiler: Option<&mut Profiler>,
) -> Result<Vec<T>> {
    let scanner = Scanner::new(ctx, config)?;
    let n = data.len() as u64;
    let input = Buffer::from_slice(ctx, "vksort::scan::input", data)?;
    let output = Buffer::device_local(ctx, "vksort::scan::output", n * config.elem.bytes())?;
    let scratch = Buffer::device_local(ctx, "vksort::scan::scratch", scanner.scratch_bytes(n))?;
    ctx.submit_profiled("vksort::scan", profiler, |rec| {
        scanner.cmd_scan(rec, input.as_ref(), output.as_ref(), scratch.as_ref(), n)
    })?;
    output.read_vec::<T>(data.len())
}

/// Scans `data` on the GPU (`config.elem` is taken as [`ScanElem::U32`]).
pub fn scan_u32(ctx: &Arc<Context>, data: &[u32], config: &ScanConfig) -> Result<Vec<u32>> {
    let config = ScanConfig {
        elem: ScanElem::U32,
        ..*config
    };
    scan_host(ctx, data, config, None)
}

/// Scans `data` on the GPU (`config.elem` is taken as [`ScanElem::U64`]).
pub fn scan_u64(ctx: &Arc<Context>, data: &[u64], config: &ScanConfig) -> Result<Vec<u64>> {
    let config = ScanConfig {
        elem: ScanElem::U64,
        ..*config
    };
    scan_host(ctx, data, config, None)
}

/// [`scan_u32`] with `profiler` attached: each pass gets a timestamp (see [`Profiler::results`]). The
/// profiler needs room for the passes (Hillis-Steele: ceil(log2 n) + 2).
pub fn scan_u32_profiled(
    ctx: &Arc<Context>,
    data: &[u32],
    config: &ScanConfig,
    profiler: &mut Profiler,
) -> Result<Vec<u32>> {
    let config = ScanConfig {
        elem: ScanElem::U32,
        ..*config
    };
    scan_host(ctx, data, config, Some(profiler))
}

/// [`scan_u64`] with `profiler` attached.
pub fn scan_u64_profiled(
    ctx: &Arc<Context>,
    data: &[u64],
    config: &ScanConfig,
    profiler: &mut Profiler,
) -> Result<Vec<u64>> {
    let config = ScanConfig {
        elem: ScanElem::U64,
        ..*config
    };
    scan_host(ctx, data, config, Some(profiler))
}

/// The three kernels of a multi-pass scan, in recording order.
type ThreeKernels = (
    Arc<crate::gpu::Kernel>,
    Arc<crate::gpu::Kernel>,
    Arc<crate::gpu::Kernel>,
);
