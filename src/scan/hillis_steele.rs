//! Passes `vksort::scan::hillis_steele` and `vksort::scan::shift` (`glsl/scan/scan_hillis_steele.comp`): the
//! naive scan. Each doubling pass reads 2 elements and writes 1 per element (12 / 24 bytes per element
//! for u32 / u64), ceil(log2 n) times; the final shift (exclusive) or copy (inclusive) pass reads 1 and
//! writes 1.

use crate::error::Result;
use crate::gpu::{Region, Kernel, Recorder};

/// Push constants of `glsl/scan/scan_hillis_steele.comp`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HillisSteelePush {
    pub n: u32,
    /// Doubling distance (mode 0).
    pub stride: u32,
    /// 0: add `src[i - stride]`; 1: the final shift / copy.
    pub mode: u32,
    /// 1 for an inclusive scan (the final pass copies instead of shifting).
    pub inclusive: u32,
    pub groups: u32,
}

/// Records one pass: a doubling step (`shift == false`) or the final shift/copy into `dst`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn record(
    rec: &mut Recorder,
    kernel: &Kernel,
    src: Region,
    dst: Region,
    n: u32,
    stride: u32,
    shift: bool,
    inclusive: bool,
    per_group: u32,
) -> Result<()> {
    let groups = n.div_ceil(per_group);
    let push = HillisSteelePush {
        n,
        stride,
        mode: shift as u32,
        inclusive: inclusive as u32,
        groups,
    };
    let label = if shift {
        "vksort::scan::shift"
    } else {
        "vksort::scan::hillis_steele"
    };
    rec.dispatch(label, kernel, &[src, dst], &push, groups)
}
