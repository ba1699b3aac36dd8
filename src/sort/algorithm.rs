//! The public names of the sort algorithms. A leaf module: the families' backends and the registry
//! ([`super::registry`], which says which family runs which algorithm) both use it.

/// Which sort algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SortAlgorithm {
    /// Chosen per sort size by the sorter's [`super::Selector`]: by default the device policy of the first
    /// family (radix: Small up to `small_sort_max`, Msd up to `msd_max`, else Onesweep where the policy allows
    /// it, else ReduceThenScan), except where the device's crossover table names another
    /// family for the key and value widths and size (on NVIDIA: merge sort for 64-bit keys from 2^17 keys, up
    /// to 2^19 or, with 64-bit values, 2^22); with a calibrated cost model, the fastest predicted algorithm.
    /// Always a stable algorithm.
    #[default]
    Auto,
    /// Radix sort, one pass per digit place with decoupled look-back (bounded spin and a self-made fallback).
    Onesweep,
    /// Radix sort: upsweep, spine and downsweep per digit place; no inter-workgroup waiting.
    ReduceThenScan,
    /// Radix sort in one workgroup, in shared memory (up to the policy's `small_capacity()` keys).
    Small,
    /// Radix sort, most significant digit first, in three dispatches: a pass finds the keys' range (per-tile
    /// min/max), a split pass sorts each tile on the top digit of that range, then one workgroup per
    /// bucket gathers the bucket's runs from all tiles and sorts them (up to 2^20 keys:
    /// larger configurations are refused with [`crate::Error::AlgorithmLimit`]).
    Msd,
    /// Radix sort, MSD hybrid (after Stehle & Jacobsen 2017): Onesweep passes over the 1-3 highest digit places
    /// that vary (as many as leave groups of about the policy's group tile on average), which leave the keys
    /// sorted on their top bits in contiguous groups; then one workgroup per group sorts it on the bits below,
    /// in registers in one read and one write (groups larger than its tile, from skewed keys, through global
    /// memory). Fewer passes over the keys than Onesweep for wide keys; Auto never chooses it
    /// ([`SortAlgorithm::auto_eligible`]).
    Hybrid,
    /// Bitonic sort (Batcher's network; not stable), in place: one workgroup for up to the policy's
    /// `single_capacity()` keys, else tiles sorted in shared memory and merge stages whose long strides run as
    /// global passes.
    Bitonic,
    /// Split radix sort, the blocked form (Satish et al.): LSD passes of `digit_bits` bits
    /// ([`crate::sort::SplitPolicy`], default 4), each a per-tile digit histogram, a global scan, and
    /// per tile `digit_bits` stable 1-bit splits in shared memory before the global scatter; only the bits
    /// that vary between the keys are sorted on (decided on the GPU).
    SplitRadix,
    /// Split radix sort, the per-bit form (Seed 002): one global stable 1-bit split (flags, exclusive scan,
    /// scatter) per bit that varies between the keys (decided on the GPU).
    SplitRadixBit,
    /// Merge sort (stable; every key type, 128-bit keys included): tiles sorted in shared memory, then merge
    /// passes whose work is split evenly by a merge-path search, so every workgroup merges the same number of
    /// keys whatever the data. The sort of 128-bit keys.
    Merge,
    /// WarpSort (after Ye et al. 2010; stable): subgroup-sized groups sort chunks in registers with a bitonic
    /// network, merge rows pairwise with a windowed bitonic merge, split the rows into pieces by sample
    /// splitters and merge each piece's segments.
    WarpSort,
    /// GPU quicksort (Cederman and Tsigas; not stable): phase-one rounds split long sequences across
    /// workgroups (fetch-and-add partitions, indirect dispatches planned on the GPU), then one workgroup per
    /// sequence finishes it (three-way partitions, bitonic tiles, a bitonic fallback past a depth limit). See
    Quicksort,
}

impl SortAlgorithm {
    /// Every algorithm, [`SortAlgorithm::Auto`] first.
    pub const ALL: [SortAlgorithm; 12] = [
        SortAlgorithm::Auto,
        SortAlgorithm::Onesweep,
        SortAlgorithm::ReduceThenScan,
        SortAlgorithm::Small,
        SortAlgorithm::Msd,
        SortAlgorithm::Hybrid,
        SortAlgorithm::Bitonic,
        SortAlgorithm::Merge,
        SortAlgorithm::SplitRadix,
        SortAlgorithm::SplitRadixBit,
        SortAlgorithm::WarpSort,
        SortAlgorithm::Quicksort,
    ];

    /// The name used by the command line, the benchmark and the cost model (`sort/<name>`).
    pub fn name(self) -> &'static str {
        match self {
            SortAlgorithm::Auto => "auto",
            SortAlgorithm::Onesweep => "onesweep",
            SortAlgorithm::ReduceThenScan => "reduce-then-scan",
            SortAlgorithm::Small => "small",
            SortAlgorithm::Msd => "msd",
            SortAlgorithm::Hybrid => "hybrid",
            SortAlgorithm::Bitonic => "bitonic",
            SortAlgorithm::Merge => "merge",
            SortAlgorithm::SplitRadix => "split-radix",
            SortAlgorithm::SplitRadixBit => "split-radix-bit",
            SortAlgorithm::WarpSort => "warpsort",
            SortAlgorithm::Quicksort => "quicksort",
        }
    }

    /// The algorithm [`SortAlgorithm::name`] names (`"onesweep"`, `"merge"`, ...).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Whether equal keys keep their input order (every algorithm but the bitonic sort and the quicksort).
    /// Auto only ever picks stable algorithms.
    pub fn stable(self) -> bool {
        !matches!(self, SortAlgorithm::Bitonic | SortAlgorithm::Quicksort)
    }

    /// Whether [`SortAlgorithm::Auto`] may choose it (with a cost model too): the stable algorithms, but not the
    /// hybrid radix sort, whose groups of keys sharing their top bits are each sorted by one workgroup: keys
    /// crowded into a few groups (skewed top bits) make it many times slower than Onesweep, which no model of
    /// the sizes alone foresees.
    pub fn auto_eligible(self) -> bool {
        self.stable() && self != SortAlgorithm::Hybrid
    }

    /// The cost model's efficiency key (`sort/onesweep`).
    pub fn model_key(self) -> String {
        format!("sort/{}", self.name())
    }
}
