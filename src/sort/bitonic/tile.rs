//! `vksort::bitonic::tile` and `vksort::bitonic::merge` (glsl/sort/bitonic/bitonic_tile.comp): one workgroup per
//! tile, in place. `merge_k == 0` sorts every tile (the whole sort when one workgroup holds n); `merge_k > 0`
//! runs the strides below the tile of merge stage `merge_k`.

use super::BitonicSort;
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::{Checked, ItemPush};

/// Push constants of `bitonic_tile`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TilePush {
    pub items: ItemPush,
    /// 0: sort each tile; else the merge stage whose strides below the tile run.
    pub merge_k: u32,
}

pub(crate) fn record(
    s: &BitonicSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    wg: u32,
    merge_k: u32,
    groups: u32,
) -> Result<()> {
    use crate::shaders::{bitonic_tile as sh, Spec};
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        s.tagged(),
        sh::SHADER,
        wg,
        Spec::new().with(sh::KPT, s.policy.items_per_invocation),
    )?;
    let label = if merge_k == 0 {
        "vksort::bitonic::tile"
    } else {
        "vksort::bitonic::merge"
    };
    rec.dispatch(
        label,
        &k,
        &[c.keys, c.values, c.meta],
        &TilePush {
            items: s.items.push(count),
            merge_k,
        },
        groups,
    )
}
