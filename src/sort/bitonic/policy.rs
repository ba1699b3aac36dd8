//! The bitonic sort's policy: workgroup and register tiling of its passes, from the device's limits.
//! docs/tuning.md ("BitonicPolicy") has the measurements behind the defaults.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::sort::config::SortConfig;
use crate::sort::items::Items;
use crate::sort::types::{KeyType, ValueType};

crate::policy::tunable! {
    /// How the bitonic passes are tiled (override keys: the field names).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct BitonicPolicy {
        /// Invocations per workgroup of the tile pass (`vksort::bitonic::tile` / `merge`) of sorts larger than
        /// one workgroup: a power of two and a multiple of the subgroup size (GPUs: the largest that fits).
        pub workgroup_size: u32,
        /// Items each invocation holds in registers (a power of two, 1..=32).
        pub items_per_invocation: u32,
        /// The largest workgroup of the local form (one dispatch on the smallest power-of-two workgroup that
        /// holds n): the largest power-of-two workgroup whose tile fits the shared memory, at most 1024.
        pub single_max_workgroup: u32,
        /// Invocations per workgroup of the global steps (`vksort::bitonic::global`).
        pub global_workgroup_size: u32,
        /// Strides of a merge stage one global pass runs (each invocation holds 2^global_fuse items), 1..=4.
        pub global_fuse: u32,
    }
}

impl crate::policy::Policy for BitonicPolicy {
    const FAMILY: &'static str = "bitonic";
}

impl BitonicPolicy {
    /// The device's policy for sorts of `key` keys with `value` values (what a sorter picks by default).
    pub fn for_sort(caps: &DeviceCaps, key: KeyType, value: ValueType) -> Self {
        let config = SortConfig {
            key,
            value,
            ..Default::default()
        };
        Self::for_items(
            caps,
            &Items::new(&config).expect("the whole key is a valid bit range"),
        )
    }

    /// The device's policy for `items` (the shared-memory need grows with the key words and the tag).
    pub(crate) fn for_items(caps: &DeviceCaps, items: &Items) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let t = &crate::tuning::for_class(caps.class).bitonic;
        let kpt = t.items_per_invocation;
        let fits =
            |wg: u32| shared_bytes((wg * kpt) as u64, items) <= caps.max_shared_memory as u64;
        let pow2_floor = |x: u32| 1u32 << (31 - x.max(1).leading_zeros());
        let mut single = pow2_floor(caps.max_workgroup_invocations.min(1024)).max(plan.max);
        while single > plan.max && !fits(single) {
            single /= 2;
        }
        let wg = match t.workgroup_size {
            Some(wish) => pow2_floor(plan.workgroup_size(caps, wish)).min(single),
            None => single,
        };
        Self {
            workgroup_size: wg,
            items_per_invocation: kpt,
            single_max_workgroup: single,
            global_workgroup_size: pow2_floor(plan.workgroup_size(caps, t.global_workgroup_size)),
            global_fuse: t.global_fuse,
        }
    }

    /// Items per tile of the multi-workgroup sort.
    pub fn tile(&self) -> u64 {
        (self.workgroup_size * self.items_per_invocation) as u64
    }

    /// The most keys the local form (one workgroup) sorts.
    pub fn single_capacity(&self) -> u64 {
        (self.single_max_workgroup * self.items_per_invocation) as u64
    }

    pub(crate) fn check(&self, caps: &DeviceCaps, items: &Items) -> Result<()> {
        let plan = SubgroupPlan::for_device(caps);
        let bad = |what: String| {
            Err(Error::InvalidPolicy {
                family: "bitonic",
                what,
            })
        };
        for (name, wg) in [
            ("workgroup_size", self.workgroup_size),
            ("single_max_workgroup", self.single_max_workgroup),
            ("global_workgroup_size", self.global_workgroup_size),
        ] {
            if !wg.is_power_of_two() || wg % plan.max != 0 || wg > caps.max_workgroup_invocations {
                return bad(format!(
                    "{name} {wg} must be a power of two, a multiple of the subgroup size {} and at most {}",
                    plan.max, caps.max_workgroup_invocations
                ));
            }
        }
        if self.single_max_workgroup < self.workgroup_size {
            return bad("single_max_workgroup must be at least workgroup_size".into());
        }
        let kpt = self.items_per_invocation;
        if !kpt.is_power_of_two() || kpt > 32 {
            return bad(format!(
                "items_per_invocation {kpt} must be a power of two of at most 32"
            ));
        }
        if !(1..=4).contains(&self.global_fuse) {
            return bad(format!("global_fuse {} must be in 1..=4", self.global_fuse));
        }
        let need = shared_bytes(self.single_capacity(), items);
        if need > caps.max_shared_memory as u64 {
            return bad(format!(
                "a tile of {} items needs {need} bytes of shared memory; the device has {}",
                self.single_capacity(),
                caps.max_shared_memory
            ));
        }
        Ok(())
    }
}

/// Shared memory of a tile of `tile` items (bitonic.glsl's s_items: key words, tag, a padding word per 32).
pub(crate) fn shared_bytes(tile: u64, items: &Items) -> u64 {
    let tagged = items.val_words > 0;
    let words = items.key_words + tagged as u32;
    (tile + tile / 32) * words as u64 * 4
}

#[cfg(test)]
mod policy_keys {
    use super::BitonicPolicy;
    use crate::policy::Policy;

    /// Override keys are the field paths, and the legend lists them all with their docs' first lines.
    #[test]
    fn override_keys_are_field_paths() {
        let keys = crate::policy::legend_paths::<BitonicPolicy>();
        assert_eq!(
            keys,
            [
                "workgroup_size",
                "items_per_invocation",
                "single_max_workgroup",
                "global_workgroup_size",
                "global_fuse"
            ]
        );
        let p = BitonicPolicy {
            workgroup_size: 64,
            items_per_invocation: 4,
            single_max_workgroup: 256,
            global_workgroup_size: 256,
            global_fuse: 3,
        };
        let q = p
            .with_overrides("global_fuse=2, items_per_invocation=8")
            .unwrap();
        assert_eq!((q.global_fuse, q.items_per_invocation), (2, 8));
        assert!(
            p.with_overrides("fuse=2").is_err(),
            "the old short keys are gone"
        );
        assert!(
            p.with_overrides("global_fuse.x=2").is_err(),
            "a leaf has no parts"
        );
    }
}
