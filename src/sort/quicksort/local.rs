//! `vksort::quicksort::local` (glsl/sort/quicksort/quicksort_local.comp): phase two, one workgroup per job
//! alone (an explicit stack, three-way partitions around the median of three into the other side, the bitonic
//! sort of tiles in shared memory, and the global bitonic network as the fallback past the depth limit). Either
//! indirect over the jobs phase one queued, or (`direct`) one workgroup sorting the whole input. Per partition
//! level: reads k (count) + k + v and writes k + v bytes per key; the tile sort reads and writes k + v.

use super::layout::Layout;
use super::{Bound, QuicksortSort};
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;

pub(crate) fn record(
    s: &QuicksortSort,
    rec: &mut Recorder,
    b: &Bound,
    lay: &Layout,
    count: &Count,
    direct: bool,
) -> Result<()> {
    use crate::shaders::quicksort_local as sh;
    let p = &s.policy;
    let k = s.kernel(
        rec.ctx(),
        sh::SHADER,
        p.local_workgroup_size,
        p.local_items_per_invocation,
    )?;
    let push = s.push(count, lay, 0, direct);
    if direct {
        rec.dispatch("vksort::quicksort::local", &k, &b.all(), &push, 1)
    } else {
        rec.dispatch_indirect(
            "vksort::quicksort::local",
            &k,
            &b.all(),
            &push,
            b.scratch.slice(lay.args_offset(lay.rounds), 12),
        )
    }
}
