//! Pass `vksort::scan::add` (`glsl/scan/scan_add.comp`): the Blelloch scan's uniform add,
//! `data[i] += sums[i / tile]`. Per element: reads and writes 4 / 8 bytes (u32 / u64), one sum per tile.

use crate::error::Result;
use crate::gpu::{Region, Kernel, Recorder};

/// Push constants of `glsl/scan/scan_add.comp`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AddPush {
    pub n: u32,
    /// Elements per tile of the level whose sums are added.
    pub tile: u32,
    pub groups: u32,
}

/// Records `data[i] += sums[i / tile]` for the `n` elements of `data`.
pub(crate) fn record(
    rec: &mut Recorder,
    kernel: &Kernel,
    data: Region,
    sums: Region,
    n: u32,
    tile: u32,
    per_group: u32,
) -> Result<()> {
    let groups = n.div_ceil(per_group);
    rec.dispatch(
        "vksort::scan::add",
        kernel,
        &[data, sums],
        &AddPush { n, tile, groups },
        groups,
    )
}
