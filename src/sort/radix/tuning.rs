//! Per-device radix policies: one table per [`DeviceClass`] and the rules that derive a policy from a device's
//! limits. Each value's measurement is in docs/tuning.md, "RadixPolicy".

use super::policy::{PeerMatch, RadixPolicy, RankCounters};
use crate::gpu::{DeviceCaps, DeviceClass};
use crate::policy::SubgroupPlan;
use crate::sort::types::{KeyType, ValueType};

/// GPUs without a table of their own: 256 x 12 keys per tile, 8-bit digits, vote ranking.
const GENERIC: RadixPolicy = RadixPolicy {
    workgroup_size: 256,
    keys_per_thread: 12,
    digit_bits: 8,
    spin_limit: 4096,
    use_partitioned: false, // set from the device: match-any where VK_NV_shader_subgroup_partitioned exists
    small_sort_max: 4096,
    small_workgroup_size: 256,
    small_keys_per_thread: 16,
    upfront_workgroup_size: 256,
    upfront_keys_per_thread: 16,
    upfront_max_groups: 512,
    onesweep_safe: true, // cleared for weak forward progress, below
    early_counts: true,
    upfront_hist_copies: 1,
    rank_counters: RankCounters::PerSubgroup,
    keep_digit: false,
    upfront_vec4: false,
    peer_match: PeerMatch::Vote,
    lookback_batch: 4,
    sub_tiles: 1,
    exchange_parts: 1,
    short_max: 0,
    short_keys_per_thread: 4,
    short_peer_match: PeerMatch::Vote,
    fused_max: 0,
    fused_loop_max: 0,
    msd_max: 1 << 16,
    msd_split_workgroup_size: 512,
    msd_split_keys_per_thread: 8,
    msd_bucket_workgroup_size: 256,
    msd_bucket_keys_per_thread: 8,
    msd_bucket_max_keys_per_thread: 16,
    msd_rank_max: 256,
    msd_single_kpt: 4,
    msd_helper_ratio: 2,
    msd_coop_min_keys: 1,
    msd_partitioned: false, // set from the device, as use_partitioned
    hybrid_workgroup_size: 512,
    hybrid_keys_per_thread: 10,
    hybrid_max: u32::MAX,
};

/// NVIDIA: tiles that keep 3 workgroups per SM within 48 KiB of shared memory, lane-mask peer matching,
/// short tiles up to 2^18 keys, no one-workgroup sort, Onesweep fused up to 2^20 keys.
const NVIDIA: RadixPolicy = RadixPolicy {
    small_sort_max: 0,
    small_workgroup_size: 512,
    upfront_keys_per_thread: 8,
    upfront_max_groups: 1024,
    rank_counters: RankCounters::Packed16,
    peer_match: PeerMatch::LaneMasksEager,
    short_max: 1 << 18,
    short_keys_per_thread: 6,
    short_peer_match: PeerMatch::LaneMasksEager,
    fused_max: 1 << 20,
    fused_loop_max: 1 << 20,
    msd_max: 1 << 16,
    msd_split_workgroup_size: 1024,
    msd_split_keys_per_thread: 1,
    msd_bucket_keys_per_thread: 4,
    msd_rank_max: 256,
    msd_single_kpt: 2,
    ..GENERIC
};

/// NVIDIA, 32-bit keys with no value or a 32-bit one (`for_sort` takes only the six fields below; the MSD
/// passes keep match-any): 256 x 16 tiles ranked with ballots, exchanged in two parts.
const NVIDIA_WORD_KEYS: RadixPolicy = RadixPolicy {
    keys_per_thread: 16,
    exchange_parts: 2,
    peer_match: PeerMatch::Vote,
    use_partitioned: false,
    lookback_batch: 2,
    fused_max: 1 << 21,
    ..NVIDIA
};

/// CPU drivers (lavapipe): 128 x 8 tiles, a short spin, the one-workgroup sort up to 2048 keys, no MSD sort in
/// Auto (a CPU driver pays per workgroup and per barrier).
const CPU: RadixPolicy = RadixPolicy {
    workgroup_size: 128,
    keys_per_thread: 8,
    spin_limit: 256,
    small_sort_max: 2048,
    small_workgroup_size: 128,
    upfront_keys_per_thread: 8,
    upfront_max_groups: 64,
    msd_max: 0,
    msd_split_workgroup_size: 128,
    msd_bucket_workgroup_size: 128,
    msd_coop_min_keys: 0,
    hybrid_workgroup_size: 128,
    hybrid_keys_per_thread: 16,
    hybrid_max: 1 << 16,
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
        p.use_partitioned = caps.subgroup_partitioned && gpu;
        p.msd_partitioned = p.use_partitioned;
        // Onesweep's fallback keeps weak forward progress correct, but slow: reduce-then-scan there.
        p.onesweep_safe = caps.class.forward_progress();
        for _ in 0..16 {
            if p.check(caps, &plan).is_ok() {
                break;
            }
            p.shrink(&plan);
        }
        if p.check(caps, &plan).is_err() {
            p.msd_max = 0;
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
        if self.keys_per_thread > 4 {
            self.keys_per_thread -= 2;
        } else if !halve(&mut self.workgroup_size) && self.digit_bits > 4 {
            self.digit_bits -= 1;
        }
        if self.small_keys_per_thread > 4 {
            self.small_keys_per_thread -= 2;
        } else {
            halve(&mut self.small_workgroup_size);
        }
        self.small_sort_max = self.small_sort_max.min(self.small_capacity());
        if halve(&mut self.msd_split_workgroup_size) {
            self.msd_split_keys_per_thread *= 2;
        }
        halve(&mut self.msd_bucket_workgroup_size);
        if self.hybrid_keys_per_thread > 4 {
            self.hybrid_keys_per_thread -= 4;
        } else {
            halve(&mut self.hybrid_workgroup_size);
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
            p.keys_per_thread = p.keys_per_thread.min(10);
        }
        if nvidia && key.bytes() == 4 && words <= 2 {
            p = RadixPolicy {
                keys_per_thread: NVIDIA_WORD_KEYS.keys_per_thread,
                exchange_parts: NVIDIA_WORD_KEYS.exchange_parts,
                peer_match: NVIDIA_WORD_KEYS.peer_match,
                use_partitioned: NVIDIA_WORD_KEYS.use_partitioned,
                lookback_batch: NVIDIA_WORD_KEYS.lookback_batch,
                fused_max: NVIDIA_WORD_KEYS.fused_max,
                ..p
            };
        }
        if gpu && words >= 3 {
            p.keys_per_thread = p.keys_per_thread.min(32 / words).max(4);
            p.small_keys_per_thread = p.small_keys_per_thread.min(8);
            p.hybrid_keys_per_thread = p.hybrid_keys_per_thread.min(64 / words);
            p.small_sort_max = p.small_sort_max.min(p.small_capacity());
        }
        p.exchange_parts = p.exchange_parts.min(p.keys_per_thread);
        p
    }
}
