//! `vksort::merge::partition` (glsl/sort/merge/merge_partition.comp): the split points of one merge pass. A
//! cluster of [`super::MergePolicy::partition_lanes`] invocations per merge tile finds, by a k-ary search of the
//! merge path on the pass's source side (that many probes per round, glsl/sort/merge/merge_split.glsl), how many
//! of the outputs before the tile's start come from the first run of its pair (ties from the first run: stable),
//! and writes it to the partition array (4 bytes per tile; about 2 lanes (log_lanes(w) + 1) keys read per tile).

use super::{MergeSort, Sides};
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::ItemPush;

/// Push constants of `merge_partition`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PartitionPush {
    pub items: ItemPush,
    pub block_tile: u32,
    pub merge_tile: u32,
    /// The merge pass (runs of block_tile << pass keys).
    pub pass: u32,
    /// Invocations per tile ([`super::MergePolicy::partition_lanes`]).
    pub lanes: u32,
}

pub(crate) fn record(
    s: &MergeSort,
    rec: &mut Recorder,
    b: &Sides,
    count: &Count,
    pass: u32,
) -> Result<()> {
    use crate::shaders::{merge_partition as sh, Spec};
    let p = &s.policy;
    let wg = p.partition_workgroup_size;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        false,
        sh::SHADER,
        wg,
        Spec::new()
            .with(sh::MASKED, s.masked())
            .with(sh::DEBUG_MODE, s.debug.debug_mode),
    )?;
    let tiles = count.max_n().div_ceil(p.merge_tile());
    let lanes = p.partition_lanes;
    let [k0, _, k1, _] = b.sides;
    rec.dispatch(
        "vksort::merge::partition",
        &k,
        &[k0, k1, b.meta, b.partition],
        &PartitionPush {
            items: s.items.push(count),
            block_tile: p.block_tile() as u32,
            merge_tile: p.merge_tile() as u32,
            pass,
            lanes,
        },
        tiles.div_ceil((wg / lanes) as u64) as u32,
    )
}
