//! The quicksort's scratch layout for a sort of up to `n` keys (host n, or the capacity of a GPU-side count).
//!
//! One binding `meta` from offset 0: the control block ([`crate::sort::count`], 256 words), then the bookkeeping
//! (glsl/sort/quicksort/quicksort.glsl): the round states (8 words per recorded round, and a global slot with the
//! phase-two queue's count and the local pass's indirect arguments), two sequence tables (by round parity, 16
//! words per sequence), two block maps (a word per workgroup of a round), the block records (4 keys per
//! workgroup) and the phase-two queue (4 words per job). Then the auxiliary keys (n x key bytes) and values
//! (n x value bytes), each aligned for binding.
//!
//! Bounds (the shaders never write beyond them): a round's sequences each hold more than `local_max` keys and
//! are disjoint, so at most `smax = max(1, n / (local_max + 1))`; its workgroups at most
//! `bmax = ceil(n / block) + smax`; the queue at most `qmax = 2 + 2 rounds smax + ceil(n / local_max)` jobs: the
//! bounds pass and each partitioned sequence's two children are planned once each (at most `1 + 2 rounds smax`
//! plans), a plan queues one job, or for a run of equal keys on side 1 one copy job per `local_max` keys (at most
//! one more than its keys / local_max, and those runs are disjoint).

use super::policy::QuicksortPolicy;
use crate::gpu::Context;
use crate::sort::count::CTRL_WORDS;
use crate::sort::items::{Items, Regions};

/// u32 words of a round state (round r at word `rs_off + RS_WORDS r`: its workgroups, its sequences, its
/// finished workgroups, then its indirect arguments at `RS_ARGS`; the slot after the last round: the phase-two
/// jobs queued, the bounds pass's finished workgroups, the local pass's indirect arguments).
pub const RS_WORDS: u64 = 8;
/// Word of a round state where its indirect arguments start.
pub const RS_ARGS: u64 = 4;
const SEQ_WORDS: u64 = 16;
/// u32 words of a phase-two job: start, length, flags (bit 0: on side 1; bit 1: a copy of equal keys), 0.
pub const JOB_WORDS: u64 = 4;

/// Where a sort's bookkeeping and auxiliary arrays lie in the scratch ([`super::QuicksortSort::layout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Phase-one rounds recorded.
    pub rounds: u32,
    pub smax: u32,
    pub bmax: u32,
    pub qmax: u32,
    /// Word offsets within `meta`.
    pub rs_off: u32,
    pub seq_off: u32,
    pub bmap_off: u32,
    pub rec_off: u32,
    pub queue_off: u32,
    /// Bytes of the `meta` binding (from offset 0).
    pub meta_bytes: u64,
    /// The auxiliary keys and values: (byte offset, bytes).
    pub aux_keys: (u64, u64),
    pub aux_vals: (u64, u64),
    /// Bytes of scratch.
    pub total: u64,
}

impl Layout {
    pub(crate) fn new(ctx: &Context, policy: &QuicksortPolicy, items: &Items, n: u64) -> Self {
        let rounds = policy.rounds(n);
        let lm = policy.local_max as u64;
        let smax = (n / (lm + 1)).max(1);
        let bmax = n.div_ceil(policy.block()) + smax;
        let qmax = 2 + 2 * rounds as u64 * smax + n.div_ceil(lm);
        let mut w = CTRL_WORDS;
        let mut take = |words: u64| {
            let at = w;
            w += words;
            at as u32
        };
        let rs_off = take((rounds as u64 + 1) * RS_WORDS);
        let seq_off = take(2 * smax * SEQ_WORDS);
        let bmap_off = take(2 * bmax);
        let rec_off = take(bmax * 4 * items.key_words as u64);
        let queue_off = take(qmax * JOB_WORDS);
        let meta_bytes = w * 4;
        let mut regions = Regions::after_control(ctx);
        regions.total = meta_bytes;
        let aux_keys = regions.take(items.key_bytes(n));
        let aux_vals = regions.take(items.val_bytes(n));
        Self {
            rounds,
            smax: smax as u32,
            bmax: bmax as u32,
            qmax: qmax as u32,
            rs_off,
            seq_off,
            bmap_off,
            rec_off,
            queue_off,
            meta_bytes,
            aux_keys,
            aux_vals,
            total: regions.total,
        }
    }

    /// Byte offset in the scratch of the indirect arguments of round `r` (`r == rounds`: the local pass's).
    pub fn args_offset(&self, r: u32) -> u64 {
        (self.rs_off as u64 + r as u64 * RS_WORDS + RS_ARGS) * 4
    }
}
