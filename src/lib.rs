//! vksort: sort, scan and compact large arrays on the GPU through Vulkan compute.
//!
//! Two forms of every primitive: **host forms** ([`sort::sort`], [`sort::sort_pairs`], [`scan::scan_u32`],
//! [`compact::compact_u32`], [`reduce::reduce_u32`]: a slice in, the result out, on a [`Context`] of vksort's
//! own) and **recording forms** ([`sort::Sorter::cmd_sort`], [`sort::Sorter::cmd_sort_indirect`],
//! [`scan::Scanner::cmd_scan`], [`compact::Compactor::cmd_compact`], [`reduce::cmd_reduce`]: checked commands
//! in the caller's command buffer on the caller's buffers ([`BufferRef`]), on an adopted device
//! ([`Context::adopt`]; barrier contract: [`gpu::Recorder`]'s module). An `Err` leaves the command buffer and
//! the buffers untouched; a renderer's raw buffers enter only through the `unsafe` [`BufferRef::from_raw`].
//! The `diagnostics` feature makes the crate-private layers public for tests and tools (docs/architecture.md).
//!
#![doc = include_str!("../docs/recording.md")]
#![cfg_attr(not(feature = "diagnostics"), deny(missing_docs))]

/// Items (or modules) public with the `diagnostics` feature and crate-private without: `internal! { mod x; }`.
macro_rules! internal {
    ($(#[$m:meta])* mod $name:ident;) => {
        #[cfg(feature = "diagnostics")]
        $(#[$m])* pub mod $name;
        #[cfg(not(feature = "diagnostics"))]
        #[allow(dead_code, unused_imports)]
        $(#[$m])* pub(crate) mod $name;
    };
    ($(#[$m:meta])* $kw:ident $($rest:tt)*) => {
        #[cfg(feature = "diagnostics")]
        $(#[$m])* pub $kw $($rest)*
        #[cfg(not(feature = "diagnostics"))]
        #[allow(dead_code)]
        $(#[$m])* pub(crate) $kw $($rest)*
    };
}

pub mod compact;
pub mod copy;
#[cfg(feature = "diagnostics")]
pub mod diagnostics;
pub mod error;
pub mod gpu;
internal! { mod policy; }
pub mod reduce;
pub mod scan;
internal! { mod shaders; }
pub mod sort;
mod tuning;
#[cfg(feature = "wgpu")]
pub mod wgpu;
pub mod workload;

pub use error::{Error, Result};
pub use gpu::{AdoptInfo, Buffer, BufferRef, Context, ContextOptions, DeviceCaps, Recorder};
pub use policy::{Field, Policy};

/// The README's Rust examples, compiled as doctests (so the README cannot drift from the API).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The package page's example (docs/crate-readme.md, what crates.io shows), compiled as a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../docs/crate-readme.md")]
pub struct CrateReadmeDoctests;
