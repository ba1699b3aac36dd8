//! `vksort::split::differ` (glsl/sort/split/split_differ.comp): ORs the transformed keys and their complements
//! into the control block ([`super::CTRL_OR`], [`super::CTRL_NOR`], cleared by `vksort::split::clear`), one
//! workgroup per tile (tiles at or beyond n do nothing). Reads k bytes per key.

use super::SplitSort;
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::Checked;

pub(crate) fn record(s: &SplitSort, rec: &mut Recorder, c: &Checked, count: &Count) -> Result<()> {
    use crate::shaders::{split_differ as sh, Spec};
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
    let groups = count.max_n().div_ceil(p.tile());
    rec.dispatch(
        "vksort::split::differ",
        &k,
        &[c.keys, c.meta],
        &s.items.push(count),
        groups as u32,
    )
}
