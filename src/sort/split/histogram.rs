//! `vksort::split::histogram` (glsl/sort/split/split_histogram.comp): step 1 of a pass of the blocked form:
//! each tile's digit counts, digit-major (`hist[d * tiles + t]`), for one exclusive scan. Dispatched indirectly
//! (one workgroup per tile of n, 0 when the pass does not run). Reads k bytes per key, writes 4 x 2^digit_bits
//! bytes per tile.

use super::{PassIo, PassPush, SplitSort};
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::Checked;

pub(crate) fn record(
    s: &SplitSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    pass: u32,
    io: &PassIo,
) -> Result<()> {
    use crate::shaders::{split_histogram as sh, Spec};
    let p = &s.policy;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        false,
        sh::SHADER,
        p.workgroup_size,
        Spec::new()
            .with(sh::KPT, p.keys_per_invocation)
            .with(sh::DIGIT_BITS, p.digit_bits),
    )?;
    rec.dispatch_indirect(
        "vksort::split::histogram",
        &k,
        &[io.src.0, io.offsets, c.meta],
        &PassPush {
            items: s.items.push(count),
            pass,
        },
        io.tile_args,
    )
}
