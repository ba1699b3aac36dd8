//! Per-device radix policies: the rules that derive a policy from the class's table (src/tuning.rs) and the
//! device's limits. Each value's measurement is in docs/tuning.md, "RadixPolicy".

use super::policy::RadixPolicy;
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::sort::types::{KeyType, ValueType};

impl RadixPolicy {
    /// The policy for a device: its class's table with match-any ranking where the device has it (not on CPU
    /// drivers), shrunk until every pass fits the shared memory (else the MSD sort is left out of Auto).
    pub fn for_device(caps: &DeviceCaps) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let t = &crate::tuning::for_class(caps.class).radix;
        let mut p = t.policy;
        p.tile.partitioned = caps.subgroup_partitioned && t.match_any;
        p.msd.partitioned = p.tile.partitioned;
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
    /// per invocation on GPUs for items of 3 or 4 words (registers) and for 64-bit keys on NVIDIA, and a small
    /// sort whose 64-bit keys fit the shared memory.
    pub fn for_sort(caps: &DeviceCaps, key: KeyType, value: ValueType) -> Self {
        let mut p = Self::for_device(caps);
        let words = (key.bytes() + value.bytes()) / 4;
        let t = &crate::tuning::for_class(caps.class).radix;
        if key.bytes() == 8 {
            p.tile.items_per_invocation =
                p.tile.items_per_invocation.min(t.u64_items_per_invocation);
            // The small sort holds every key in shared memory: half as many 64-bit keys fit.
            let fit = super::policy::small_shared_keys(caps.max_shared_memory, 2)
                / p.small.workgroup_size.max(1);
            p.small.items_per_invocation = p.small.items_per_invocation.min(fit.max(1));
            p.small.max = p.small.max.min(p.small_capacity());
        }
        if let Some(w) = t.word_keys.filter(|_| key.bytes() == 4 && words <= 2) {
            p.tile.items_per_invocation = w.tile.items_per_invocation;
            p.tile.exchange_parts = w.tile.exchange_parts;
            p.tile.peer_match = w.tile.peer_match;
            p.tile.partitioned = w.tile.partitioned;
            p.lookback.batch = w.lookback.batch;
            p.fused.max = w.fused.max;
        }
        if t.wide_item_caps && words >= 3 {
            p.tile.items_per_invocation = p.tile.items_per_invocation.min(32 / words).max(4);
            p.hybrid.items_per_invocation = p.hybrid.items_per_invocation.min(64 / words);
        }
        p.tile.exchange_parts = p.tile.exchange_parts.min(p.tile.items_per_invocation);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::super::policy::{PeerMatch, RankCounters};
    use super::*;
    use crate::policy::Policy;

    const GENERIC: RadixPolicy = crate::tuning::RADIX_GENERIC;

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
        assert_eq!(legend.len(), 43);
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
