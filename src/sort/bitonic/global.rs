//! `vksort::bitonic::global` (glsl/sort/bitonic/bitonic_global.comp): one step of stride `j` (at least a tile) of
//! merge stage `k` over the whole array, in place; a pair is written only when it swaps.

use super::BitonicSort;
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::{Checked, ItemPush};

/// Push constants of `bitonic_global`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GlobalPush {
    pub items: ItemPush,
    pub k: u32,
    pub j: u32,
    pub log_j: u32,
    /// Comparators whose lower position is below n (the recorded n: host count or capacity).
    pub pairs: u32,
}

/// Comparators of a step of stride `j` whose lower position is below `n`.
fn pairs_below(n: u64, j: u64) -> u64 {
    (n / (2 * j)) * j + (n % (2 * j)).min(j)
}

pub(crate) fn record(
    s: &BitonicSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    k: u64,
    j: u64,
) -> Result<()> {
    use crate::shaders::{bitonic_global as sh, Spec};
    let p = &s.policy;
    let kernel = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        false,
        sh::SHADER,
        p.global_workgroup_size,
        Spec::new().with(sh::KPT, p.global_pairs),
    )?;
    let pairs = pairs_below(count.max_n(), j);
    let per_group = (p.global_workgroup_size * p.global_pairs) as u64;
    rec.dispatch(
        "vksort::bitonic::global",
        &kernel,
        &[c.keys, c.values, c.meta],
        &GlobalPush {
            items: s.items.push(count),
            k: k as u32,
            j: j as u32,
            log_j: j.trailing_zeros(),
            pairs: pairs as u32,
        },
        pairs.div_ceil(per_group) as u32,
    )
}
