//! The quicksort's policy: the tiling of its passes, the phase-one rounds and pivots, the phase-two depth limit.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::sort::items::Items;

/// How phase one picks the pivot of a sequence (its exact masked key range is always known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PivotMode {
    /// The midpoint of the sequence's minimum and maximum in the transformed key order (Cederman and Tsigas).
    MinMax = 0,
    /// The median of a sample of `workgroup_size` keys, one at a pseudo-random place in each equal part.
    Sample = 1,
}

crate::policy::leaf_field! {
    PivotMode => |v| match v {
        0 => Ok(PivotMode::MinMax),
        1 => Ok(PivotMode::Sample),
        _ => Err(format!("{v}: the pivot is 0 (midpoint) or 1 (sample)")),
    };
}

crate::policy::tunable! {
    /// How the quicksort's passes are tiled and planned (override keys: the field names; the pivot rules:
    /// docs/architecture.md, "Quicksort").
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct QuicksortPolicy {
        /// Invocations per workgroup of phase one: a power of two, a multiple of the subgroup size. Default 256.
        pub workgroup_size: u32,
        /// Keys per invocation of phase one (a power of two, 1..=32). Default 8 on GPUs, 4 on CPUs.
        pub items_per_invocation: u32,
        /// Invocations per workgroup of phase two. Default as `workgroup_size`; on NVIDIA up to 1024 (same tile).
        pub local_workgroup_size: u32,
        /// Keys per invocation of phase two (1..=32, a power of two). Default as `items_per_invocation`; NVIDIA 2.
        pub local_items_per_invocation: u32,
        /// Sequences of at most this many keys (at least a block and a tile) go to phase two. Default 8 tiles (CPU 4).
        pub local_max: u32,
        /// Phase-one rounds recorded beyond ceil(log2(n / local_max)), for uneven splits. Default 4.
        pub extra_rounds: u32,
        /// The most phase-one rounds recorded (phase two takes what is left), 0..=64. Default 64.
        pub max_rounds: u32,
        /// Phase one's pivot rule of the first split (0 midpoint, 1 sample). Default [`PivotMode::Sample`].
        pub pivot: PivotMode,
        /// Three-way partition levels of phase two before the bitonic fallback (introsort's depth limit);
        /// `u32::MAX` (default): 2 ceil(log2(len / tile)) + 2 for a job of len keys; 0: always the fallback.
        pub local_depth_limit: u32,
    }
}

impl crate::policy::Policy for QuicksortPolicy {
    const FAMILY: &'static str = "quicksort";
}

impl QuicksortPolicy {
    /// The device's policy for `items` (the shared-memory need grows with the key words and the tag).
    pub(crate) fn for_items(caps: &DeviceCaps, items: &Items) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let t = &crate::tuning::for_class(caps.class).quicksort;
        let kpt = t.items_per_invocation;
        let pow2_floor = |x: u32| 1u32 << (31 - x.max(1).leading_zeros());
        let fits =
            |wg: u32| shared_bytes(wg, kpt, plan.min, items) <= caps.max_shared_memory as u64;
        let mut wg = pow2_floor(plan.workgroup_size(caps, t.workgroup_size));
        while wg > plan.max && !fits(wg) {
            wg /= 2;
        }
        let tile = wg * kpt;
        // Phase two: the same tile on more invocations where the class wishes so and it fits.
        let (mut lwg, mut lkpt) = (wg, kpt);
        if let Some(local_wish) = t.local_workgroup_size {
            let wide = pow2_floor(plan.workgroup_size(caps, local_wish))
                .min(tile / 2)
                .max(wg);
            if shared_bytes(wide, tile / wide, plan.min, items) <= caps.max_shared_memory as u64 {
                (lwg, lkpt) = (wide, tile / wide);
            }
        }
        Self {
            workgroup_size: wg,
            items_per_invocation: kpt,
            local_workgroup_size: lwg,
            local_items_per_invocation: lkpt,
            local_max: tile * t.local_max_tiles,
            extra_rounds: 4,
            max_rounds: 64,
            pivot: PivotMode::Sample,
            local_depth_limit: u32::MAX,
        }
    }

    /// The device's policy for a sort configuration (a [`crate::sort::Sorter`]'s default); fails on a bad bit range.
    pub fn for_config(caps: &DeviceCaps, config: &crate::sort::SortConfig) -> Result<Self> {
        Ok(Self::for_items(caps, &Items::new(config)?))
    }

    /// Keys of a phase-one block.
    pub fn block(&self) -> u64 {
        (self.workgroup_size * self.items_per_invocation) as u64
    }

    /// Keys of a phase-two tile (the bitonic sort in shared memory).
    pub fn local_tile(&self) -> u64 {
        (self.local_workgroup_size * self.local_items_per_invocation) as u64
    }

    /// Phase-one rounds recorded for a sort of up to `n` keys: 0 when phase two sorts it in one workgroup.
    pub fn rounds(&self, n: u64) -> u32 {
        let lm = self.local_max as u64;
        if n <= lm {
            return 0;
        }
        let need = 64 - (n.div_ceil(lm) - 1).leading_zeros();
        (need + self.extra_rounds).min(self.max_rounds)
    }

    /// Checks the policy against the device and the items.
    pub(crate) fn check(&self, caps: &DeviceCaps, items: &Items) -> Result<()> {
        let plan = SubgroupPlan::for_device(caps);
        let bad = |what: String| {
            Err(Error::InvalidPolicy {
                family: "quicksort",
                what,
            })
        };
        for (name, wg) in [
            ("workgroup_size", self.workgroup_size),
            ("local_workgroup_size", self.local_workgroup_size),
        ] {
            if !wg.is_power_of_two() || wg % plan.max != 0 || wg > caps.max_workgroup_invocations {
                return bad(format!(
                    "{name} {wg} must be a power of two, a multiple of the subgroup size {} and at most {}",
                    plan.max, caps.max_workgroup_invocations
                ));
            }
        }
        for (name, kpt) in [
            ("items_per_invocation", self.items_per_invocation),
            (
                "local_items_per_invocation",
                self.local_items_per_invocation,
            ),
        ] {
            if !kpt.is_power_of_two() || kpt > 32 {
                return bad(format!("{name} {kpt} must be a power of two of at most 32"));
            }
        }
        // The chunk scan packs two class counts of a chunk in 16 bits each.
        if self.block() >= 1 << 16 || self.local_tile() >= 1 << 16 {
            return bad("a block and a tile must hold fewer than 65536 keys".into());
        }
        let lm = self.local_max as u64;
        if lm < self.block() || lm < self.local_tile() {
            return bad(format!(
                "local_max {lm} must be at least a phase-one block ({}) and a local tile ({})",
                self.block(),
                self.local_tile()
            ));
        }
        if self.max_rounds > 64 {
            return bad(format!("max_rounds {} must be at most 64", self.max_rounds));
        }
        for (name, wg, kpt) in [
            ("phase one", self.workgroup_size, self.items_per_invocation),
            (
                "phase two",
                self.local_workgroup_size,
                self.local_items_per_invocation,
            ),
        ] {
            let need = shared_bytes(wg, kpt, plan.min, items);
            if need > caps.max_shared_memory as u64 {
                return bad(format!(
                    "{name}: {wg} invocations x {kpt} keys need {need} bytes of shared memory; the device has {}",
                    caps.max_shared_memory
                ));
            }
        }
        Ok(())
    }
}

/// Shared memory of a quicksort pass with `wg` invocations of `kpt` keys (tile, counts, min/max, stack).
pub(crate) fn shared_bytes(wg: u32, kpt: u32, min_subgroup: u32, items: &Items) -> u64 {
    let tile = (wg * kpt) as u64;
    let tagged = items.val_words > 0;
    let words = (items.key_words + tagged as u32) as u64;
    let subgroups = (wg / min_subgroup.max(1)) as u64;
    (tile + tile / 32) * words * 4
        + kpt as u64 * subgroups * 4
        + 4 * subgroups * 16
        + 4 * 64 * 4
        + 256
}

#[cfg(test)]
mod policy_keys {
    use super::{PivotMode, QuicksortPolicy};
    use crate::policy::Policy;

    /// Override keys are the field names; the old short keys are refused.
    #[test]
    fn override_keys_are_field_paths() {
        let keys = crate::policy::legend_paths::<QuicksortPolicy>();
        assert_eq!(
            keys,
            [
                "workgroup_size",
                "items_per_invocation",
                "local_workgroup_size",
                "local_items_per_invocation",
                "local_max",
                "extra_rounds",
                "max_rounds",
                "pivot",
                "local_depth_limit"
            ]
        );
        let p = QuicksortPolicy {
            workgroup_size: 128,
            items_per_invocation: 8,
            local_workgroup_size: 128,
            local_items_per_invocation: 8,
            local_max: 4096,
            extra_rounds: 4,
            max_rounds: 64,
            pivot: PivotMode::Sample,
            local_depth_limit: u32::MAX,
        };
        let q = p
            .with_overrides("pivot=0, local_depth_limit=5, items_per_invocation=4")
            .unwrap();
        assert_eq!(
            (q.pivot, q.local_depth_limit, q.items_per_invocation),
            (PivotMode::MinMax, 5, 4)
        );
        for bad in ["kpt=4", "wg=64", "depth=5", "pivot=2", "pivot.x=1"] {
            assert!(p.with_overrides(bad).is_err(), "{bad}");
        }
    }
}
