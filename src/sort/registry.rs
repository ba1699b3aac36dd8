//! The registry of sort algorithm families: the table of every family ([`Family`], declared by each family's
//! module) and the lookups the front end makes. Adding a family = its folder under `src/sort/` (and
//! `glsl/sort/`), its variants in [`SortAlgorithm`], and one line in [`FAMILIES`]. The registry depends on the
//! families, never the reverse: a family knows only the contract in [`super::backend`].

use super::algorithm::SortAlgorithm;
use super::backend::Family;

/// Every family, in the order Auto prefers them: without a cost model, [`SortAlgorithm::Auto`] is decided by
/// the policy of the first family that takes the configuration (the radix sort, or merge sort for keys the
/// radix sort does not take), except in the size ranges of the device's crossover table ([`super::auto`]).
pub(crate) const FAMILIES: &[Family] = &[
    super::radix::FAMILY,
    super::merge::FAMILY,
    super::split::FAMILY,
    super::warpsort::FAMILY,
    super::quicksort::FAMILY,
    super::bitonic::FAMILY,
];

/// The family that runs `algorithm` (None for Auto).
pub(crate) fn family_of(algorithm: SortAlgorithm) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.algorithms.contains(&algorithm))
}

/// The registered families: (name, the algorithms it runs), in registry order.
pub fn families() -> impl Iterator<Item = (&'static str, &'static [SortAlgorithm])> {
    FAMILIES.iter().map(|f| (f.name, f.algorithms))
}
