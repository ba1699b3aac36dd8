//! Per-device radix policies: the tables of numbers, apart from the code that uses them. Each value's reason
//! (the measurement that chose it, GPU and size) is in `docs/tuning.md`, section "Radix sort"; this file holds
//! only the data and the rules that derive a policy from a device's limits.

use super::policy::{PeerMatch, RadixPolicy, RankCounters};
use crate::gpu::DeviceCaps;
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
    onesweep_safe: true, // cleared for vendors with weak forward-progress guarantees, below
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

/// NVIDIA (measured on H100 and H200; docs/tuning.md "NVIDIA"): 256 x 12 tiles that keep 3 workgroups per SM
/// under the driver's ~48 KiB of shared memory per SM, lane-mask peer matching with packed 16-bit counters,
/// short 256 x 6 tiles up to 2^18 keys, the MSD sort for Auto up to 2^16 keys, no one-workgroup sort, and
/// Onesweep fused into one dispatch up to 2^20 keys, its workgroups claiming items in a loop (faster than the
/// per-place passes there, slower above; docs/tuning.md "One dispatch for Onesweep").
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

/// NVIDIA, 32-bit keys with no value or a 32-bit one (`for_sort`; H200, 2026-11-26, docs/tuning.md): 256 x 16
/// tiles ranked with ballots (no lane masks in shared memory) and exchanged in two parts: 64 registers and
/// 11.1 KiB of shared memory, 4 workgroups and 16,384 keys per SM against 3 and 9,216; look-back round trips of
/// 2 predecessors (2% faster than 4 at 2^28 keys in three commands); the fused Onesweep up to 2^21 keys, one
/// workgroup per item above 2^20 (docs/tuning.md "One workgroup per item"). Only the six fields below are taken
/// from it: the MSD passes keep the device's match-any ranking (`msd_partitioned`), as fast as ballots there and
/// quicker to build.
const NVIDIA_WORD_KEYS: RadixPolicy = RadixPolicy {
    keys_per_thread: 16,
    exchange_parts: 2,
    peer_match: PeerMatch::Vote,
    use_partitioned: false,
    lookback_batch: 2,
    fused_max: 1 << 21,
    ..NVIDIA
};

/// CPU drivers (lavapipe: subgroup 8, 32 KiB shared memory; docs/tuning.md "lavapipe"): 128 x 8 tiles, a short
/// look-back spin, the one-workgroup sort up to 2048 keys, no MSD sort in Auto (a CPU driver pays per workgroup
/// and per barrier).
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

/// Vendors whose schedulers give weak forward-progress guarantees (ARM Mali, Qualcomm Adreno, Apple through
/// MoltenVK): Auto uses reduce-then-scan there (Onesweep's fallback keeps it correct, but slow).
const WEAK_FORWARD_PROGRESS: [u32; 3] = [0x13b5, 0x5143, 0x106b];

impl RadixPolicy {
    /// The policy for a device: its vendor's table (NVIDIA, CPU drivers, or the generic one), with match-any
    /// ranking where the device has it (not on CPU drivers), then shrunk (keys per invocation, workgroup size,
    /// digit bits) until every pass's shared memory fits the device; the MSD sort is left out of Auto when its
    /// passes still do not fit.
    pub fn for_device(caps: &DeviceCaps) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        let mut p = if caps.vendor_id == 0x10de {
            NVIDIA
        } else if caps.is_cpu() {
            CPU
        } else {
            GENERIC
        };
        p.use_partitioned = caps.subgroup_partitioned && !caps.is_cpu();
        p.msd_partitioned = p.use_partitioned;
        p.onesweep_safe = caps.is_cpu() || !WEAK_FORWARD_PROGRESS.contains(&caps.vendor_id);
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

    /// One step down in shared memory: fewer keys per invocation, else a smaller workgroup, else fewer digit
    /// bits, for each pass family.
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

    /// The policy for a device and a key/value type: [`RadixPolicy::for_device`], with fewer keys per invocation
    /// on GPUs when a key and its value take 3 or 4 words (64-bit keys with values, 32-bit keys with 64-bit
    /// values), so the per-invocation registers stay in the register file, and at most 10 for 64-bit keys on
    /// NVIDIA (3 workgroups per SM). CPU drivers keep the device policy. This is what a
    /// [`crate::sort::Sorter`] uses unless given a policy.
    pub fn for_sort(caps: &DeviceCaps, key: KeyType, value: ValueType) -> Self {
        let mut p = Self::for_device(caps);
        let words = (key.bytes() + value.bytes()) / 4;
        if caps.vendor_id == 0x10de && key.bytes() == 8 {
            p.keys_per_thread = p.keys_per_thread.min(10);
        }
        if caps.vendor_id == 0x10de && key.bytes() == 4 && words <= 2 {
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
        if !caps.is_cpu() && words >= 3 {
            p.keys_per_thread = p.keys_per_thread.min(32 / words).max(4);
            p.small_keys_per_thread = p.small_keys_per_thread.min(8);
            p.hybrid_keys_per_thread = p.hybrid_keys_per_thread.min(64 / words);
            p.small_sort_max = p.small_sort_max.min(p.small_capacity());
        }
        p.exchange_parts = p.exchange_parts.min(p.keys_per_thread);
        p
    }
}
