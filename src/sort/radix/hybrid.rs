//! The MSD hybrid radix sort (after Stehle & Jacobsen, SIGMOD 2017): Onesweep over the top digit places leaves
//! each group of keys sharing those bits in one range; `hybrid::bounds` finds where each starts, and
//! `hybrid::local` sorts each group in one workgroup. docs/architecture.md "The radix sorts" has the bytes.

use super::{Bindings, Portions, RadixPolicy, RadixSort};
use crate::error::Result;
use crate::gpu::{push_block, Recorder};
use crate::sort::algorithm::SortAlgorithm;

/// Keys per invocation of the bounds pass.
const BOUNDS_KPT: u32 = 8;

push_block! {
    /// Push constants of `radix_hybrid_bounds`.
    pub struct BoundsPush {
        pub key_kind: u32,
        pub flags: u32,
        /// The starts table holds 2^groups_log2 + 1 entries.
        pub groups_log2: u32,
    }
}

push_block! {
    /// Push constants of `radix_hybrid_local`.
    pub struct LocalPush {
        pub lo: u32,
        pub key_kind: u32,
        pub flags: u32,
    }
}

/// The hybrid sort's shapes and capacity.
impl RadixPolicy {
    /// The most keys the hybrid sort takes: `hybrid.max` (u32::MAX: the radix sorts' 2^32 - 2^16).
    pub fn hybrid_capacity(&self) -> u64 {
        match self.hybrid.max {
            u32::MAX => super::MAX_KEYS,
            m => m as u64,
        }
    }

    /// An upper bound on the loop iterations one invocation of the hybrid sort's group pass runs when one
    /// workgroup sorts a group of `keys` keys through global memory on `places` digit places, in subgroups of
    /// at least `min_subgroup` invocations ([`RadixPolicy::range_loops`] at the hybrid shape). lavapipe's
    /// groups failed 10-25% above the count this puts at 65535 (measured at 64 x 4, 64 x 8, 32 x 4 and
    /// 128 x 16 with subgroups of 4 and 8; docs/tuning.md, hybrid_max).
    pub fn hybrid_range_loops(&self, places: u32, min_subgroup: u32, keys: u64) -> u64 {
        let h = &self.hybrid;
        self.range_loops(h.workgroup_size, h.items_per_invocation, places, min_subgroup, keys)
    }

    /// The most keys the hybrid sort takes on a device whose invocations may run at most `loop_budget` loop
    /// iterations in all (0: no limit) with subgroups of at least `min_subgroup`, for keys of `places` digit
    /// places over `bits` bits: [`RadixPolicy::hybrid_capacity`], lowered to below the first count at which
    /// one group holding every key would need more iterations ([`RadixPolicy::hybrid_range_loops`]). The group
    /// pass sorts every bit below the group bits (radix_plan.glsl: also those of the MSD places below them),
    /// so for the shape [`RadixPolicy::hybrid_geometry`] chooses, (places, g), a group has up to
    /// ceil((bits - g) / tile.digit_bits) places to sort.
    pub fn hybrid_capacity_within(
        &self,
        places: u32,
        bits: u32,
        min_subgroup: u32,
        loop_budget: u32,
    ) -> u64 {
        let cap = self.hybrid_capacity();
        if loop_budget == 0 || places < 2 {
            return cap;
        }
        const TOP: u64 = 1 << 40;
        // The smallest n in [1, TOP] with `f(n)` (false below it, true from it on), TOP + 1 if none.
        let first = |f: &dyn Fn(u64) -> bool| {
            let (mut lo, mut hi) = (1u64, TOP + 1);
            while lo < hi {
                let m = lo + (hi - lo) / 2;
                if f(m) {
                    hi = m;
                } else {
                    lo = m + 1;
                }
            }
            lo
        };
        let d = self.tile.digit_bits.max(1);
        // A group's places: fewer as the count grows (the group bits g only grow).
        let group_places = |n: u64| (bits - self.hybrid_geometry(places, bits, n).1).div_ceil(d);
        // Within the counts of one group place count the loops grow with the count: the first count over the
        // budget is the earliest such over these ranges, from the most places down.
        for gp in (1..=places).rev() {
            let start = first(&|n| group_places(n) <= gp);
            let end = first(&|n| group_places(n) < gp);
            if start >= end {
                continue;
            }
            let over =
                first(&|n| self.hybrid_range_loops(gp, min_subgroup, n) > loop_budget as u64);
            if over < end {
                return cap.min(over.max(start) - 1);
            }
        }
        cap
    }

    /// Keys per group tile of the hybrid sort: hybrid.workgroup_size x hybrid.items_per_invocation.
    pub fn hybrid_tile(&self) -> u32 {
        self.hybrid.workgroup_size * self.hybrid.items_per_invocation
    }

    /// The hybrid sort's (MSD places, log2 of the groups) for up to `max_n` keys on `places` places of `bits`
    /// bits: the fewest whose average group holds at most 7/8 of the group tile (0 places: one place only).
    pub fn hybrid_geometry(&self, places: u32, bits: u32, max_n: u64) -> (u32, u32) {
        if places < 2 {
            return (0, 0);
        }
        let target = (self.hybrid_tile() as u64 * 7 / 8).max(1);
        let d = self.tile.digit_bits;
        let width = |p: u32| bits - (places - p) * d;
        let mut p = 1;
        while p < places - 1 && max_n >> width(p).min(63) > target {
            p += 1;
        }
        let need = max_n.div_ceil(target).max(1);
        let g = (64 - (need - 1).leading_zeros()).min(width(p)).min(16);
        (p, g)
    }
}

impl RadixSort {
    /// The most keys this sorter's hybrid sort takes: [`super::RadixPolicy::hybrid_capacity_within`] the
    /// device's loop budget (lavapipe: one group of every key must be sortable by one workgroup within it).
    pub fn hybrid_capacity(&self) -> u64 {
        let budget = crate::tuning::for_class(self.ctx.caps().class)
            .radix
            .loop_budget;
        self.policy
            .hybrid_capacity_within(self.places, self.hi - self.lo, self.plan.min, budget)
    }
}

/// The algorithm that runs and the hybrid plan word (MSD places | log2 of the groups << 8): sorts cut into
/// portions (the group passes bind whole arrays) or of one digit place run as Onesweep.
pub(crate) fn resolve(
    s: &RadixSort,
    algorithm: SortAlgorithm,
    portions: &Portions,
    max_n: u64,
) -> (SortAlgorithm, u32) {
    match algorithm {
        SortAlgorithm::Hybrid if !portions.wide && portions.count == 1 => {
            match s.hybrid_geometry(max_n) {
                (0, _) => (SortAlgorithm::Onesweep, 0),
                (p, g) => (algorithm, p | g << 8),
            }
        }
        SortAlgorithm::Hybrid => (SortAlgorithm::Onesweep, 0),
        a => (a, 0),
    }
}

/// Records the hybrid sort (`b.hybrid` != 0): the Onesweep passes, then the bounds and group passes.
pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    use crate::shaders::{radix_hybrid_bounds as bounds_sh, radix_hybrid_local as local_sh, Spec};
    let p = &s.policy;
    let groups_log2 = b.hybrid >> 8;
    let bounds_wg = s.plan.workgroup_size(s.ctx.caps(), 256);
    let bounds_spec = Spec::new()
        .with(bounds_sh::KPT, BOUNDS_KPT)
        .with(bounds_sh::KEY_WORDS, s.key_words);
    let bounds = s.kernel(bounds_sh::SHADER, bounds_wg, bounds_spec)?;
    let local_spec = s.rank_spec(p.hybrid.items_per_invocation);
    let local = s.kernel(local_sh::SHADER, p.hybrid.workgroup_size, local_spec)?;
    s.record_passes(rec, b, SortAlgorithm::Onesweep)?;
    let (va, vb) = b.vals();
    let (key_kind, flags) = (s.key.kind(), s.flags());
    rec.pass("vksort::radix::hybrid::bounds", &bounds)
        .bind(&[b.keys, b.alt_keys, b.meta, b.hybrid_starts])
        .push(&BoundsPush {
            key_kind,
            flags,
            groups_log2,
        })
        .groups(b.max_n.div_ceil((bounds_wg * BOUNDS_KPT) as u64).max(1) as u32)?;
    rec.barrier();
    rec.pass("vksort::radix::hybrid::local", &local)
        .bind(&[b.keys, va, b.alt_keys, vb, b.meta, b.hybrid_starts])
        .push(&LocalPush {
            lo: s.lo,
            key_kind,
            flags,
        })
        .groups(1 << groups_log2)
}
