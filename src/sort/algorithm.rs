//! The public names of the sort algorithms (a leaf module: the families and the registry both use it). How
//! each works: docs/architecture.md, "The sort algorithms".

/// Which sort algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SortAlgorithm {
    /// Chosen per size by the sorter's [`super::Selector`] (by default the radix policy, or a crossover of the
    /// device class); always a stable algorithm.
    #[default]
    Auto,
    /// Radix sort, one pass per digit place with decoupled look-back.
    Onesweep,
    /// Radix sort: upsweep, spine and downsweep per digit place; no inter-workgroup waiting.
    ReduceThenScan,
    /// Rank sort of up to the policy's `small_capacity()` keys, each workgroup holding them all in shared memory.
    Small,
    /// Radix sort, most significant digit first, in three dispatches (up to 2^20 keys).
    Msd,
    /// Radix sort, MSD hybrid (Onesweep on the top digit places, then one workgroup per group); never Auto's.
    Hybrid,
    /// Bitonic sort (not stable), in place.
    Bitonic,
    /// Split radix sort, blocked: per tile `digit_bits` stable 1-bit splits in shared memory per LSD pass.
    SplitRadix,
    /// Split radix sort, one global stable 1-bit split per bit that varies between the keys.
    SplitRadixBit,
    /// Merge sort (every key type, 128-bit keys included), merge-path balanced.
    Merge,
    /// WarpSort (after Ye et al. 2010): subgroup bitonic networks, then sample-split merges.
    WarpSort,
    /// GPU quicksort (Cederman and Tsigas; not stable).
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
    pub fn stable(self) -> bool {
        !matches!(self, SortAlgorithm::Bitonic | SortAlgorithm::Quicksort)
    }

    /// Whether [`SortAlgorithm::Auto`] may choose it: the stable algorithms but the hybrid radix sort, which
    /// skewed top bits slow down in a way no model of the sizes foresees.
    pub fn auto_eligible(self) -> bool {
        self.stable() && self != SortAlgorithm::Hybrid
    }

    /// The cost model's efficiency key (`sort/onesweep`).
    pub fn model_key(self) -> String {
        format!("sort/{}", self.name())
    }
}
