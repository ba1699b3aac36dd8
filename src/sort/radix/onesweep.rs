//! `vksort::radix::onesweep::place<p>` (glsl/sort/radix/radix_onesweep.comp, variants `ballot` / `partitioned`): one digit
//! place in one pass. Tiles are claimed through the place's counter in the control block; each tile ranks its
//! keys locally (subgroup multisplit + workgroup multi-scan), finds the count of each digit in earlier tiles by
//! decoupled look-back over the place's status region (bounded spin, then self-counting), and scatters keys and
//! values through shared memory to the other side. Dispatched indirectly (0 groups when the plan skipped the
//! place). Policy-selected code paths (specialization constants 10 and 11, see [`super::RadixPolicy`]):
//! `rank2` (CUB-style `[digit][subgroup]` counters and one workgroup scan; 2: 16-bit packed counters) and
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
    /// Meta word offset of this portion's global digit offsets (Onesweep).
    pub hist_off: u32,
    /// Meta word offset where the portion's last tile leaves the next portion's offsets (Onesweep).
    pub next_off: u32,
    pub portion: u32,
    pub portion_tiles: u32,
    /// Index of the first key the source bindings hold.
    pub src_base: u32,
    pub pad: [u32; 2],
    /// Wide variants: device addresses (lo, hi) of keys, scratch keys, values, scratch values.
    pub addr: [u32; 8],
}

/// Push constants of place `p`, portion `q` whose sources start at key `first`.
pub(crate) fn push(s: &RadixSort, b: &Bindings, p: u32, q: u64, first: u64) -> OnesweepPush {
    let (shift, bits) = s.pass_shift(p);
    let radix = s.policy.radix() as u64;
    // Two running-offset arrays per place: the plan's (portion 0 reads it), and the second one.
    let run = |k: u64| (b.layout.hist_word + (k % 2 * s.places as u64 + p as u64) * radix) as u32;
    OnesweepPush {
        shift,
        pass_bits: bits,
        pass_index: p,
        key_kind: s.key.kind(),
        flags: s.flags(),
        hist_off: run(q),
        next_off: run(q + 1),
        portion: q as u32,
        portion_tiles: b.layout.portions.tiles as u32,
        src_base: first as u32,
        pad: {
            // Diagnostics: this place's clock records (see super::clocks).
            let tiles = b.layout.portions.count * b.layout.portions.tiles;
            let at = match s.policy.tile_clocks {
                0 => 0,
                base => base + p as u64 * tiles * super::clocks::RECORD_BYTES,
            };
            [at as u32, (at >> 32) as u32]
        },
        addr: b.addr,
    }
}

/// The ranking kernel: `downsweep` selects the reduce-then-scan variant.
/// `wide`: the variant that writes through device addresses.
pub(crate) fn kernel(
    s: &RadixSort,
    downsweep: bool,
    wide: bool,
) -> Result<std::sync::Arc<crate::gpu::Kernel>> {
    let base = match (downsweep, s.policy.use_partitioned) {
        (false, false) => "radix_onesweep_ballot",
        (false, true) => "radix_onesweep_partitioned",
        (true, false) => "radix_onesweep_downsweep",
        (true, true) => "radix_onesweep_downsweep_partitioned",
    };
    let name = if s.policy.tile_clocks != 0 && !downsweep && !wide {
        format!("{base}_clock")
    } else if wide {
        format!("{base}_wide")
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
            s.ballot_words(),
            s.policy.match_or,
            s.policy.lookback_batch,
            s.policy.sub_tiles,
        ],
    )
}

/// Records place `p`'s pass over portion `q` (label `...::place<p>`, `...::place<p>::portion<q>` when the
/// sort has several portions).
pub(crate) fn record(
    s: &RadixSort,
    rec: &mut Recorder,
    b: &Bindings,
    p: u32,
    q: u64,
) -> Result<()> {
    let k = kernel(s, false, b.layout.portions.wide)?;
    let src = b.sources(s, q);
    let [ka, kb, va, vb] = src.refs;
    rec.dispatch_indirect(
        &super::pass_label("onesweep", p, q, b.layout.portions.count),
        &k,
        &[ka, kb, va, vb, b.meta, b.status_slot(p, q)],
        &push(s, b, p, q, src.first),
        b.args(CTRL_PASS + 8 * p as u64),
    )
}
