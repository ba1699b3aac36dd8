//! `vksort::warpsort::chunks` (glsl/sort/warpsort/warpsort_chunks.comp): phase 1. Each group sorts one chunk of
//! `group_lanes x chunk_items_per_lane` keys (the bitonic network over the group's registers, subgroup shuffles
//! only, stable by tags), from the caller's buffers into `out` (the caller's buffers again when the plan sorts
//! in place, else the scratch copy). Reads and writes k + v bytes per key.

use super::{Side, WarpSort};
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::Checked;

pub(crate) fn record(
    s: &WarpSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    chunks: u64,
    input: Side,
    out: Side,
) -> Result<()> {
    use crate::shaders::{warpsort_chunks as sh, Spec};
    let p = &s.policy;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        true,
        sh::SHADER,
        p.workgroup_size,
        Spec::new()
            .with(sh::KPT, p.chunk_items_per_lane)
            .with(sh::GROUP_LANES, p.group_lanes),
    )?;
    rec.dispatch(
        "vksort::warpsort::chunks",
        &k,
        &[input.keys, input.vals, out.keys, out.vals, c.meta],
        &s.items.push(count),
        s.workgroups(chunks),
    )
}
