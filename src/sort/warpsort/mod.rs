//! WarpSort (after Ye et al. 2010, "High performance comparison-based sorting algorithm on many-core GPUs"), the
//! warpsort family's backend of the sort front end: a stable comparison sort of every key type (u128 too), any
//! value width, ascending or descending, on bit ranges, with host or GPU-side counts.
//!
//! The unit of work is a group of `group_lanes` lanes (a subgroup, or an aligned slice of one): it sorts a
//! chunk and merges two sorted runs with subgroup shuffles only, without barriers or shared memory. Nothing
//! assumes a subgroup size: shaders read `gl_SubgroupSize` and the group size is a specialization constant, so
//! the same shaders run with 8 lanes (lavapipe), 32 (NVIDIA) and are written for 16, 64 and 128.
//!
//! # Passes (labels) and bytes moved per key (k = key bytes, v = value bytes)
//! 1. `vksort::warpsort::chunks`: each group sorts a chunk of `group_lanes x chunk_items_per_lane` keys in
//!    registers (bitonic network, tags = chunk positions: stable). k + v read and written.
//! 2. `vksort::warpsort::merge`, once per round: rows merged pairwise by one group each, with a window of 2t
//!    items in registers (t = `group_lanes x merge_items_per_lane`: merge, emit the lower t, refill from the
//!    run whose next item is smaller). Rounds continue until at most `split_rows` rows remain (the stop rule;
//!    fewer rounds when rows would outgrow the loop bound) or, for sorts below `split_min`, until one row
//!    remains. k + v read and written per round.
//! 3. Only when more than one row remains:
//!    - `vksort::warpsort::splitters` (one workgroup): samples K x P keys regularly from the sorted rows, sorts
//!      them by (key, position) and keeps every K-th as the P - 1 splitters;
//!    - `vksort::warpsort::positions`: per row and splitter, the split position (binary search; equal keys
//!      split by position, so pieces are contiguous in each row and follow the stable order);
//!    - `vksort::warpsort::offsets` (one workgroup): where each row's segment of each piece goes in the
//!      piece-major layout (a scan over the segments in (piece, row) order).
//! 4. `vksort::warpsort::pieces`, ceil(log2(rows)) rounds: the segments of each piece are merged pairwise
//!    (the same window merge, one group per piece and pair), round 0 from the row-major layout, later rounds
//!    from the piece-major one. k + v read and written per round.
//!
//! Values never enter a network: every pass tags items with their input position and gathers the value from
//! there when it writes. Ties go to the item with the smaller input position in every pass, which keeps the
//! sort stable. The chunk pass works in place on the caller's buffers when an even number of passes follows,
//! else it writes the scratch copy: passes alternate between the two, and the last always ends in the
//! caller's buffers (no copy pass).
//!
//! With a GPU-side count (`vksort::sort::count` first) the passes are those of the capacity; each reads n
//! from the control block, and every round still moves all n keys (a row or block without a partner is
//! copied), so the parity holds for any count.
//!
//! Loop bounds: lavapipe (llvmpipe's loop limiter) gives each shader invocation one budget of 65535 loop
//! iterations, shared by all its loops, nested or not (not 65535 per loop). A merge emitting m keys runs
//! ceil(m / t) + 1 window steps and no other loop (everything inside a step is unrolled in the SPIR-V, see
//! `warp_merge.glsl`); phase 2 stops growing rows at [`Plan::row_cap`], the pieces of regular sampling hold at
//! most (K + rows) x ceil(n / (K x P)) keys, and sorts whose pieces could exceed [`policy::MAX_MERGE_STEPS`]
//! window steps are refused ([`WarpSortPolicy::max_keys`], [`crate::Error::AlgorithmLimit`]: 58 M u32 keys
//! with lavapipe's policy, 344 M with a 32-lane GPU's). The other passes loop a few hundred times at most.
//!
//! # Scratch layout
//! The control block (1 KiB), then the ping-pong copy of the keys (n x k) and of the values (n x v), and, for
//! sorts that may split: the splitters ((P - 1) x (k + 4)), the positions (rows x (P + 1) u32) and the offsets
//! (P x (rows + 1) u32), sized by the most rows and pieces of any sort up to the capacity.

mod chunks;
mod merge;
mod offsets;
mod pieces;
pub mod policy;
mod positions;
mod splitters;

pub use policy::{Limits, Plan, WarpSortPolicy};

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

/// The warpsort family in the sort registry.
pub(crate) const FAMILY: Family = Family {
    name: "warpsort",
    algorithms: &[SortAlgorithm::WarpSort],
    supports: |_| None,
    new: |ctx, config, overrides, _| Ok(Box::new(WarpSort::new(ctx, config, overrides)?)),
    parse_overrides: |ctx, config, spec, overrides| {
        overrides.set(WarpSortPolicy::for_sort(ctx.caps(), config.key).with_overrides(spec)?);
        Ok(())
    },
};

/// Keys and values of one side of the ping-pong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Side {
    pub keys: Region,
    pub vals: Region,
}

/// The scratch regions of a sort (offset, bytes).
#[derive(Clone, Copy, Debug)]
struct Layout {
    total: u64,
    keys: (u64, u64),
    vals: (u64, u64),
    split: (u64, u64),
    pos: (u64, u64),
    off: (u64, u64),
}

/// WarpSort behind a [`crate::sort::Sorter`].
pub struct WarpSort {
    pub(crate) ctx: Arc<Context>,
    pub policy: WarpSortPolicy,
    pub(crate) plan: SubgroupPlan,
    pub(crate) items: Items,
    max_keys: u64,
}

impl WarpSort {
    /// WarpSort for `config`, with a [`WarpSortPolicy`] from `overrides` or the device's.
    pub(crate) fn new(
        ctx: &Arc<Context>,
        config: &SortConfig,
        overrides: &Overrides,
    ) -> Result<Self> {
        let (items, policy, plan) = items::family_parts(
            ctx,
            config,
            overrides,
            |caps, items| WarpSortPolicy::for_device(caps, items.key_words),
            |p, caps, items| p.check(&Limits::of(caps), items.key_words),
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            max_keys: policy.max_keys(),
            policy,
            plan,
            items,
        })
    }

    /// The passes a sort of `n` keys records (the capacity's for a GPU-side count).
    pub fn sort_plan(&self, n: u64) -> Result<Plan> {
        self.policy.plan(n)
    }

    /// The most keys one sort takes with this policy (the merge loops' bound).
    pub fn max_keys(&self) -> u64 {
        self.max_keys
    }

    /// Workgroups that hold `groups` groups.
    pub(crate) fn workgroups(&self, groups: u64) -> u32 {
        let per = (self.policy.workgroup_size / self.policy.group_lanes) as u64;
        groups.div_ceil(per) as u32
    }

    /// The scratch layout of sorts of up to `n` keys (monotone in n: the layout for the capacity holds every
    /// smaller sort's).
    fn layout(&self, n: u64) -> Layout {
        let mut r = Regions::after_control(&self.ctx);
        let keys = r.take(self.items.key_bytes(n));
        let vals = r.take(self.items.val_bytes(n));
        let p = &self.policy;
        let (split, pos, off) = if p.may_split(n) {
            let pieces = p.pieces_bound(n);
            let rows = p.rows_bound(n);
            (
                r.take((pieces - 1).max(1) * (self.items.key_words as u64 + 1) * 4),
                r.take(rows * (pieces + 1) * 4),
                r.take(pieces * (rows + 1) * 4),
            )
        } else {
            (r.take(0), r.take(0), r.take(0))
        };
        Layout {
            total: r.total,
            keys,
            vals,
            split,
            pos,
            off,
        }
    }

    fn cmd_sort(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()> {
        let ctx = rec.ctx();
        let n = count.max_n();
        let layout = self.layout(n);
        let c = items::check(
            ctx,
            &self.items,
            "warpsort",
            self.max_keys,
            &buffers,
            &count,
            layout.total,
        )?;
        let plan = self.policy.plan(n)?;
        if c.count.is_none() && n <= 1 {
            return Ok(());
        }
        rec.scope("vksort::sort", |rec| {
            items::record_count(ctx, &self.plan, rec, &c, n)?;
            self.record_passes(rec, &c, &count, &plan, &layout)
        })
    }

    fn record_passes(
        &self,
        rec: &mut Recorder,
        c: &Checked,
        count: &Count,
        plan: &Plan,
        layout: &Layout,
    ) -> Result<()> {
        let region = |(off, bytes): (u64, u64)| c.scratch.slice(off, bytes);
        let caller = Side {
            keys: c.keys,
            vals: c.values,
        };
        let copy = Side {
            keys: region(layout.keys),
            vals: if self.items.val_words > 0 {
                region(layout.vals)
            } else {
                c.meta
            },
        };
        let other = |s: Side| if s == caller { copy } else { caller };
        let mut cur = if plan.chunks_in_place { caller } else { copy };
        chunks::record(self, rec, c, count, plan.chunks, caller, cur)?;
        for round in 1..=plan.merge_rounds {
            rec.barrier();
            let next = other(cur);
            let row_len = plan.chunk << (round - 1);
            merge::record(
                self,
                rec,
                c,
                count,
                row_len,
                plan.merge_pairs(round),
                cur,
                next,
            )?;
            cur = next;
        }
        if plan.pieces > 0 {
            let (split, pos, off) = (region(layout.split), region(layout.pos), region(layout.off));
            rec.barrier();
            splitters::record(self, rec, c, count, plan.pieces, cur.keys, split)?;
            rec.barrier();
            positions::record(self, rec, c, count, plan, cur.keys, split, pos)?;
            rec.barrier();
            offsets::record(self, rec, plan, pos, off)?;
            for q in 0..plan.piece_rounds {
                rec.barrier();
                let next = other(cur);
                pieces::record(self, rec, c, count, plan, q, cur, next, [pos, off])?;
                cur = next;
            }
        }
        debug_assert!(cur == caller, "the last pass ends in the caller's buffers");
        Ok(())
    }
}

impl ItemsFamily for WarpSort {
    const ALGORITHM: SortAlgorithm = SortAlgorithm::WarpSort;

    fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    fn items(&self) -> &Items {
        &self.items
    }

    fn max_keys(&self) -> u64 {
        self.max_keys
    }

    fn scratch_bytes(&self, max_n: u64) -> u64 {
        self.layout(max_n).total
    }

    fn plan_sizes(&self, max_n: u64) -> Vec<u64> {
        let p = &self.policy;
        items::planning_sizes(
            max_n,
            &[p.chunk(), 2 * p.chunk(), p.split_min, Plan::row_cap(p)],
        )
    }

    fn record_sort(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()> {
        self.cmd_sort(rec, buffers, count)
    }

    fn model_passes(&self, n: u64) -> Vec<PassModel> {
        let Ok(plan) = self.policy.plan(n) else {
            return Vec::new();
        };
        let k = (self.items.key_words * 4) as f64;
        let v = (self.items.val_words * 4) as f64;
        let nf = n as f64;
        let kv = nf * (k + v);
        let log = |x: u64| (x.max(2) as f64).log2();
        let c = log(plan.chunk);
        // Compare-exchanges per key: log2(c)(log2(c) + 1) / 2 in the chunk network; a window step runs
        // 1 + 2 log2(t) comparator steps of t comparators and emits t keys.
        let merge_ops = 1.0 + 2.0 * log(plan.window);
        let mut v_out = vec![PassModel::new(
            "vksort::warpsort::chunks",
            1,
            kv,
            kv,
            c * (c + 1.0) / 2.0,
        )];
        if plan.merge_rounds > 0 {
            let r = plan.merge_rounds;
            v_out.push(PassModel::new(
                "vksort::warpsort::merge",
                r,
                r as f64 * kv,
                r as f64 * kv,
                r as f64 * merge_ops,
            ));
        }
        if plan.pieces > 0 {
            let (rows, pieces) = (plan.rows as f64, plan.pieces as f64);
            let sample = pieces * plan.oversampling as f64;
            v_out.push(PassModel::new(
                "vksort::warpsort::splitters",
                1,
                sample * k,
                (pieces - 1.0) * (k + 4.0),
                sample * log(sample as u64).powi(2) / 2.0 / nf,
            ));
            v_out.push(PassModel::new(
                "vksort::warpsort::positions",
                1,
                rows * pieces * log(plan.row_len) * k,
                rows * (pieces + 1.0) * 4.0,
                rows * pieces * log(plan.row_len) / nf,
            ));
            v_out.push(PassModel::new(
                "vksort::warpsort::offsets",
                1,
                2.0 * rows * (pieces + 1.0) * 4.0,
                pieces * (rows + 1.0) * 4.0,
                rows * pieces / nf,
            ));
            let q = plan.piece_rounds;
            v_out.push(PassModel::new(
                "vksort::warpsort::pieces",
                q,
                q as f64 * (kv + 8.0 * pieces * rows),
                q as f64 * kv,
                q as f64 * merge_ops,
            ));
        }
        v_out
    }
}
