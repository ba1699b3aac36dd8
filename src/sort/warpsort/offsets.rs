//! `vksort::warpsort::offsets` (glsl/sort/warpsort/warpsort_offsets.comp): phase 3, last pass, one workgroup.
//! An exclusive scan of the segment lengths (from `pos`) in (piece, row) order gives where each row's segment
//! of each piece starts in the piece-major layout, and where each piece ends: the `pieces x (rows + 1)` table
//! `off`. Reads 4 x rows x (pieces + 1) bytes (twice), writes 4 x pieces x (rows + 1).

use super::WarpSort;
use crate::error::Result;
use crate::gpu::{Region, Recorder};
use crate::sort::warpsort::Plan;

/// Push constants of `warpsort_offsets`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OffsetsPush {
    pub rows: u32,
    pub pieces: u32,
    /// Segments each invocation scans.
    pub per: u32,
}

pub(crate) fn record(
    s: &WarpSort,
    rec: &mut Recorder,
    plan: &Plan,
    pos: Region,
    off: Region,
) -> Result<()> {
    use crate::shaders::{warpsort_offsets as sh, Spec};
    let wg = s.policy.scan_workgroup_size;
    let k = s.plan.kernel(rec.ctx(), sh::SHADER, wg, Spec::new())?;
    let segments = plan.rows * plan.pieces;
    rec.dispatch(
        "vksort::warpsort::offsets",
        &k,
        &[pos, off],
        &OffsetsPush {
            rows: plan.rows as u32,
            pieces: plan.pieces as u32,
            per: segments.div_ceil(wg as u64) as u32,
        },
        1,
    )
}
