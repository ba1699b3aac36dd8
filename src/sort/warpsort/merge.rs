//! `vksort::warpsort::merge` (glsl/sort/warpsort/warpsort_merge.comp): one round of phase 2. Rows of `row_len`
//! keys are merged pairwise, one group per pair (the windowed bitonic merge of `warp_merge.glsl`), from `input`
//! into `out` at the same positions. Reads and writes k + v bytes per key.

use super::{Side, WarpSort};
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::{Checked, ItemPush};

/// Push constants of `warpsort_merge`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MergePush {
    pub items: ItemPush,
    /// Keys of an input row.
    pub row_len: u32,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn record(
    s: &WarpSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    row_len: u64,
    pairs: u64,
    input: Side,
    out: Side,
) -> Result<()> {
    use crate::shaders::{warpsort_merge as sh, Spec};
    let p = &s.policy;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        true,
        sh::SHADER,
        p.workgroup_size,
        Spec::new()
            .with(sh::GROUP_LANES, p.group_lanes)
            .with(sh::MPT, p.merge_items_per_lane),
    )?;
    rec.dispatch(
        "vksort::warpsort::merge",
        &k,
        &[input.keys, input.vals, out.keys, out.vals, c.meta],
        &MergePush {
            items: s.items.push(count),
            row_len: row_len as u32,
        },
        s.workgroups(pairs),
    )
}
