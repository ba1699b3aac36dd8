//! The GPU layer: every `unsafe` Vulkan call of vksort lives below this module, one file per kind of object.
//!
//! - [`Context`]: instance, device, queue, capabilities; own ([`Context::new`]) or adopted
//!   ([`Context::adopt`]).
//! - [`Buffer`]: vksort's buffers; [`BufferRef`]: a region of one, or of a renderer's buffer, with its checks.
//! - [`Recorder`]: passes into a command buffer (labels, barriers, timestamps) and host submission; its
//!   module documents the barrier contract every recorded command follows.
//! - [`Profiler`]: timestamp queries turned into per-pass GPU times.
//! - kernels (crate-private; public with the `diagnostics` feature): pipelines from SPIR-V with reflected
//!   layouts and specialization constants.

mod buffer;
mod class;
internal! { mod context; }
pub(crate) mod debug;
internal! { mod kernel; }
mod pass;
mod profiler;
mod push_layout;
pub mod recorder;
mod requirements;

pub(crate) use buffer::{check_disjoint, Region};
pub use buffer::{Buffer, BufferRef, MemoryLocation, DEFAULT_USAGE};
pub use class::DeviceClass;
#[cfg(feature = "diagnostics")]
pub use context::KernelStatistics;
pub use context::{AdoptInfo, Context, ContextOptions, DeviceCaps, PipelineCacheStatus};
#[cfg(feature = "diagnostics")]
pub use kernel::Interface;
pub(crate) use kernel::Kernel;
pub use profiler::{sum_by_label, PassTime, Profiler};
pub(crate) use push_layout::{push_block, push_members, PushBlock};
pub use recorder::Recorder;
pub use requirements::{DeviceRequirements, MIN_API_VERSION, REQUIRED_SUBGROUP_OPS};
