//! Merge sort: stable, every key type including 128-bit keys (Auto's sort for them), no value or a 4- or 8-byte
//! value per key. A block pass sorts tiles of [`MergePolicy::block_tile`] keys, then each merge pass merges runs
//! in pairs (optionally after a partition pass that finds the split points), ping-ponging between the caller's
//! buffers and the scratch so that the last pass ends in the caller's buffers. docs/architecture.md ("The merge
//! sort") has the passes, the bytes they move and the scratch layout.

mod debug;
pub mod policy;

#[cfg(feature = "diagnostics")]
pub use debug::MergeDebug;
#[cfg(not(feature = "diagnostics"))]
pub(crate) use debug::MergeDebug;
pub use policy::{MergeKernel, MergePolicy, Partition};

use crate::error::Result;
use crate::gpu::{Context, Kernel, Recorder, Region};
use crate::policy::{Policy as _, SubgroupPlan};
use crate::shaders::{merge_block, merge_merge, merge_network, merge_partition, ShaderId, Spec};
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::{Family, Overrides, SortBuffers};
use crate::sort::config::SortConfig;
use crate::sort::count::Count;
use crate::sort::items::{self, Checked, ItemPush, Items, ItemsFamily, Regions};
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
    /// A GPU-side count, which the block pass reads (the control block as a stand-in for a host count).
    pub count: Region,
    pub count_word: u32,
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
        rec.scope("vksort::sort", |rec| self.record_passes(rec, &s, &count))
    }

    /// A kernel of the merge sort: `shader` with workgroup size `wg`, the items' constants, `MASKED` and `spec`.
    fn kernel(
        &self,
        ctx: &Context,
        shader: ShaderId,
        tagged: bool,
        wg: u32,
        spec: Spec,
    ) -> Result<Arc<Kernel>> {
        let spec = spec.with(merge_block::MASKED, self.masked());
        items::kernel(ctx, &self.plan, &self.items, tagged, shader, wg, spec)
    }

    /// The merge passes' kernel: the policy's [`MergeKernel`] (the serial one with the timing knock-outs of
    /// [`MergeDebug`]; both declare `KPT` and `FUSED_SPLIT` with the same ids) for a sort of `n` keys.
    fn merge_kernel(&self, ctx: &Context, n: u64) -> Result<Arc<Kernel>> {
        let p = &self.policy;
        let spec = Spec::new()
            .with(merge_merge::KPT, p.merge_items_per_invocation)
            .with(merge_merge::FUSED_SPLIT, p.fused(n) as u32);
        let wg = p.merge_workgroup_size;
        match p.merge_kernel {
            MergeKernel::Serial => {
                let spec = spec.with(merge_merge::DEBUG_MODE, self.debug.debug_mode);
                self.kernel(ctx, merge_merge::SHADER, false, wg, spec)
            }
            MergeKernel::Network => self.kernel(ctx, merge_network::SHADER, true, wg, spec),
        }
    }

    /// The block pass (it reads a GPU-side count), then per merge pass its partition pass (unless fused) and merge.
    fn record_passes(&self, rec: &mut Recorder, s: &Sides, count: &Count) -> Result<()> {
        let (ctx, p, n) = (rec.ctx(), &self.policy, count.max_n());
        let items = self.items.push(count);
        let (block_tile, merge_tile) = (p.block_tile() as u32, p.merge_tile() as u32);
        let [k0, v0, k1, v1] = s.sides;
        let kpt = Spec::new().with(merge_block::KPT, p.block_items_per_invocation);
        let k = self.kernel(ctx, merge_block::SHADER, false, p.block_workgroup_size, kpt)?;
        rec.pass("vksort::merge::block", &k)
            .bind(&[k0, v0, k1, v1, s.meta, s.count])
            .push(&BlockPush {
                items,
                block_tile,
                count_word: s.count_word,
            })
            .groups(n.div_ceil(p.block_tile()) as u32)?;
        let tiles = n.div_ceil(p.merge_tile());
        let (wg, lanes) = (p.partition_workgroup_size, p.partition_lanes);
        for pass in 0..p.merge_passes(n) {
            rec.barrier();
            if !p.fused(n) {
                let debug = Spec::new().with(merge_partition::DEBUG_MODE, self.debug.debug_mode);
                let k = self.kernel(ctx, merge_partition::SHADER, false, wg, debug)?;
                let push = PartitionPush {
                    items,
                    block_tile,
                    merge_tile,
                    pass,
                    lanes,
                };
                rec.pass("vksort::merge::partition", &k)
                    .bind(&[k0, k1, s.meta, s.partition])
                    .push(&push)
                    .groups(tiles.div_ceil((wg / lanes) as u64) as u32)?;
                rec.barrier();
            }
            let k = self.merge_kernel(ctx, n)?;
            let push = MergePush {
                items,
                block_tile,
                pass,
            };
            rec.pass("vksort::merge::merge", &k)
                .bind(&[k0, v0, k1, v1, s.meta, s.partition])
                .push(&push)
                .groups(tiles as u32)?;
        }
        Ok(())
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
            count: c.count.map_or(c.meta, |b| b.buffer),
            count_word: c.count.map_or(0, |b| b.word),
        }
    }
}

crate::gpu::push_block! {
    /// Push constants of `merge_block`.
    pub struct BlockPush {
        pub items: ItemPush,
        /// The policy's block tile (decides P(n), and so the side written).
        pub block_tile: u32,
        /// The GPU-side count's word in its binding.
        pub count_word: u32,
    }
}

crate::gpu::push_block! {
    /// Push constants of `merge_partition`.
    pub struct PartitionPush {
        pub items: ItemPush,
        pub block_tile: u32,
        pub merge_tile: u32,
        /// The merge pass (runs of block_tile << pass keys).
        pub pass: u32,
        /// Invocations per tile ([`MergePolicy::partition_lanes`]).
        pub lanes: u32,
    }
}

crate::gpu::push_block! {
    /// Push constants of `merge_merge` and `merge_network`.
    pub struct MergePush {
        pub items: ItemPush,
        pub block_tile: u32,
        /// The merge pass (runs of block_tile << pass keys).
        pub pass: u32,
    }
}

/// The block pass's push constants, at the path tests name.
pub mod block {
    pub use super::BlockPush;
}

/// The partition pass's push constants, at the path tests name.
pub mod partition {
    pub use super::PartitionPush;
}

/// The merge pass's push constants, at the path tests name.
pub mod pass {
    pub use super::MergePush;
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
        // Per key: the odd-even transposition of the invocation's keys, then per round a search share and a merge step.
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
