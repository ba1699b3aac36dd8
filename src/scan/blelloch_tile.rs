//! Pass `vksort::scan::blelloch_tile` (`glsl/scan/scan_blelloch_tile.comp`): the work-efficient scan of each
//! tile in shared memory (up-sweep, down-sweep, bank-conflict-free padding), writing the tile's scan and its
//! total. Per element: reads 4 / 8 bytes, writes 4 / 8 bytes (u32 / u64), plus one sum per tile; recorded
//! once per level (the tile sums of a level are scanned by the next, in place).

use crate::error::Result;
use crate::gpu::{Region, Kernel, Recorder};

/// Push constants of `glsl/scan/scan_blelloch_tile.comp`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BlellochPush {
    pub n: u32,
    /// Workgroups dispatched (= tiles).
    pub groups: u32,
}

/// Records the per-tile scan of `n` elements of `src` into `dst` and the tile totals into `sums`.
pub(crate) fn record(
    rec: &mut Recorder,
    kernel: &Kernel,
    src: Region,
    dst: Region,
    sums: Region,
    n: u32,
    tiles: u32,
) -> Result<()> {
    rec.dispatch(
        "vksort::scan::blelloch_tile",
        kernel,
        &[src, dst, sums],
        &BlellochPush { n, groups: tiles },
        tiles,
    )
}
