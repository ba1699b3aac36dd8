//! `vksort::warpsort::positions` (glsl/sort/warpsort/warpsort_positions.comp): phase 3, second pass. One
//! invocation per row and piece boundary finds, by binary search in the row, how many of the row's keys
//! precede the splitter in the order (key, position), into the `rows x (pieces + 1)` table `pos`. Reads about
//! rows x pieces x log2(row_len) x k bytes, writes 4 x rows x (pieces + 1).

use super::WarpSort;
use crate::error::Result;
use crate::gpu::{Region, Recorder};
use crate::sort::count::Count;
use crate::sort::items::{Checked, ItemPush};
use crate::sort::warpsort::Plan;

/// Push constants of `warpsort_positions`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PositionsPush {
    pub items: ItemPush,
    pub row_len: u32,
    pub rows: u32,
    pub pieces: u32,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn record(
    s: &WarpSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    plan: &Plan,
    keys: Region,
    split: Region,
    pos: Region,
) -> Result<()> {
    use crate::shaders::{warpsort_positions as sh, Spec};
    let wg = s.policy.scan_workgroup_size;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        true,
        sh::SHADER,
        wg,
        Spec::new(),
    )?;
    let entries = plan.rows * (plan.pieces + 1);
    rec.dispatch(
        "vksort::warpsort::positions",
        &k,
        &[keys, c.meta, split, pos],
        &PositionsPush {
            items: s.items.push(count),
            row_len: plan.row_len as u32,
            rows: plan.rows as u32,
            pieces: plan.pieces as u32,
        },
        entries.div_ceil(wg as u64) as u32,
    )
}
