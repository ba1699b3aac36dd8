//! The typed error of the library boundary. Every check of caller input happens before anything is recorded or
//! written: an `Err` from a `cmd_*` function leaves the command buffer and the caller's buffers untouched.
//! [`Error`] is `#[non_exhaustive]`: match the variants a caller can react to and keep a `_` arm;
//! [`Error::InvalidArgument`]'s text is for people, not for matching.

use ash::vk;
use std::time::Duration;

/// Everything that can go wrong inside vksort. Non-exhaustive: later versions may add variants.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The Vulkan loader (libvulkan.so.1) could not be loaded.
    #[error("could not load the Vulkan loader: {0}")]
    Loader(String),
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The Vulkan function, e.g. `"vkCreateDevice"`.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
    /// No Vulkan device matched (or none exists).
    #[error("no suitable Vulkan device: {0}")]
    NoDevice(String),
    /// The device lacks something a kernel needs ("needs subgroup ballot").
    #[error("unsupported on {device}: {what}")]
    Unsupported {
        /// The device's name (or `"instance"`).
        device: String,
        /// What is missing: an extension, a feature, a subgroup operation, a limit.
        what: String,
    },
    /// An argument out of its allowed range where no more specific variant says which.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A sort's bit range `[lo, hi)` is empty or beyond the key's bits.
    #[error("bit range [{lo}, {hi}) is not within [0, {key_bits}) or is empty")]
    InvalidBitRange {
        /// First bit of the range.
        lo: u32,
        /// One past the last bit of the range.
        hi: u32,
        /// Bits of the key type.
        key_bits: u32,
    },
    /// A policy (tuning) struct out of range or not fitting the device (shared memory, workgroup size).
    #[error("{family} policy: {what}")]
    InvalidPolicy {
        /// The family whose policy it is (`"radix"`, `"merge"`, ...).
        family: &'static str,
        /// What is out of range.
        what: String,
    },
    /// An algorithm asked for cannot do this combination (key, value, order, bit range, ...), `reason` says why.
    #[error("the {algorithm} algorithm cannot do this: {reason}")]
    UnsupportedAlgorithm {
        /// The algorithm's name (`"bitonic"`, `"auto"`, ...).
        algorithm: &'static str,
        /// Why it cannot.
        reason: String,
    },
    /// An algorithm asked for cannot sort this many keys (from [`crate::sort::Sorter::new`], for `max_n`).
    #[error("the {algorithm} sort takes at most {max} keys, not {n}")]
    AlgorithmLimit {
        /// The algorithm's name.
        algorithm: &'static str,
        /// The most keys it takes.
        max: u64,
        /// The keys asked for.
        n: u64,
    },
    /// Values given to a keys-only sorter, or none given to a sorter that carries values.
    #[error("the sorter was made {}, but the call {}", if *expected { "for values" } else { "for keys only" }, if *expected { "gave no value buffer" } else { "gave values" })]
    ValuesMismatch {
        /// True when the sorter carries values.
        expected: bool,
    },
    /// Two regions of one operation (keys, values, scratch, count, ...) share bytes where they must not.
    #[error("buffer regions `{a}` and `{b}` overlap")]
    Overlap {
        /// The first region's role.
        a: &'static str,
        /// The second region's role.
        b: &'static str,
    },
    /// A buffer region, sorter, scanner or compactor of another [`crate::Context`] than the recorder's.
    #[error("`{what}` belongs to another vksort context")]
    WrongContext {
        /// The buffer's role (`"keys"`), or the object (`"sorter"`).
        what: &'static str,
    },
    /// [`crate::sort::SortConfig::stable`] set with an algorithm that is not stable.
    #[error("the {algorithm} sort is not stable, and the configuration requires a stable sort")]
    NotStable {
        /// The algorithm's name.
        algorithm: &'static str,
    },
    /// Two slices or buffers whose lengths must agree do not (`what`: "values").
    #[error("{got} {what} for {expected} elements")]
    LengthMismatch {
        /// Which slice.
        what: &'static str,
        /// The length it must have.
        expected: u64,
        /// The length it has.
        got: u64,
    },
    /// A caller's buffer is smaller than the operation needs.
    #[error("buffer `{what}` too small: needs {needed} bytes from its offset, has {available}")]
    BufferTooSmall {
        /// The buffer's role.
        what: &'static str,
        /// Bytes needed from the region's offset.
        needed: u64,
        /// Bytes the region has.
        available: u64,
    },
    /// A caller's buffer region is `VK_NULL_HANDLE` where the operation reads or writes bytes of it.
    #[error("buffer `{what}` is VK_NULL_HANDLE")]
    NullBuffer {
        /// The buffer's role.
        what: &'static str,
    },
    /// A byte size that must be a multiple of `multiple` is not (the compute copy moves 16-byte vectors).
    #[error("`{what}` size {size} bytes is not a multiple of {multiple}")]
    SizeNotMultiple {
        /// The size's role.
        what: &'static str,
        /// The size given, in bytes.
        size: u64,
        /// What it must be a multiple of.
        multiple: u64,
    },
    /// A caller's buffer lacks usage flags the operation needs.
    #[error("buffer `{what}` lacks usage flags {missing:?}")]
    MissingUsage {
        /// The buffer's role.
        what: &'static str,
        /// The flags it lacks.
        missing: vk::BufferUsageFlags,
    },
    /// A caller's buffer offset is not aligned as the device requires.
    #[error("buffer `{what}` offset {offset} is not a multiple of {alignment}")]
    Misaligned {
        /// The buffer's role.
        what: &'static str,
        /// The region's offset.
        offset: u64,
        /// The alignment it needs.
        alignment: u64,
    },
    /// An element count above the capacity the scratch memory or plan was made for.
    #[error("count {n} is above the capacity {capacity}")]
    CountOverCapacity {
        /// The count asked for.
        n: u64,
        /// The capacity.
        capacity: u64,
    },
    /// An element count above a limit of the algorithm or the device (one storage-buffer binding, ...).
    #[error("{n} elements are too many: {limit} allows at most {max}")]
    TooLarge {
        /// The count asked for.
        n: u64,
        /// The most elements the limit allows.
        max: u64,
        /// The limit, in words.
        limit: &'static str,
    },
    /// A pass needs more workgroups than the device's dispatch grid (`maxComputeWorkGroupCount` x times y).
    #[error("{groups} workgroups exceed the device's dispatch grid of {max}")]
    GridTooLarge {
        /// Workgroups the pass needs.
        groups: u64,
        /// Workgroups the grid holds.
        max: u64,
    },
    /// A [`crate::gpu::Profiler`] over its capacity or without [`crate::gpu::Profiler::begin`]: results incomplete.
    #[error(
        "profiler capacity {capacity} too small (or begin() not called) for the recorded passes"
    )]
    ProfilerOverflow {
        /// The profiler's capacity in stamps.
        capacity: u32,
    },
    /// [`crate::gpu::Profiler::results`] asked before the command buffer that wrote the stamps completed.
    #[error("timestamps not available yet: wait for the command buffer")]
    TimestampsNotReady,
    /// The GPU wrote an impossible result (e.g. a compaction count above `n`): a driver or vksort bug.
    #[error("impossible GPU result: {what}")]
    InvalidGpuResult {
        /// Which result.
        what: String,
    },
    /// A bounded wait ran out; the GPU may be hung.
    #[error("GPU work did not finish within {timeout:?} (last pass started: {last_pass})")]
    Timeout {
        /// The bound that ran out.
        timeout: Duration,
        /// The label of the last pass the GPU started.
        last_pass: String,
    },
    /// VK_ERROR_DEVICE_LOST.
    #[error("Vulkan device lost (last pass started: {last_pass})")]
    DeviceLost {
        /// The label of the last pass the GPU started.
        last_pass: String,
    },
    /// Memory allocation failed.
    #[error("allocation of `{name}` failed: {reason}")]
    Allocation {
        /// The allocation's name.
        name: String,
        /// The allocator's message (out of device memory, no compatible memory type, ...).
        reason: String,
    },
    /// A shader is missing or its reflection failed: a build problem, never the caller's fault.
    #[error("shader `{name}`: {what}")]
    Shader {
        /// The embedded shader's name.
        name: String,
        /// What went wrong.
        what: String,
    },
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Maps a raw `vk::Result` to [`Error::Vulkan`], naming the call.
pub(crate) trait VkContext<T> {
    fn vk(self, call: &'static str) -> Result<T>;
}

impl<T> VkContext<T> for std::result::Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> Result<T> {
        self.map_err(|result| Error::Vulkan { call, result })
    }
}
