//! Bitonic sort (Batcher's network): not stable (values stay with their keys), in place on the caller's buffers
//! (the scratch holds only the control block), positions from n to the next power of two virtual +infinity
//! (`glsl/include/bitonic.glsl`). Up to [`BitonicPolicy::single_capacity`] keys one `tile` pass in one
//! workgroup; beyond, `tile` sorts every tile, then each merge stage runs its long strides in `global` passes and
//! its short ones in a `merge` pass. docs/architecture.md ("The bitonic sort") has the passes and their bytes.

pub mod policy;

pub use policy::BitonicPolicy;

use crate::error::Result;
use crate::gpu::{Context, Kernel, Recorder};
use crate::policy::{Policy as _, SubgroupPlan};
use crate::shaders::{bitonic_global, bitonic_tile, ShaderId, Spec};
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::{Family, Overrides, SortBuffers};
use crate::sort::config::SortConfig;
use crate::sort::count::Count;
use crate::sort::items::{self, Checked, ItemPush, Items, ItemsFamily};
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

    /// The local form (one workgroup), or the tile pass then per merge stage its global and merge passes.
    fn record_passes(&self, rec: &mut Recorder, c: &Checked, count: &Count) -> Result<()> {
        let (ctx, p, n) = (rec.ctx(), &self.policy, count.max_n());
        if n <= p.single_capacity() {
            let wg = (n.div_ceil(p.items_per_invocation as u64) as u32)
                .next_power_of_two()
                .max(self.plan.max)
                .min(p.single_max_workgroup);
            let k = self.tile_kernel(ctx, wg)?;
            return self.tile_pass(rec, &k, c, count, 0, 1);
        }
        let tile = p.tile();
        let tiles = n.div_ceil(tile) as u32;
        let k = self.tile_kernel(ctx, p.workgroup_size)?;
        self.tile_pass(rec, &k, c, count, 0, tiles)?;
        rec.barrier();
        let fuse = Spec::new().with(bitonic_global::FUSE, p.global_fuse);
        let wg = p.global_workgroup_size;
        let global = self.kernel(ctx, bitonic_global::SHADER, false, wg, fuse)?;
        let mut stage = 2 * tile;
        while stage <= n.next_power_of_two() {
            self.global_stage(rec, &global, c, count, stage, tile)?;
            self.tile_pass(rec, &k, c, count, stage as u32, tiles)?;
            rec.barrier();
            stage *= 2;
        }
        Ok(())
    }

    /// A kernel of the bitonic sort: `shader` with workgroup size `wg`, the items' constants and `spec`.
    fn kernel(
        &self,
        ctx: &Context,
        shader: ShaderId,
        tagged: bool,
        wg: u32,
        spec: Spec,
    ) -> Result<Arc<Kernel>> {
        items::kernel(ctx, &self.plan, &self.items, tagged, shader, wg, spec)
    }

    /// The tile pass's kernel with `wg` invocations.
    fn tile_kernel(&self, ctx: &Context, wg: u32) -> Result<Arc<Kernel>> {
        let spec = Spec::new().with(bitonic_tile::KPT, self.policy.items_per_invocation);
        self.kernel(ctx, bitonic_tile::SHADER, self.tagged(), wg, spec)
    }

    /// One tile pass over `groups` tiles: `merge_k` 0 sorts each tile (`tile`), else runs the strides below the
    /// tile of merge stage `merge_k` (`merge`).
    fn tile_pass(
        &self,
        rec: &mut Recorder,
        kernel: &Kernel,
        c: &Checked,
        count: &Count,
        merge_k: u32,
        groups: u32,
    ) -> Result<()> {
        let label = match merge_k {
            0 => "vksort::bitonic::tile",
            _ => "vksort::bitonic::merge",
        };
        let push = TilePush {
            items: self.items.push(count),
            merge_k,
        };
        rec.pass(label, kernel)
            .bind(&[c.keys, c.values, c.meta])
            .push(&push)
            .groups(groups)
    }

    /// The global passes of merge stage `k`: strides k / 2 down to `tile`, `global_fuse` strides per pass (each
    /// invocation holds the 2^steps positions they connect and writes back the items that moved), each pass
    /// followed by a barrier.
    fn global_stage(
        &self,
        rec: &mut Recorder,
        kernel: &Kernel,
        c: &Checked,
        count: &Count,
        k: u64,
        tile: u64,
    ) -> Result<()> {
        let p = &self.policy;
        let mut log_j = (k / 2).trailing_zeros();
        let log_tile = tile.trailing_zeros();
        while log_j >= log_tile {
            let steps = p.global_fuse.min(log_j - log_tile + 1);
            let groups = invocations_below(count.max_n(), log_j + 1 - steps, steps);
            let push = GlobalPush {
                items: self.items.push(count),
                k: k as u32,
                log_j,
                steps,
                groups: groups as u32,
            };
            rec.pass("vksort::bitonic::global", kernel)
                .bind(&[c.keys, c.values, c.meta])
                .push(&push)
                .groups(groups.div_ceil(p.global_workgroup_size as u64) as u32)?;
            rec.barrier();
            if log_j < steps {
                break;
            }
            log_j -= steps;
        }
        Ok(())
    }
}

/// Invocations of a pass whose lowest stride bit is `lowbit` over `steps` strides that have a base position
/// below `n` (bases increase with the invocation index).
fn invocations_below(n: u64, lowbit: u32, steps: u32) -> u64 {
    let block = 1u64 << (lowbit + steps);
    ((n / block) << lowbit) + (n % block).min(1u64 << lowbit)
}

crate::gpu::push_block! {
    /// Push constants of `bitonic_tile`.
    pub struct TilePush {
        pub items: ItemPush,
        /// 0: sort each tile; else the merge stage whose strides below the tile run.
        pub merge_k: u32,
    }
}

crate::gpu::push_block! {
    /// Push constants of `bitonic_global`.
    pub struct GlobalPush {
        pub items: ItemPush,
        pub k: u32,
        /// The first stride is 1 << log_j.
        pub log_j: u32,
        /// Steps of this pass.
        pub steps: u32,
        /// Invocations whose base position is below the recorded n.
        pub groups: u32,
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
