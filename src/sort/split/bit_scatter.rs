//! `vksort::split::bit_scatter` (glsl/sort/split/split_bit_scatter.comp): the per-bit form's scatter: zeros to
//! their scanned flag, ones after all zeros in input order (stable). Dispatched indirectly (one workgroup per
//! tile of n, 0 when the pass does not run). Reads k + v + 4 bytes and writes k + v bytes per key.

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
    use crate::shaders::{split_bit_scatter as sh, Spec};
    let p = &s.policy;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        false,
        sh::SHADER,
        p.workgroup_size,
        Spec::new().with(sh::KPT, p.keys_per_invocation),
    )?;
    rec.dispatch_indirect(
        "vksort::split::bit_scatter",
        &k,
        &[io.src.0, io.dst.0, io.src.1, io.dst.1, io.offsets, c.meta],
        &PassPush {
            items: s.items.push(count),
            pass,
        },
        io.tile_args,
    )
}
