//! Pass `vksort::scan::spine` (`glsl/scan/scan_spine.comp`), second pass of reduce-then-scan: one workgroup
//! scans the tile sums (exclusive, in place), looping over chunks with a running carry. Reads and writes one
//! element per tile of the main scan (negligible per element).

use crate::error::Result;
use crate::gpu::{Region, Kernel, Recorder};

/// Push constants of `glsl/scan/scan_spine.comp`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SpinePush {
    /// Tile sums to scan.
    pub count: u32,
}

/// Records the exclusive in-place scan of the `count` elements of `partials` by one workgroup.
pub(crate) fn record(rec: &mut Recorder, kernel: &Kernel, partials: Region, count: u32) -> Result<()> {
    rec.dispatch(
        "vksort::scan::spine",
        kernel,
        &[partials, partials],
        &SpinePush { count },
        1,
    )
}
