//! The MSD sort for small inputs: `msd::differ` finds each split tile's key range, `msd::split` sorts each tile
//! on the split digit into the scratch with a run table, `msd::buckets` sorts each bucket into the caller's
//! buffers (large buckets shared by helpers). No workgroup waits on another but a large bucket's cooperating
//! helpers (bounded, with a fallback). docs/architecture.md "The radix sorts" has the passes in full.

use super::{Bindings, RadixPolicy, RadixSort, SmallPush, MSD_MAX_KEYS};
use crate::policy::SubgroupPlan;
use crate::error::Result;
use crate::gpu::{push_block, Kernel, Recorder};
use crate::shaders::{radix_msd_buckets as buckets_sh, radix_msd_split as split_sh, Spec};
use std::sync::Arc;

push_block! {
    /// Push constants of `radix_msd_split_*` and `radix_msd_differ`.
    pub struct SplitPush {
        pub count: SmallPush,
        /// Split tiles of the capacity: the run table's row length (u32 words).
        pub stride: u32,
        /// 1: the sort is one split tile, recorded without the differ pass.
        pub one_tile: u32,
    }
}

push_block! {
    /// Push constants of `radix_msd_buckets_*`.
    pub struct BucketsPush {
        pub lo: u32,
        pub key_kind: u32,
        pub flags: u32,
        /// The run table's row length.
        pub stride: u32,
        /// Keys per split tile.
        pub split_tile: u32,
        /// Helper workgroups dispatched before the 2^digit_bits bucket workgroups.
        pub helpers: u32,
        /// Diagnostics: the clock records' address, low word first ([`super::clocks::msd`]; 0: off).
        pub clocks: [u32; 2],
    }
}

/// The MSD sort's capacity.
impl RadixPolicy {
    /// The most keys the MSD sort takes on a device whose invocations may run at most `loop_budget` loop
    /// iterations in all (0: no limit) for keys of `bits` bits with `shared` bytes of shared memory:
    /// `MSD_MAX_KEYS` (2^20), lowered below the first count at which one bucket holding every key would need more.
    /// Such a bucket (keys that no sample splits, e.g. all but a few equal above the low bits) is one helper's
    /// share: the helper reads it twice in parts to move it into place, then sorts it through global memory
    /// on the places below the split digit ([`Self::range_loops`], two places more for the moves, plus the
    /// run-table walk per part).
    pub fn msd_capacity_within(
        &self,
        plan: &SubgroupPlan,
        bits: u32,
        shared: u64,
        loop_budget: u32,
    ) -> u64 {
        if loop_budget == 0 {
            return MSD_MAX_KEYS;
        }
        let wg = self.msd_bucket.workgroup_size.max(1);
        let d = self.tile.digit_bits.max(1);
        let places = bits.saturating_sub(d).div_ceil(d);
        let loops = |n: u64| {
            let kpt = self.msd_bucket_items_per_invocation(plan, n, shared);
            let parts = n.div_ceil(wg as u64 * kpt as u64);
            let tiles = n.div_ceil(self.msd_split_tile().max(1) as u64);
            self.range_loops(wg, kpt, places + 2, plan.min, n)
                + 4 * parts * tiles.div_ceil(wg as u64)
        };
        // Counts in steps of 1/16 of each power of two: the kept count is the last before the first over.
        let mut last = 0;
        for k in 4..MSD_MAX_KEYS.trailing_zeros() {
            for j in 0..16u64 {
                let n = (1u64 << k) + j * (1u64 << k) / 16;
                if loops(n) > loop_budget as u64 {
                    return last;
                }
                last = n;
            }
        }
        if loops(MSD_MAX_KEYS) > loop_budget as u64 {
            last
        } else {
            MSD_MAX_KEYS
        }
    }
}

impl RadixSort {
    /// The most keys this sorter's MSD sort takes: [`super::MSD_MAX_KEYS`], within the device's loop budget
    /// (lavapipe: a bucket of every key must be sortable by one workgroup within it;
    /// [`super::RadixPolicy::msd_capacity_within`]).
    pub fn msd_max_keys(&self) -> u64 {
        let budget = crate::tuning::for_class(self.ctx.caps().class)
            .radix
            .loop_budget;
        let shared = self.ctx.caps().max_shared_memory as u64;
        self.policy
            .msd_capacity_within(&self.plan, self.hi - self.lo, shared, budget)
    }
}

/// The MSD sort's kernels for one size, and its grid.
struct MsdKernels {
    split: Arc<Kernel>,
    buckets: Arc<Kernel>,
    /// The differ pass (none for one split tile).
    differ: Option<Arc<Kernel>>,
    split_tile: u32,
    tiles: u32,
    helpers: u32,
}

/// The kernels of a sort of `b.max_n` keys (one split tile: no differ pass).
fn kernels(s: &RadixSort, b: &Bindings) -> Result<MsdKernels> {
    let p = &s.policy;
    let split_kpt = p.msd_split_items_per_invocation(b.max_n);
    let split_tile = p.msd_split.workgroup_size * split_kpt;
    let split_shader = if p.msd.partitioned {
        split_sh::PARTITIONED
    } else {
        split_sh::BALLOT
    };
    let split = s.kernel(
        split_shader,
        p.msd_split.workgroup_size,
        s.rank_spec(split_kpt),
    )?;
    let bucket_kpt =
        p.msd_bucket_items_per_invocation(&s.plan, b.max_n, s.ctx.caps().max_shared_memory as u64);
    let helpers = p.msd_helpers(b.max_n, bucket_kpt);
    // COOP_MIN: cooperating helpers only where the tables hold a row for each.
    let coop = if helpers as u64 <= b.layout.msd_coop_rows {
        p.msd.coop_min_keys
    } else {
        0
    };
    let bucket_spec = s
        .rank_spec(bucket_kpt)
        .with(buckets_sh::RANK_MAX, p.msd.rank_max)
        .with(buckets_sh::MAX_TILES, p.msd_max_tiles() as u32)
        .with(buckets_sh::COOP_MIN, coop)
        .with(buckets_sh::COOP_SPIN, p.lookback.spin_limit)
        .with(buckets_sh::COOP_STALL, s.debug.stall_every);
    let bucket_shader = match (p.msd.partitioned, s.debug.msd_clocks != 0) {
        (false, false) => buckets_sh::BALLOT,
        (true, false) => buckets_sh::PARTITIONED,
        (false, true) => buckets_sh::BALLOT_CLOCK,
        (true, true) => buckets_sh::PARTITIONED_CLOCK,
    };
    let buckets = s.kernel(bucket_shader, p.msd_bucket.workgroup_size, bucket_spec)?;
    let tiles = b.max_n.max(1).div_ceil(split_tile as u64) as u32;
    let differ = if tiles > 1 {
        use crate::shaders::radix_msd_differ as differ_sh;
        let spec = Spec::new()
            .with(differ_sh::KPT, split_kpt)
            .with(differ_sh::KEY_WORDS, s.key_words)
            .with(differ_sh::DIGIT_BITS, p.tile.digit_bits);
        Some(s.kernel(differ_sh::SHADER, p.msd_split.workgroup_size, spec)?)
    } else {
        None
    };
    Ok(MsdKernels {
        split,
        buckets,
        differ,
        split_tile,
        tiles,
        helpers,
    })
}

/// Records the MSD sort: the differ pass (several split tiles), the split pass and the bucket pass.
pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    let k = kernels(s, b)?;
    let (count, _) = b.count.unwrap_or((b.meta, 0));
    let stride = b.layout.msd_stride as u32;
    let (va, vb) = b.vals();
    // Without values the meta region stands in for the second scratch's values (never touched).
    let mv = if b.values.is_some() {
        b.msd_values
    } else {
        b.meta
    };
    let split_push = |one_tile: bool| SplitPush {
        count: s.count_push(b),
        stride,
        one_tile: one_tile as u32,
    };
    if let Some(differ) = &k.differ {
        rec.pass("vksort::radix::msd::differ", differ)
            .bind(&[b.keys, count, b.meta, b.msd_tables])
            .push(&split_push(false))
            .groups(k.tiles)?;
        rec.barrier();
    }
    rec.pass("vksort::radix::msd::split", &k.split)
        .bind(&[b.keys, va, b.alt_keys, vb, count, b.meta, b.msd_tables])
        .push(&split_push(k.differ.is_none()))
        .groups(k.tiles)?;
    rec.barrier();
    let clocks = s.debug.msd_clocks;
    let push = BucketsPush {
        lo: s.lo,
        key_kind: s.key.kind(),
        flags: s.flags(),
        stride,
        split_tile: k.split_tile,
        helpers: k.helpers,
        clocks: [clocks as u32, (clocks >> 32) as u32],
    };
    let buckets = [
        b.keys,
        va,
        b.alt_keys,
        vb,
        b.meta,
        b.msd_keys,
        mv,
        b.msd_tables,
    ];
    rec.pass("vksort::radix::msd::buckets", &k.buckets)
        .bind(&buckets)
        .push(&push)
        .groups(s.policy.radix() + k.helpers)
}
