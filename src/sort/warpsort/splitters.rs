//! `vksort::warpsort::splitters` (glsl/sort/warpsort/warpsort_splitters.comp): phase 3, first pass, one
//! workgroup. Samples K x P keys regularly from the rows phase 2 left in `keys`, sorts the sample by (key,
//! position) with the workgroup bitonic sort, and writes every K-th as the P - 1 splitters (transformed key
//! words and position) into `split`. Reads K x P x k bytes, writes (P - 1) x (k + 4).

use super::WarpSort;
use crate::error::Result;
use crate::gpu::{Region, Recorder};
use crate::sort::count::Count;
use crate::sort::items::{Checked, ItemPush};

/// Push constants of `warpsort_splitters`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SplittersPush {
    pub items: ItemPush,
    /// K x P (a power of two).
    pub samples: u32,
    pub log_samples: u32,
    /// K.
    pub oversampling: u32,
}

pub(crate) fn record(
    s: &WarpSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    pieces: u64,
    keys: Region,
    split: Region,
) -> Result<()> {
    use crate::shaders::{warpsort_splitters as sh, Spec};
    let p = &s.policy;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        true,
        sh::SHADER,
        p.sample_workgroup_size,
        Spec::new().with(sh::KPT, p.sample_items_per_invocation),
    )?;
    let samples = pieces * p.oversampling as u64;
    rec.dispatch(
        "vksort::warpsort::splitters",
        &k,
        &[keys, c.meta, split],
        &SplittersPush {
            items: s.items.push(count),
            samples: samples as u32,
            log_samples: samples.trailing_zeros(),
            oversampling: p.oversampling,
        },
        1,
    )
}
