//! `vksort::radix::onesweep::place<p>` (glsl/radix_onesweep.comp, variants `ballot` / `partitioned`): one digit
//! place in one pass. Tiles are claimed through the place's counter in the control block; each tile ranks its
//! keys locally (subgroup multisplit + workgroup multi-scan), finds the count of each digit in earlier tiles by
//! decoupled look-back over the place's status region (bounded spin, then self-counting), and scatters keys and
//! values through shared memory to the other side. Dispatched indirectly (0 groups when the plan skipped the
//! place). Policy-selected code paths (specialization constants 10 and 11, see [`super::RadixPolicy`]):
//! `rank2` (CUB-style [digit][subgroup] counters and one workgroup scan; 2: 16-bit packed counters) and
//! `keep_digit` (wide exchange: a second word travels with each key through shared memory).

use super::{Bindings, RadixSort, CTRL_PASS};
use crate::error::Result;
use crate::gpu::Recorder;

/// Push constants of `radix_onesweep_*` (also the downsweep variants).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OnesweepPush {
    pub shift: u32,
    pub pass_bits: u32,
    pub pass_index: u32,
    pub key_kind: u32,
    pub flags: u32,
    pub hist_off: u32,
    pub status_off: u32,
    pub pad: u32,
}

pub(crate) fn push(s: &RadixSort, b: &Bindings, p: u32) -> OnesweepPush {
    let (shift, bits) = s.pass_shift(p);
    OnesweepPush {
        shift,
        pass_bits: bits,
        pass_index: p,
        key_kind: s.key.kind(),
        flags: s.flags(),
        hist_off: b.layout.hist_word as u32,
        status_off: b.layout.status_word as u32,
        pad: 0,
    }
}

/// Keys per invocation with a compile-time variant of the Onesweep kernel (`radix_onesweep_<v>_k<kpt>`).
pub const FIXED_KPT: [u32; 3] = [8, 12, 16];

/// The ranking kernel: `downsweep` selects the reduce-then-scan variant.
pub(crate) fn kernel(s: &RadixSort, downsweep: bool) -> Result<std::sync::Arc<crate::gpu::Kernel>> {
    let base = match (downsweep, s.policy.use_partitioned) {
        (false, false) => "radix_onesweep_ballot",
        (false, true) => "radix_onesweep_partitioned",
        (true, false) => "radix_onesweep_downsweep",
        (true, true) => "radix_onesweep_downsweep_partitioned",
    };
    // Onesweep has variants compiled for some keys-per-thread values (register-resident per-item arrays).
    let kpt = s.policy.keys_per_thread;
    let name = if !downsweep && FIXED_KPT.contains(&kpt) {
        format!("{base}_k{kpt}")
    } else {
        base.to_string()
    };
    let wg = s.policy.workgroup_size;
    s.kernel(
        &name,
        wg,
        &[
            s.policy.keys_per_thread,
            s.policy.digit_bits,
            s.key_words,
            s.val_words,
            s.policy.spin_limit,
            s.policy.stall_every,
            s.policy.early_counts as u32,
            s.policy.debug_mode,
            s.policy.rank2,
            s.policy.keep_digit as u32,
        ],
    )
}

pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings, p: u32) -> Result<()> {
    let k = kernel(s, false)?;
    let (va, vb) = b.vals();
    rec.dispatch_indirect(
        &format!("vksort::radix::onesweep::place{p}"),
        &k,
        &[b.keys, b.alt_keys, va, vb, b.meta],
        &push(s, b, p),
        b.args(CTRL_PASS + 8 * p as u64),
    )
}
