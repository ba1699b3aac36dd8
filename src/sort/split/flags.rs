//! `vksort::split::flags` (glsl/sort/split/split_flags.comp): the per-bit form's map: flag = 1 where the pass's
//! bit of the transformed key is 0. Dispatched indirectly (one workgroup per tile of n, 0 when the pass does not
//! run). Reads k bytes and writes 4 bytes per key.

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
    use crate::shaders::{split_flags as sh, Spec};
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
        "vksort::split::flags",
        &k,
        &[io.src.0, io.offsets, c.meta],
        &PassPush {
            items: s.items.push(count),
            pass,
        },
        io.tile_args,
    )
}
