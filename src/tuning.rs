//! Every device class's tuning values, as data: the one file to edit to tune a device class (a new class also
//! needs its variant and detection in src/gpu/class.rs). Each family's policy reads its part through
//! [`for_class`] and derives the rest from the device's limits (subgroup sizes, shared memory, invocations).
//! docs/tuning.md holds the measurements behind each value. Workgroup sizes here are wishes, cut to the device.

use crate::compact::CompactTier;
use crate::gpu::DeviceClass;
use crate::sort::auto::Crossover;
use crate::sort::radix::policy::{
    FusedSort, HybridSort, Lookback, MsdBucketPass, MsdSort, MsdSplitPass, PeerMatch, RadixPolicy,
    RankCounters, RankTile, ShortTiles, SmallSort, UpfrontPass,
};
use crate::sort::SortAlgorithm;

/// The tuning of one device class: a part per family.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClassTuning {
    /// The look-back scan ([`crate::scan::ScanPolicy::for_device`]).
    pub scan: ScanTuning,
    /// Stream compaction ([`crate::compact::CompactPolicy::for_device`]).
    pub compact: CompactTuning,
    /// The copy roofline ([`crate::copy::measure_roofline`]).
    pub copy: CopyTuning,
    /// The radix sorts ([`RadixPolicy::for_device`], [`RadixPolicy::for_sort`], Onesweep's fused grid).
    pub radix: RadixTuning,
    /// The merge sort ([`crate::sort::MergePolicy`]).
    pub merge: MergeTuning,
    /// The quicksort ([`crate::sort::QuicksortPolicy`]).
    pub quicksort: QuicksortTuning,
    /// The bitonic sort ([`crate::sort::BitonicPolicy`]).
    pub bitonic: BitonicTuning,
    /// The split radix sort ([`crate::sort::SplitPolicy`]).
    pub split: SplitTuning,
    /// WarpSort ([`crate::sort::WarpSortPolicy`]).
    pub warpsort: WarpSortTuning,
    /// Auto's crossover table: size ranges where another family beats the radix choice (empty: none measured).
    pub crossovers: &'static [Crossover],
}

/// Look-back scan values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanTuning {
    /// Invocations per workgroup wished for.
    pub workgroup_size: u32,
    /// Elements per invocation wished for (raised to the smallest tile, at most 64).
    pub items_per_invocation: u32,
    /// Look-back polls before a workgroup reduces the predecessor's tile itself.
    pub spin_limit: u32,
    /// A memory barrier between a fallback reduction and the re-read of the predecessor's status.
    pub recheck_fence: bool,
    /// Invocations of the one-workgroup form wished for (0: the workgroup size).
    pub single_workgroup_size: u32,
}

/// Compaction values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CompactTuning {
    /// The small tier (workgroup size 0: the scan's; elements per invocation raised to the smallest tile; max
    /// 0: none).
    pub small: CompactTier,
    /// The middle tier, above the small one (as `small`).
    pub mid: CompactTier,
    /// The large tier, above the middle one (as `small`); above it, the scan's tile.
    pub large: CompactTier,
}

/// Copy roofline values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CopyTuning {
    /// GPU time spent warming up before the measured copies, in nanoseconds.
    pub roofline_warm_ns: f64,
}

/// Radix sort values: the class's table and the per-sort adjustments.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RadixTuning {
    /// The class's policy before the device's limits shrink it.
    pub policy: RadixPolicy,
    /// Rank with match-any where the device has VK_NV_shader_subgroup_partitioned.
    pub match_any: bool,
    /// The most keys per invocation of a tile of 64-bit keys (u32::MAX: no cap).
    pub u64_items_per_invocation: u32,
    /// 32-bit keys with no value or a 32-bit one take this table's tile shape, look-back batch and fused max.
    pub word_keys: Option<RadixPolicy>,
    /// Items of 3 or 4 words take fewer keys per invocation (registers).
    pub wide_item_caps: bool,
    /// Onesweep's fused sort runs as one workgroup claiming every item, never waiting on another.
    pub fused_one_workgroup: bool,
    /// Loop iterations one invocation may run in all (0: no limit; lavapipe ends an invocation's loops after
    /// 65,535): bounds the hybrid sort's capacity ([`RadixPolicy::hybrid_capacity_within`]).
    pub loop_budget: u32,
}

/// Merge sort values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MergeTuning {
    /// Invocations per workgroup of the block and merge passes wished for.
    pub workgroup_size: u32,
    /// Keys per invocation of the block and merge passes wished for.
    pub items_per_invocation: u32,
    /// The most bytes of keys of a block tile before halving the keys per invocation (u32::MAX: no cap).
    pub tile_key_bytes: u32,
    /// Sorters whose sorts all fuse their split searches take wider block workgroups.
    pub widen_fused: bool,
}

/// Quicksort values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QuicksortTuning {
    /// Invocations per workgroup of phase one wished for.
    pub workgroup_size: u32,
    /// Keys per invocation of phase one (and of phase two unless widened).
    pub items_per_invocation: u32,
    /// Phase-one tiles of a sequence that goes to phase two.
    pub local_max_tiles: u32,
    /// Phase two's invocations wished for on the same tile (None: as phase one).
    pub local_workgroup_size: Option<u32>,
}

/// Bitonic sort values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BitonicTuning {
    /// Invocations per workgroup of the tile pass wished for (None: the largest that fits).
    pub workgroup_size: Option<u32>,
    /// Items per invocation.
    pub items_per_invocation: u32,
    /// Invocations per workgroup of the global steps wished for.
    pub global_workgroup_size: u32,
    /// Strides of a merge stage one global pass runs.
    pub global_fuse: u32,
}

/// Split radix sort values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SplitTuning {
    /// Invocations per workgroup of the tile passes wished for.
    pub workgroup_size: u32,
    /// Keys per invocation wished for (halved until the scatter fits).
    pub items_per_invocation: u32,
    /// Bits per pass of the blocked form.
    pub digit_bits: u32,
}

/// WarpSort values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WarpSortTuning {
    /// Invocations per workgroup of the chunk, merge and piece passes wished for.
    pub workgroup_size: u32,
    /// Items per lane of a chunk.
    pub chunk_items_per_invocation: u32,
    /// Items per lane of each half of a merge window.
    pub merge_items_per_invocation: u32,
    /// Sorts of at least this many keys split their rows into pieces.
    pub split_min_keys: u64,
    /// Rows a splitting sort merges down to.
    pub split_rows: u32,
    /// Sample items per piece.
    pub oversampling: u32,
    /// Target keys per piece.
    pub piece_items: u32,
    /// Invocations per workgroup of the positions pass and the offsets scan wished for.
    pub scan_workgroup_size: u32,
    /// The sample sort takes twice the invocations at half the items where the device allows.
    pub wide_sample: bool,
}

/// The tuning of `class`: the one place that tells device classes apart for tuning.
pub(crate) fn for_class(class: DeviceClass) -> &'static ClassTuning {
    match class {
        DeviceClass::Cpu => &CPU,
        DeviceClass::Nvidia => &NVIDIA,
        DeviceClass::WeakForwardProgress => &WEAK_FORWARD_PROGRESS,
        DeviceClass::Generic => &GENERIC,
    }
}

/// Every GPU without values of its own (AMD, Intel, ...).
pub(crate) const GENERIC: ClassTuning = ClassTuning {
    scan: ScanTuning {
        workgroup_size: 256,
        items_per_invocation: 32,
        spin_limit: 2048,
        recheck_fence: true,
        single_workgroup_size: 1024,
    },
    compact: CompactTuning {
        small: CompactTier {
            max: 1 << 22,
            workgroup_size: 0,
            items_per_invocation: 16,
        },
        mid: CompactTier {
            max: 0,
            workgroup_size: 0,
            items_per_invocation: 16,
        },
        large: CompactTier {
            max: 0,
            workgroup_size: 0,
            items_per_invocation: 32,
        },
    },
    copy: CopyTuning {
        roofline_warm_ns: 300e6,
    },
    radix: RadixTuning {
        policy: RADIX_GENERIC,
        match_any: true,
        u64_items_per_invocation: u32::MAX,
        word_keys: None,
        wide_item_caps: true,
        fused_one_workgroup: false,
        loop_budget: 0,
    },
    merge: MergeTuning {
        workgroup_size: 256,
        items_per_invocation: 16,
        tile_key_bytes: 16 << 10,
        widen_fused: true,
    },
    quicksort: QuicksortTuning {
        workgroup_size: 256,
        items_per_invocation: 8,
        local_max_tiles: 8,
        local_workgroup_size: None,
    },
    bitonic: BitonicTuning {
        workgroup_size: None,
        items_per_invocation: 4,
        global_workgroup_size: 256,
        global_fuse: 3,
    },
    split: SplitTuning {
        workgroup_size: 256,
        items_per_invocation: 8,
        digit_bits: 4,
    },
    warpsort: WarpSortTuning {
        workgroup_size: 256,
        chunk_items_per_invocation: 4,
        merge_items_per_invocation: 4,
        split_min_keys: 1 << 13,
        split_rows: 64,
        oversampling: 16,
        piece_items: 2048,
        scan_workgroup_size: 256,
        wide_sample: true,
    },
    crossovers: &[],
};

/// Weak forward progress (Mali, Adreno, Apple): generic, but reduce-then-scan where Onesweep would look back.
pub(crate) const WEAK_FORWARD_PROGRESS: ClassTuning = ClassTuning {
    radix: RadixTuning {
        policy: RadixPolicy {
            lookback: Lookback {
                safe: false,
                ..RADIX_GENERIC.lookback
            },
            ..RADIX_GENERIC
        },
        ..GENERIC.radix
    },
    ..GENERIC
};

/// NVIDIA: the measured radix tables, wider quicksort phase two, merge sort crossovers for 64-bit keys, and
/// compaction tiers by residency: 512 x 16 up to 2^21, 1024 x 16 up to 2^23 (32 registers against 55: 2^22's
/// tiles run in one wave), 1024 x 32 up to 2^26, and the scan's 256 x 32 above.
pub(crate) const NVIDIA: ClassTuning = ClassTuning {
    radix: RadixTuning {
        policy: RADIX_NVIDIA,
        u64_items_per_invocation: 10,
        word_keys: Some(RADIX_NVIDIA_WORD_KEYS),
        ..GENERIC.radix
    },
    quicksort: QuicksortTuning {
        local_workgroup_size: Some(1024),
        ..GENERIC.quicksort
    },
    compact: CompactTuning {
        small: CompactTier {
            max: 1 << 21,
            workgroup_size: 512,
            ..GENERIC.compact.small
        },
        mid: CompactTier {
            max: 1 << 23,
            workgroup_size: 1024,
            ..GENERIC.compact.mid
        },
        large: CompactTier {
            max: 1 << 26,
            workgroup_size: 1024,
            ..GENERIC.compact.large
        },
    },
    crossovers: &[
        nvidia_merge(0, 1 << 19),
        nvidia_merge(4, 1 << 19),
        nvidia_merge(8, 1 << 22),
    ],
    ..GENERIC
};

/// One entry of [`NVIDIA`]'s crossovers: merge sort for 64-bit keys with `value_bytes` from 2^17 keys.
const fn nvidia_merge(value_bytes: u32, max_n: u64) -> Crossover {
    Crossover {
        key_bytes: 8,
        value_bytes,
        min_n: 1 << 17,
        max_n,
        algorithm: SortAlgorithm::Merge,
    }
}

/// CPU drivers (lavapipe), which pay per workgroup and per barrier: small workgroups, short spins.
pub(crate) const CPU: ClassTuning = ClassTuning {
    scan: ScanTuning {
        workgroup_size: 128,
        items_per_invocation: 16,
        spin_limit: 256,
        recheck_fence: false,
        single_workgroup_size: 0,
    },
    compact: CompactTuning {
        small: CompactTier {
            max: 0,
            ..GENERIC.compact.small
        },
        ..GENERIC.compact
    },
    copy: CopyTuning {
        roofline_warm_ns: 0.0,
    },
    radix: RadixTuning {
        policy: RADIX_CPU,
        match_any: false,
        wide_item_caps: false,
        fused_one_workgroup: true,
        loop_budget: 65535,
        ..GENERIC.radix
    },
    merge: MergeTuning {
        workgroup_size: 128,
        items_per_invocation: 4,
        tile_key_bytes: u32::MAX,
        widen_fused: false,
    },
    quicksort: QuicksortTuning {
        items_per_invocation: 4,
        local_max_tiles: 4,
        ..GENERIC.quicksort
    },
    bitonic: BitonicTuning {
        workgroup_size: Some(128),
        ..GENERIC.bitonic
    },
    split: SplitTuning {
        workgroup_size: 128,
        ..GENERIC.split
    },
    warpsort: WarpSortTuning {
        workgroup_size: 64,
        chunk_items_per_invocation: 8,
        split_min_keys: 1 << 12,
        split_rows: 8,
        piece_items: 1024,
        scan_workgroup_size: 64,
        wide_sample: false,
        ..GENERIC.warpsort
    },
    crossovers: &[
        cpu_merge(4, 0),
        cpu_merge(4, 4),
        cpu_merge(4, 8),
        cpu_merge(8, 0),
        cpu_merge(8, 4),
        cpu_merge(8, 8),
    ],
};

/// One of [`CPU`]'s crossovers: merge sort from 2049 to 2^22 keys (its pipelines compile faster than Onesweep's).
const fn cpu_merge(key_bytes: u32, value_bytes: u32) -> Crossover {
    Crossover {
        key_bytes,
        value_bytes,
        min_n: 2049,
        max_n: 1 << 22,
        algorithm: SortAlgorithm::Merge,
    }
}

/// GPUs without a radix table of their own: 256 x 12 keys per tile, 8-bit digits, vote ranking.
pub(crate) const RADIX_GENERIC: RadixPolicy = RadixPolicy {
    tile: RankTile {
        workgroup_size: 256,
        items_per_invocation: 12,
        digit_bits: 8,
        rank_counters: RankCounters::PerSubgroup,
        keep_digit: false,
        peer_match: PeerMatch::Vote,
        sub_tiles: 1,
        exchange_parts: 1,
        partitioned: false, // set from the device where match_any
    },
    lookback: Lookback {
        spin_limit: 4096,
        batch: 4,
        early_counts: true,
        safe: true,
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
        targets_per_subgroup: 4,
        few_max: 0,
        few_targets_per_subgroup: 2,
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
/// short tiles up to 2^18 keys, the rank sort up to 4096 keys, Onesweep fused up to 2^21 keys.
const RADIX_NVIDIA: RadixPolicy = RadixPolicy {
    tile: RankTile {
        rank_counters: RankCounters::Packed16,
        peer_match: PeerMatch::LaneMasksEager,
        ..RADIX_GENERIC.tile
    },
    upfront: UpfrontPass {
        items_per_invocation: 8,
        max_groups: 1024,
        ..RADIX_GENERIC.upfront
    },
    // The rank sort up to 4096 keys, where it is faster than the MSD sort; two targets per subgroup up to 2048
    // (docs/tuning.md, "Issue 52").
    small: SmallSort {
        max: 4096,
        items_per_invocation: 32,
        few_max: 2048,
        ..RADIX_GENERIC.small
    },
    short: ShortTiles {
        max: 1 << 18,
        items_per_invocation: 6,
        peer_match: PeerMatch::LaneMasksEager,
    },
    fused: FusedSort {
        max: 1 << 21,
        loop_max: 1 << 20,
    },
    msd: MsdSort {
        max: 1 << 16,
        rank_max: 256,
        single_items_per_invocation: 2,
        ..RADIX_GENERIC.msd
    },
    msd_split: MsdSplitPass {
        workgroup_size: 1024,
        items_per_invocation: 1,
    },
    msd_bucket: MsdBucketPass {
        items_per_invocation: 4,
        ..RADIX_GENERIC.msd_bucket
    },
    ..RADIX_GENERIC
};

/// NVIDIA, 32-bit keys with at most a 32-bit value (`for_sort` takes 6 fields): 256 x 16 tiles, ballots, 2 parts.
const RADIX_NVIDIA_WORD_KEYS: RadixPolicy = RadixPolicy {
    tile: RankTile {
        items_per_invocation: 16,
        exchange_parts: 2,
        peer_match: PeerMatch::Vote,
        partitioned: false,
        ..RADIX_NVIDIA.tile
    },
    lookback: Lookback {
        batch: 2,
        ..RADIX_NVIDIA.lookback
    },
    fused: FusedSort {
        max: 1 << 21,
        ..RADIX_NVIDIA.fused
    },
    ..RADIX_NVIDIA
};

/// CPU drivers: 128 x 8 tiles, a short spin, the small sort up to 2048 keys, no MSD sort in Auto.
const RADIX_CPU: RadixPolicy = RadixPolicy {
    tile: RankTile {
        workgroup_size: 128,
        items_per_invocation: 8,
        ..RADIX_GENERIC.tile
    },
    lookback: Lookback {
        spin_limit: 256,
        ..RADIX_GENERIC.lookback
    },
    small: SmallSort {
        max: 2048,
        workgroup_size: 128,
        ..RADIX_GENERIC.small
    },
    upfront: UpfrontPass {
        items_per_invocation: 8,
        max_groups: 64,
        ..RADIX_GENERIC.upfront
    },
    msd: MsdSort {
        max: 0,
        coop_min_keys: 0,
        ..RADIX_GENERIC.msd
    },
    msd_split: MsdSplitPass {
        workgroup_size: 128,
        ..RADIX_GENERIC.msd_split
    },
    msd_bucket: MsdBucketPass {
        workgroup_size: 128,
        ..RADIX_GENERIC.msd_bucket
    },
    hybrid: HybridSort {
        workgroup_size: 128,
        items_per_invocation: 16,
        max: 1 << 16,
    },
    ..RADIX_GENERIC
};
