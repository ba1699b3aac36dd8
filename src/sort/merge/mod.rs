//! Merge sort, the merge family's backend of the sort front end. Stable (equal keys keep their input order, in
//! both orders, with and without a bit range), every key type including 128-bit keys (the sort that Auto picks
//! for them: the radix sorts refuse keys wider than 64 bits), with no value or a 4- or 8-byte value per key.
//!
//! # Passes (labels) and bytes moved per key (k = key bytes, v = value bytes)
//! With B = the policy's block tile ([`MergePolicy::block_tile`]), T = its merge tile and
//! P(n) = ceil(log2(ceil(n / B))) merge passes:
//! - `vksort::sort::count` (GPU-side counts only): the clamped count into the control block.
//! - `vksort::merge::block` ([`block`]): one workgroup per tile of B keys: each invocation sorts its
//!   `block_items_per_invocation` keys in registers (odd-even transposition: stable), then log2(workgroup size)
//!   rounds merge runs in pairs through shared memory (each invocation finds its diagonal's merge-path split by
//!   a binary search and merges its keys serially; ties from the first run: stable). Keys only in shared memory;
//!   with values, a 16-bit tile position per key beside them, by which each value is gathered once. Reads
//!   k + v, writes k + v. A sort of at most B keys is this one pass, in place, in one workgroup.
//! - per merge pass p = 0 .. P(n) - 1, runs of w = B << p keys merged in pairs:
//!   `vksort::merge::partition` ([`partition`]; with [`Partition::Pass`], and with [`Partition::Mixed`] for
//!   sorts of more than [`MergePolicy::fused_max_keys`] keys): a cluster of
//!   [`MergePolicy::partition_lanes`] invocations per output tile of T keys finds, by a k-ary search of the merge
//!   path (one probe of two keys per lane and round, ceil(log_lanes(w)) + 1 rounds), how many of the outputs
//!   before the tile come from the pair's first run (ties take from the first run: stable). Writes 4 bytes per
//!   tile.
//!   `vksort::merge::merge` ([`pass`]): one workgroup per output tile merges exactly T keys whatever the data,
//!   from the two slices the split points give (read from the partition array, or, without a partition pass,
//!   found by every subgroup of the workgroup itself with the same k-ary search, both ends at once), with the
//!   policy's [`MergeKernel`] (the slices' keys in shared memory, a merge-path search and a serial merge of
//!   `merge_items_per_invocation` keys per invocation into registers, a coalesced store through shared memory;
//!   or a bitonic merge network). Reads k + v (values gathered by source position), writes k + v.
//!
//! The passes ping-pong between the caller's buffers (side 0) and the scratch's alternate copies (side 1): the
//! block pass writes side P(n) & 1 and every merge pass the other side than it reads, so the last merge pass
//! writes the caller's buffers and no final copy exists. With a GPU-side count the passes are recorded for the
//! capacity; every pass computes P(n) and its sides from the count on the GPU, and passes p >= P(n) do nothing.
//! With a host count exactly the P(n) merge passes are recorded.
//!
//! Timing experiments (the `diagnostics` feature's `MergeDebug`, key `debug` of the override string): knock-outs
//! of the merge passes' serial merge, diagonal search and split-point search, by a specialization constant
//! (0 compiles to the plain kernels).
//!
//! # Scratch layout ([`Layout`])
//! The control block (1 KiB, offset 0), then for capacities above one block tile: the alternate keys
//! (n x k bytes), the alternate values (n x v bytes; 16 without values) and, when the sort has partition passes,
//! the partition array (ceil(n / T) u32), each region aligned for binding. Up to one block tile: only the control
//! block.

pub mod block;
mod debug;
pub mod partition;
pub mod pass;
pub mod policy;

#[cfg(feature = "diagnostics")]
pub use debug::MergeDebug;
#[cfg(not(feature = "diagnostics"))]
pub(crate) use debug::MergeDebug;
pub use policy::{MergeKernel, MergePolicy, Partition};

use crate::error::Result;
use crate::gpu::{Region, Context, Recorder};
use crate::policy::SubgroupPlan;
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::{Overrides, SortBuffers};
use crate::sort::config::SortConfig;
use crate::sort::count::Count;
use crate::sort::items::{self, Checked, Items, ItemsFamily, Regions};
use crate::sort::backend::Family;
use crate::workload::PassModel;
use std::sync::Arc;

/// The most keys a merge sort takes (positions are u32, and twice the longest run must fit one).
pub const MAX_KEYS: u64 = 1 << 31;

/// The merge family in the sort registry: it takes every configuration.
pub(crate) const FAMILY: Family = Family {
    name: "merge",
    algorithms: &[SortAlgorithm::Merge],
    supports: |_| None,
    new: |ctx, config, overrides, _| Ok(Box::new(MergeSort::new(ctx, config, overrides)?)),
    parse_overrides: |ctx, config, spec, overrides| {
        // With the `diagnostics` feature the string also carries the timing knobs ([`MergeDebug`]: `debug=`);
        // without, `debug` is an unknown policy key.
        #[cfg(feature = "diagnostics")]
        let spec = &{
            let (policy, knobs) = debug::split_overrides(spec);
            if !knobs.is_empty() {
                overrides.set(MergeDebug::default().with_overrides(&knobs)?);
            }
            policy
        };
        overrides
            .set(MergePolicy::for_sort(ctx.caps(), config.key, config.value).with_overrides(spec)?);
        Ok(())
    },
};

/// The scratch regions of a sort recorded for `max_n` keys (offsets and sizes in bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Keys of side 1 (None when no merge pass can run: max_n at most one block tile).
    pub alt_keys: Option<(u64, u64)>,
    pub alt_values: Option<(u64, u64)>,
    /// One u32 per merge tile: the co-rank of its start (when any merge pass has a partition pass).
    pub partition: Option<(u64, u64)>,
    /// Bytes of scratch.
    pub total: u64,
}

/// The merge sort behind a [`crate::sort::Sorter`].
pub struct MergeSort {
    pub(crate) ctx: Arc<Context>,
    pub policy: MergePolicy,
    pub(crate) plan: SubgroupPlan,
    pub(crate) items: Items,
    /// Diagnostics knobs (all off unless set through the `diagnostics` feature).
    pub(crate) debug: MergeDebug,
}

/// The buffers of one recorded sort: side 0 (the caller's), side 1 (the scratch's), the control block and the
/// partition array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sides {
    /// keys0, values0, keys1, values1: bindings 0..3 of every merge-sort pass.
    pub sides: [Region; 4],
    pub meta: Region,
    pub partition: Region,
}

impl MergeSort {
    /// The merge sort for `config`, with a [`MergePolicy`] from `overrides` or the device's (and the debug
    /// knobs of `overrides`, if any).
    pub(crate) fn new(
        ctx: &Arc<Context>,
        config: &SortConfig,
        overrides: &Overrides,
    ) -> Result<Self> {
        let (items, policy, plan) = items::family_parts(
            ctx,
            config,
            overrides,
            |caps, items| MergePolicy::for_capacity(caps, items, config.max_n),
            |p, caps, items| p.check(caps, items),
        )?;
        let debug = overrides.get::<MergeDebug>().unwrap_or_default();
        debug.check(&policy)?;
        Ok(Self {
            ctx: ctx.clone(),
            policy,
            plan,
            items,
            debug,
        })
    }

    /// The scratch layout of a sort recorded for `max_n` keys.
    pub fn layout(&self, max_n: u64) -> Layout {
        let mut r = Regions::after_control(&self.ctx);
        if self.policy.merge_passes(max_n) == 0 {
            return Layout {
                alt_keys: None,
                alt_values: None,
                partition: None,
                total: r.total,
            };
        }
        let alt_keys = r.take(self.items.key_bytes(max_n));
        let alt_values = r.take(self.items.val_bytes(max_n));
        let partition = (!self.policy.fused(max_n))
            .then(|| r.take(max_n.div_ceil(self.policy.merge_tile()) * 4));
        Layout {
            alt_keys: Some(alt_keys),
            alt_values: Some(alt_values),
            partition,
            total: r.total,
        }
    }

    fn cmd_sort(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()> {
        let ctx = rec.ctx();
        let n = count.max_n();
        let layout = self.layout(n);
        let c = items::check(
            ctx,
            &self.items,
            "merge",
            MAX_KEYS,
            &buffers,
            &count,
            layout.total,
        )?;
        if c.count.is_none() && n <= 1 {
            return Ok(());
        }
        let s = self.sides(&c, &layout);
        rec.scope("vksort::sort", |rec| {
            items::record_count(ctx, &self.plan, rec, &c, n)?;
            block::record(self, rec, &s, &count)?;
            for p in 0..self.policy.merge_passes(n) {
                rec.barrier();
                if !self.policy.fused(n) {
                    partition::record(self, rec, &s, &count, p)?;
                    rec.barrier();
                }
                pass::record(self, rec, &s, &count, p)?;
            }
            Ok(())
        })
    }

    /// `MASKED` of merge_side.glsl: 1 when a bit range leaves some bit of the key out of the order (the
    /// comparisons then mask both keys), 0 when every bit orders.
    pub(crate) fn masked(&self) -> u32 {
        let kw = self.items.key_words as usize;
        self.items.mask[..kw].iter().any(|&m| m != u32::MAX) as u32
    }

    /// Binds the two sides: side 1 and the partition array are stand-ins (the control block) when no merge
    /// pass can run.
    fn sides(&self, c: &Checked, layout: &Layout) -> Sides {
        let region =
            |r: Option<(u64, u64)>| r.map_or(c.meta, |(off, bytes)| c.scratch.slice(off, bytes));
        Sides {
            sides: [
                c.keys,
                c.values,
                region(layout.alt_keys),
                region(layout.alt_values),
            ],
            meta: c.meta,
            partition: region(layout.partition),
        }
    }
}

impl ItemsFamily for MergeSort {
    const ALGORITHM: SortAlgorithm = SortAlgorithm::Merge;

    fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    fn items(&self) -> &Items {
        &self.items
    }

    fn max_keys(&self) -> u64 {
        MAX_KEYS
    }

    fn scratch_bytes(&self, max_n: u64) -> u64 {
        self.layout(max_n).total
    }

    fn plan_sizes(&self, max_n: u64) -> Vec<u64> {
        let p = &self.policy;
        items::planning_sizes(max_n, &[p.block_tile(), p.merge_tile()])
    }

    fn record_sort(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()> {
        self.cmd_sort(rec, buffers, count)
    }

    fn model_passes(&self, n: u64) -> Vec<PassModel> {
        let k = (self.items.key_words * 4) as f64;
        let v = (self.items.val_words * 4) as f64;
        let p = &self.policy;
        let nf = n as f64;
        let kv = nf * (k + v);
        let log_b = p.block_tile().trailing_zeros() as f64;
        // Per key: the odd-even transposition of the invocation's keys, then per round a search share and a
        // merge step.
        let kpt = p.block_items_per_invocation as f64;
        let rounds_b = p.block_workgroup_size.trailing_zeros() as f64;
        let mut passes = vec![PassModel::new(
            "vksort::merge::block",
            1,
            kv,
            kv,
            kpt / 2.0 + rounds_b * (1.0 + log_b / kpt),
        )];
        let merges = p.merge_passes(n);
        if merges == 0 {
            return passes;
        }
        let tiles = n.div_ceil(p.merge_tile()) as f64;
        let log_t = p.merge_tile().trailing_zeros() as f64;
        // The split points: per tile and pass p (runs of w = block tile << p), a k-ary search of about
        // log_sg(w) + 1 rounds of one probe of two keys per lane of a subgroup: one diagonal per tile in the
        // partition pass (Pass; the merge pass then reads two words per tile), both ends of the tile inside the
        // merge pass (Fused; every subgroup of the workgroup searches, the repeats hit the caches).
        let sg = self.plan.max.max(2) as f64;
        let rounds = |q: u32| ((log_b + q as f64) / sg.log2()).ceil() + 1.0;
        let all_rounds: f64 = (0..merges).map(rounds).sum();
        let (mut part_probes, mut part_passes, mut fused_probes) = (0.0, 0, 0.0);
        if p.fused(n) {
            fused_probes = all_rounds * tiles * 2.0 * sg;
        } else {
            part_probes = all_rounds * tiles * sg;
            part_passes = merges;
        }
        if part_passes > 0 {
            passes.push(PassModel::new(
                "vksort::merge::partition",
                part_passes,
                part_probes * 2.0 * k,
                part_passes as f64 * tiles * 4.0,
                part_probes / nf.max(1.0),
            ));
        }
        let split_read = part_passes as f64 * tiles * 8.0 + fused_probes * 2.0 * k;
        let split_ops = fused_probes / nf.max(1.0);
        let ops = match p.merge_kernel {
            MergeKernel::Serial => log_t / p.merge_items_per_invocation as f64 + 2.0,
            MergeKernel::Network => log_t,
        };
        passes.push(PassModel::new(
            "vksort::merge::merge",
            merges,
            merges as f64 * kv + split_read,
            merges as f64 * kv,
            merges as f64 * ops + split_ops,
        ));
        passes
    }
}
