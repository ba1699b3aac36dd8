//! vksort: sort, scan and compact large arrays on the GPU through Vulkan compute.
//!
//! Layering (after CUB): the public API per algorithm family ([`sort`], [`scan`], [`reduce`], [`compact`],
//! [`copy`]), a dispatch layer in each family that plans passes and scratch memory from that family's policy
//! struct (tuning as data, built on [`policy::SubgroupPlan`]), one module per GPU pass, and the GPU layer
//! ([`gpu`]) underneath. Every primitive has a `cmd_*` form that records into the caller's command buffer (see
//! [`gpu::recorder`] for the barrier contract) and a host form built on it.

pub mod compact;
pub mod copy;
pub mod diagnostics;
pub mod error;
pub mod gpu;
pub mod policy;
pub mod reduce;
pub mod scan;
pub mod shaders;
pub mod workload;

pub use error::{Error, Result};
pub use gpu::{Buffer, BufferRef, Context, ContextOptions};
pub mod sort;
