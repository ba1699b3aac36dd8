//! The GPU layer: every `unsafe` Vulkan call of vksort lives below this module, one file per kind of object.
//!
//! - [`context`]: instance, device, queue, capabilities; own or adopted.
//! - [`buffer`]: vksort's buffers and the caller's [`BufferRef`]s, with their checks.
//! - [`kernel`]: pipelines from SPIR-V with reflected layouts and specialization constants.
//! - [`recorder`]: passes into a command buffer (labels, barriers, timestamps) and host submission.
//! - [`profiler`]: timestamp queries turned into per-pass GPU times.
//! - `debug`: VK_EXT_debug_utils names and labels.

pub mod buffer;
pub mod context;
pub(crate) mod debug;
pub mod kernel;
pub mod profiler;
pub mod recorder;
pub mod requirements;

pub use buffer::{Buffer, BufferRef, MemoryLocation, DEFAULT_USAGE};
pub use context::{AdoptInfo, Context, ContextOptions, DeviceCaps};
pub use kernel::{Interface, Kernel};
pub use profiler::{PassTime, Profiler};
pub use recorder::Recorder;
pub use requirements::DeviceRequirements;
