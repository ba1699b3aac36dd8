//! WarpSort (after Ye et al. 2010, "High performance comparison-based sorting algorithm on many-core GPUs"): a
//! stable comparison sort of every key type, value width and order, on bit ranges, with host or GPU-side counts.
//! Groups of `group_lanes` lanes (a subgroup or an aligned slice of one) sort chunks in registers, merge rows
//! pairwise with subgroup shuffles only, then, past a few rows, cut the rows into pieces at sampled splitters and
//! merge each piece. Passes alternate between the caller's buffers and a scratch copy, ending in the caller's.
//! Passes, bytes per key, loop bounds and the scratch layout: docs/architecture.md, "WarpSort".

pub mod policy;

pub use policy::{Limits, Plan, WarpSortPolicy, WarpSortSample, WarpSortSplit};

use crate::error::Result;
use crate::gpu::{push_block, Context, Kernel, Recorder, Region};
use crate::policy::{Policy as _, SubgroupPlan};
use crate::shaders::{ShaderId, Spec};
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::Family;
use crate::sort::backend::{Overrides, SortBuffers};
use crate::sort::config::SortConfig;
use crate::sort::count::Count;
use crate::sort::items::{self, Checked, ItemPush, Items, ItemsFamily, Regions};
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

push_block! {
    /// Push constants of `warpsort_merge`.
    pub(crate) struct MergePush {
        pub items: ItemPush,
        /// Keys of an input row.
        pub row_len: u32,
    }
}

push_block! {
    /// Push constants of `warpsort_splitters`.
    pub(crate) struct SplittersPush {
        pub items: ItemPush,
        /// K x P (a power of two).
        pub samples: u32,
        pub log_samples: u32,
        /// K.
        pub oversampling: u32,
    }
}

push_block! {
    /// Push constants of `warpsort_positions`.
    pub(crate) struct PositionsPush {
        pub items: ItemPush,
        pub row_len: u32,
        pub rows: u32,
        pub pieces: u32,
    }
}

push_block! {
    /// Push constants of `warpsort_offsets`.
    pub(crate) struct OffsetsPush {
        pub rows: u32,
        pub pieces: u32,
        /// Segments each invocation scans.
        pub per: u32,
    }
}

push_block! {
    /// Push constants of `warpsort_pieces`.
    pub(crate) struct PiecesPush {
        pub items: ItemPush,
        pub row_len: u32,
        pub rows: u32,
        pub pieces: u32,
        /// The round q: blocks of 2^q rows are merged pairwise.
        pub round: u32,
        /// Pairs per piece in this round.
        pub pairs: u32,
    }
}

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

/// What every pass of one sort shares: the checked buffers, the items' push constants, the two sides.
struct Passes<'c> {
    c: &'c Checked,
    items: ItemPush,
    caller: Side,
    copy: Side,
}

impl Passes<'_> {
    /// The side a pass reading `s` writes.
    fn other(&self, s: Side) -> Side {
        if s == self.caller {
            self.copy
        } else {
            self.caller
        }
    }

    /// The bindings of a data pass from `input` to `out`.
    fn sides(&self, input: Side, out: Side) -> [Region; 5] {
        [input.keys, input.vals, out.keys, out.vals, self.c.meta]
    }
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

    /// A kernel on this sort's items, tagged (values are gathered from their input position).
    fn kernel(&self, ctx: &Context, shader: ShaderId, wg: u32, spec: Spec) -> Result<Arc<Kernel>> {
        items::kernel(ctx, &self.plan, &self.items, true, shader, wg, spec)
    }

    /// The kernel of a window merge (`warpsort_merge`, `warpsort_pieces`: the same constants).
    fn window_kernel(&self, ctx: &Context, shader: ShaderId) -> Result<Arc<Kernel>> {
        use crate::shaders::warpsort_merge as sh;
        let p = &self.policy;
        let spec = Spec::new()
            .with(sh::GROUP_LANES, p.group_lanes)
            .with(sh::MPT, p.merge_items_per_invocation);
        self.kernel(ctx, shader, p.workgroup_size, spec)
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
        let copy = Side {
            keys: c.scratch.slice(layout.keys.0, layout.keys.1),
            vals: if self.items.val_words > 0 {
                c.scratch.slice(layout.vals.0, layout.vals.1)
            } else {
                c.meta
            },
        };
        let caller = Side {
            keys: c.keys,
            vals: c.values,
        };
        let passes = Passes {
            c: &c,
            items: self.items.push(&count),
            caller,
            copy,
        };
        rec.scope("vksort::sort", |rec| {
            items::record_count(ctx, &self.plan, rec, &c, n)?;
            let cur = self.record_merges(rec, &passes, &plan)?;
            let cur = self.record_split(rec, &passes, &plan, &layout, cur)?;
            debug_assert!(cur == caller, "the last pass ends in the caller's buffers");
            Ok(())
        })
    }

    /// Phases 1 and 2: the chunk sort, then the pairwise row merges. Returns the side holding the rows.
    fn record_merges(&self, rec: &mut Recorder, s: &Passes, plan: &Plan) -> Result<Side> {
        use crate::shaders::warpsort_chunks as sh;
        let (ctx, p) = (rec.ctx(), &self.policy);
        let mut cur = if plan.chunks_in_place {
            s.caller
        } else {
            s.copy
        };
        let spec = Spec::new()
            .with(sh::KPT, p.chunk_items_per_invocation)
            .with(sh::GROUP_LANES, p.group_lanes);
        let k = self.kernel(ctx, sh::SHADER, p.workgroup_size, spec)?;
        rec.pass("vksort::warpsort::chunks", &k)
            .bind(&s.sides(s.caller, cur))
            .push(&s.items)
            .groups(self.workgroups(plan.chunks))?;
        for round in 1..=plan.merge_rounds {
            rec.barrier();
            let next = s.other(cur);
            let k = self.window_kernel(ctx, crate::shaders::warpsort_merge::SHADER)?;
            let push = MergePush {
                items: s.items,
                row_len: (plan.chunk << (round - 1)) as u32,
            };
            rec.pass("vksort::warpsort::merge", &k)
                .bind(&s.sides(cur, next))
                .push(&push)
                .groups(self.workgroups(plan.merge_pairs(round)))?;
            cur = next;
        }
        Ok(cur)
    }

    /// Phases 3 and 4 (only when rows remain): splitters, split positions, piece offsets, then the piece
    /// merges. Returns the side holding the sorted keys.
    fn record_split(
        &self,
        rec: &mut Recorder,
        s: &Passes,
        plan: &Plan,
        layout: &Layout,
        cur: Side,
    ) -> Result<Side> {
        if plan.pieces == 0 {
            return Ok(cur);
        }
        let region = |(off, bytes): (u64, u64)| s.c.scratch.slice(off, bytes);
        let (split, pos, off) = (region(layout.split), region(layout.pos), region(layout.off));
        self.record_cuts(rec, s, plan, cur.keys, [split, pos, off])?;
        self.record_pieces(rec, s, plan, cur, [pos, off])
    }

    /// Phase 3: the splitters sampled from the rows in `keys`, each row's split positions, the pieces' offsets.
    fn record_cuts(
        &self,
        rec: &mut Recorder,
        s: &Passes,
        plan: &Plan,
        keys: Region,
        [split, pos, off]: [Region; 3],
    ) -> Result<()> {
        use crate::shaders::{warpsort_offsets, warpsort_positions, warpsort_splitters};
        let (ctx, p, meta) = (rec.ctx(), &self.policy, s.c.meta);
        let (rows, pieces) = (plan.rows as u32, plan.pieces as u32);
        let samples = plan.pieces * p.split.oversampling as u64;
        let spec = Spec::new().with(warpsort_splitters::KPT, p.sample.items_per_invocation);
        let swg = p.sample.workgroup_size;
        let k = self.kernel(ctx, warpsort_splitters::SHADER, swg, spec)?;
        let push = SplittersPush {
            items: s.items,
            samples: samples as u32,
            log_samples: samples.trailing_zeros(),
            oversampling: p.split.oversampling,
        };
        rec.barrier();
        rec.pass("vksort::warpsort::splitters", &k)
            .bind(&[keys, meta, split])
            .push(&push)
            .groups(1)?;
        let wg = p.split.scan_workgroup_size;
        let k = self.kernel(ctx, warpsort_positions::SHADER, wg, Spec::new())?;
        let push = PositionsPush {
            items: s.items,
            row_len: plan.row_len as u32,
            rows,
            pieces,
        };
        rec.barrier();
        rec.pass("vksort::warpsort::positions", &k)
            .bind(&[keys, meta, split, pos])
            .push(&push)
            .groups((plan.rows * (plan.pieces + 1)).div_ceil(wg as u64) as u32)?;
        let k = self
            .plan
            .kernel(ctx, warpsort_offsets::SHADER, wg, Spec::new())?;
        let per = (plan.rows * plan.pieces).div_ceil(wg as u64) as u32;
        rec.barrier();
        rec.pass("vksort::warpsort::offsets", &k)
            .bind(&[pos, off])
            .push(&OffsetsPush { rows, pieces, per })
            .groups(1)
    }

    /// Phase 4: the pieces' row segments merged pairwise, round by round. Returns the side holding the keys.
    fn record_pieces(
        &self,
        rec: &mut Recorder,
        s: &Passes,
        plan: &Plan,
        mut cur: Side,
        [pos, off]: [Region; 2],
    ) -> Result<Side> {
        for round in 0..plan.piece_rounds {
            rec.barrier();
            let next = s.other(cur);
            let k = self.window_kernel(rec.ctx(), crate::shaders::warpsort_pieces::SHADER)?;
            let pairs = plan.piece_pairs(round);
            let [a, b, d, e, meta] = s.sides(cur, next);
            let push = PiecesPush {
                items: s.items,
                row_len: plan.row_len as u32,
                rows: plan.rows as u32,
                pieces: plan.pieces as u32,
                round,
                pairs: pairs as u32,
            };
            rec.pass("vksort::warpsort::pieces", &k)
                .bind(&[a, b, d, e, meta, pos, off])
                .push(&push)
                .groups(self.workgroups(plan.pieces * pairs))?;
            cur = next;
        }
        Ok(cur)
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
            &[p.chunk(), 2 * p.chunk(), p.split.min_keys, Plan::row_cap(p)],
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
