//! Reduce-then-scan, per digit place (no inter-workgroup waiting):
//! `vksort::radix::upsweep::place<p>` (glsl/sort/radix/radix_upsweep.comp) counts each tile's digits (digit-major into the
//! status region), `vksort::radix::spine::place<p>` (glsl/sort/radix/radix_spine.comp, one workgroup per digit) scans them
//! into global offsets, `vksort::radix::downsweep::place<p>` (glsl/sort/radix/radix_onesweep.comp, `downsweep` variants)
//! re-ranks each tile and scatters. All three are dispatched indirectly from the plan.

use super::{Bindings, RadixSort, CTRL_PASS};
use crate::error::Result;
use crate::gpu::Recorder;

/// Push constants of `radix_upsweep`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
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

/// Push constants of `radix_spine`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SpinePush {
    pub pass_index: u32,
    pub tile: u32,
    pub hist_off: u32,
}

pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings, p: u32) -> Result<()> {
    let (shift, bits) = s.pass_shift(p);
    let rec_word = CTRL_PASS + 8 * p as u64;
    let wg = s.policy.workgroup_size;
    use crate::shaders::{radix_spine, radix_upsweep, Spec};
    let up = s.kernel(
        radix_upsweep::SHADER,
        wg,
        Spec::new()
            // The upsweep counts whole tiles (all sub-tiles) per workgroup.
            .with(
                radix_upsweep::KPT,
                s.policy.keys_per_thread * s.policy.sub_tiles,
            )
            .with(radix_upsweep::DIGIT_BITS, s.policy.digit_bits)
            .with(radix_upsweep::KEY_WORDS, s.key_words),
    )?;
    let portions = b.layout.portions;
    for q in 0..portions.count {
        if q > 0 {
            rec.barrier();
        }
        let src = b.sources(s, q);
        rec.dispatch_indirect(
            &super::pass_label("upsweep", p, q, portions.count),
            &up,
            &[src.refs[0], src.refs[1], b.meta, b.rts_status()],
            &UpsweepPush {
                shift,
                pass_bits: bits,
                pass_index: p,
                key_kind: s.key.kind(),
                flags: s.flags(),
                portion: q as u32,
                portion_tiles: portions.tiles as u32,
                src_base: src.first as u32,
            },
            b.args(rec_word),
        )?;
    }
    rec.barrier();
    let spine_wg = s.plan.workgroup_size(s.ctx.caps(), 256);
    let spine = s.kernel(
        radix_spine::SHADER,
        spine_wg,
        Spec::new().with(radix_spine::DIGIT_BITS, s.policy.digit_bits),
    )?;
    rec.dispatch_indirect(
        &format!("vksort::radix::spine::place{p}"),
        &spine,
        &[b.meta, b.rts_status()],
        &SpinePush {
            pass_index: p,
            tile: s.policy.tile(),
            hist_off: b.layout.hist_word as u32,
        },
        b.args(rec_word + 4),
    )?;
    rec.barrier();
    let down = super::onesweep::kernel(s, true, portions.wide)?;
    for q in 0..portions.count {
        if q > 0 {
            rec.barrier();
        }
        let src = b.sources(s, q);
        let [ka, kb, va, vb] = src.refs;
        rec.dispatch_indirect(
            &super::pass_label("downsweep", p, q, portions.count),
            &down,
            &[ka, kb, va, vb, b.meta, b.rts_status()],
            &super::onesweep::push(s, b, p, q, src.first),
            b.args(rec_word),
        )?;
    }
    Ok(())
}
