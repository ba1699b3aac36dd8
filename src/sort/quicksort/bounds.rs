//! `vksort::quicksort::bounds` (glsl/sort/quicksort/quicksort_bounds.comp): the masked key range of the input
//! (one workgroup per phase-one block, records reduced by the last one) and the first plan: nothing when all
//! keys are equal, a phase-two job, or round 0's one sequence with its pivot and indirect grid. Reads k bytes
//! per key (and a sample), writes a few words per block.

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
) -> Result<()> {
    use crate::shaders::quicksort_bounds as sh;
    let p = &s.policy;
    let k = s.kernel(
        rec.ctx(),
        sh::SHADER,
        p.workgroup_size,
        p.items_per_invocation,
    )?;
    let groups = count.max_n().div_ceil(p.block()) as u32;
    rec.dispatch(
        "vksort::quicksort::bounds",
        &k,
        &b.all(),
        &s.push(count, lay, 0, false),
        groups,
    )
}
