//! The quicksort's scratch: `meta` (the control block, then quicksort.glsl's bookkeeping), then auxiliary items.

use super::policy::QuicksortPolicy;
use crate::gpu::Context;
use crate::shaders::include::quicksort as glsl;
use crate::sort::count::CTRL_WORDS;
use crate::sort::items::{Items, Regions};

/// u32 words of a round state (round r at word `rs_off + RS_WORDS r`; the slot after the last round holds the
/// phase-two queue's count and the local pass's indirect arguments).
pub const RS_WORDS: u64 = glsl::RS_WORDS as u64;
/// Word of a round state where its indirect arguments start.
pub const RS_ARGS: u64 = glsl::RS_ARGS as u64;
const SEQ_WORDS: u64 = glsl::SEQ_WORDS as u64;
/// u32 words of a phase-two job: start, length, flags (bit 0: on side 1; bit 1: a copy of equal keys), 0.
pub const JOB_WORDS: u64 = glsl::JOB_WORDS as u64;

/// Where a sort's arrays lie in the scratch; `smax`, `bmax`, `qmax` bound what the shaders write (architecture.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
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
