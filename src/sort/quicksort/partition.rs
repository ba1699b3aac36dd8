//! `vksort::quicksort::partition` (glsl/sort/quicksort/quicksort_partition.comp): phase-one round `r`, dispatched
//! indirectly with the grid the previous round (or the bounds pass) wrote: each workgroup partitions one block
//! of one sequence around its pivot from side r % 2 to the other side, count and scatter in one pass with a
//! fetch-and-add on the sequence's left and right pointers; the last workgroup of each sequence plans its two
//! children, the last of the round writes the next round's grid. Reads k + v and writes k + v bytes per key of
//! the sequences still in phase one (plus a few words per block). A round nobody planned is an empty dispatch.

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
    round: u32,
) -> Result<()> {
    use crate::shaders::quicksort_partition as sh;
    let p = &s.policy;
    let k = s.kernel(
        rec.ctx(),
        sh::SHADER,
        p.workgroup_size,
        p.items_per_invocation,
    )?;
    rec.dispatch_indirect(
        "vksort::quicksort::partition",
        &k,
        &b.all(),
        &s.push(count, lay, round, false),
        b.scratch.slice(lay.args_offset(round), 12),
    )
}
