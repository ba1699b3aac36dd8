//! Pass `vksort::scan::lookback` (`glsl/scan/scan_lookback.comp`, after the `vksort::scan::clear` fill of its
//! status region): the single-pass decoupled look-back scan. One workgroup per tile, tiles claimed with an
//! atomic counter; per element it reads the input once and writes the output once (4 + 4 bytes for u32,
//! 8 + 8 for u64), plus 8 (u32) or 16 (u64) status bytes per tile written and a few read per look-back.
//!
//! Scratch: the region given here (cleared to zero by this pass's fill): 16-byte header and the tiles'
//! status words (layout and protocol in `glsl/include/lookback.glsl`). [`record_indirect`] is the same pass with
//! its workgroup count read on the GPU (the tiles are claimed in order, so any number of them scans a prefix).

use super::ScanElem;
use crate::error::Result;
use crate::gpu::{Region, Kernel, Recorder};

/// Push constants of `glsl/scan/scan_lookback.comp` (all variants: u32, u64 and their in-place forms).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LookbackPush {
    /// Elements.
    pub n: u32,
    /// Workgroups dispatched (= tiles).
    pub groups: u32,
}

/// Bytes of the status region for `tiles` tiles: a 16-byte header and 8 (u32) or 16 (u64) bytes per tile.
pub fn status_bytes(tiles: u64, elem: ScanElem) -> u64 {
    16 + tiles * 2 * elem.bytes()
}

/// Byte offset of the fallback counter in the status region: how many predecessor tiles waiting
/// workgroups reduced themselves (a diagnostic the tests read).
pub const FALLBACK_COUNTER_OFFSET: u64 = 4;

/// Records the clear of `status` and the look-back pass over `n` elements in `tiles` tiles.
pub(crate) fn record(
    rec: &mut Recorder,
    kernel: &Kernel,
    input: Region,
    output: Region,
    status: Region,
    n: u32,
    tiles: u32,
) -> Result<()> {
    rec.fill_region("vksort::scan::clear", status, 0)?;
    rec.barrier();
    rec.dispatch(
        "vksort::scan::lookback",
        kernel,
        &[input, output, status],
        &LookbackPush { n, groups: tiles },
        tiles,
    )
}

/// [`record`] with the workgroup count read on the GPU from `args` (see [`super::Scanner::cmd_scan_indirect`]):
/// the clear of `status`, then the look-back pass over at most `n` elements in at most `tiles` tiles.
#[allow(clippy::too_many_arguments)]
pub(crate) fn record_indirect(
    rec: &mut Recorder,
    kernel: &Kernel,
    input: Region,
    output: Region,
    status: Region,
    n: u32,
    tiles: u32,
    args: Region,
) -> Result<()> {
    rec.fill_region("vksort::scan::clear", status, 0)?;
    rec.barrier();
    rec.dispatch_indirect(
        "vksort::scan::lookback",
        kernel,
        &[input, output, status],
        &LookbackPush { n, groups: tiles },
        args,
    )
}
