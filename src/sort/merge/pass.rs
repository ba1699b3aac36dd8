//! `vksort::merge::merge` (glsl/sort/merge/merge_merge.comp for [`super::MergeKernel::Serial`],
//! glsl/sort/merge/merge_network.comp for [`super::MergeKernel::Network`]): one merge pass. One workgroup per
//! output tile of `merge_tile()` keys merges exactly that many keys, from the slices of the pair's two runs that
//! the partition pass gave (or that its subgroups find themselves, [`super::Partition::Fused`]), into the other
//! side; values are gathered by source position when the tile is written. k + v bytes read and written per key.

use super::{MergeKernel, MergeSort, Sides};
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::ItemPush;

/// Push constants of `merge_merge`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MergePush {
    pub items: ItemPush,
    pub block_tile: u32,
    /// The merge pass (runs of block_tile << pass keys).
    pub pass: u32,
}

pub(crate) fn record(
    s: &MergeSort,
    rec: &mut Recorder,
    b: &Sides,
    count: &Count,
    pass: u32,
) -> Result<()> {
    use crate::shaders::{merge_merge as sh, merge_network, Spec};
    let p = &s.policy;
    // Both kernels declare KPT and FUSED_SPLIT with the same ids (build.rs checks); the serial one also the
    // timing knock-outs (MergeDebug::debug_mode, 0 unless set; refused with the network kernel).
    let (shader, tagged, debug) = match p.merge_kernel {
        MergeKernel::Serial => (sh::SHADER, false, Some(s.debug.debug_mode)),
        MergeKernel::Network => (merge_network::SHADER, true, None),
    };
    let mut spec = Spec::new()
        .with(sh::KPT, p.merge_items_per_invocation)
        .with(sh::MASKED, s.masked())
        .with(sh::FUSED_SPLIT, p.fused(count.max_n()) as u32);
    if let Some(mode) = debug {
        spec.set(sh::DEBUG_MODE, mode);
    }
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        tagged,
        shader,
        p.merge_workgroup_size,
        spec,
    )?;
    let [k0, v0, k1, v1] = b.sides;
    rec.dispatch(
        "vksort::merge::merge",
        &k,
        &[k0, v0, k1, v1, b.meta, b.partition],
        &MergePush {
            items: s.items.push(count),
            block_tile: p.block_tile() as u32,
            pass,
        },
        count.max_n().div_ceil(p.merge_tile()) as u32,
    )
}
