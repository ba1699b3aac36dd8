//! `vksort::radix::msd` (glsl/radix_msd_split.comp and glsl/radix_msd_buckets.comp, variants `ballot` /
//! `partitioned`): a two-dispatch sort for small inputs, most significant digit first, with no waiting between
//! workgroups.
//!
//! - `vksort::radix::msd::split`: one workgroup per tile of `msd_split_workgroup_size` x
//!   `msd_split_keys_per_thread` keys. Each finds the highest bit where any two keys differ (within the bit
//!   range), takes the digit of `digit_bits` bits ending there as the split digit, counts the split digits of all
//!   keys (so each workgroup reads all n keys twice: n x tiles reads in all, which the policy's `msd_max` keeps
//!   small) and scatters its tile stably into the scratch arrays, bucket by bucket. Workgroup 0 writes the bucket
//!   table (control word `CTRL_MSD` and 2^digit_bits + 1 bucket starts in the histogram region of the meta).
//! - `vksort::radix::msd::buckets`: one workgroup per bucket (2^digit_bits of them) sorts its bucket on the
//!   bits below the split digit into the caller's buffers: by counting when it holds at most `msd_rank_max`
//!   keys (each key's place is the number of keys of the bucket that precede it: one round, m^2 comparisons),
//!   else in registers when it holds at most `msd_bucket_workgroup_size` x `msd_bucket_keys_per_thread` keys,
//!   else alone through global memory, one digit place at a time (correct for any input, slow when most keys
//!   share one split digit).
//!
//! Reads the caller's keys (and values) `2 x tiles + 1` times (mostly from cache at these sizes) and writes them
//! once into the scratch; reads them back and writes the caller's buffers once. The host records the two
//! dispatches with a barrier between them and no barrier after (the sort's barrier contract).

use super::small::{count_push, SmallPush};
use super::{Bindings, RadixSort};
use crate::error::Result;
use crate::gpu::Recorder;

/// Push constants of `radix_msd_split_*`: the one-workgroup sort's, then the bucket table's place.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SplitPush {
    pub count: SmallPush,
    /// Meta word of the bucket table.
    pub table_off: u32,
}

/// Push constants of `radix_msd_buckets_*`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BucketsPush {
    pub lo: u32,
    pub key_kind: u32,
    pub flags: u32,
    pub table_off: u32,
}

pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    let p = &s.policy;
    // Constant 7: the split pass's keys per invocation per sweep round, the bucket pass's counted-bucket limit;
    // 8: the split pass's timing-experiment bits (debug_mode bits 3 and 4).
    let spec = |kpt: u32, extra: u32| {
        [
            kpt,
            p.digit_bits,
            s.key_words,
            s.val_words,
            s.ballot_words(),
            extra,
            (p.debug_mode >> 3) & 3,
        ]
    };
    let split = s.kernel(
        &format!("radix_msd_split_{}", s.rank_variant()),
        p.msd_split_workgroup_size,
        &spec(
            p.msd_split_keys_per_thread,
            (p.msd_split_sweep / s.key_words).max(1),
        ),
    )?;
    let buckets = s.kernel(
        &format!("radix_msd_buckets_{}", s.rank_variant()),
        p.msd_bucket_workgroup_size,
        &spec(p.msd_bucket_keys_per_thread, p.msd_rank_max),
    )?;
    let (count, _) = b.count.unwrap_or((b.meta, 0));
    let table_off = b.layout.hist_word as u32;
    let push = SplitPush {
        count: count_push(s, b),
        table_off,
    };
    let tile = (p.msd_split_workgroup_size * p.msd_split_keys_per_thread) as u64;
    let tiles = b.max_n.max(1).div_ceil(tile) as u32;
    let (va, vb) = b.vals();
    rec.dispatch(
        "vksort::radix::msd::split",
        &split,
        &[b.keys, va, b.alt_keys, vb, count, b.meta],
        &push,
        tiles,
    )?;
    rec.barrier();
    let push = BucketsPush {
        lo: s.lo,
        key_kind: s.key.kind(),
        flags: s.flags(),
        table_off,
    };
    rec.dispatch(
        "vksort::radix::msd::buckets",
        &buckets,
        &[b.keys, va, b.alt_keys, vb, b.meta],
        &push,
        p.radix(),
    )
}
