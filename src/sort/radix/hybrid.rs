//! The MSD hybrid radix sort (after Stehle & Jacobsen, SIGMOD 2017): Onesweep over the top digit places leaves
//! each group of keys sharing those bits in one range; `hybrid::bounds` finds where each starts, and
//! `hybrid::local` sorts each group in one workgroup. docs/architecture.md "The radix sorts" has the bytes.

use super::{Bindings, Portions, RadixSort};
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
