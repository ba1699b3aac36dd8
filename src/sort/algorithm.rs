//! The public names of the sort algorithms. A leaf module: the families' backends and the registry
//! ([`super::registry`], which says which family runs which algorithm) both use it.

/// Which sort algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SortAlgorithm {
    /// Chosen per sort size by the sorter's [`super::Selector`]: by default the device policy of the first
    /// family (radix: Small up to `small_sort_max`, Msd up to `msd_max`, else Onesweep where the policy allows
    /// it, else ReduceThenScan); with a calibrated cost model, the fastest predicted algorithm.
    #[default]
    Auto,
    /// Radix sort, one pass per digit place with decoupled look-back (bounded spin and a self-made fallback).
    Onesweep,
    /// Radix sort: upsweep, spine and downsweep per digit place; no inter-workgroup waiting.
    ReduceThenScan,
    /// Radix sort in one workgroup, in shared memory (up to the policy's `small_capacity()` keys).
    Small,
    /// Radix sort, most significant digit first, in three dispatches: a pass finds where the keys differ
    /// (per-tile AND/OR), a split pass sorts each tile on the highest differing digit, then one workgroup per
    /// bucket gathers the bucket's runs from all tiles and sorts them (up to
    /// [`crate::sort::radix::MSD_MAX_KEYS`] keys). See [`crate::sort::radix::msd`].
    Msd,
    /// Bitonic sort (Batcher's network; not stable), in place: one workgroup for up to the policy's
    /// `single_capacity()` keys, else tiles sorted in shared memory and merge stages whose long strides run as
    /// global passes. See [`crate::sort::bitonic`].
    Bitonic,
    /// GPU quicksort (Cederman and Tsigas; not stable): phase-one rounds split long sequences across
    /// workgroups (fetch-and-add partitions, indirect dispatches planned on the GPU), then one workgroup per
    /// sequence finishes it (three-way partitions, bitonic tiles, a bitonic fallback past a depth limit). See
    /// [`crate::sort::quicksort`].
    Quicksort,
}

impl SortAlgorithm {
    pub const ALL: [SortAlgorithm; 7] = [
        SortAlgorithm::Auto,
        SortAlgorithm::Onesweep,
        SortAlgorithm::ReduceThenScan,
        SortAlgorithm::Small,
        SortAlgorithm::Msd,
        SortAlgorithm::Bitonic,
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
            SortAlgorithm::Bitonic => "bitonic",
            SortAlgorithm::Quicksort => "quicksort",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Whether equal keys keep their input order (every algorithm but the bitonic sort and the quicksort).
    /// Auto only ever picks stable algorithms.
    pub fn stable(self) -> bool {
        !matches!(self, SortAlgorithm::Bitonic | SortAlgorithm::Quicksort)
    }

    /// The cost model's efficiency key (`sort/onesweep`).
    pub fn model_key(self) -> String {
        format!("sort/{}", self.name())
    }
}
