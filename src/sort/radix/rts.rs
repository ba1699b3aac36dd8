//! Reduce-then-scan, per digit place, with no inter-workgroup waiting: `upsweep::place<p>` (radix_upsweep.comp)
//! counts each tile's digits, `spine::place<p>` (radix_spine.comp, one workgroup per digit) scans them into
//! global offsets, `downsweep::place<p>` (radix_onesweep.comp's `downsweep` variants) re-ranks each tile and
//! scatters. All three run indirectly from the plan's arguments.

use super::{onesweep, pass_label, Bindings, RadixSort, CTRL_PASS};
use crate::error::Result;
use crate::gpu::{push_block, Recorder};

push_block! {
    /// Push constants of `radix_upsweep`.
    pub struct UpsweepPush {
        pub shift: u32,
        pub pass_bits: u32,
        pub pass_index: u32,
        pub key_kind: u32,
        pub flags: u32,
        pub portion: u32,
        pub portion_tiles: u32,
        pub src_base: u32,
    }
}

push_block! {
    /// Push constants of `radix_spine`.
    pub struct SpinePush {
        pub pass_index: u32,
        pub tile: u32,
        pub hist_off: u32,
    }
}

/// Records place `p`'s three passes (upsweep and downsweep once per portion), with barriers between them.
pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings, p: u32) -> Result<()> {
    use crate::shaders::{radix_spine, radix_upsweep as up_sh, Spec};
    let (shift, bits) = s.pass_shift(p);
    let args = b.args(CTRL_PASS + 8 * p as u64);
    let pol = &s.policy;
    // The upsweep counts whole tiles (all sub-tiles) per workgroup.
    let up_spec = Spec::new()
        .with(
            up_sh::KPT,
            pol.tile.items_per_invocation * pol.tile.sub_tiles,
        )
        .with(up_sh::DIGIT_BITS, pol.tile.digit_bits)
        .with(up_sh::KEY_WORDS, s.key_words);
    let up = s.kernel(up_sh::SHADER, pol.tile.workgroup_size, up_spec)?;
    let spine_wg = s.plan.workgroup_size(s.ctx.caps(), 256);
    let spine_spec = Spec::new().with(radix_spine::DIGIT_BITS, pol.tile.digit_bits);
    let spine = s.kernel(radix_spine::SHADER, spine_wg, spine_spec)?;
    let portions = b.layout.portions;
    let down = onesweep::kernel(s, true, portions.wide)?;
    for q in 0..portions.count {
        if q > 0 {
            rec.barrier();
        }
        let src = b.sources(s, q);
        rec.pass(&pass_label("upsweep", p, q, portions.count), &up)
            .bind(&[src.refs[0], src.refs[1], b.meta, b.rts_status()])
            .push(&UpsweepPush {
                shift,
                pass_bits: bits,
                pass_index: p,
                key_kind: s.key.kind(),
                flags: s.flags(),
                portion: q as u32,
                portion_tiles: portions.tiles as u32,
                src_base: src.first as u32,
            })
            .indirect(args)?;
    }
    rec.barrier();
    rec.pass(&format!("vksort::radix::spine::place{p}"), &spine)
        .bind(&[b.meta, b.rts_status()])
        .push(&SpinePush {
            pass_index: p,
            tile: pol.tile(),
            hist_off: b.layout.hist_word as u32,
        })
        .indirect(b.args(CTRL_PASS + 8 * p as u64 + 4))?;
    rec.barrier();
    for q in 0..portions.count {
        if q > 0 {
            rec.barrier();
        }
        let src = b.sources(s, q);
        let [ka, kb, va, vb] = src.refs;
        rec.pass(&pass_label("downsweep", p, q, portions.count), &down)
            .bind(&[ka, kb, va, vb, b.meta, b.rts_status()])
            .push(&onesweep::push(s, b, p, q, src.first))
            .indirect(args)?;
    }
    Ok(())
}
