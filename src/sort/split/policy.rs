//! The split radix sort's policy, from the device's limits; overridable (`SorterBuilder::tuning`,
//! [`crate::Policy::with_overrides`]). docs/tuning.md ("SplitPolicy") has the reasons for the defaults.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::scan::ScanPolicy;
use crate::sort::config::SortConfig;
use crate::sort::items::Items;
use crate::sort::types::{KeyType, ValueType};

/// The most digit bits one pass of the blocked form takes (the split words carry the digit in 8 bits).
pub const MAX_DIGIT_BITS: u32 = crate::shaders::include::split_common::MAX_DIGIT_BITS;

/// The largest tile of the blocked form's scatter (the split words carry the tile index in 16 bits).
pub const MAX_TILE: u32 = 1 << 16;

crate::policy::tunable! {
    /// How the split radix sort's passes are tiled (override keys: the field paths, e.g. `scan.workgroup_size`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct SplitPolicy {
        /// Invocations per workgroup of the tile passes: a power of two, a multiple of the subgroup size. Default 256.
        pub workgroup_size: u32,
        /// Keys per invocation of the tile passes, 1..=32 (a tile is at most 2^16 keys). Default 8, less if it
        /// won't fit.
        pub items_per_invocation: u32,
        /// Bits per pass of the blocked form ([`crate::sort::SortAlgorithm::SplitRadix`]), 1..=8. Default 4.
        pub digit_bits: u32,
        /// The look-back scan of the flags or histograms. Default [`ScanPolicy::for_device`].
        pub scan: ScanPolicy,
    }
}

impl crate::policy::Policy for SplitPolicy {
    const FAMILY: &'static str = "split";
}

impl SplitPolicy {
    /// The policy a sorter picks on a device for keys `key` with values `value` when it is given none.
    pub fn for_sort(caps: &DeviceCaps, key: KeyType, value: ValueType) -> Self {
        let config = SortConfig {
            key,
            value,
            ..Default::default()
        };
        let items = Items::new(&config).expect("the full bit range is valid");
        Self::for_items(caps, &items)
    }

    /// The device's policy for `items` (the blocked form's shared memory grows with the key words).
    pub(crate) fn for_items(caps: &DeviceCaps, items: &Items) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let pow2_floor = |x: u32| 1u32 << (31 - x.max(1).leading_zeros());
        let t = &crate::tuning::for_class(caps.class).split;
        let wg = pow2_floor(plan.workgroup_size(caps, t.workgroup_size)).max(plan.max);
        let mut p = Self {
            workgroup_size: wg,
            items_per_invocation: t.items_per_invocation,
            digit_bits: t.digit_bits,
            scan: ScanPolicy::for_device(caps),
        };
        while p.items_per_invocation > 1
            && scatter_shared_bytes(&p, items, plan.min) > caps.max_shared_memory as u64
        {
            p.items_per_invocation /= 2;
        }
        p
    }

    /// Keys per tile of the tile passes.
    pub fn tile(&self) -> u64 {
        (self.workgroup_size * self.items_per_invocation) as u64
    }

    /// Counters per tile of the blocked form's histograms (`2^digit_bits`).
    pub fn radix(&self) -> u64 {
        1 << self.digit_bits
    }

    pub(crate) fn check(&self, caps: &DeviceCaps, items: &Items) -> Result<()> {
        let plan = SubgroupPlan::for_device(caps);
        let bad = |what: String| {
            Err(Error::InvalidPolicy {
                family: "split",
                what,
            })
        };
        let wg = self.workgroup_size;
        if !wg.is_power_of_two() || wg % plan.max != 0 || wg > caps.max_workgroup_invocations {
            return bad(format!(
                "workgroup_size {wg} must be a power of two, a multiple of the subgroup size {} and at most {}",
                plan.max, caps.max_workgroup_invocations
            ));
        }
        if !(1..=32).contains(&self.items_per_invocation) {
            return bad(format!(
                "items_per_invocation {} must be in 1..=32",
                self.items_per_invocation
            ));
        }
        if self.tile() > MAX_TILE as u64 {
            return bad(format!(
                "a tile of {} keys is above {MAX_TILE}",
                self.tile()
            ));
        }
        if !(1..=MAX_DIGIT_BITS).contains(&self.digit_bits) {
            return bad(format!(
                "digit_bits {} must be in 1..={MAX_DIGIT_BITS}",
                self.digit_bits
            ));
        }
        let need = scatter_shared_bytes(self, items, plan.min);
        if need > caps.max_shared_memory as u64 {
            return bad(format!(
                "the scatter's tile of {} keys needs {need} bytes of shared memory; the device has {}",
                self.tile(),
                caps.max_shared_memory
            ));
        }
        self.scan.validate(caps)
    }
}

/// Shared memory of split_scatter.comp: the tile's raw keys, its split words (a padding word per 32), the digit
/// offsets and the workgroup scan's partials (one per subgroup of at least `min_subgroup` invocations, and one).
pub(crate) fn scatter_shared_bytes(p: &SplitPolicy, items: &Items, min_subgroup: u32) -> u64 {
    let tile = p.tile();
    let subgroups = (p.workgroup_size / min_subgroup.max(1)) as u64 + 1;
    4 * (tile * items.key_words as u64 + tile + tile / 32 + p.radix() + subgroups)
}

#[cfg(test)]
mod policy_keys {
    use super::SplitPolicy;
    use crate::policy::Policy;
    use crate::scan::ScanPolicy;

    /// Override keys are the field paths (the scan's under `scan.`); the old short keys are refused.
    #[test]
    fn override_keys_are_field_paths() {
        let keys = crate::policy::legend_paths::<SplitPolicy>();
        assert_eq!(
            keys[..5],
            [
                "workgroup_size",
                "items_per_invocation",
                "digit_bits",
                "scan.workgroup_size",
                "scan.items_per_invocation"
            ]
        );
        assert_eq!(keys.len(), 3 + ScanPolicy::legend().len());
        let p = SplitPolicy {
            workgroup_size: 256,
            items_per_invocation: 8,
            digit_bits: 4,
            scan: crate::scan::TEST_POLICY,
        };
        let q = p
            .with_overrides("digit_bits=3, scan.items_per_invocation=8")
            .unwrap();
        assert_eq!((q.digit_bits, q.scan.items_per_invocation), (3, 8));
        for bad in ["bits=3", "kpt=4", "scan_wg=64", "scan=1"] {
            assert!(p.with_overrides(bad).is_err(), "{bad}");
        }
    }
}
