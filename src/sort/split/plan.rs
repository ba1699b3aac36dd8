//! `vksort::split::plan` (glsl/sort/split/split_plan.comp): one invocation lists the varying bits within the bit
//! range ([`super::CTRL_BITS`], [`super::CTRL_VARYING`]), sets the passes that run ([`super::CTRL_PASSES`]) and
//! writes the indirect arguments of every recorded pass (0 workgroups for those that do not run) and of the
//! final copy (0 unless an odd number of passes runs).

use super::{Form, SplitSort};
use crate::error::Result;
use crate::gpu::{Region, Recorder};
use crate::sort::count::Count;
use crate::sort::items::{Checked, ItemPush};

/// Push constants of `split_plan`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlanPush {
    pub items: ItemPush,
    /// Passes recorded.
    pub recorded: u32,
    /// Varying bits per pass (1: the per-bit form).
    pub per_pass: u32,
    /// Keys per workgroup of the tile passes.
    pub tile_keys: u32,
    /// Elements per workgroup of the scan.
    pub scan_tile: u32,
    /// Scan elements per key tile (2^digit_bits); 0: one per key (the per-bit form's flags).
    pub scan_per_tile: u32,
    /// Keys per workgroup of the final copy.
    pub copy_keys: u32,
    /// `maxComputeWorkGroupCount[0]`.
    pub max_x: u32,
}

pub(crate) fn record(
    s: &SplitSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    form: Form,
    recorded: u32,
    args: Region,
) -> Result<()> {
    use crate::shaders::{split_plan as sh, Spec};
    let ctx = rec.ctx();
    let wg = s.plan.workgroup_size(ctx.caps(), 1);
    let k = crate::sort::items::kernel(ctx, &s.plan, &s.items, false, sh::SHADER, wg, Spec::new())?;
    let p = &s.policy;
    let (per_pass, scan_per_tile) = match form {
        Form::PerBit => (1, 0),
        Form::Blocked => (p.digit_bits, p.radix() as u32),
    };
    rec.dispatch(
        "vksort::split::plan",
        &k,
        &[c.meta, args],
        &PlanPush {
            items: s.items.push(count),
            recorded,
            per_pass,
            tile_keys: p.tile() as u32,
            scan_tile: s.scanner.tile_size(),
            scan_per_tile,
            copy_keys: p.tile() as u32,
            max_x: ctx.caps().max_workgroup_count[0],
        },
        1,
    )
}
