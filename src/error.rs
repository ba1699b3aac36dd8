//! The typed error of the library boundary. Binaries, tests and benches wrap it in `anyhow`.
//!
//! Contract: every check of caller input happens before anything is recorded or written, so an `Err` from a
//! `cmd_*` function means the command buffer and the caller's buffers are untouched.
//!
//! [`Error`] is `#[non_exhaustive]`: match the specific variants a caller can react to (a bad bit range, a
//! policy that does not fit, mismatched lengths or values, a buffer too small / unaligned / lacking usage, a
//! count over capacity, a timeout, a lost device) and keep a `_` arm. [`Error::InvalidArgument`] is only for
//! the rare input error no specific variant names; its text is for people, not for matching.

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
        call: &'static str,
        result: vk::Result,
    },
    /// No Vulkan device matched (or none exists).
    #[error("no suitable Vulkan device: {0}")]
    NoDevice(String),
    /// The device lacks something a kernel needs ("needs subgroup ballot").
    #[error("unsupported on {device}: {what}")]
    Unsupported { device: String, what: String },
    /// An argument is out of its allowed range where no more specific variant says which (the rare rest; match
    /// the specific variants below where a caller may want to react).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A sort's bit range `[lo, hi)` is empty or beyond the key's bits.
    #[error("bit range [{lo}, {hi}) is not within [0, {key_bits}) or is empty")]
    InvalidBitRange { lo: u32, hi: u32, key_bits: u32 },
    /// A policy (tuning) struct is out of range or does not fit the device (shared memory, workgroup size).
    #[error("{family} policy: {what}")]
    InvalidPolicy { family: &'static str, what: String },
    /// An algorithm asked for explicitly cannot do this combination (key type, value type, order, bit range,
    /// ...): `reason` says what. For a count above an algorithm's capacity see [`Error::AlgorithmLimit`].
    #[error("the {algorithm} algorithm cannot do this: {reason}")]
    UnsupportedAlgorithm {
        algorithm: &'static str,
        reason: String,
    },
    /// An algorithm asked for explicitly cannot sort this many keys (e.g. the one-workgroup sort beyond its
    /// capacity).
    #[error("the {algorithm} sort takes at most {max} keys, not {n}")]
    AlgorithmLimit {
        algorithm: &'static str,
        max: u64,
        n: u64,
    },
    /// Values given to a keys-only sorter, or none given to a sorter that carries values (`expected` says
    /// which the sorter was made for).
    #[error("the sorter was made {}, but the call {}", if *expected { "for values" } else { "for keys only" }, if *expected { "gave no value buffer" } else { "gave values" })]
    ValuesMismatch { expected: bool },
    /// An output region overlaps an input region in a way the operation does not allow.
    #[error("{what}")]
    Overlap { what: &'static str },
    /// Two slices or buffers whose lengths must agree do not (`what`: "values").
    #[error("{got} {what} for {expected} elements")]
    LengthMismatch {
        what: &'static str,
        expected: u64,
        got: u64,
    },
    /// A caller's buffer is smaller than the operation needs.
    #[error("buffer `{what}` too small: needs {needed} bytes from its offset, has {available}")]
    BufferTooSmall {
        what: &'static str,
        needed: u64,
        available: u64,
    },
    /// A caller's buffer region is `VK_NULL_HANDLE` where the operation reads or writes bytes of it.
    #[error("buffer `{what}` is VK_NULL_HANDLE")]
    NullBuffer { what: &'static str },
    /// A byte size that must be a multiple of `multiple` is not (e.g. the compute copy moves 16-byte vectors).
    #[error("`{what}` size {size} bytes is not a multiple of {multiple}")]
    SizeNotMultiple {
        what: &'static str,
        size: u64,
        multiple: u64,
    },
    /// A caller's buffer lacks usage flags the operation needs.
    #[error("buffer `{what}` lacks usage flags {missing:?}")]
    MissingUsage {
        what: &'static str,
        missing: vk::BufferUsageFlags,
    },
    /// A caller's buffer offset is not aligned as the device requires.
    #[error("buffer `{what}` offset {offset} is not a multiple of {alignment}")]
    Misaligned {
        what: &'static str,
        offset: u64,
        alignment: u64,
    },
    /// An element count above the capacity the scratch memory or plan was made for.
    #[error("count {n} is above the capacity {capacity}")]
    CountOverCapacity { n: u64, capacity: u64 },
    /// An element count above what the device can address in one storage buffer binding.
    #[error("{n} elements of {elem_bytes} bytes exceed the device's limit of {limit} bytes per storage buffer")]
    TooLarge { n: u64, elem_bytes: u64, limit: u64 },
    /// A pass needs more workgroups than the device's dispatch grid holds (`max`: `maxComputeWorkGroupCount`
    /// x times y).
    #[error("{groups} workgroups exceed the device's dispatch grid of {max}")]
    GridTooLarge { groups: u64, max: u64 },
    /// A [`crate::gpu::Profiler`] recorded more stamps than its capacity, or was attached without
    /// [`crate::gpu::Profiler::begin`] on the command buffer: its results are incomplete.
    #[error(
        "profiler capacity {capacity} too small (or begin() not called) for the recorded passes"
    )]
    ProfilerOverflow { capacity: u32 },
    /// [`crate::gpu::Profiler::results`] was asked before the command buffer that wrote the stamps completed.
    #[error("timestamps not available yet: wait for the command buffer")]
    TimestampsNotReady,
    /// The GPU wrote a result that cannot be right (e.g. a compaction count above `n`): a driver or vksort bug,
    /// never the caller's input. `what` says which result.
    #[error("impossible GPU result: {what}")]
    InvalidGpuResult { what: String },
    /// A bounded wait ran out. The GPU may be hung; `last_pass` is the last pass the GPU started.
    #[error("GPU work did not finish within {timeout:?} (last pass started: {last_pass})")]
    Timeout {
        timeout: Duration,
        last_pass: String,
    },
    /// VK_ERROR_DEVICE_LOST. `last_pass` is the last pass the GPU started.
    #[error("Vulkan device lost (last pass started: {last_pass})")]
    DeviceLost { last_pass: String },
    /// Memory allocation failed.
    #[error("allocation of `{name}` failed: {source}")]
    Allocation {
        name: String,
        source: gpu_allocator::AllocationError,
    },
    /// A shader is missing or its reflection failed: a build problem, never the caller's fault.
    #[error("shader `{name}`: {what}")]
    Shader { name: String, what: String },
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
