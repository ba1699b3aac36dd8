//! LSD radix sort, one pass per digit place (Onesweep, after Adinets & Merrill 2022), with a reduce-then-scan
//! alternative, a three-dispatch MSD sort and a one-workgroup sort for small inputs: the radix family's backend
//! of the sort front end ([`crate::sort`]). This module is the dispatch layer (the checks and the sequence of
//! passes); the policy is in [`policy`] (per-device values in [`tuning`]), the scratch layout in [`layout`],
//! the bindings of one sort in [`bindings`], and each GPU pass in its own module.
//!
//! # Passes (labels) and bytes moved per key (k = key bytes, v = value bytes)
//! - `vksort::radix::setup`: zeroes the control block, the histograms and (Onesweep) the look-back status
//!   slots (~4 x places x 2^digit_bits / tile B per key; one dispatch per binding-sized chunk), and writes n:
//!   the host's, or the GPU-side count clamped to the capacity (with an overflow flag), and the upfront pass's
//!   indirect arguments.
//! - `vksort::radix::upfront`: reads the keys once (k B/key) and builds the histograms of every digit place.
//! - `vksort::radix::plan` (sorts of several portions; with one, the upfront pass's last workgroup plans):
//!   one workgroup: global exclusive digit offsets per place; skips places whose
//!   histogram has one digit holding all n keys (a no-op pass); writes every later pass's indirect dispatch
//!   arguments (0 groups when skipped) and which side (caller's buffers or scratch) each pass reads.
//! - `vksort::radix::onesweep::place<p>` (Onesweep, one per place): reads and writes keys and values once
//!   (2(k + v) B/key) plus the look-back status (~4 x 2^digit_bits / tile B per tile).
//! - `vksort::radix::onesweep::fused` (Onesweep up to the policy's `fused_max` keys, one portion): the upfront,
//!   plan and place passes above in one dispatch (the same bytes), after the setup pass.
//! - reduce-then-scan per place: `vksort::radix::upsweep::place<p>` (k B/key), `vksort::radix::spine::place<p>`
//!   (the tile counts), `vksort::radix::downsweep::place<p>` (2(k + v) B/key).
//! - `vksort::radix::small`: the whole sort in one workgroup (k + v read, k + v written, once).
//! - `vksort::radix::msd::differ`, `vksort::radix::msd::split`, `vksort::radix::msd::buckets` (the MSD sort for
//!   small inputs, [`msd`]): the differ pass reads the keys (k B/key) for per-tile min/max words; the split pass
//!   reads keys and values and writes them, each tile sorted on the split digit, to the scratch (2(k + v) B/key)
//!   with a run table (4 x 2^digit_bits B per split tile); the bucket pass reads them back and writes k + v once
//!   (buckets larger than its tile: each of their helper workgroups reads the bucket's keys twice, and its
//!   share is written to the second scratch and back). No setup pass, no zeroed memory beyond
//!   the 2^digit_bits split-digit counts (the differ pass zeroes them), no waiting between workgroups.
//! - `vksort::radix::hybrid::bounds`, `vksort::radix::hybrid::local` (the MSD hybrid, [`hybrid`]): after
//!   Onesweep passes over the top places only, a pass finds where each group of keys sharing the top bits
//!   starts (k B/key) and one workgroup per group sorts it in registers (2(k + v) B/key).
//! - `vksort::radix::copy`: recorded only for an odd number of places (with an even number the plan runs one
//!   skipped place anyway when the passes to run are odd); it copies only when an odd number of passes ran
//!   (decided on the GPU; indirect with 0 groups otherwise): 2(k + v) B/key.
//!
//! Every pass after the first is separated by [`Recorder::barrier`]; all later passes are dispatched
//! indirectly from arguments the plan (or setup) pass wrote, and read n from the control block. Sorts of at
//! most the policy's `short_max` keys (host n or capacity) run through a second `RadixSort` whose tiles hold
//! `short_keys_per_thread` keys per invocation ([`RadixSort::pick`]); [`RadixSort::scratch_bytes`] covers both.
//!
//! # Scratch layout (`storage_requirements(max_n)`, offsets aligned to 256 bytes)
//! `[alt keys: max_n x k][alt values: max_n x v][meta: control block (CTRL_WORDS u32) | digit offsets
//! (2 x places x RADIX u32)][status: Onesweep's places x portions slots (tile counter + tiles per portion x RADIX
//! u32), or reduce-then-scan's RADIX x tiles counts, whichever is larger][MSD sort, when the sorter may use it
//! (configured, or Auto up to `msd_max`): second scratch keys and values for min(max_n, msd capacity) keys |
//! min/max words (4 u32 per split tile) | run table (RADIX x split tiles u32) | split-digit counts (RADIX u32)]
//! [hybrid sort, when configured: group starts (2^groups + 1 u32)]`.
//!
//! # Portions and wide writes
//! [`RadixSort::portions`] cuts a sort into portions of whole tiles: at most 2^30 - 1 keys each (the look-back
//! status word's count), and, when an array exceeds one binding (`maxStorageBufferRange`), at most one binding
//! of keys and of values each; the policy's `portion_tiles` can force smaller ones (tests). Every per-key pass
//! runs once per portion (labels `...::portion<q>`), separated by barriers. Onesweep's portions have their own
//! look-back domains; portion q's global digit offsets are the plan's plus the digit counts of portions < q,
//! which portion q - 1's last tile leaves in the place's second offsets array (two arrays used alternately).
//! Reduce-then-scan needs no carry (its spine covers all tiles). "Wide" sorts (an array beyond one binding, or
//! the policy's `force_wide`) bind each portion's sources from its first key and write through 64-bit buffer
//! device addresses (the `*_wide` kernel variants; `bufferDeviceAddress` and `SHADER_DEVICE_ADDRESS` usage).
//!
//! # Forward progress
//! Onesweep's look-back polls a predecessor's status at most `spin_limit` times; then the waiting workgroup
//! counts the predecessor tile's digit from its keys and goes on, so it never depends on another workgroup
//! being scheduled. The diagnostics knob `stall_every` (tests) makes chosen tiles never publish, forcing that path.
//! The fused Onesweep's tiles wait for the place before theirs without a fallback; that wait only relies on a
//! workgroup that has started running on (what it waits for was claimed earlier, by started workgroups), not on
//! co-residency. CPU drivers run it on one workgroup (see [`onesweep`]).

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
pub use policy::{PeerMatch, RadixPolicy, RankCounters, MSD_MAX_KEYS};

use crate::error::{Error, Result};
use crate::gpu::{Region, Context, Kernel, Recorder};
use crate::policy::SubgroupPlan;
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::{
    Capabilities, Overrides, SortBackend, SortBuffers, StorageRequirements,
};
use crate::sort::config::SortConfig;
use crate::sort::count::{self, Count};
use crate::sort::backend::Family;
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
    /// The same sort with the policy's short tiles (`short_keys_per_thread`), for sorts of at most
    /// `short_max` keys.
    pub(crate) short: Option<Box<RadixSort>>,
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
        Self::with_policy(ctx, config, policy, debug, algorithm, reachable.len() > 1)
    }

    fn with_policy(
        ctx: &Arc<Context>,
        config: &SortConfig,
        policy: RadixPolicy,
        debug: RadixDebug,
        algorithm: SortAlgorithm,
        any: bool,
    ) -> Result<Self> {
        let caps = ctx.caps();
        let plan = SubgroupPlan::for_device(caps);
        let item_words = (config.key.bytes() + config.value.bytes()) / 4;
        policy.check_with(caps, &plan, item_words, debug.ballot_words)?;
        debug.check(caps, policy.use_partitioned, policy.msd_partitioned)?;
        if config.max_n > MAX_KEYS {
            return Err(Error::TooLarge {
                n: config.max_n,
                max: MAX_KEYS,
                limit: "the radix sorts' key count (2^32 - 2^16)",
            });
        }
        crate::policy::require_sort_subgroup_ops(ctx)?;
        let kbits = config.key.bits();
        let (lo, hi) = config.bits.unwrap_or((0, kbits));
        if lo >= hi || hi > kbits {
            return Err(Error::InvalidBitRange {
                lo,
                hi,
                key_bits: kbits,
            });
        }
        let places = (hi - lo).div_ceil(policy.digit_bits);
        let short =
            if policy.short_max > 0 && policy.short_keys_per_thread != policy.keys_per_thread {
                let short_policy = RadixPolicy {
                    keys_per_thread: policy.short_keys_per_thread,
                    peer_match: policy.short_peer_match,
                    sub_tiles: 1,
                    exchange_parts: 1,
                    short_max: 0,
                    ..policy
                };
                Some(Box::new(Self::with_policy(
                    ctx,
                    config,
                    short_policy,
                    debug,
                    algorithm,
                    any,
                )?))
            } else {
                None
            };
        Ok(Self {
            ctx: ctx.clone(),
            short,
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
        })
    }

    pub(crate) fn flags(&self) -> u32 {
        self.descending as u32
    }

    /// The sort that runs `max_n` keys (host n or capacity): the short-tile one up to the policy's
    /// `short_max`, else this one.
    pub fn pick(&self, max_n: u64) -> &RadixSort {
        match &self.short {
            Some(s) if max_n <= self.policy.short_max as u64 => s,
            _ => self,
        }
    }

    /// Scratch bytes for any sort of up to `max_n` keys: the largest layout among the tile sizes that sizes up
    /// to `max_n` may use (the short tiles need more look-back status per key).
    pub fn scratch_bytes(&self, max_n: u64) -> u64 {
        let own = self.layout(max_n).total;
        match &self.short {
            Some(s) => own.max(s.layout(max_n.min(self.policy.short_max as u64)).total),
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
        let ctx = rec.ctx();
        let SortBuffers {
            keys,
            values,
            scratch,
        } = buffers;
        let max_n = count.max_n();
        let gpu_count = match count {
            Count::Gpu { count, .. } => Some(count),
            Count::Host(_) => None,
        };
        if max_n > MAX_KEYS {
            return Err(Error::TooLarge {
                n: max_n,
                max: MAX_KEYS,
                limit: "the radix sorts' key count (2^32 - 2^16)",
            });
        }
        let algorithm = match algorithm {
            SortAlgorithm::Auto => self.algorithm_for(max_n),
            a => a,
        };
        // The algorithms with a capacity of their own (see capabilities()) refuse larger sorts.
        let cap = self.capabilities(algorithm).max_keys;
        if max_n > cap {
            return Err(Error::AlgorithmLimit {
                algorithm: algorithm.name(),
                max: cap,
                n: max_n,
            });
        }
        let kb = max_n * self.key_words as u64 * 4;
        let vb = max_n * self.val_words as u64 * 4;
        let range = self.binding_range();
        let layout = self.layout(max_n);
        let portions = layout.portions;
        // Arrays larger than one binding are written through device addresses (the `wide` variants).
        if portions.wide && !ctx.caps().buffer_device_address {
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
        // The hybrid sort's plan word (MSD places | log2 of the groups << 8). Its group passes bind whole
        // arrays, and keys of one digit place have nothing to split: those sorts run as Onesweep.
        let (algorithm, hybrid) = match algorithm {
            SortAlgorithm::Hybrid if !portions.wide && portions.count == 1 => {
                match self.hybrid_geometry(max_n) {
                    (0, _) => (SortAlgorithm::Onesweep, 0),
                    (p, g) => (algorithm, p | g << 8),
                }
            }
            SortAlgorithm::Hybrid => (SortAlgorithm::Onesweep, 0),
            a => (a, 0),
        };
        let array_usage = with_address(vk::BufferUsageFlags::STORAGE_BUFFER, portions.wide);
        keys.check(ctx, "keys", kb, array_usage)?;
        match (values, self.val_words) {
            (Some(v), w) if w > 0 => v.check(ctx, "values", vb, array_usage)?,
            (None, 0) => {}
            (Some(_), _) => return Err(Error::ValuesMismatch { expected: false }),
            (None, _) => return Err(Error::ValuesMismatch { expected: true }),
        }
        scratch.check(
            ctx,
            "scratch",
            layout.total,
            with_address(SCRATCH_USAGE, portions.wide),
        )?;
        let count_binding = count::bind(ctx, &count)?.map(|c| (c.buffer, c.word));
        if gpu_count.is_none() && max_n <= 1 {
            return Ok(());
        }
        let keys = keys.slice(0, kb.max(4));
        let alt_keys = scratch.slice(layout.alt_keys_off, layout.alt_keys_bytes);
        let values = values.map(|v| v.slice(0, vb));
        let alt_values = scratch.slice(layout.alt_vals_off, layout.alt_vals_bytes);
        let addr = if portions.wide && algorithm != SortAlgorithm::Small && !rec.is_planning() {
            let mut a = [0u32; 8];
            let vals = values.unwrap_or(alt_values);
            for (i, (what, r)) in [
                ("keys", keys),
                ("scratch", alt_keys),
                ("values", vals),
                ("scratch", alt_values),
            ]
            .iter()
            .enumerate()
            {
                let x = ctx.buffer_address(what, r)?;
                a[2 * i] = x as u32;
                a[2 * i + 1] = (x >> 32) as u32;
            }
            a
        } else {
            [0; 8]
        };
        let b = Bindings {
            keys,
            alt_keys,
            values,
            alt_values,
            meta: scratch.slice(layout.meta_off, layout.meta_bytes),
            status: scratch.slice(layout.status_off, layout.status_bytes),
            msd_keys: scratch.slice(layout.msd_keys_off, layout.msd_keys_bytes),
            msd_values: scratch.slice(layout.msd_vals_off, layout.msd_vals_bytes),
            msd_tables: scratch.slice(layout.msd_tables_off, layout.msd_tables_bytes),
            hybrid_starts: scratch.slice(layout.hybrid_off, layout.hybrid_bytes),
            hybrid,
            addr,
            layout,
            max_n,
            count: count_binding,
        };
        rec.scope("vksort::sort", |rec| match algorithm {
            SortAlgorithm::Small => small::record(self, rec, &b),
            SortAlgorithm::Msd => msd::record(self, rec, &b),
            SortAlgorithm::Hybrid => hybrid::record(self, rec, &b),
            _ => self.record_passes(rec, &b, algorithm),
        })
    }

    pub(crate) fn record_passes(
        &self,
        rec: &mut Recorder,
        b: &Bindings,
        algorithm: SortAlgorithm,
    ) -> Result<()> {
        // Zero the control block, histograms and (Onesweep) status slots, which follow the meta region in the
        // scratch, and write n.
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
        setup::record(self, rec, b, clear, fused.as_ref().and_then(|g| g.setup_args()))?;
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

    /// The upfront pass, the plan (sorts of several portions) and every place's passes, each followed by a
    /// barrier.
    fn record_places(&self, rec: &mut Recorder, b: &Bindings, algorithm: SortAlgorithm) -> Result<()> {
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

    pub(crate) fn pass_shift(&self, p: u32) -> (u32, u32) {
        let shift = self.lo + p * self.policy.digit_bits;
        (shift, self.policy.digit_bits.min(self.hi - shift))
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

/// `usage` plus `SHADER_DEVICE_ADDRESS` when the sort writes through device addresses.
fn with_address(usage: vk::BufferUsageFlags, wide: bool) -> vk::BufferUsageFlags {
    if wide {
        usage | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
    } else {
        usage
    }
}

impl RadixSort {
    /// The sizes whose recordings cover every pipeline a sort of up to `max_n` keys may use: the small sizes,
    /// every power of two and its neighbours (the MSD sort's tile choices step at powers of two), the policy's
    /// thresholds and their neighbours, the binding-range limit (wide writes) and `max_n`.
    fn planning_sizes(&self, max_n: u64) -> Vec<u64> {
        let p = &self.policy;
        let mut sizes: Vec<u64> = (0..4).collect();
        let mut x = 4u64;
        while x <= max_n {
            sizes.extend([x - 1, x, x + 1, x + x / 2]);
            x *= 2;
        }
        let range = self.binding_range();
        let widest = (self.key_words.max(self.val_words).max(1) * 4) as u64;
        for t in [
            p.small_sort_max as u64,
            p.small_capacity() as u64,
            p.msd_max as u64,
            p.short_max as u64,
            p.fused_max as u64,
            p.fused_loop_max as u64,
            p.msd_single_keys(),
            MSD_MAX_KEYS,
            p.hybrid_capacity(),
            range / widest,
            max_n,
        ] {
            sizes.extend([t.saturating_sub(1), t, t + 1]);
        }
        sizes.retain(|&n| n <= max_n);
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// Records, through a planning recorder, a sort of `n` keys with `algorithm` on stand-in buffers: builds the
    /// pipelines that sort needs.
    fn plan_one(&self, algorithm: SortAlgorithm, count: Count) -> Result<()> {
        let n = count.max_n();
        let fake = |size: u64, usage: vk::BufferUsageFlags| Region {
            buffer: vk::Handle::from_raw(1),
            offset: 0,
            size: size.max(16),
            usage: usage | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS,
            owner: 0,
        };
        let arrays = vk::BufferUsageFlags::STORAGE_BUFFER;
        let buffers = SortBuffers {
            keys: fake(n * self.key_words as u64 * 4, arrays),
            values: (self.val_words > 0).then(|| fake(n * self.val_words as u64 * 4, arrays)),
            scratch: fake(self.scratch_bytes(n), SCRATCH_USAGE),
        };
        let mut rec = Recorder::planning(&self.ctx);
        self.cmd_sort(&mut rec, algorithm, buffers, count)
    }
}

impl SortBackend for RadixSort {
    fn capabilities(&self, algorithm: SortAlgorithm) -> Capabilities {
        let max_keys = match algorithm {
            SortAlgorithm::Small => self.policy.small_capacity() as u64,
            // Its bucket pass holds one run per split tile in shared memory.
            SortAlgorithm::Msd => MSD_MAX_KEYS,
            // A group larger than the group tile is sorted by one workgroup (RadixPolicy::hybrid_max).
            SortAlgorithm::Hybrid => self.policy.hybrid_capacity(),
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

    fn prepare(&self, algorithms: &[SortAlgorithm], max_n: u64) -> Result<()> {
        for &a in algorithms {
            let cap = max_n.min(self.capabilities(a).max_keys);
            for n in self.planning_sizes(cap) {
                let s = self.pick(n);
                s.plan_one(a, Count::Host(n))?;
                // A GPU-side count binds the count buffer; the kernels are the same, but plan it too.
                let count = Region {
                    buffer: vk::Handle::from_raw(1),
                    offset: 0,
                    size: 16,
                    usage: vk::BufferUsageFlags::STORAGE_BUFFER,
                    owner: 0,
                };
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
        let p = &s.policy;
        let algorithm = match algorithm {
            SortAlgorithm::Auto => s.algorithm_for(n),
            a => a,
        };
        workload::passes(
            p,
            algorithm,
            s.key_words * 4,
            s.val_words * 4,
            s.hi - s.lo,
            n,
        )
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
