//! The GPU layer: every `unsafe` Vulkan call of vksort lives below this module, split by object lifecycle:
//! the [`Context`] ([`DeviceCaps`], [`ContextOptions`], instance, device, owned-object guards, pipeline cache),
//! [`Buffer`] and [`BufferRef`], kernels (reflection, pipelines), the [`Recorder`] (passes, barriers, host
//! submission; its module documents the barrier contract) and the [`Profiler`] (timestamps).

mod buffer;
mod caps;
mod class;
internal! { mod context; }
mod create_info;
pub(crate) mod debug;
mod device;
mod instance;
internal! { mod kernel; }
mod options;
mod owned;
mod pass;
mod pipeline_cache;
mod profiler;
mod push_layout;
pub mod recorder;
mod reflect;
mod requirements;
mod status;
mod submit;
mod workgroup_memory;

#[cfg(feature = "diagnostics")]
pub use buffer::STAGING_CHUNK;
pub(crate) use buffer::{check_disjoint, Region};
pub use buffer::{Buffer, BufferRef, MemoryLocation, DEFAULT_USAGE};
pub use caps::DeviceCaps;
pub use class::DeviceClass;
pub use context::Context;
pub(crate) use kernel::Kernel;
#[cfg(feature = "diagnostics")]
pub use kernel::{Interface, KernelStatistics};
pub use options::{AdoptInfo, ContextOptions};
pub use pipeline_cache::PipelineCacheStatus;
pub use profiler::{sum_by_label, PassTime, Profiler};
pub(crate) use push_layout::{push_block, push_members, PushBlock};
pub use recorder::Recorder;
pub use requirements::{DeviceRequirements, MIN_API_VERSION, REQUIRED_SUBGROUP_OPS};
pub(crate) use status::{StatusLease, STATUS_BLOCK_BYTES};
