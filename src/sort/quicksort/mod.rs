//! GPU quicksort after Cederman and Tsigas ("A Practical Quicksort Algorithm for Graphics Processors", 2008):
//! not stable (values stay with their keys); every key type, values of 0, 4 or 8 bytes, both orders, bit ranges,
//! host and GPU-side counts; the sorted keys land in the caller's buffers. Phase one splits long sequences two
//! ways across workgroups in rounds planned on the GPU (indirect dispatches); phase two sorts each short sequence
//! in one workgroup (three-way partitions, shared-memory tiles, a bitonic fallback past a depth limit).
//! Algorithm, passes and bytes per key: docs/architecture.md, "Quicksort"; the scratch: [`layout`].

pub mod layout;
pub mod policy;

pub use policy::{PivotMode, QuicksortPolicy};

use crate::error::{Error, Result};
use crate::gpu::{push_block, Context, Kernel, Recorder, Region};
use crate::policy::{Policy as _, SubgroupPlan};
use crate::shaders::{ShaderId, Spec};
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::Family;
use crate::sort::backend::{Overrides, SortBuffers};
use crate::sort::config::SortConfig;
use crate::sort::count::Count;
use crate::sort::items::{self, ItemPush, Items, ItemsFamily};
use crate::workload::PassModel;
use ash::vk;
use layout::{Layout, RS_WORDS};
use std::sync::Arc;

/// The most keys a quicksort takes (positions are u32; the fallback network spans the next power of two).
pub const MAX_KEYS: u64 = 1 << 31;

/// Usage flags the quicksort's scratch needs: storage, and indirect arguments (the rounds' grids).
pub const SCRATCH_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw() | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw(),
);

/// The quicksort family in the sort registry.
pub(crate) const FAMILY: Family = Family {
    name: "quicksort",
    algorithms: &[SortAlgorithm::Quicksort],
    supports: |_| None,
    new: |ctx, config, overrides, _| Ok(Box::new(QuicksortSort::new(ctx, config, overrides)?)),
    parse_overrides: |ctx, config, spec, overrides| {
        overrides.set(QuicksortPolicy::for_config(ctx.caps(), config)?.with_overrides(spec)?);
        Ok(())
    },
};

/// The quicksort behind a [`crate::sort::Sorter`].
pub struct QuicksortSort {
    pub(crate) ctx: Arc<Context>,
    pub policy: QuicksortPolicy,
    pub(crate) plan: SubgroupPlan,
    pub(crate) items: Items,
}

push_block! {
    /// Push constants of the bounds, partition and local passes (`QS_PUSH` of quicksort.glsl).
    pub struct QsPush {
        pub items: ItemPush,
        /// The phase-one round (partition).
        pub rnd: u32,
        /// Phase-one rounds recorded.
        pub rounds: u32,
        pub local_max: u32,
        /// [`PivotMode`] as u32.
        pub pivot_mode: u32,
        /// `maxComputeWorkGroupCount[0]`: the x of the indirect grids the passes write.
        pub max_x: u32,
        pub smax: u32,
        pub bmax: u32,
        pub qmax: u32,
        /// Word offsets of the bookkeeping in the `meta` binding (see [`layout`]).
        pub seq_off: u32,
        pub bmap_off: u32,
        pub rec_off: u32,
        pub queue_off: u32,
        pub rs_off: u32,
        /// 1: the local pass sorts the whole input in one workgroup (no queue).
        pub direct: u32,
        pub depth_limit: u32,
        /// Keys of a phase-one block.
        pub block: u32,
    }
}

push_block! {
    /// Push constants of `quicksort_setup`.
    pub struct SetupPush {
        pub rs_off: u32,
        pub words: u32,
    }
}

/// The five bindings of the bounds, partition and local passes, and the scratch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bound {
    pub keys0: Region,
    pub vals0: Region,
    pub keys1: Region,
    pub vals1: Region,
    pub meta: Region,
    pub scratch: Region,
}

impl Bound {
    pub fn all(&self) -> [Region; 5] {
        [self.keys0, self.vals0, self.keys1, self.vals1, self.meta]
    }
}

impl QuicksortSort {
    /// The quicksort for `config`, with a [`QuicksortPolicy`] from `overrides` or the device's.
    pub(crate) fn new(
        ctx: &Arc<Context>,
        config: &SortConfig,
        overrides: &Overrides,
    ) -> Result<Self> {
        let (items, policy, plan) = items::family_parts(
            ctx,
            config,
            overrides,
            QuicksortPolicy::for_items,
            |p, caps, items| p.check(caps, items),
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            policy,
            plan,
            items,
        })
    }

    /// Keys of the sample whose median is phase one's [`PivotMode::Sample`] pivot: one per invocation of the
    /// planning workgroup, key i at `start + i x step + hash(start ^ (i x 0x9e3779b9)) % step` with
    /// `step = len / sample_size` and `hash` the lowbias32 mix (glsl/sort/quicksort/quicksort.glsl `qs_hash`).
    pub fn sample_size(&self) -> u64 {
        self.policy.workgroup_size as u64
    }

    /// The scratch layout of a sort of up to `n` keys (diagnostics and tests read the bookkeeping through it).
    pub fn layout(&self, n: u64) -> Layout {
        Layout::new(&self.ctx, &self.policy, &self.items, n)
    }

    /// Whether items carry a tag (values travel: each is gathered from its tag's position).
    fn tagged(&self) -> bool {
        self.items.val_words > 0
    }

    /// A kernel of a phase-one pass (`local`: of phase two) on this sort's items.
    pub(crate) fn kernel(
        &self,
        ctx: &Context,
        shader: ShaderId,
        local: bool,
    ) -> Result<Arc<Kernel>> {
        use crate::shaders::quicksort_partition as sh;
        let p = &self.policy;
        let (wg, kpt) = if local {
            (p.local_workgroup_size, p.local_items_per_invocation)
        } else {
            (p.workgroup_size, p.items_per_invocation)
        };
        let spec = Spec::new().with(sh::KPT, kpt);
        items::kernel(
            ctx,
            &self.plan,
            &self.items,
            self.tagged(),
            shader,
            wg,
            spec,
        )
    }

    pub(crate) fn push(&self, count: &Count, lay: &Layout, rnd: u32, direct: bool) -> QsPush {
        let p = &self.policy;
        QsPush {
            items: self.items.push(count),
            rnd,
            rounds: lay.rounds,
            local_max: p.local_max,
            pivot_mode: p.pivot as u32,
            max_x: self.ctx.caps().max_workgroup_count[0].max(1),
            smax: lay.smax,
            bmax: lay.bmax,
            qmax: lay.qmax,
            seq_off: lay.seq_off,
            bmap_off: lay.bmap_off,
            rec_off: lay.rec_off,
            queue_off: lay.queue_off,
            rs_off: lay.rs_off,
            direct: direct as u32,
            depth_limit: p.local_depth_limit,
            block: p.block() as u32,
        }
    }

    fn cmd_sort(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()> {
        let ctx = rec.ctx();
        let n = count.max_n();
        let lay = self.layout(n);
        let c = items::check(
            ctx,
            &self.items,
            "quicksort",
            MAX_KEYS,
            &buffers,
            &count,
            lay.total,
        )?;
        buffers
            .scratch
            .check(ctx, "scratch", lay.total, SCRATCH_USAGE)?;
        let caps = ctx.caps();
        if lay.meta_bytes > caps.max_storage_buffer_range {
            return Err(Error::TooLarge {
                n,
                max: caps.max_storage_buffer_range / lay.meta_bytes.div_ceil(n.max(1)).max(1),
                limit: "one storage-buffer binding (the quicksort's sequence records)",
            });
        }
        let grid = caps.max_workgroup_count[0].max(1) as u64 * caps.max_workgroup_count[1] as u64;
        let most = (lay.bmax as u64).max(lay.qmax as u64);
        if most > grid {
            return Err(Error::GridTooLarge {
                groups: most,
                max: grid,
            });
        }
        if c.count.is_none() && n <= 1 {
            return Ok(());
        }
        let meta = c.scratch.slice(0, lay.meta_bytes);
        let aux = |(off, bytes): (u64, u64)| c.scratch.slice(off, bytes);
        let b = Bound {
            keys0: c.keys,
            vals0: if self.items.val_words > 0 {
                c.values
            } else {
                meta
            },
            keys1: aux(lay.aux_keys),
            vals1: if self.items.val_words > 0 {
                aux(lay.aux_vals)
            } else {
                meta
            },
            meta,
            scratch: c.scratch,
        };
        rec.scope("vksort::sort", |rec| {
            items::record_count(ctx, &self.plan, rec, &c, n)?;
            self.record_passes(rec, &b, &lay, &count)
        })
    }

    /// The passes after the count: `local` alone (direct) for a sort of at most `local_max` keys, else `setup`,
    /// `bounds`, the partition rounds and `local` over the queued jobs (indirect).
    fn record_passes(
        &self,
        rec: &mut Recorder,
        b: &Bound,
        lay: &Layout,
        count: &Count,
    ) -> Result<()> {
        use crate::shaders::{
            quicksort_bounds, quicksort_local, quicksort_partition, quicksort_setup,
        };
        let ctx = rec.ctx();
        let args = |round: u32| b.scratch.slice(lay.args_offset(round), 12);
        if lay.rounds == 0 {
            let k = self.kernel(ctx, quicksort_local::SHADER, true)?;
            return rec
                .pass("vksort::quicksort::local", &k)
                .bind(&b.all())
                .push(&self.push(count, lay, 0, true))
                .groups(1);
        }
        let wg = self.plan.workgroup_size(ctx.caps(), 64);
        let k = self
            .plan
            .kernel(ctx, quicksort_setup::SHADER, wg, Spec::new())?;
        let words = ((lay.rounds as u64 + 1) * RS_WORDS) as u32;
        rec.pass("vksort::quicksort::setup", &k)
            .bind(&[b.meta])
            .push(&SetupPush {
                rs_off: lay.rs_off,
                words,
            })
            .groups(1)?;
        rec.barrier();
        let k = self.kernel(ctx, quicksort_bounds::SHADER, false)?;
        rec.pass("vksort::quicksort::bounds", &k)
            .bind(&b.all())
            .push(&self.push(count, lay, 0, false))
            .groups(count.max_n().div_ceil(self.policy.block()) as u32)?;
        rec.barrier();
        for r in 0..lay.rounds {
            let k = self.kernel(ctx, quicksort_partition::SHADER, false)?;
            rec.pass("vksort::quicksort::partition", &k)
                .bind(&b.all())
                .push(&self.push(count, lay, r, false))
                .indirect(args(r))?;
            rec.barrier();
        }
        let k = self.kernel(ctx, quicksort_local::SHADER, true)?;
        rec.pass("vksort::quicksort::local", &k)
            .bind(&b.all())
            .push(&self.push(count, lay, 0, false))
            .indirect(args(lay.rounds))
    }
}

impl ItemsFamily for QuicksortSort {
    const ALGORITHM: SortAlgorithm = SortAlgorithm::Quicksort;

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

    fn scratch_usage(&self) -> vk::BufferUsageFlags {
        SCRATCH_USAGE
    }

    fn plan_sizes(&self, max_n: u64) -> Vec<u64> {
        // Every size records the same kernels; planning a few sizes around the thresholds covers them all.
        let p = &self.policy;
        let lm = p.local_max as u64;
        items::planning_sizes(max_n, &[p.local_tile(), lm])
            .into_iter()
            .filter(|&n| n <= 2 || n == max_n || n == lm || n == lm + 1 || n == p.local_tile() + 1)
            .collect()
    }

    fn record_sort(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()> {
        self.cmd_sort(rec, buffers, count)
    }

    fn model_passes(&self, n: u64) -> Vec<PassModel> {
        let k = (self.items.key_words * 4) as f64;
        let v = (self.items.val_words * 4) as f64;
        let nf = n as f64;
        let kv = nf * (k + v);
        let p = &self.policy;
        let tile = p.local_tile() as f64;
        let lm = p.local_max as f64;
        // Phase two: partition levels from the job size down to a tile (count + scatter), then the tile sort.
        let local_levels = |len: f64| (len / tile).log2().ceil().max(0.0);
        let rounds = p.rounds(n);
        if rounds == 0 {
            let l = local_levels(nf);
            return vec![PassModel::new(
                "vksort::quicksort::local",
                1,
                kv + l * (nf * k + kv),
                kv + l * kv,
                12.0 + 4.0 * l,
            )];
        }
        // Rounds with work: perfect splits need ceil(log2(n / local_max)); the jobs then hold about local_max / 2
        // keys on average.
        let busy = (nf / lm).log2().ceil().max(1.0).min(rounds as f64);
        let l = local_levels(lm / 2.0);
        vec![
            PassModel::new("vksort::quicksort::setup", 1, 0.0, 64.0, 0.0),
            PassModel::new("vksort::quicksort::bounds", 1, nf * k, 64.0, 2.0),
            PassModel::new(
                "vksort::quicksort::partition",
                rounds,
                busy * kv,
                busy * kv,
                busy * 6.0,
            ),
            PassModel::new(
                "vksort::quicksort::local",
                1,
                kv + l * (nf * k + kv),
                kv + l * kv,
                12.0 + 4.0 * l,
            ),
        ]
    }
}
