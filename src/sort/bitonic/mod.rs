//! Bitonic sort (Batcher's network), the bitonic family's backend of the sort front end. Not stable: equal keys
//! may leave in any order (their values stay with them). In place on the caller's buffers; the scratch holds
//! only the control block.
//!
//! # Passes (labels) and bytes moved per key (k = key bytes, v = value bytes)
//! The network is the form in which every comparator puts the smaller key at the lower position (each merge
//! stage k starts by comparing position i with its mirror i ^ (k - 1)). Positions from n up to the next power
//! of two are virtual +infinity: a comparator whose higher position is beyond n does nothing, so no padding is
//! stored or moved (`glsl/include/bitonic.glsl`).
//! - n up to the policy's `single_capacity()`: the local form, one dispatch of `vksort::bitonic::tile` with the
//!   smallest power-of-two workgroup that holds n (registers, subgroup shuffles, shared memory): k + v read and
//!   written once.
//! - larger n: `vksort::bitonic::tile` sorts every tile of `tile()` keys; then for each merge stage k = 2 tile,
//!   4 tile, .. up to the next power of two of n: `vksort::bitonic::global` for the strides from k / 2 down to
//!   the tile, up to the policy's `global_fuse` strides per pass (each invocation holds the 2^fuse positions
//!   they connect; reads k per key, and k + v for the items that move, writes the items that move), then
//!   `vksort::bitonic::merge` runs the strides below the tile in each tile (k + v read and written).
//!   log2(n / tile) (log2(n / tile) + 1) / 2 global steps in all, in about 1 / fuse as many passes.
//!
//! With a GPU-side count (`vksort::sort::count` first) the passes are recorded for the capacity; stages beyond
//! the count's next power of two do nothing.

mod global;
pub mod policy;
mod tile;

pub use policy::BitonicPolicy;

use crate::error::Result;
use crate::gpu::{Context, Recorder};
use crate::policy::SubgroupPlan;
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::{Overrides, SortBuffers};
use crate::sort::config::SortConfig;
use crate::sort::count::Count;
use crate::sort::items::{self, Checked, Items, ItemsFamily};
use crate::sort::backend::Family;
use crate::workload::PassModel;
use std::sync::Arc;

/// The most keys a bitonic sort takes (positions are u32, and the network runs to the next power of two).
pub const MAX_KEYS: u64 = 1 << 31;

/// The bitonic family in the sort registry.
pub(crate) const FAMILY: Family = Family {
    name: "bitonic",
    algorithms: &[SortAlgorithm::Bitonic],
    supports: |_| None,
    new: |ctx, config, overrides, _| Ok(Box::new(BitonicSort::new(ctx, config, overrides)?)),
    parse_overrides: |ctx, config, spec, overrides| {
        overrides.set(
            BitonicPolicy::for_sort(ctx.caps(), config.key, config.value).with_overrides(spec)?,
        );
        Ok(())
    },
};

/// The bitonic sort behind a [`crate::sort::Sorter`].
pub struct BitonicSort {
    pub(crate) ctx: Arc<Context>,
    pub policy: BitonicPolicy,
    pub(crate) plan: SubgroupPlan,
    pub(crate) items: Items,
}

impl BitonicSort {
    /// The bitonic sort for `config`, with a [`BitonicPolicy`] from `overrides` or the device's.
    pub(crate) fn new(
        ctx: &Arc<Context>,
        config: &SortConfig,
        overrides: &Overrides,
    ) -> Result<Self> {
        let (items, policy, plan) = items::family_parts(
            ctx,
            config,
            overrides,
            BitonicPolicy::for_items,
            |p, caps, items| p.check(caps, items),
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            policy,
            plan,
            items,
        })
    }

    /// Whether items carry a tag (values travel: each is gathered from its tag's position).
    pub(crate) fn tagged(&self) -> bool {
        self.items.val_words > 0
    }

    fn cmd_sort(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()> {
        let ctx = rec.ctx();
        let c = items::check(
            ctx,
            &self.items,
            "bitonic",
            MAX_KEYS,
            &buffers,
            &count,
            items::CONTROL_BYTES,
        )?;
        let n = count.max_n();
        if c.count.is_none() && n <= 1 {
            return Ok(());
        }
        rec.scope("vksort::sort", |rec| {
            items::record_count(ctx, &self.plan, rec, &c, n)?;
            self.record_passes(rec, &c, &count)
        })
    }

    fn record_passes(&self, rec: &mut Recorder, c: &Checked, count: &Count) -> Result<()> {
        let n = count.max_n();
        let p = &self.policy;
        if n <= p.single_capacity() {
            let wg = (n.div_ceil(p.items_per_invocation as u64) as u32)
                .next_power_of_two()
                .max(self.plan.max)
                .min(p.single_max_workgroup);
            return tile::record(self, rec, c, count, wg, 0, 1);
        }
        let tile = p.tile();
        let tiles = n.div_ceil(tile) as u32;
        tile::record(self, rec, c, count, p.workgroup_size, 0, tiles)?;
        rec.barrier();
        let top = n.next_power_of_two();
        let mut k = 2 * tile;
        while k <= top {
            global::record_stage(self, rec, c, count, k, tile)?;
            tile::record(self, rec, c, count, p.workgroup_size, k as u32, tiles)?;
            rec.barrier();
            k *= 2;
        }
        Ok(())
    }
}

impl ItemsFamily for BitonicSort {
    const ALGORITHM: SortAlgorithm = SortAlgorithm::Bitonic;

    fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    fn items(&self) -> &Items {
        &self.items
    }

    fn max_keys(&self) -> u64 {
        MAX_KEYS
    }

    fn scratch_bytes(&self, _: u64) -> u64 {
        items::CONTROL_BYTES
    }

    fn plan_sizes(&self, max_n: u64) -> Vec<u64> {
        let p = &self.policy;
        items::planning_sizes(max_n, &[p.single_capacity(), p.tile()])
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
        if n <= p.single_capacity() {
            return vec![PassModel::new("vksort::bitonic::tile", 1, kv, kv, 10.0)];
        }
        let stages = (n.next_power_of_two() / p.tile()).trailing_zeros();
        let fuse = p.global_fuse.max(1);
        let globals: u32 = (1..=stages).map(|s| s.div_ceil(fuse)).sum();
        vec![
            PassModel::new("vksort::bitonic::tile", 1, kv, kv, 6.0 * 11.0),
            // About half the pairs swap on random keys: the keys are read, the swapped pairs written.
            PassModel::new(
                "vksort::bitonic::global",
                globals,
                globals as f64 * (nf * k + nf * v / 2.0),
                globals as f64 * kv / 2.0,
                globals as f64,
            ),
            PassModel::new(
                "vksort::bitonic::merge",
                stages,
                stages as f64 * kv,
                stages as f64 * kv,
                stages as f64 * 11.0,
            ),
        ]
    }
}
