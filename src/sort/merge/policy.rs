//! The merge sort's policy: the tiling of its three passes, the per-workgroup merge kernel and where the split
//! points are found, chosen per device from its limits (shared memory, workgroup size, subgroup size) and passed
//! to the shaders as specialization constants. Overridable with [`crate::sort::SorterBuilder::tuning`] (or
//! [`MergePolicy::with_overrides`] strings; `examples/merge_sweep` times a grid of them).
//!
//! Why the defaults (an H200, `vksort bench` with warm clocks, 2026-11-26; docs/tuning.md, "MergePolicy"):
//! - Tiles of 16 KiB of keys on GPUs: 256 invocations x 16 keys for 32-bit keys (4096 keys), x 8 for 64-bit,
//!   x 4 for 128-bit, in both passes. Shared memory holds only keys (16-bit tags beside them in the block pass
//!   with values), so 3 workgroups stay resident per SM under the driver's 48 KiB per SM; 2^24 u32 keys:
//!   merge tiles of 256 x 16 1.27 ms, 256 x 8 1.34, 256 x 4 1.63 (partition passes); 512 x 8 1.20 against
//!   1.22 with 256 x 16. Pairs keep the 4096-key block tile at 24 KiB (2 per SM): 1.82 ms against 1.86 with
//!   256 x 8 (one merge pass more). CPUs (lavapipe) 128 x 4. Sorters of up to 2^21 keys: block workgroups
//!   doubled, and for 128-bit keys from 2^18 merge workgroups of 128 x 8 (`MergePolicy::for_capacity`).
//! - [`MergeKernel::Serial`]: log2(tile) + `items_per_invocation` comparisons per invocation; the bitonic merge
//!   network does log2(tile) compare-exchange steps over every key with barriers for the long strides.
//! - [`Partition::Mixed`] with `fused_max_keys` 2^21: at 2^20 u32 keys fused split searches took 0.125 ms
//!   against 0.167 with partition passes (one dispatch less per merge pass, ~7 us each); at 2^24 the partition
//!   passes won, 1.27 against 1.50 ms (a fused search holds its workgroup for ceil(log_32(w)) + 1 dependent
//!   rounds of global loads, every wave of workgroups over again).
//! - `partition_lanes` 8 (at most the smallest subgroup): each probe of a split search reads its own 32-byte
//!   sector, so the partition pass is bound by the sectors its probes read (2^28: 0.158 ms per pass with 32
//!   lanes); 8 lanes read fewer for a few more rounds: 2^24 partition passes 0.200 against 0.220 ms.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::sort::items::Items;
use crate::sort::{KeyType, SortConfig, ValueType};

/// How a workgroup of `vksort::merge::merge` merges its output tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MergeKernel {
    /// Each invocation finds where its diagonal crosses the merge path (a binary search in shared memory) and
    /// merges its items serially; then a coalesced store through shared memory. log2(tile) search steps and
    /// `items_per_invocation` merge steps per invocation.
    #[default]
    Serial,
    /// The A slice ascending, padding, the B slice reversed form a bitonic sequence that the half-cleaner steps
    /// of the bitonic network sort: log2(tile) compare-exchange steps over the whole tile, the long strides
    /// through shared memory (the overheads the Intel report names: index computations and the reversal).
    /// Items are tagged (key words + 1 per item in shared memory) and held by bitonic.glsl, which the NVIDIA
    /// compiler kept in local memory above 4 items per invocation: use it with `merge_items_per_invocation` 4.
    Network,
}

impl MergeKernel {
    /// Both kernels.
    pub const ALL: [MergeKernel; 2] = [MergeKernel::Serial, MergeKernel::Network];

    /// `"serial"` or `"network"` (the override value).
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
    /// A pass of its own before each merge pass (`vksort::merge::partition`): one subgroup per tile runs a
    /// k-ary search of ceil(log_subgroup(w)) + 1 dependent rounds, all tiles at once; the merge pass reads the
    /// results. Two dispatches per merge pass.
    Pass,
    /// In the merge pass: every subgroup of each workgroup searches the tile's two diagonals together (the same
    /// k-ary search) before loading the tile. One dispatch per merge pass, no partition array.
    Fused,
    /// Fused for sorts of up to [`MergePolicy::fused_max_keys`] keys (a pass's tiles then fit about one wave of
    /// workgroups, and a dispatch costs more than the searches), a partition pass before every merge pass of
    /// larger sorts (whose fused searches would hold every wave of workgroups back).
    #[default]
    Mixed,
}

impl Partition {
    /// Every mode.
    pub const ALL: [Partition; 3] = [Partition::Pass, Partition::Fused, Partition::Mixed];

    /// `"pass"`, `"fused"` or `"mixed"` (the override value).
    pub fn name(self) -> &'static str {
        match self {
            Partition::Pass => "pass",
            Partition::Fused => "fused",
            Partition::Mixed => "mixed",
        }
    }
}

/// How the merge sort's passes are tiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergePolicy {
    /// Invocations per workgroup of the block pass (`vksort::merge::block`): a power of two and a multiple of
    /// the subgroup size. Default 256 on GPUs, 128 on CPUs, halved while a tile's shared memory does not fit.
    pub block_workgroup_size: u32,
    /// Keys each invocation of the block pass holds in registers (a power of two, 2..=32: two 16-bit tags share a
    /// shared-memory word). Default 16 / key words on GPUs (a 16 KiB tile of keys), 4 on CPUs.
    /// The block tile (`block_workgroup_size` x this) is the run length the merge passes start from:
    /// ceil(log2(n / block tile)) merge passes.
    pub block_items_per_invocation: u32,
    /// Invocations per workgroup of the merge passes (`vksort::merge::merge`): a power of two and a multiple of
    /// the subgroup size. Default as `block_workgroup_size`.
    pub merge_workgroup_size: u32,
    /// Keys each invocation of a merge pass outputs (a power of two, 1..=32). Default as the block pass. The merge
    /// tile (`merge_workgroup_size` x this, keys per workgroup) must divide twice the block tile; it does not
    /// change the number of merge passes.
    pub merge_items_per_invocation: u32,
    /// The per-workgroup merge. Default [`MergeKernel::Serial`].
    pub merge_kernel: MergeKernel,
    /// Where the split points are found. Default [`Partition::Mixed`].
    pub partition: Partition,
    /// With [`Partition::Mixed`]: the largest sorts (keys; the capacity with a GPU-side count) whose merge passes
    /// find their own split points.
    pub fused_max_keys: u32,
    /// Invocations per workgroup of the partition pass (`vksort::merge::partition`). Default 64.
    pub partition_workgroup_size: u32,
    /// Invocations (probes per round) of the partition pass's search of one tile's split point: a power of two,
    /// at least 2, at most the smallest subgroup size and at most 32 (or the fixed subgroup size). Default 8 (the
    /// smallest subgroup size where it is smaller).
    pub partition_lanes: u32,
}

impl MergePolicy {
    /// The device's policy for `items`.
    pub(crate) fn for_items(caps: &DeviceCaps, items: &Items) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let pow2_floor = |x: u32| 1u32 << (31 - x.max(1).leading_zeros());
        let wg = pow2_floor(plan.workgroup_size(caps, if caps.is_cpu() { 128 } else { 256 }));
        // Keys per invocation: GPUs hold a tile of 16 KiB of keys in shared memory (4096 u32 keys, 2048 u64,
        // 1024 u128: 3 workgroups per SM on an H100, whose Vulkan driver gives an SM 48 KiB of shared memory in
        // all), at most 16 keys per invocation; CPUs (lavapipe) 4 per invocation. Halved while a tile does not
        // fit the device.
        let mut kpt: u32 = if caps.is_cpu() { 4 } else { 16 };
        if !caps.is_cpu() {
            while kpt > 2 && (wg * kpt * items.key_words * 4) as u64 > 16 << 10 {
                kpt /= 2;
            }
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

    /// The device's policy for sorters of up to `max_n` keys: [`MergePolicy::for_items`], with the block pass's
    /// workgroups doubled (block tiles of 8192 32-bit keys on NVIDIA) on GPUs when every sort of the capacity
    /// finds its split points in its merge passes (`max_n` at most `fused_max_keys`) and the doubled tile fits:
    /// one merge pass fewer. H200 (2026-11-26, two runs each): 2-8% faster from 2^16 to 2^21 keys for u32 and
    /// u64 keys, with and without u32 values (2^20 u32 keys 0.106 against 0.115 ms); as a fixed policy it was
    /// 1-2% slower for keys at 2^24-2^28 (the block pass's longer merge rounds), so larger capacities keep the
    /// 4096-key tile (docs/tuning.md, "MergePolicy").
    ///
    /// 128-bit keys in such sorters of at least 2^18 keys also merge with half the invocations per merge
    /// workgroup, each merging twice the keys (the same 1024-key tile: 128 x 8 on NVIDIA): H200 (2026-11-26,
    /// two runs each) 8% faster at 2^18 and 11-18% faster at 2^20-2^21 keys, with and without 4- or 8-byte
    /// values; 4% slower at 2^16 (fewer invocations for few tiles), hence the lower bound; slower with
    /// partition passes (2^24: 4.36 against 4.04 ms) and no gain for 64- or 32-bit keys. Each merge workgroup's
    /// subgroups all repeat the tile's split search, so half the subgroups repeat it half as often, and each
    /// diagonal search serves twice the keys (not separated by measurement).
    pub(crate) fn for_capacity(caps: &DeviceCaps, items: &Items, max_n: u64) -> Self {
        let mut p = Self::for_items(caps, items);
        let wide = Self {
            block_workgroup_size: p.block_workgroup_size * 2,
            ..p
        };
        let small_fused =
            !caps.is_cpu() && p.partition == Partition::Mixed && max_n <= p.fused_max_keys as u64;
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

    /// This policy with fields replaced by a comma-separated override string, for tuning sweeps:
    /// `block_wg`, `block_kpt`, `merge_wg`, `merge_kpt`, `part_wg`, `part_lanes` (numbers), `kernel` (0 serial, 1 network),
    /// `partition` (0 pass, 1 fused, 2 mixed), `fused_max` (numbers); e.g. `"block_wg=512,kernel=1"`. Unknown keys fail with
    /// [`Error::InvalidPolicy`]; the result is checked when a sorter is built with it.
    pub fn with_overrides(mut self, spec: &str) -> Result<Self> {
        crate::policy::for_each_override(spec, "merge", |k, v, bad| {
            match k {
                "block_wg" => self.block_workgroup_size = v,
                "block_kpt" => self.block_items_per_invocation = v,
                "merge_wg" => self.merge_workgroup_size = v,
                "merge_kpt" => self.merge_items_per_invocation = v,
                "part_wg" => self.partition_workgroup_size = v,
                "part_lanes" => self.partition_lanes = v,
                "kernel" => {
                    self.merge_kernel = *MergeKernel::ALL
                        .get(v as usize)
                        .ok_or_else(|| bad(format!("kernel={v}: 0 (serial) or 1 (network)")))?
                }
                "partition" => {
                    self.partition = *Partition::ALL.get(v as usize).ok_or_else(|| {
                        bad(format!("partition={v}: 0 (pass), 1 (fused) or 2 (mixed)"))
                    })?
                }
                "fused_max" => self.fused_max_keys = v,
                _ => return Err(bad(format!("unknown key `{k}`"))),
            }
            Ok(())
        })?;
        Ok(self)
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

    /// Checks the policy against the device and the items.
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
    /// Shared memory of the block pass (merge_tile.glsl): the tile's key words, and with values a 16-bit tag per
    /// key.
    pub(crate) fn block_shared_bytes(&self, items: &Items) -> u64 {
        let tile = self.block_tile();
        tile * items.key_words as u64 * 4 + if items.val_words > 0 { tile * 2 } else { 0 }
    }

    /// Shared memory of a merge pass: the tile's key words ([`MergeKernel::Serial`]), or with
    /// [`MergeKernel::Network`] bitonic.glsl's tagged items (key words and the tag, one padding word per 32).
    pub(crate) fn merge_shared_bytes(&self, items: &Items) -> u64 {
        let tile = self.merge_tile();
        match self.merge_kernel {
            MergeKernel::Serial => tile * items.key_words as u64 * 4,
            MergeKernel::Network => (tile + tile / 32) * (items.key_words as u64 + 1) * 4,
        }
    }
}
