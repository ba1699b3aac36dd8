//! Per-device radix policies: one table per [`DeviceClass`] and the rules that derive a policy from a device's
//! limits. Each value's measurement is in docs/tuning.md, "RadixPolicy".

use super::policy::{
    FusedSort, HybridSort, Lookback, MsdBucketPass, MsdSort, MsdSplitPass, PeerMatch, RadixPolicy,
    RankCounters, RankTile, ShortTiles, SmallSort, UpfrontPass,
};
use crate::gpu::{DeviceCaps, DeviceClass};
use crate::policy::SubgroupPlan;
use crate::sort::types::{KeyType, ValueType};

/// GPUs without a table of their own: 256 x 12 keys per tile, 8-bit digits, vote ranking.
const GENERIC: RadixPolicy = RadixPolicy {
    tile: RankTile {
        workgroup_size: 256,
        items_per_invocation: 12,
        digit_bits: 8,
        rank_counters: RankCounters::PerSubgroup,
        keep_digit: false,
        peer_match: PeerMatch::Vote,
        sub_tiles: 1,
        exchange_parts: 1,
        partitioned: false, // set from the device: match-any where VK_NV_shader_subgroup_partitioned exists
    },
    lookback: Lookback {
        spin_limit: 4096,
        batch: 4,
        early_counts: true,
        safe: true, // cleared for weak forward progress, below
    },
    upfront: UpfrontPass {
        workgroup_size: 256,
        items_per_invocation: 16,
        max_groups: 512,
        hist_copies: 1,
        vec4: false,
    },
    small: SmallSort {
        max: 4096,
        workgroup_size: 256,
        items_per_invocation: 16,
    },
    short: ShortTiles {
        max: 0,
        items_per_invocation: 4,
        peer_match: PeerMatch::Vote,
    },
    fused: FusedSort {
        max: 0,
        loop_max: 0,
    },
    msd: MsdSort {
        max: 1 << 16,
        rank_max: 256,
        single_items_per_invocation: 4,
        helper_ratio: 2,
        coop_min_keys: 1,
        partitioned: false, // set from the device, as tile.partitioned
    },
    msd_split: MsdSplitPass {
        workgroup_size: 512,
        items_per_invocation: 8,
    },
    msd_bucket: MsdBucketPass {
        workgroup_size: 256,
        items_per_invocation: 8,
        max_items_per_invocation: 16,
    },
    hybrid: HybridSort {
        max: u32::MAX,
        workgroup_size: 512,
        items_per_invocation: 10,
    },
};

/// NVIDIA: tiles that keep 3 workgroups per SM within 48 KiB of shared memory, lane-mask peer matching,
/// short tiles up to 2^18 keys, no one-workgroup sort, Onesweep fused up to 2^20 keys.
const NVIDIA: RadixPolicy = RadixPolicy {
    tile: RankTile {
        rank_counters: RankCounters::Packed16,
        peer_match: PeerMatch::LaneMasksEager,
        ..GENERIC.tile
    },
    upfront: UpfrontPass {
        items_per_invocation: 8,
        max_groups: 1024,
        ..GENERIC.upfront
    },
    small: SmallSort {
        max: 0,
        workgroup_size: 512,
        ..GENERIC.small
    },
    short: ShortTiles {
        max: 1 << 18,
        items_per_invocation: 6,
        peer_match: PeerMatch::LaneMasksEager,
    },
    fused: FusedSort {
        max: 1 << 20,
        loop_max: 1 << 20,
    },
    msd: MsdSort {
        max: 1 << 16,
        rank_max: 256,
        single_items_per_invocation: 2,
        ..GENERIC.msd
    },
    msd_split: MsdSplitPass {
        workgroup_size: 1024,
        items_per_invocation: 1,
    },
    msd_bucket: MsdBucketPass {
        items_per_invocation: 4,
        ..GENERIC.msd_bucket
    },
    ..GENERIC
};

/// NVIDIA, 32-bit keys with no value or a 32-bit one (`for_sort` takes only the six fields below; the MSD
/// passes keep match-any): 256 x 16 tiles ranked with ballots, exchanged in two parts.
const NVIDIA_WORD_KEYS: RadixPolicy = RadixPolicy {
    tile: RankTile {
        items_per_invocation: 16,
        exchange_parts: 2,
        peer_match: PeerMatch::Vote,
        partitioned: false,
        ..NVIDIA.tile
    },
    lookback: Lookback {
        batch: 2,
        ..NVIDIA.lookback
    },
    fused: FusedSort {
        max: 1 << 21,
        ..NVIDIA.fused
    },
    ..NVIDIA
};

/// CPU drivers (lavapipe): 128 x 8 tiles, a short spin, the one-workgroup sort up to 2048 keys, no MSD sort in
/// Auto (a CPU driver pays per workgroup and per barrier).
const CPU: RadixPolicy = RadixPolicy {
    tile: RankTile {
        workgroup_size: 128,
        items_per_invocation: 8,
        ..GENERIC.tile
    },
    lookback: Lookback {
        spin_limit: 256,
        ..GENERIC.lookback
    },
    small: SmallSort {
        max: 2048,
        workgroup_size: 128,
        ..GENERIC.small
    },
    upfront: UpfrontPass {
        items_per_invocation: 8,
        max_groups: 64,
        ..GENERIC.upfront
    },
    msd: MsdSort {
        max: 0,
        coop_min_keys: 0,
        ..GENERIC.msd
    },
    msd_split: MsdSplitPass {
        workgroup_size: 128,
        ..GENERIC.msd_split
    },
    msd_bucket: MsdBucketPass {
        workgroup_size: 128,
        ..GENERIC.msd_bucket
    },
    hybrid: HybridSort {
        workgroup_size: 128,
        items_per_invocation: 16,
        max: 1 << 16,
    },
    ..GENERIC
};

impl RadixPolicy {
    /// The policy for a device: its class's table with match-any ranking where the device has it (not on CPU
    /// drivers), shrunk until every pass fits the shared memory (else the MSD sort is left out of Auto).
    pub fn for_device(caps: &DeviceCaps) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let gpu = caps.class != DeviceClass::Cpu;
        let mut p = match caps.class {
            DeviceClass::Nvidia => NVIDIA,
            DeviceClass::Cpu => CPU,
            _ => GENERIC,
        };
        p.tile.partitioned = caps.subgroup_partitioned && gpu;
        p.msd.partitioned = p.tile.partitioned;
        // Onesweep's fallback keeps weak forward progress correct, but slow: reduce-then-scan there.
        p.lookback.safe = caps.class.forward_progress();
        for _ in 0..16 {
            if p.check(caps, &plan).is_ok() {
                break;
            }
            p.shrink(&plan);
        }
        if p.check(caps, &plan).is_err() {
            p.msd.max = 0;
        }
        p
    }

    /// One step down in shared memory for each pass: fewer keys per invocation, a smaller workgroup, fewer bits.
    fn shrink(&mut self, plan: &SubgroupPlan) {
        let halve = |wg: &mut u32| {
            let ok = *wg > plan.max * 2 && *wg > 64;
            if ok {
                *wg /= 2;
            }
            ok
        };
        if self.tile.items_per_invocation > 4 {
            self.tile.items_per_invocation -= 2;
        } else if !halve(&mut self.tile.workgroup_size) && self.tile.digit_bits > 4 {
            self.tile.digit_bits -= 1;
        }
        if self.small.items_per_invocation > 4 {
            self.small.items_per_invocation -= 2;
        } else {
            halve(&mut self.small.workgroup_size);
        }
        self.small.max = self.small.max.min(self.small_capacity());
        if halve(&mut self.msd_split.workgroup_size) {
            self.msd_split.items_per_invocation *= 2;
        }
        halve(&mut self.msd_bucket.workgroup_size);
        if self.hybrid.items_per_invocation > 4 {
            self.hybrid.items_per_invocation -= 4;
        } else {
            halve(&mut self.hybrid.workgroup_size);
        }
    }

    /// The policy a [`crate::sort::Sorter`] uses unless given one: [`RadixPolicy::for_device`], with fewer keys
    /// per invocation on GPUs for items of 3 or 4 words (registers) and for 64-bit keys on NVIDIA.
    pub fn for_sort(caps: &DeviceCaps, key: KeyType, value: ValueType) -> Self {
        let mut p = Self::for_device(caps);
        let words = (key.bytes() + value.bytes()) / 4;
        let (nvidia, gpu) = (
            caps.class == DeviceClass::Nvidia,
            caps.class != DeviceClass::Cpu,
        );
        if nvidia && key.bytes() == 8 {
            p.tile.items_per_invocation = p.tile.items_per_invocation.min(10);
        }
        if nvidia && key.bytes() == 4 && words <= 2 {
            let w = NVIDIA_WORD_KEYS;
            p.tile.items_per_invocation = w.tile.items_per_invocation;
            p.tile.exchange_parts = w.tile.exchange_parts;
            p.tile.peer_match = w.tile.peer_match;
            p.tile.partitioned = w.tile.partitioned;
            p.lookback.batch = w.lookback.batch;
            p.fused.max = w.fused.max;
        }
        if gpu && words >= 3 {
            p.tile.items_per_invocation = p.tile.items_per_invocation.min(32 / words).max(4);
            p.small.items_per_invocation = p.small.items_per_invocation.min(8);
            p.hybrid.items_per_invocation = p.hybrid.items_per_invocation.min(64 / words);
            p.small.max = p.small.max.min(p.small_capacity());
        }
        p.tile.exchange_parts = p.tile.exchange_parts.min(p.tile.items_per_invocation);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policy;

    /// A value of the field at `path` that the field takes (its current value where a getter exists).
    fn current(p: &RadixPolicy, path: &str) -> u32 {
        let dbg = format!("{p:?}");
        let (part, field) = path
            .split_once('.')
            .expect("every radix field is in a part");
        let part_at = dbg.find(&format!("{part}: ")).expect("part in Debug");
        let rest = &dbg[part_at..];
        let at = rest.find(&format!(" {field}: ")).expect("field in Debug") + field.len() + 3;
        let v: String = rest[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .collect();
        match v.as_str() {
            "true" => 1,
            "false" => 0,
            "PerSubgroup" | "Vote" => 0,
            "Scanned" | "LaneMasks" => 1,
            "Packed16" | "LaneMasksEager" => 2,
            n => n.parse().expect("a number"),
        }
    }

    #[test]
    fn legend_lists_every_path_once_and_each_is_settable() {
        let legend = RadixPolicy::legend();
        assert_eq!(legend.len(), 40);
        let mut paths: Vec<&str> = legend.iter().map(|(p, _)| p.as_str()).collect();
        assert!(legend
            .iter()
            .all(|(p, doc)| p.contains('.') && !doc.is_empty()));
        paths.sort_unstable();
        paths.dedup();
        assert_eq!(paths.len(), legend.len(), "a path is listed twice");
        for base in [GENERIC, {
            let mut p = GENERIC;
            p.tile.rank_counters = RankCounters::Packed16;
            p.short.peer_match = PeerMatch::LaneMasks;
            p.msd.partitioned = true;
            p
        }] {
            for (path, _) in &legend {
                let spec = format!("{path}={}", current(&base, path));
                assert_eq!(base.with_overrides(&spec).unwrap(), base, "{spec}");
            }
        }
        let p = GENERIC
            .with_overrides(
                "tile.items_per_invocation=8, msd_bucket.workgroup_size=512, tile.peer_match=2",
            )
            .unwrap();
        assert_eq!(p.tile.items_per_invocation, 8);
        assert_eq!(p.msd_bucket.workgroup_size, 512);
        assert_eq!(p.tile.peer_match, PeerMatch::LaneMasksEager);
        for bad in [
            "kpt=8",
            "tile=1",
            "tile.items_per_invocation.x=1",
            "tile.peer_match=3",
            "lookback.safe=2",
        ] {
            assert!(GENERIC.with_overrides(bad).is_err(), "{bad}");
        }
    }
}
