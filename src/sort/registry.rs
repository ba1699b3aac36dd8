//! The registry of sort algorithm families: for each family, the public [`SortAlgorithm`]s it runs and the
//! factory of its backend. Adding a family = its folder under `src/sort/` (and `glsl/sort/`), its variants in
//! [`SortAlgorithm`], and one line in [`FAMILIES`].

use super::algorithm::SortAlgorithm;
use super::backend::{Overrides, SortBackend};
use super::config::SortConfig;
use crate::error::Result;
use crate::gpu::Context;
use std::sync::Arc;

/// Creates a family's backend for a configuration: `overrides` carries tuning the caller gave (the family
/// takes its own types), `reachable` the algorithms the sorter may record with it ([`SortAlgorithm::Auto`]
/// standing for the family's own policy choice).
pub(crate) type Factory = fn(
    ctx: &Arc<Context>,
    config: &SortConfig,
    overrides: &Overrides,
    reachable: &[SortAlgorithm],
) -> Result<Box<dyn SortBackend>>;

/// Why a family cannot sort a configuration at all (a key type it does not take, say), or None.
pub(crate) type Supports = fn(config: &SortConfig) -> Option<String>;

/// Parses a `key=value,...` override string into the family's policy for a configuration (the device's policy
/// with those fields changed) and adds it to `overrides`.
pub(crate) type ParseOverrides =
    fn(ctx: &Context, config: &SortConfig, spec: &str, overrides: &mut Overrides) -> Result<()>;

/// An algorithm family.
pub(crate) struct Family {
    /// Its name (the folder: `radix`).
    pub name: &'static str,
    /// The public algorithms it runs.
    pub algorithms: &'static [SortAlgorithm],
    /// Whether it takes a configuration (checked before its factory runs).
    pub supports: Supports,
    pub new: Factory,
    /// Its policy's override strings (tuning sweeps: `VKSORT_POLICY` in the tools and examples).
    pub parse_overrides: ParseOverrides,
}

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
