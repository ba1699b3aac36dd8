//! The registry of sort families (`FAMILIES`) and the front end's lookups. Adding a family: its folder
//! under `src/sort/` and `glsl/sort/`, its variants in [`SortAlgorithm`], one line in `FAMILIES`.

use super::algorithm::SortAlgorithm;
use super::backend::Family;

/// Every family, in the order Auto's policy selector prefers them (the first that takes the configuration).
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
