//! `vksort::merge::block` (glsl/sort/merge/merge_block.comp): one workgroup per tile of `wg` x
//! `block_items_per_invocation` keys sorts it stably in shared memory (the bitonic network on items tagged with
//! their tile position), gathers the values by tag, and writes the tile to side P(n) & 1, so that the last
//! merge pass ends in the caller's buffers. Reads the caller's keys and values; k + v bytes read and written
//! per key.

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

/// Records the block pass with workgroups of `wg` invocations (the policy's, or a smaller one for a sort of
/// one tile).
pub(crate) fn record(
    s: &MergeSort,
    rec: &mut Recorder,
    b: &Sides,
    count: &Count,
    wg: u32,
) -> Result<()> {
    use crate::shaders::{merge_block as sh, Spec};
    let kpt = s.policy.block_items_per_invocation;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        true,
        sh::SHADER,
        wg,
        Spec::new().with(sh::KPT, kpt),
    )?;
    let tile = (wg * kpt) as u64;
    let [k0, v0, k1, v1] = b.sides;
    rec.dispatch(
        "vksort::merge::block",
        &k,
        &[k0, v0, k1, v1, b.meta],
        &BlockPush {
            items: s.items.push(count),
            block_tile: s.policy.block_tile() as u32,
        },
        count.max_n().div_ceil(tile) as u32,
    )
}
