//! `vksort::bitonic::global` (glsl/sort/bitonic/bitonic_global.comp): up to the policy's `global_fuse`
//! consecutive steps of merge stage `k` whose strides are at least a tile, in place: each invocation holds the
//! 2^steps positions those steps connect (a stage's first, mirror step included) and writes back only the
//! items that moved.

use super::BitonicSort;
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::count::Count;
use crate::sort::items::{Checked, ItemPush};

/// Push constants of `bitonic_global`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GlobalPush {
    pub items: ItemPush,
    pub k: u32,
    /// The first stride is 1 << log_j.
    pub log_j: u32,
    /// Steps of this pass.
    pub steps: u32,
    /// Invocations whose base position is below the recorded n.
    pub groups: u32,
}

/// Invocations of a pass whose lowest stride bit is `lowbit` over `steps` strides that have a base position
/// below `n` (bases increase with the invocation index).
fn invocations_below(n: u64, lowbit: u32, steps: u32) -> u64 {
    let block = 1u64 << (lowbit + steps);
    ((n / block) << lowbit) + (n % block).min(1u64 << lowbit)
}

/// Records the global passes of merge stage `k`: strides k / 2 down to `tile`, `global_fuse` steps per pass,
/// each pass followed by a barrier.
pub(crate) fn record_stage(
    s: &BitonicSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    k: u64,
    tile: u64,
) -> Result<()> {
    use crate::shaders::{bitonic_global as sh, Spec};
    let p = &s.policy;
    let kernel = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        false,
        sh::SHADER,
        p.global_workgroup_size,
        Spec::new().with(sh::FUSE, p.global_fuse),
    )?;
    let mut log_j = (k / 2).trailing_zeros();
    let log_tile = tile.trailing_zeros();
    while log_j >= log_tile {
        let steps = p.global_fuse.min(log_j - log_tile + 1);
        let lowbit = log_j + 1 - steps;
        let groups = invocations_below(count.max_n(), lowbit, steps);
        rec.dispatch(
            "vksort::bitonic::global",
            &kernel,
            &[c.keys, c.values, c.meta],
            &GlobalPush {
                items: s.items.push(count),
                k: k as u32,
                log_j,
                steps,
                groups: groups as u32,
            },
            groups.div_ceil(p.global_workgroup_size as u64) as u32,
        )?;
        rec.barrier();
        if log_j < steps {
            break;
        }
        log_j -= steps;
    }
    Ok(())
}
