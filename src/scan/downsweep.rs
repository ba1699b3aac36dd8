//! Pass `vksort::scan::downsweep` (`glsl/scan/scan_downsweep.comp`), last pass of reduce-then-scan: workgroup g
//! rescans tile g seeded with the spine's prefix `partials[g]`. Per element: reads 4 / 8 bytes and writes
//! 4 / 8 bytes (u32 / u64); one partial read per tile.

use crate::error::Result;
use crate::gpu::{Region, Kernel, Recorder};

/// Push constants of `glsl/scan/scan_downsweep.comp`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DownsweepPush {
    pub n: u32,
    /// Workgroups dispatched (= tiles).
    pub groups: u32,
}

/// Records the seeded rescan of `n` elements of `input` into `output`.
pub(crate) fn record(
    rec: &mut Recorder,
    kernel: &Kernel,
    input: Region,
    output: Region,
    partials: Region,
    n: u32,
    tiles: u32,
) -> Result<()> {
    rec.dispatch(
        "vksort::scan::downsweep",
        kernel,
        &[input, output, partials],
        &DownsweepPush { n, groups: tiles },
        tiles,
    )
}
