//! The contract between the sort front end and a sort family (`SortBackend`, `Family`). A backend is made
//! for one configuration and capacity, builds every pipeline in `SortBackend::prepare` (recording never
//! compiles) and records on the caller's buffers after checking them (an `Err` records nothing). Families
//! import this module, never the registry.

use super::algorithm::SortAlgorithm;
use super::config::SortConfig;
use super::count::Count;
use crate::error::Result;
use crate::gpu::{BufferRef, Context, Recorder, Region};
use crate::workload::PassModel;
use ash::vk;
use std::sync::Arc;

/// The scratch buffer a sort needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageRequirements {
    /// Bytes of scratch (offset aligned to the device's storage-buffer offset alignment).
    pub scratch_bytes: u64,
    /// Usage flags the scratch buffer needs.
    pub scratch_usage: vk::BufferUsageFlags,
}

/// The caller's buffers of one recorded sort.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortBuffers {
    pub keys: Region,
    pub values: Option<Region>,
    pub scratch: Region,
}

impl SortBuffers {
    /// The regions of the caller's buffer references.
    pub fn of(keys: BufferRef<'_>, values: Option<BufferRef<'_>>, scratch: BufferRef<'_>) -> Self {
        Self {
            keys: keys.region(),
            values: values.map(|v| v.region()),
            scratch: scratch.region(),
        }
    }
}

/// What a backend can sort, for the front end's checks and Auto's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// The most keys one sort takes.
    pub max_keys: u64,
    /// Equal keys keep their input order.
    pub stable: bool,
}

/// Tuning overrides handed to a backend's factory: each backend takes the types it knows and ignores the rest.
#[derive(Default)]
pub struct Overrides {
    items: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

impl Overrides {
    /// Adds (or replaces) an override of type `T`.
    pub fn set<T: Copy + Send + Sync + 'static>(&mut self, value: T) {
        self.items.retain(|b| !b.is::<T>());
        self.items.push(Box::new(value));
    }

    /// Whether no override was set.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The override of type `T`, if any.
    pub fn get<T: Copy + 'static>(&self) -> Option<T> {
        self.items
            .iter()
            .find_map(|b| b.downcast_ref::<T>().copied())
    }
}

/// A sort algorithm family behind the front end.
pub(crate) trait SortBackend: Send + Sync {
    /// What `algorithm` (one of this family's) can do for this sorter's configuration.
    fn capabilities(&self, algorithm: SortAlgorithm) -> Capabilities;

    /// The algorithm this family picks by its own policy for `n` keys (the policy form of Auto).
    fn policy_choice(&self, n: u64) -> SortAlgorithm;

    /// Scratch needed by any sort of up to `max_n` keys this backend may record.
    fn storage_requirements(&self, max_n: u64) -> StorageRequirements;

    /// Byte offset in the scratch of the control block ([`crate::sort::count`]) of a sort of `max_n` keys.
    fn control_offset(&self, max_n: u64) -> u64;

    /// Byte offset in the scratch of a u32 that is non-zero after a sort of `max_n` keys with `algorithm` whose
    /// bounded inter-workgroup wait gave up (its result then wrong); None (the default): no such wait.
    fn gave_up_word(&self, _algorithm: SortAlgorithm, _max_n: u64) -> Option<u64> {
        None
    }

    /// Builds every pipeline that sorts of up to `max_n` keys with `algorithms` may use.
    fn prepare(&self, algorithms: &[SortAlgorithm], max_n: u64) -> Result<()>;

    /// Checks the buffers and records the sort of `count` keys with `algorithm` (one of this family's).
    fn record(
        &self,
        rec: &mut Recorder,
        algorithm: SortAlgorithm,
        buffers: SortBuffers,
        count: Count,
    ) -> Result<()>;

    /// The passes of a sort of `n` keys with `algorithm` and their modelled traffic (see [`crate::workload`]).
    fn workload(&self, algorithm: SortAlgorithm, n: u64) -> Vec<PassModel>;

    /// The backend itself, for [`crate::sort::Sorter::backend`].
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Creates a family's backend for a configuration: `reachable` the algorithms the sorter may record with it
/// ([`SortAlgorithm::Auto`]: the family's own policy choice).
pub(crate) type Factory = fn(
    ctx: &Arc<Context>,
    config: &SortConfig,
    overrides: &Overrides,
    reachable: &[SortAlgorithm],
) -> Result<Box<dyn SortBackend>>;

/// Why a family cannot sort a configuration at all (a key type it does not take, say), or None.
pub(crate) type Supports = fn(config: &SortConfig) -> Option<String>;

/// Adds to `overrides` the family's device policy with the fields of a `key=value,...` string changed.
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
    /// Its policy's override strings (`VKSORT_POLICY` in the tools and examples).
    pub parse_overrides: ParseOverrides,
}
