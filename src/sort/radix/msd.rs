//! `vksort::radix::msd` (glsl/sort/radix/: radix_msd_differ.comp, radix_msd_split.comp and radix_msd_buckets.comp,
//! the last two in variants `ballot` / `partitioned`): a three-dispatch sort for small inputs, most significant
//! digit first. No workgroup waits for another, except a large bucket's cooperating helpers (a bounded wait,
//! with a fallback), and no memory is zeroed beyond 5 x 2^digit_bits words (the split-digit counts and the
//! helpers' control words, zeroed by the differ pass).
//!
//! - `vksort::radix::msd::differ`: one workgroup per split tile of `msd_split_workgroup_size` x
//!   `msd_split_keys_per_thread` keys writes the smallest and largest of its transformed keys on the sorted
//!   bits (4 words per tile) to the MSD tables; workgroup 0 records n (and, with a GPU-side count, the raw count
//!   and the overflow flag) in the control block and zeroes the split-digit counts and the helpers' control
//!   words.
//! - `vksort::radix::msd::split`: one workgroup per split tile combines the tiles' ranges. Keys are biased by
//!   the smallest (`glsl/sort/radix/msd_range.glsl`: order kept, no borrow across the bit range), and the split
//!   digit is the `digit_bits` bits ending at the highest bit of max - min: keys whose high bits barely vary
//!   (depths as floats) still spread over the buckets. It ranks its own tile on the split digit and writes it,
//!   sorted on that digit, to the tile's own range of the scratch arrays, each digit's run start in the tile to
//!   the run table (one row per digit, one word per tile) and adds each digit's count to the split-digit
//!   counts. Workgroup 0 writes the split digit's low bit + 1 to control word `CTRL_MSD` (0: nothing to sort)
//!   and the bias to `CTRL_MSD_BIAS`, which the bucket pass subtracts from every key it ranks or compares.
//! - `vksort::radix::msd::buckets`: one workgroup per bucket (2^digit_bits of them) reads its two rows of the
//!   run table: its start (the sum of its run starts) and its runs, which it reads in tile order (stable). It
//!   sorts the bucket on the bits below the split digit into the caller's buffers: by counting when it holds at
//!   most `msd_rank_max` keys (each key's place is the number of keys of the bucket that precede it: one round,
//!   m^2 comparisons), else in registers when it holds at most `msd_bucket_workgroup_size` x
//!   `msd_bucket_keys_per_thread` keys. Larger buckets go to the pass's helper workgroups
//!   ([`RadixPolicy::msd_helpers`](super::RadixPolicy) of them, before the bucket workgroups), shared in
//!   proportion to the buckets' keys. Each helper of a bucket reads the same sample of it, and its share is
//!   the keys between two of the sample's quantiles (a total order: equal keys by their place in the bucket).
//!   The helpers of a bucket of at least `msd_coop_min_keys` keys cooperate: each reads 1/h of the bucket,
//!   they exchange counts per share through the tables (waiting for each other at most `spin_limit` polls)
//!   and each scatters its part to the shares. Otherwise (or when one of them is not running in time) each
//!   reads the whole bucket twice, in parts of at most a bucket tile ranked by before / in / after its share
//!   (the cooperating helpers' code): it counts the keys before its share and writes the share. The share
//!   lands in its final range of the second scratch, from where its helper sorts it into the caller's
//!   buffers (in registers, or past the bucket tile one digit place at a time through global memory). Skewed
//!   keys (most of them in one split digit, or few distinct keys) thus still spread over many workgroups.
//!
//! Reads the caller's keys twice (and values once) and writes the scratch once; reads the scratch once and
//! writes the caller's buffers once (large buckets: each of their helpers reads 1/h of the bucket's keys when
//! they cooperate, else all of them twice, and its share goes through the second scratch). The host
//! records the three dispatches with a barrier between them and no barrier after (the sort's barrier contract).

use super::small::{count_push, SmallPush};
use super::{Bindings, RadixSort};
use crate::error::Result;
use crate::gpu::Recorder;

/// Push constants of `radix_msd_split_*`: the one-workgroup sort's, then the run table's row length.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SplitPush {
    pub count: SmallPush,
    /// Split tiles of the capacity: the run table's row length (u32 words).
    pub stride: u32,
    /// 1: the sort is one split tile, recorded without the differ pass.
    pub one_tile: u32,
}

/// Push constants of `radix_msd_buckets_*`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BucketsPush {
    pub lo: u32,
    pub key_kind: u32,
    pub flags: u32,
    /// The run table's row length.
    pub stride: u32,
    /// Keys per split tile.
    pub split_tile: u32,
    /// Helper workgroups dispatched before the 2^digit_bits bucket workgroups (buckets too large for one
    /// workgroup share them; 0 when no bucket can outgrow the bucket tile).
    pub helpers: u32,
    /// Diagnostics: the device address of the workgroups' clock records (the `_clock` variants; see
    /// [`super::clocks::msd`]), low word first; 0 otherwise.
    pub clocks: [u32; 2],
}

pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    let p = &s.policy;
    // Sorts of at most msd_single_kpt x msd_split_workgroup_size keys take one split tile (more keys per
    // invocation) and no differ pass: two dispatches.
    let split_kpt = p.msd_split_kpt(b.max_n);
    let split_tile = p.msd_split_workgroup_size * split_kpt;
    let max_tiles = p.msd_max_tiles() as u32;
    use crate::shaders::{radix_msd_buckets as buckets_sh, radix_msd_split as split_sh, Spec};
    // The constants both ranking kernels share (the ids agree: the build checks).
    let rank_spec = |kpt: u32| {
        Spec::new()
            .with(split_sh::KPT, kpt)
            .with(split_sh::DIGIT_BITS, p.digit_bits)
            .with(split_sh::KEY_WORDS, s.key_words)
            .with(split_sh::VAL_WORDS, s.val_words)
            .with(split_sh::BALLOT_WORDS, s.ballot_words())
    };
    let split = s.kernel(
        if p.msd_partitioned {
            split_sh::PARTITIONED
        } else {
            split_sh::BALLOT
        },
        p.msd_split_workgroup_size,
        rank_spec(split_kpt),
    )?;
    // RANK_MAX: the counted-bucket limit; MAX_TILES: the most split tiles (the run tables in shared memory).
    let bucket_kpt = p.msd_bucket_kpt(&s.plan, b.max_n, s.ctx.caps().max_shared_memory as u64);
    // COOP_MIN: cooperative helpers (buckets of at least this many keys), where the tables hold a row for each.
    let helpers = p.msd_helpers(b.max_n, bucket_kpt);
    let coop = if helpers as u64 <= b.layout.msd_coop_rows {
        p.msd_coop_min_keys
    } else {
        0
    };
    let bucket_spec = rank_spec(bucket_kpt)
        .with(buckets_sh::RANK_MAX, p.msd_rank_max)
        .with(buckets_sh::MAX_TILES, max_tiles)
        .with(buckets_sh::COOP_MIN, coop)
        .with(buckets_sh::COOP_SPIN, p.spin_limit)
        .with(buckets_sh::COOP_STALL, s.debug.stall_every);
    let clocks = s.debug.msd_clocks;
    let buckets = s.kernel(
        match (p.msd_partitioned, clocks != 0) {
            (false, false) => buckets_sh::BALLOT,
            (true, false) => buckets_sh::PARTITIONED,
            (false, true) => buckets_sh::BALLOT_CLOCK,
            (true, true) => buckets_sh::PARTITIONED_CLOCK,
        },
        p.msd_bucket_workgroup_size,
        bucket_spec,
    )?;
    let (count, _) = b.count.unwrap_or((b.meta, 0));
    let stride = b.layout.msd_stride as u32;
    let tiles = b.max_n.max(1).div_ceil(split_tile as u64) as u32;
    let (va, vb) = b.vals();
    // Without values the meta region stands in for the second scratch's values (never touched).
    let mv = if b.values.is_some() {
        b.msd_values
    } else {
        b.meta
    };
    let push = count_push(s, b);
    let one_tile = tiles == 1;
    if !one_tile {
        use crate::shaders::radix_msd_differ as differ_sh;
        let differ = s.kernel(
            differ_sh::SHADER,
            p.msd_split_workgroup_size,
            Spec::new()
                .with(differ_sh::KPT, split_kpt)
                .with(differ_sh::KEY_WORDS, s.key_words)
                .with(differ_sh::DIGIT_BITS, p.digit_bits),
        )?;
        rec.dispatch(
            "vksort::radix::msd::differ",
            &differ,
            &[b.keys, count, b.meta, b.msd_tables],
            &SplitPush {
                count: push,
                stride,
                one_tile: 0,
            },
            tiles,
        )?;
        rec.barrier();
    }
    rec.dispatch(
        "vksort::radix::msd::split",
        &split,
        &[b.keys, va, b.alt_keys, vb, count, b.meta, b.msd_tables],
        &SplitPush {
            count: push,
            stride,
            one_tile: one_tile as u32,
        },
        tiles,
    )?;
    rec.barrier();
    let push = BucketsPush {
        lo: s.lo,
        key_kind: s.key.kind(),
        flags: s.flags(),
        stride,
        split_tile,
        helpers,
        clocks: [clocks as u32, (clocks >> 32) as u32],
    };
    rec.dispatch(
        "vksort::radix::msd::buckets",
        &buckets,
        &[
            b.keys,
            va,
            b.alt_keys,
            vb,
            b.meta,
            b.msd_keys,
            mv,
            b.msd_tables,
        ],
        &push,
        p.radix() + helpers,
    )
}
