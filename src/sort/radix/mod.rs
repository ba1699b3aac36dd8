//! The radix family: LSD radix sorts of one pass per digit place (Onesweep, after Adinets & Merrill 2022, or
//! reduce-then-scan), the MSD hybrid, a three-dispatch MSD sort and a rank sort for small inputs.
//! `RadixSort::cmd_sort` checks a sort, lays out its scratch ([`layout`]) and records its passes as rows, one
//! module per algorithm; the policy is in [`policy`] (per-device values in [`tuning`]). Every pass after the
//! first follows a [`Recorder::barrier`], and the later ones run indirectly from arguments the plan (or setup)
//! pass wrote. Passes, bytes per key, scratch layout, portions and forward progress: docs/architecture.md
//! "The radix sorts".

pub mod bindings;
pub mod clocks;
mod debug;
pub mod hybrid;
pub mod layout;
pub mod msd;
pub mod onesweep;
pub mod policy;
pub mod rts;
pub mod setup;
pub mod small;
pub mod tuning;
pub mod upfront;
mod workload;

#[cfg(feature = "diagnostics")]
pub use debug::RadixDebug;
#[cfg(not(feature = "diagnostics"))]
pub(crate) use debug::RadixDebug;
pub use layout::{Layout, Portions, MAX_KEYS, MAX_PORTION_KEYS};
pub use small::SmallPush;
pub use policy::{
    FusedSort, HybridSort, Lookback, MsdBucketPass, MsdSort, MsdSplitPass, PeerMatch, RadixPolicy,
    RankCounters, RankTile, ShortTiles, SmallSort, UpfrontPass, MSD_MAX_KEYS,
};

use crate::error::{Error, Result};
use crate::gpu::{Context, Kernel, Recorder, Region, StatusLease};
use crate::policy::{Policy, SubgroupPlan};
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::{
    Capabilities, Family, Overrides, SortBackend, SortBuffers, StorageRequirements,
};
use crate::sort::config::SortConfig;
use crate::sort::count::{self, Count};
use crate::sort::types::{KeyType, Order};
use crate::workload::PassModel;
use ash::vk;
use bindings::Bindings;
use layout::CTRL_PASS;
use std::sync::Arc;

/// The radix family in the sort registry.
pub(crate) const FAMILY: Family = Family {
    name: "radix",
    algorithms: &[
        SortAlgorithm::Onesweep,
        SortAlgorithm::ReduceThenScan,
        SortAlgorithm::Small,
        SortAlgorithm::Msd,
        SortAlgorithm::Hybrid,
    ],
    new: |ctx, config, overrides, reachable| {
        Ok(Box::new(RadixSort::new(ctx, config, overrides, reachable)?))
    },
    supports: |config| {
        (config.key.bits() > 64).then(|| {
            format!(
                "{} keys: the radix sorts take keys of at most 64 bits",
                config.key.name()
            )
        })
    },
    parse_overrides: |ctx, config, spec, overrides| {
        overrides
            .set(RadixPolicy::for_sort(ctx.caps(), config.key, config.value).with_overrides(spec)?);
        Ok(())
    },
};

/// Usage flags the scratch buffer needs (plus `SHADER_DEVICE_ADDRESS` for sorts whose arrays exceed one
/// binding: [`crate::sort::StorageRequirements::scratch_usage`]). No transfer usage: the setup pass zeroes the
/// scratch with a compute shader.
pub const SCRATCH_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw() | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw(),
);

/// The radix sort behind a [`crate::sort::Sorter`].
pub struct RadixSort {
    pub(crate) ctx: Arc<Context>,
    pub policy: RadixPolicy,
    pub(crate) plan: SubgroupPlan,
    pub(crate) key: KeyType,
    pub(crate) key_words: u32,
    pub(crate) val_words: u32,
    pub(crate) descending: bool,
    pub(crate) lo: u32,
    pub(crate) hi: u32,
    pub(crate) places: u32,
    /// The configured algorithm: one of the family's, or Auto (the policy's choice per size).
    pub(crate) algorithm: SortAlgorithm,
    /// Every algorithm of the family may be recorded (Auto with a cost model chooses among them).
    pub(crate) any: bool,
    /// Diagnostics knobs (all off unless set through the `diagnostics` feature).
    pub(crate) debug: RadixDebug,
    /// The same sort with the policy's short tiles (`short.items_per_invocation`), for sorts of at most
    /// `short.max` keys.
    pub(crate) short: Option<Box<RadixSort>>,
    /// The small sort's zeroed block of its context (`radix_small.comp`), where the sorter may record it; shared
    /// with `short`.
    pub(crate) small_block: Option<Arc<StatusLease>>,
}

impl RadixSort {
    /// The radix sort for `config`, with the policy and debug knobs of `overrides` (else the device's
    /// [`RadixPolicy::for_sort`]); `reachable`: the algorithms the sorter may record (Auto: the policy's choice).
    pub(crate) fn new(
        ctx: &Arc<Context>,
        config: &SortConfig,
        overrides: &Overrides,
        reachable: &[SortAlgorithm],
    ) -> Result<Self> {
        let caps = ctx.caps();
        let policy = overrides
            .get::<RadixPolicy>()
            .unwrap_or_else(|| RadixPolicy::for_sort(caps, config.key, config.value));
        let debug = overrides.get::<RadixDebug>().unwrap_or_default();
        let algorithm = match reachable {
            [one] => *one,
            _ => SortAlgorithm::Auto,
        };
        Self::with_policy(ctx, config, policy, debug, algorithm, reachable.len() > 1, true)
    }

    fn with_policy(
        ctx: &Arc<Context>,
        config: &SortConfig,
        policy: RadixPolicy,
        debug: RadixDebug,
        algorithm: SortAlgorithm,
        any: bool,
        lease: bool,
    ) -> Result<Self> {
        let caps = ctx.caps();
        let plan = SubgroupPlan::for_device(caps);
        let item_words = (config.key.bytes() + config.value.bytes()) / 4;
        policy.check_with(caps, &plan, item_words, debug.ballot_words)?;
        debug.check(caps, policy.tile.partitioned, policy.msd.partitioned)?;
        check_max_keys(config.max_n)?;
        crate::policy::require_sort_subgroup_ops(ctx)?;
        let (lo, hi) = crate::sort::items::bit_range(config)?;
        let places = (hi - lo).div_ceil(policy.tile.digit_bits);
        // A block wherever the small sort may be recorded (the short-tile sibling shares its parent's).
        let records_small = any || matches!(algorithm, SortAlgorithm::Small | SortAlgorithm::Auto);
        let small_block = (lease && records_small)
            .then(|| StatusLease::new(ctx).map(Arc::new))
            .transpose()?;
        let short = if policy.short.max > 0
            && policy.short.items_per_invocation != policy.tile.items_per_invocation
        {
            let mut short_policy = policy;
            short_policy.tile.items_per_invocation = policy.short.items_per_invocation;
            short_policy.tile.peer_match = policy.short.peer_match;
            short_policy.tile.sub_tiles = 1;
            short_policy.tile.exchange_parts = 1;
            short_policy.short.max = 0;
            let mut short =
                Self::with_policy(ctx, config, short_policy, debug, algorithm, any, false)?;
            short.small_block = small_block.clone();
            Some(Box::new(short))
        } else {
            None
        };
        let mut s = Self {
            ctx: ctx.clone(),
            short,
            small_block,
            policy,
            plan,
            key: config.key,
            key_words: config.key.bytes() / 4,
            val_words: config.value.bytes() / 4,
            descending: config.order == Order::Descending,
            lo,
            hi,
            places,
            algorithm,
            any,
            debug,
        };
        // Auto's small sort within this sorter's capacity.
        s.policy.small.max = s.policy.small.max.min(s.small_capacity());
        Ok(s)
    }

    pub(crate) fn flags(&self) -> u32 {
        self.descending as u32
    }

    /// The sort that runs `max_n` keys (host n or capacity): the short-tile one up to the policy's
    /// `short.max`, else this one.
    pub fn pick(&self, max_n: u64) -> &RadixSort {
        match &self.short {
            Some(s) if max_n <= self.policy.short.max as u64 => s,
            _ => self,
        }
    }

    /// Scratch bytes for any sort of up to `max_n` keys: the largest layout among the tile sizes that sizes up
    /// to `max_n` may use (the short tiles need more look-back status per key).
    pub fn scratch_bytes(&self, max_n: u64) -> u64 {
        let own = self.layout(max_n).total;
        match &self.short {
            Some(s) => own.max(s.layout(max_n.min(self.policy.short.max as u64)).total),
            None => own,
        }
    }

    /// The algorithm the configured one (or the policy's Auto) resolves to for `n` keys.
    pub fn algorithm_for(&self, n: u64) -> SortAlgorithm {
        match self.algorithm {
            SortAlgorithm::Auto => self.policy.auto_algorithm(n),
            a => a,
        }
    }

    /// `algorithm` for `n` keys, Auto resolved by [`RadixSort::algorithm_for`].
    fn resolve(&self, algorithm: SortAlgorithm, n: u64) -> SortAlgorithm {
        match algorithm {
            SortAlgorithm::Auto => self.algorithm_for(n),
            a => a,
        }
    }

    /// Whether a sort of `max_n` keys with `algorithm` (resolved as [`RadixSort::cmd_sort`] does, on this sorter,
    /// not [`RadixSort::pick`]'s) runs the fused Onesweep.
    pub(crate) fn runs_fused(&self, algorithm: SortAlgorithm, max_n: u64) -> bool {
        let Ok((algorithm, layout)) = self.resolve_within_limits(algorithm, max_n) else {
            return false;
        };
        let (algorithm, hybrid) = hybrid::resolve(self, algorithm, &layout.portions, max_n);
        onesweep::fuses(self, algorithm, hybrid, &layout.portions, max_n)
    }

    /// `algorithm` resolved for `max_n` keys within the radix sorts' and its own limits, and the scratch layout.
    fn resolve_within_limits(
        &self,
        algorithm: SortAlgorithm,
        max_n: u64,
    ) -> Result<(SortAlgorithm, Layout)> {
        check_max_keys(max_n)?;
        let algorithm = self.resolve(algorithm, max_n);
        let cap = self.capabilities(algorithm).max_keys;
        if max_n > cap {
            return Err(Error::AlgorithmLimit {
                algorithm: algorithm.name(),
                max: cap,
                n: max_n,
            });
        }
        Ok((algorithm, self.layout(max_n)))
    }

    /// Bytes one binding may cover on this device.
    pub(crate) fn binding_range(&self) -> u64 {
        self.ctx.caps().max_storage_buffer_range
    }

    /// Usage flags the scratch buffer of a sort of up to `max_n` keys needs.
    pub fn scratch_usage(&self, max_n: u64) -> vk::BufferUsageFlags {
        with_address(SCRATCH_USAGE, self.portions(max_n).wide)
    }

    /// Ballot words of the ranking kernels (the policy's, or derived from the largest subgroup size).
    pub(crate) fn ballot_words(&self) -> u32 {
        RadixPolicy::ballot_words_for(&self.plan, self.debug.ballot_words)
    }

    /// The kernel `shader` with workgroup size `wg` and the constants `spec` (see [`SubgroupPlan::kernel`]).
    pub(crate) fn kernel(
        &self,
        shader: crate::shaders::ShaderId,
        wg: u32,
        spec: crate::shaders::Spec,
    ) -> Result<Arc<Kernel>> {
        self.plan.kernel(&self.ctx, shader, wg, spec)
    }

    /// Checks everything, then records the sort with `algorithm` (Auto: the policy's choice).
    pub(crate) fn cmd_sort(
        &self,
        rec: &mut Recorder,
        algorithm: SortAlgorithm,
        buffers: SortBuffers,
        count: Count,
    ) -> Result<()> {
        let checked = self.check(rec.ctx(), algorithm, &buffers, &count)?;
        if matches!(count, Count::Host(n) if n <= 1) {
            return Ok(());
        }
        let (algorithm, ctx, planning) = (checked.algorithm, rec.ctx(), rec.is_planning());
        let b = Bindings::new(self, ctx, planning, buffers, checked, count.max_n())?;
        rec.scope("vksort::sort", |rec| match algorithm {
            SortAlgorithm::Small => self.record_small(rec, &b),
            SortAlgorithm::Msd => msd::record(self, rec, &b),
            SortAlgorithm::Hybrid => hybrid::record(self, rec, &b),
            _ => self.record_passes(rec, &b, algorithm),
        })
    }

    /// Checks a sort before anything is recorded: its size against the radix sorts' and the algorithm's limits
    /// and one binding's, the buffers and the count. Resolves Auto and the hybrid sort's shape.
    fn check(
        &self,
        ctx: &Context,
        algorithm: SortAlgorithm,
        buffers: &SortBuffers,
        count: &Count,
    ) -> Result<Checked> {
        let max_n = count.max_n();
        let (algorithm, layout) = self.resolve_within_limits(algorithm, max_n)?;
        self.check_ranges(ctx, algorithm, &layout, max_n)?;
        let (algorithm, hybrid) = hybrid::resolve(self, algorithm, &layout.portions, max_n);
        let (kb, vb) = self.array_bytes(max_n);
        let arrays = with_address(vk::BufferUsageFlags::STORAGE_BUFFER, layout.portions.wide);
        buffers.keys.check(ctx, "keys", kb, arrays)?;
        match (buffers.values, self.val_words) {
            (Some(v), w) if w > 0 => v.check(ctx, "values", vb, arrays)?,
            (None, 0) => {}
            (Some(_), _) => return Err(Error::ValuesMismatch { expected: false }),
            (None, _) => return Err(Error::ValuesMismatch { expected: true }),
        }
        let scratch = with_address(SCRATCH_USAGE, layout.portions.wide);
        buffers
            .scratch
            .check(ctx, "scratch", layout.total, scratch)?;
        let count = count::bind(ctx, count)?.map(|c| (c.buffer, c.word));
        Ok(Checked {
            algorithm,
            hybrid,
            layout,
            count,
        })
    }

    /// The binding-range limits of a sort of `max_n` keys: arrays beyond one binding need device addresses
    /// (the `wide` variants), and reduce-then-scan's status must fit one binding.
    fn check_ranges(
        &self,
        ctx: &Context,
        algorithm: SortAlgorithm,
        layout: &Layout,
        max_n: u64,
    ) -> Result<()> {
        let range = self.binding_range();
        if layout.portions.wide && !ctx.caps().buffer_device_address {
            let eb = (self.key_words.max(self.val_words) * 4) as u64;
            return Err(Error::TooLarge {
                n: max_n,
                max: range / eb,
                limit: "one storage-buffer binding (bufferDeviceAddress is not enabled)",
            });
        }
        if algorithm == SortAlgorithm::ReduceThenScan && layout.rts_status_bytes > range {
            return Err(Error::TooLarge {
                n: max_n,
                max: range / layout.rts_status_bytes.div_ceil(max_n.max(1)).max(1),
                limit: "one storage-buffer binding (reduce-then-scan's status)",
            });
        }
        Ok(())
    }

    /// Bytes of the keys and of the values of `n` items.
    pub(crate) fn array_bytes(&self, n: u64) -> (u64, u64) {
        (n * self.key_words as u64 * 4, n * self.val_words as u64 * 4)
    }

    /// The constants of the MSD and hybrid group ranking kernels (one id each in all of them: creating a kernel
    /// checks that its shader declares them).
    pub(crate) fn rank_spec(&self, kpt: u32) -> crate::shaders::Spec {
        use crate::shaders::radix_hybrid_local as sh;
        crate::shaders::Spec::new()
            .with(sh::KPT, kpt)
            .with(sh::DIGIT_BITS, self.policy.tile.digit_bits)
            .with(sh::KEY_WORDS, self.key_words)
            .with(sh::VAL_WORDS, self.val_words)
            .with(sh::BALLOT_WORDS, self.ballot_words())
    }

    /// The LSD sorts' passes: setup, then the fused Onesweep or the upfront, plan and place passes, then the
    /// final copy (odd places).
    pub(crate) fn record_passes(
        &self,
        rec: &mut Recorder,
        b: &Bindings,
        algorithm: SortAlgorithm,
    ) -> Result<()> {
        // The setup pass zeroes the control block, histograms and (Onesweep) status slots after it.
        let l = &b.layout;
        let clear = Region {
            size: if algorithm != SortAlgorithm::ReduceThenScan {
                l.status_off + l.status_slot_bytes * l.status_slots - l.meta_off
            } else {
                l.meta_bytes
            },
            ..b.meta
        };
        let fused = onesweep::fused(self, b, algorithm).then(|| onesweep::fused_grid(self, b));
        setup::record(
            self,
            rec,
            b,
            clear,
            fused.as_ref().and_then(|g| g.setup_args()),
        )?;
        rec.barrier();
        if let Some(g) = fused {
            onesweep::record_fused(self, rec, b, &g)?;
            // Before the final copy only (the per-place passes end with a barrier each).
            if self.places % 2 == 1 {
                rec.barrier();
            }
        } else {
            self.record_places(rec, b, algorithm)?;
        }
        // With an even number of places the plan keeps the passes run even: nothing to copy back. The hybrid
        // sort's group pass reads the keys from whichever side they lie on.
        if self.places % 2 == 1 && b.hybrid == 0 {
            setup::record_copy(self, rec, b)?;
        }
        Ok(())
    }

    /// The upfront pass, the plan (sorts of several portions) and every place's passes, each followed by a barrier.
    fn record_places(
        &self,
        rec: &mut Recorder,
        b: &Bindings,
        algorithm: SortAlgorithm,
    ) -> Result<()> {
        upfront::record(self, rec, b)?;
        rec.barrier();
        if !upfront::plan_fused(b) && self.debug.debug_mode & 32 == 0 {
            upfront::record_plan(self, rec, b)?;
            rec.barrier();
        }
        for p in 0..self.places {
            match algorithm {
                SortAlgorithm::ReduceThenScan => {
                    rts::record(self, rec, b, p)?;
                    rec.barrier();
                }
                _ => {
                    // Portion q + 1 reads the digit offsets portion q's last tile leaves.
                    for q in 0..b.layout.portions.count {
                        onesweep::record(self, rec, b, p, q)?;
                        rec.barrier();
                    }
                }
            }
        }
        Ok(())
    }

    /// Place `p`'s first bit and its width.
    pub(crate) fn pass_shift(&self, p: u32) -> (u32, u32) {
        let shift = self.lo + p * self.policy.tile.digit_bits;
        (shift, self.policy.tile.digit_bits.min(self.hi - shift))
    }
}

/// The label of a pass over portion `q` of `count`: `base`, with `::portion<q>` when there are several.
pub(crate) fn portion_label(base: &str, q: u64, count: u64) -> String {
    if count > 1 {
        format!("{base}::portion{q}")
    } else {
        base.to_string()
    }
}

/// The label of place `p`'s `pass` over portion `q` of `count`.
pub(crate) fn pass_label(pass: &str, p: u32, q: u64, count: u64) -> String {
    portion_label(&format!("vksort::radix::{pass}::place{p}"), q, count)
}

/// A sort that passed [`RadixSort::check`]: the algorithm that runs, the hybrid plan word, the layout and the
/// GPU-side count's binding.
pub(crate) struct Checked {
    pub algorithm: SortAlgorithm,
    pub hybrid: u32,
    pub layout: Layout,
    pub count: Option<(Region, u32)>,
}

/// The radix sorts' key count: at most [`MAX_KEYS`].
fn check_max_keys(n: u64) -> Result<()> {
    if n > MAX_KEYS {
        return Err(Error::TooLarge {
            n,
            max: MAX_KEYS,
            limit: "the radix sorts' key count (2^32 - 2^16)",
        });
    }
    Ok(())
}

/// `usage` plus `SHADER_DEVICE_ADDRESS` when the sort writes through device addresses.
fn with_address(usage: vk::BufferUsageFlags, wide: bool) -> vk::BufferUsageFlags {
    if wide {
        usage | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
    } else {
        usage
    }
}

impl RadixSort {
    /// The sizes whose recordings cover every pipeline a sort of up to `max_n` keys may use: the shared
    /// planning sizes with the policy's thresholds and the binding-range limit (wide writes), and 1.5 x every
    /// power of two (the MSD sort's tile choices step between them).
    fn planning_sizes(&self, max_n: u64) -> Vec<u64> {
        let p = &self.policy;
        let widest = (self.key_words.max(self.val_words).max(1) * 4) as u64;
        let thresholds = [
            p.small.few_max as u64,
            p.small.max as u64,
            self.small_capacity() as u64,
            p.msd.max as u64,
            p.short.max as u64,
            p.fused.max as u64,
            p.fused.loop_max as u64,
            p.msd_single_keys(),
            MSD_MAX_KEYS,
            self.msd_max_keys(),
            self.hybrid_capacity(),
            self.binding_range() / widest,
        ];
        let mut sizes = crate::sort::items::planning_sizes(max_n, &thresholds);
        let mut x = 4u64;
        while x + x / 2 <= max_n {
            sizes.push(x + x / 2);
            x *= 2;
        }
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// Records, through a planning recorder, a sort of `count` keys with `algorithm` on stand-in buffers: builds
    /// the pipelines that sort needs.
    fn plan_one(&self, algorithm: SortAlgorithm, count: Count) -> Result<()> {
        let n = count.max_n();
        let (kb, vb) = self.array_bytes(n);
        let arrays =
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        let buffers = SortBuffers {
            keys: stand_in(kb, arrays),
            values: (self.val_words > 0).then(|| stand_in(vb, arrays)),
            scratch: stand_in(
                self.scratch_bytes(n),
                SCRATCH_USAGE | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
            ),
        };
        let mut rec = Recorder::planning(&self.ctx);
        self.cmd_sort(&mut rec, algorithm, buffers, count)
    }
}

/// A region of no buffer, of at least 16 bytes, for planning recordings.
fn stand_in(size: u64, usage: vk::BufferUsageFlags) -> Region {
    Region {
        buffer: vk::Handle::from_raw(1),
        offset: 0,
        size: size.max(16),
        usage,
        owner: 0,
    }
}

impl SortBackend for RadixSort {
    fn capabilities(&self, algorithm: SortAlgorithm) -> Capabilities {
        let max_keys = match algorithm {
            SortAlgorithm::Small => self.small_capacity() as u64,
            // Its bucket pass holds one run per split tile in shared memory (and the device's loop budget).
            SortAlgorithm::Msd => self.msd_max_keys(),
            // A group larger than the group tile is sorted by one workgroup (RadixPolicy::hybrid.max, and the
            // device's loop budget).
            SortAlgorithm::Hybrid => self.hybrid_capacity(),
            _ => MAX_KEYS,
        };
        Capabilities {
            max_keys,
            stable: true,
        }
    }

    fn policy_choice(&self, n: u64) -> SortAlgorithm {
        self.pick(n).algorithm_for(n)
    }

    fn storage_requirements(&self, max_n: u64) -> StorageRequirements {
        StorageRequirements {
            scratch_bytes: self.scratch_bytes(max_n),
            scratch_usage: self.pick(max_n).scratch_usage(max_n),
        }
    }

    fn control_offset(&self, max_n: u64) -> u64 {
        self.pick(max_n).layout(max_n).meta_off
    }

    fn gave_up_word(&self, algorithm: SortAlgorithm, max_n: u64) -> Option<u64> {
        self.pick(max_n)
            .runs_fused(algorithm, max_n)
            .then(|| self.control_offset(max_n) + 4 * onesweep::CTRL_FUSED_STALLED)
    }

    fn prepare(&self, algorithms: &[SortAlgorithm], max_n: u64) -> Result<()> {
        for &a in algorithms {
            let cap = max_n.min(self.capabilities(a).max_keys);
            for n in self.planning_sizes(cap) {
                let s = self.pick(n);
                s.plan_one(a, Count::Host(n))?;
                // A GPU-side count binds the count buffer: the same kernels, but plan it too.
                let count = stand_in(16, vk::BufferUsageFlags::STORAGE_BUFFER);
                s.plan_one(a, Count::Gpu { count, capacity: n })?;
            }
        }
        Ok(())
    }

    fn record(
        &self,
        rec: &mut Recorder,
        algorithm: SortAlgorithm,
        buffers: SortBuffers,
        count: Count,
    ) -> Result<()> {
        self.pick(count.max_n())
            .cmd_sort(rec, algorithm, buffers, count)
    }

    fn workload(&self, algorithm: SortAlgorithm, n: u64) -> Vec<PassModel> {
        let s = self.pick(n);
        let (k, v) = (s.key_words * 4, s.val_words * 4);
        workload::passes(&s.policy, s.resolve(algorithm, n), k, v, s.hi - s.lo, n)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The modelled passes of a radix sort of `n` keys with `algorithm` (not Auto) under `policy` (the library's
/// workload formulas, for tools that model sorts without building a sorter).
pub fn workload(
    policy: &RadixPolicy,
    algorithm: SortAlgorithm,
    key: KeyType,
    value: crate::sort::types::ValueType,
    key_bits: u32,
    n: u64,
) -> Vec<PassModel> {
    workload::passes(policy, algorithm, key.bytes(), value.bytes(), key_bits, n)
}
