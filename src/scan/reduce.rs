//! Pass `vksort::scan::reduce` (`glsl/scan/scan_reduce.comp`), first pass of the reduce-then-scan algorithm:
//! workgroup g sums tile g into `partials[g]`. Per element: reads 4 (u32) / 8 (u64) bytes; writes one
//! element per tile.

use crate::error::Result;
use crate::gpu::{Region, Kernel, Recorder};

/// Push constants of `glsl/scan/scan_reduce.comp`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ReducePush {
    pub n: u32,
    /// Workgroups dispatched (= tiles).
    pub groups: u32,
}

/// Records the per-tile reduction of `n` elements of `input` into `partials` (`tiles` elements).
pub(crate) fn record(
    rec: &mut Recorder,
    kernel: &Kernel,
    input: Region,
    partials: Region,
    n: u32,
    tiles: u32,
) -> Result<()> {
    rec.dispatch(
        "vksort::scan::reduce",
        kernel,
        &[input, partials],
        &ReducePush { n, groups: tiles },
        tiles,
    )
}
