//! The merge sort's policy, from the device's limits; overridable ([`crate::Policy::with_overrides`];
//! `examples/merge_sweep` times grids). docs/tuning.md ("MergePolicy") has the measurements behind the defaults.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::sort::items::Items;
use crate::sort::{KeyType, SortConfig, ValueType};

/// How a workgroup of `vksort::merge::merge` merges its output tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MergeKernel {
    /// Each invocation binary-searches its diagonal's merge-path split in shared memory and merges serially.
    #[default]
    Serial,
    /// The A slice ascending and the B slice reversed, a bitonic sequence, sorted by the bitonic network's
    /// half-cleaners (tagged items of bitonic.glsl: use it with `merge_items_per_invocation` 4).
    Network,
}

impl MergeKernel {
    /// Both kernels.
    pub const ALL: [MergeKernel; 2] = [MergeKernel::Serial, MergeKernel::Network];

    /// `"serial"` or `"network"`.
    pub fn name(self) -> &'static str {
        match self {
            MergeKernel::Serial => "serial",
            MergeKernel::Network => "network",
        }
    }
}

/// Where a merge pass finds the split points (merge-path co-ranks) of its output tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Partition {
    /// A pass of its own before each merge pass (`vksort::merge::partition`): a k-ary search per tile.
    Pass,
    /// In the merge pass: every subgroup of each workgroup searches the tile's two diagonals (no partition array).
    Fused,
    /// Fused for sorts of up to [`MergePolicy::fused_max_keys`] keys, partition passes for larger ones.
    #[default]
    Mixed,
}

impl Partition {
    /// Every mode.
    pub const ALL: [Partition; 3] = [Partition::Pass, Partition::Fused, Partition::Mixed];

    /// `"pass"`, `"fused"` or `"mixed"`.
    pub fn name(self) -> &'static str {
        match self {
            Partition::Pass => "pass",
            Partition::Fused => "fused",
            Partition::Mixed => "mixed",
        }
    }
}

crate::policy::leaf_field! {
    MergeKernel => |v| MergeKernel::ALL
        .get(v as usize)
        .copied()
        .ok_or_else(|| format!("{v}: 0 (serial) or 1 (network)"));
    Partition => |v| Partition::ALL
        .get(v as usize)
        .copied()
        .ok_or_else(|| format!("{v}: 0 (pass), 1 (fused) or 2 (mixed)"));
}

crate::policy::tunable! {
    /// How the merge sort's passes are tiled (override keys: the field names).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct MergePolicy {
        /// Invocations per workgroup of the block pass: a power of two and a multiple of the subgroup size.
        pub block_workgroup_size: u32,
        /// Keys each invocation of the block pass holds in registers (a power of two, 2..=32).
        pub block_items_per_invocation: u32,
        /// Invocations per workgroup of the merge passes (`vksort::merge::merge`), as `block_workgroup_size`.
        pub merge_workgroup_size: u32,
        /// Keys each invocation of a merge pass outputs (a power of two, 1..=32; the tile divides twice the block's).
        pub merge_items_per_invocation: u32,
        /// The per-workgroup merge (0 serial, 1 network). Default [`MergeKernel::Serial`].
        pub merge_kernel: MergeKernel,
        /// Where the split points are found (0 pass, 1 fused, 2 mixed). Default [`Partition::Mixed`].
        pub partition: Partition,
        /// With [`Partition::Mixed`]: the largest sorts (the capacity with a GPU-side count) that fuse their searches.
        pub fused_max_keys: u32,
        /// Invocations per workgroup of the partition pass (`vksort::merge::partition`). Default 64.
        pub partition_workgroup_size: u32,
        /// Probes per round of a tile's split search: a power of two, 2..=the smallest subgroup size (32 if it varies).
        pub partition_lanes: u32,
    }
}

impl crate::policy::Policy for MergePolicy {
    const FAMILY: &'static str = "merge";
}

impl MergePolicy {
    /// The device's policy for `items`.
    pub(crate) fn for_items(caps: &DeviceCaps, items: &Items) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let pow2_floor = |x: u32| 1u32 << (31 - x.max(1).leading_zeros());
        let t = &crate::tuning::for_class(caps.class).merge;
        let wg = pow2_floor(plan.workgroup_size(caps, t.workgroup_size));
        let mut kpt = t.items_per_invocation;
        while kpt > 2 && (wg * kpt * items.key_words * 4) as u64 > t.tile_key_bytes as u64 {
            kpt /= 2;
        }
        let mut p = Self {
            block_workgroup_size: wg,
            block_items_per_invocation: kpt,
            merge_workgroup_size: wg,
            merge_items_per_invocation: kpt,
            merge_kernel: MergeKernel::Serial,
            partition: Partition::Mixed,
            fused_max_keys: 1 << 21,
            partition_workgroup_size: pow2_floor(plan.workgroup_size(caps, 64)),
            partition_lanes: pow2_floor(plan.min.clamp(2, 8)),
        };
        let limit = caps.max_shared_memory as u64;
        while p.block_items_per_invocation > 2 && p.block_shared_bytes(items) > limit {
            p.block_items_per_invocation /= 2;
        }
        while p.merge_items_per_invocation > 1 && p.merge_shared_bytes(items) > limit {
            p.merge_items_per_invocation /= 2;
        }
        while p.block_workgroup_size > plan.max && p.block_shared_bytes(items) > limit {
            p.block_workgroup_size /= 2;
            p.merge_workgroup_size = p.block_workgroup_size;
        }
        while p.merge_items_per_invocation > 1 && p.merge_tile() > 2 * p.block_tile() {
            p.merge_items_per_invocation /= 2;
        }
        p
    }

    /// The device's policy for sorters of up to `max_n` keys: on GPUs, when every sort of the capacity fuses its
    /// split searches, the block workgroups doubled (one merge pass fewer) and, for 128-bit keys from 2^18 keys,
    /// merge workgroups of half the invocations and twice the keys each.
    pub(crate) fn for_capacity(caps: &DeviceCaps, items: &Items, max_n: u64) -> Self {
        let mut p = Self::for_items(caps, items);
        let wide = Self {
            block_workgroup_size: p.block_workgroup_size * 2,
            ..p
        };
        let small_fused = crate::tuning::for_class(caps.class).merge.widen_fused
            && p.partition == Partition::Mixed
            && max_n <= p.fused_max_keys as u64;
        if small_fused
            && wide.block_workgroup_size <= caps.max_workgroup_invocations
            && wide.block_shared_bytes(items) <= caps.max_shared_memory as u64
        {
            p = wide;
        }
        let plan = SubgroupPlan::for_device(caps);
        if small_fused
            && items.key_words == 4
            && max_n >= 1 << 18
            && p.merge_workgroup_size >= 2 * plan.max
            && p.merge_items_per_invocation <= 16
        {
            p.merge_workgroup_size /= 2;
            p.merge_items_per_invocation *= 2;
        }
        p
    }

    /// The device's policy for sorts of `key` with `value` (what a sorter uses without an override).
    pub fn for_sort(caps: &DeviceCaps, key: KeyType, value: ValueType) -> Self {
        let config = SortConfig {
            key,
            value,
            ..Default::default()
        };
        let items = Items::new(&config).expect("all bits of a key are a valid range");
        Self::for_items(caps, &items)
    }

    /// Keys per tile of the block pass: the sorted runs the first merge pass starts from.
    pub fn block_tile(&self) -> u64 {
        (self.block_workgroup_size * self.block_items_per_invocation) as u64
    }

    /// Keys per workgroup of a merge pass.
    pub fn merge_tile(&self) -> u64 {
        (self.merge_workgroup_size * self.merge_items_per_invocation) as u64
    }

    /// Whether the merge passes of a sort of `n` keys find their own split points (no partition passes).
    pub fn fused(&self, n: u64) -> bool {
        match self.partition {
            Partition::Pass => false,
            Partition::Fused => true,
            Partition::Mixed => n <= self.fused_max_keys as u64,
        }
    }

    /// Merge passes of a sort of `n` keys: ceil(log2(ceil(n / block tile))).
    pub fn merge_passes(&self, n: u64) -> u32 {
        let tiles = n.div_ceil(self.block_tile());
        if tiles <= 1 {
            0
        } else {
            64 - (tiles - 1).leading_zeros()
        }
    }

    pub(crate) fn check(&self, caps: &DeviceCaps, items: &Items) -> Result<()> {
        let plan = SubgroupPlan::for_device(caps);
        let bad = |what: String| {
            Err(Error::InvalidPolicy {
                family: "merge",
                what,
            })
        };
        for (name, wg) in [
            ("block_workgroup_size", self.block_workgroup_size),
            ("merge_workgroup_size", self.merge_workgroup_size),
            ("partition_workgroup_size", self.partition_workgroup_size),
        ] {
            if !wg.is_power_of_two() || wg % plan.max != 0 || wg > caps.max_workgroup_invocations {
                return bad(format!(
                    "{name} {wg} must be a power of two, a multiple of the subgroup size {} and at most {}",
                    plan.max, caps.max_workgroup_invocations
                ));
            }
        }
        for (name, kpt) in [
            (
                "block_items_per_invocation",
                self.block_items_per_invocation,
            ),
            (
                "merge_items_per_invocation",
                self.merge_items_per_invocation,
            ),
        ] {
            if !kpt.is_power_of_two() || kpt > 32 {
                return bad(format!("{name} {kpt} must be a power of two of at most 32"));
            }
        }
        if self.merge_tile() > 2 * self.block_tile() {
            return bad(format!(
                "the merge tile ({} keys) must divide twice the block tile ({} keys)",
                self.merge_tile(),
                self.block_tile()
            ));
        }
        let lanes = self.partition_lanes;
        if !lanes.is_power_of_two()
            || lanes < 2
            || lanes > plan.min
            || (lanes > 32 && plan.min != plan.max)
        {
            return bad(format!(
                "partition_lanes {lanes} must be a power of two of at least 2 and at most the smallest subgroup size \
                 {} (at most 32 where the subgroup size varies)",
                plan.min
            ));
        }
        if self.block_items_per_invocation < 2 {
            return bad(format!(
                "block_items_per_invocation {} must be at least 2 (the block pass packs two 16-bit tags per word)",
                self.block_items_per_invocation
            ));
        }
        for (what, tile, need) in [
            ("block", self.block_tile(), self.block_shared_bytes(items)),
            ("merge", self.merge_tile(), self.merge_shared_bytes(items)),
        ] {
            if need > caps.max_shared_memory as u64 {
                return bad(format!(
                    "a {what} tile of {tile} keys needs {need} bytes of shared memory; the device has {}",
                    caps.max_shared_memory
                ));
            }
        }
        Ok(())
    }
}

impl MergePolicy {
    /// Shared memory of the block pass (merge_tile.glsl): the tile's key words, with values a 16-bit tag per key.
    pub(crate) fn block_shared_bytes(&self, items: &Items) -> u64 {
        let tile = self.block_tile();
        tile * items.key_words as u64 * 4 + if items.val_words > 0 { tile * 2 } else { 0 }
    }

    /// Shared memory of a merge pass: the tile's key words, or bitonic.glsl's padded tagged items (`Network`).
    pub(crate) fn merge_shared_bytes(&self, items: &Items) -> u64 {
        let tile = self.merge_tile();
        match self.merge_kernel {
            MergeKernel::Serial => tile * items.key_words as u64 * 4,
            MergeKernel::Network => (tile + tile / 32) * (items.key_words as u64 + 1) * 4,
        }
    }
}

#[cfg(test)]
mod policy_keys {
    use super::{MergeKernel, MergePolicy, Partition};
    use crate::policy::Policy;

    /// Override keys are the field names; the old short keys are refused.
    #[test]
    fn override_keys_are_field_paths() {
        let keys = crate::policy::legend_paths::<MergePolicy>();
        assert_eq!(
            keys,
            [
                "block_workgroup_size",
                "block_items_per_invocation",
                "merge_workgroup_size",
                "merge_items_per_invocation",
                "merge_kernel",
                "partition",
                "fused_max_keys",
                "partition_workgroup_size",
                "partition_lanes"
            ]
        );
        let p = MergePolicy {
            block_workgroup_size: 256,
            block_items_per_invocation: 16,
            merge_workgroup_size: 256,
            merge_items_per_invocation: 16,
            merge_kernel: MergeKernel::Serial,
            partition: Partition::Mixed,
            fused_max_keys: 1 << 21,
            partition_workgroup_size: 64,
            partition_lanes: 8,
        };
        let q = p
            .with_overrides("merge_kernel=1, partition=0, merge_items_per_invocation=4")
            .unwrap();
        assert_eq!(
            (q.merge_kernel, q.partition, q.merge_items_per_invocation),
            (MergeKernel::Network, Partition::Pass, 4)
        );
        for bad in [
            "kernel=1",
            "merge_kpt=4",
            "fused_max=8",
            "partition=3",
            "merge_kernel=2",
        ] {
            assert!(p.with_overrides(bad).is_err(), "{bad}");
        }
    }
}
