//! `vksort::merge::block` (glsl/sort/merge/merge_block.comp): one workgroup per tile of
//! [`super::MergePolicy::block_tile`] keys sorts it stably (each invocation's keys in registers by odd-even
//! transposition, then rounds of merge-path merges through shared memory), gathers the values by the 16-bit tile
//! positions the keys carried, and writes the tile to side P(n) & 1, so that the last merge pass ends in the
//! caller's buffers. Reads the caller's keys and values; k + v bytes read and written per key.

use super::{MergeSort, Sides};
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::ItemPush;

/// Push constants of `merge_block`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BlockPush {
    pub items: ItemPush,
    /// The policy's block tile (decides P(n), and so the side written).
    pub block_tile: u32,
}

pub(crate) fn record(s: &MergeSort, rec: &mut Recorder, b: &Sides, count: &Count) -> Result<()> {
    use crate::shaders::{merge_block as sh, Spec};
    let p = &s.policy;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        false,
        sh::SHADER,
        p.block_workgroup_size,
        Spec::new()
            .with(sh::KPT, p.block_items_per_invocation)
            .with(sh::MASKED, s.masked()),
    )?;
    let [k0, v0, k1, v1] = b.sides;
    rec.dispatch(
        "vksort::merge::block",
        &k,
        &[k0, v0, k1, v1, b.meta],
        &BlockPush {
            items: s.items.push(count),
            block_tile: p.block_tile() as u32,
        },
        count.max_n().div_ceil(p.block_tile()) as u32,
    )
}
