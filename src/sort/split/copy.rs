//! `vksort::split::copy` (glsl/sort/split/split_copy.comp): when an odd number of passes ran, copies the sorted
//! keys and values from the scratch side back to the caller's buffers. Dispatched indirectly (0 workgroups for
//! an even number). Reads and writes k + v bytes per key.

use super::SplitSort;
use crate::error::Result;
use crate::gpu::{Region, Recorder};
use crate::sort::count::Count;
use crate::sort::items::Checked;

pub(crate) fn record(
    s: &SplitSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    alt: (Region, Region),
    args: Region,
) -> Result<()> {
    use crate::shaders::{split_copy as sh, Spec};
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
        "vksort::split::copy",
        &k,
        &[c.keys, alt.0, c.values, alt.1, c.meta],
        &s.items.push(count),
        args,
    )
}
