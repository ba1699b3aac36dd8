//! `vksort::split::scatter` (glsl/sort/split/split_scatter.comp): step 3 of a pass of the blocked form: each
//! tile sorts itself on the pass's digit by `digit_bits` stable 1-bit splits in shared memory (vertical
//! per-invocation scans + a workgroup scan of subgroup scans), then writes every key and value to the scanned
//! histogram's start of its (digit, tile) plus its rank in the tile's run of that digit. Dispatched indirectly
//! (one workgroup per tile of n, 0 when the pass does not run). Reads k + v bytes per key and 4 x 2^digit_bits
//! per tile, writes k + v bytes per key.

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
    use crate::shaders::{split_scatter as sh, Spec};
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
        "vksort::split::scatter",
        &k,
        &[io.src.0, io.dst.0, io.src.1, io.dst.1, io.offsets, c.meta],
        &PassPush {
            items: s.items.push(count),
            pass,
        },
        io.tile_args,
    )
}
