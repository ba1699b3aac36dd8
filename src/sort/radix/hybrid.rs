//! `vksort::radix::hybrid` (glsl/sort/radix/: radix_hybrid_bounds.comp, radix_hybrid_local.comp): the MSD hybrid radix sort (after Stehle & Jacobsen, "A Memory Bandwidth-Efficient
//! Hybrid Radix Sort on GPUs", SIGMOD 2017). The keys are first sorted on their top bits by the Onesweep
//! machinery, which leaves every group of keys sharing those bits in one contiguous range; then one workgroup per
//! group sorts it on the bits below in registers, one read and one write. For 32-bit keys at 2^28 that is
//! 2 passes over the keys plus one group pass instead of 4 passes; for 64-bit keys 2 or 3 instead of 8.
//!
//! Shape ([`super::RadixPolicy::hybrid_geometry`], chosen on the host from the sort's capacity): P MSD places
//! (1-3: the fewest whose prefixes hold at most 7/8 of the group tile, `hybrid_workgroup_size` x
//! `hybrid_keys_per_thread`, on average) and 2^g groups (up to 2^16: the top g bits of the MSD places).
//!
//! Passes (labels):
//! - `vksort::radix::setup`, `vksort::radix::upfront` and the plan as in Onesweep ([`super`]); the plan (on the
//!   GPU, [`crate::sort::radix`]'s radix_plan.glsl) runs only the P highest places whose digits vary, skips every
//!   place below them, keeps no pass parity, and writes where the groups' bits start (keys whose top places all
//!   agree move the groups down to the places that vary).
//! - `vksort::radix::onesweep::place<p>` for every place (those below the MSD places dispatch 0 workgroups):
//!   2(k + v) B/key each for the P that run.
//! - `vksort::radix::hybrid::bounds`: reads the keys (k B/key) from the side the MSD passes left them on and
//!   writes each group's start (2^g + 1 words, every one once: nothing zeroed).
//! - `vksort::radix::hybrid::local`: one workgroup per group reads it (k + v B/key), sorts it on the bits below
//!   the groups' and writes it to the caller's buffers (k + v B/key). Groups larger than the group tile (skewed
//!   keys: few distinct top bits) are sorted by their one workgroup through global memory, one digit place at a
//!   time between the caller's buffers and the scratch: correct, but slow when a group holds a large share of
//!   the keys, so Auto never chooses this sort.
//!
//! Bytes per key (k key bytes, v value bytes): k (upfront) + 2P(k + v) + k (bounds) + 2(k + v): 32-bit keys at
//! 2^28, P = 2: 28 against Onesweep's 36; 64-bit keys, P = 2: 56 against 136.
//!
//! Sorts cut into portions (an array larger than one binding, or more than 2^30 - 1 keys) run as Onesweep; sorts
//! of more than the policy's `hybrid_max` keys (CPU drivers: 2^16, for their loop limit) are refused.
//! Barriers as every radix sort: one between passes, none after the last.

use super::{Bindings, RadixSort};
use crate::error::Result;
use crate::gpu::Recorder;
use crate::sort::algorithm::SortAlgorithm;

/// Keys per invocation of the bounds pass.
const BOUNDS_KPT: u32 = 8;

/// Push constants of `radix_hybrid_bounds`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BoundsPush {
    pub key_kind: u32,
    pub flags: u32,
    /// The starts table holds 2^groups_log2 + 1 entries.
    pub groups_log2: u32,
}

/// Push constants of `radix_hybrid_local`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LocalPush {
    pub lo: u32,
    pub key_kind: u32,
    pub flags: u32,
}

/// Records the hybrid sort (`b.hybrid` != 0: its MSD places and group bits).
pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    let p = &s.policy;
    let groups_log2 = b.hybrid >> 8;
    use crate::shaders::{radix_hybrid_bounds as bounds_sh, radix_hybrid_local as local_sh, Spec};
    let bounds_wg = s.plan.workgroup_size(s.ctx.caps(), 256);
    let bounds = s.kernel(
        bounds_sh::SHADER,
        bounds_wg,
        Spec::new()
            .with(bounds_sh::KPT, BOUNDS_KPT)
            .with(bounds_sh::KEY_WORDS, s.key_words),
    )?;
    let local = s.kernel(
        local_sh::SHADER,
        p.hybrid_workgroup_size,
        Spec::new()
            .with(local_sh::KPT, p.hybrid_keys_per_thread)
            .with(local_sh::DIGIT_BITS, p.digit_bits)
            .with(local_sh::KEY_WORDS, s.key_words)
            .with(local_sh::VAL_WORDS, s.val_words)
            .with(local_sh::BALLOT_WORDS, s.ballot_words()),
    )?;
    s.record_passes(rec, b, SortAlgorithm::Onesweep)?;
    let (va, vb) = b.vals();
    rec.dispatch(
        "vksort::radix::hybrid::bounds",
        &bounds,
        &[b.keys, b.alt_keys, b.meta, b.hybrid_starts],
        &BoundsPush {
            key_kind: s.key.kind(),
            flags: s.flags(),
            groups_log2,
        },
        b.max_n.div_ceil((bounds_wg * BOUNDS_KPT) as u64).max(1) as u32,
    )?;
    rec.barrier();
    rec.dispatch(
        "vksort::radix::hybrid::local",
        &local,
        &[b.keys, va, b.alt_keys, vb, b.meta, b.hybrid_starts],
        &LocalPush {
            lo: s.lo,
            key_kind: s.key.kind(),
            flags: s.flags(),
        },
        1 << groups_log2,
    )
}
