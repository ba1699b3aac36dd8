//! `vksort::radix::setup` zeroes what a sort accumulates into and writes n and the first indirect arguments;
//! `vksort::radix::copy` copies the scratch side back (indirect: 0 groups when an even number of passes ran).

use super::layout::{COPY_KPT, COPY_WG, CTRL_COPY_ARGS};
use super::{Bindings, RadixSort};
use crate::error::Result;
use crate::gpu::{push_block, Recorder, Region};

push_block! {
    /// Push constants of `radix_setup`.
    pub struct SetupPush {
        pub count_word: u32,
        pub capacity: u32,
        pub chunk: u32,
        pub max_x: u32,
        pub max_groups: u32,
        pub host_n: u32,
        pub gpu_count: u32,
        /// 16-byte words of this chunk of the cleared region.
        pub vecs: u32,
        /// 1 for the chunk that starts with the control block.
        pub control: u32,
        /// Digit places of the fused Onesweep whose grid this pass computes (0: the upfront pass's grid).
        pub fused_places: u32,
        /// The fused grid: one workgroup per tile (`chunk` keys) up to this many keys, else one per item.
        pub fused_loop_max: u32,
        /// The fused sort's most upfront items.
        pub fused_ups: u32,
    }
}

/// The fused Onesweep's grid for a GPU-side count, written where the upfront pass's arguments go: one
/// workgroup per tile of n up to `loop_max` keys, else one per item; at most `most`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FusedArgs {
    pub tile: u32,
    pub places: u32,
    pub loop_max: u32,
    pub upfront_items: u32,
    pub most: u32,
}

const SETUP_WG: u32 = 256;
/// 16-byte words each setup invocation zeroes.
const SETUP_VECS: u64 = 4;

/// Records the setup pass: zeroes `region` (the control block first) one binding at a time, and writes n and
/// the upfront pass's indirect arguments, or with `fused` the fused Onesweep's.
pub(crate) fn record(
    s: &RadixSort,
    rec: &mut Recorder,
    b: &Bindings,
    region: Region,
    fused: Option<FusedArgs>,
) -> Result<()> {
    let caps = s.ctx.caps();
    let wg = s.plan.workgroup_size(caps, SETUP_WG);
    let k = s.kernel(
        crate::shaders::radix_setup::SHADER,
        wg,
        crate::shaders::Spec::new(),
    )?;
    let align = caps.min_storage_buffer_offset_alignment.max(16);
    let chunk_bytes = (s.binding_range() / align * align).min(u32::MAX as u64 / 4 * 16);
    let mut off = 0;
    while off < region.size {
        let bytes = chunk_bytes.min(region.size - off);
        // Host counts bind the chunk itself as the (unread) count: no other dispatch wrote it.
        let (count, word) = match b.count {
            Some((c, w)) => (c, w),
            None => (region.slice(off, 16), 0),
        };
        let vecs = bytes / 16;
        let push = SetupPush {
            count_word: word,
            capacity: b.max_n as u32,
            chunk: fused.map_or(
                s.upfront_wg() * s.policy.upfront.items_per_invocation,
                |f| f.tile,
            ),
            max_x: caps.max_workgroup_count[0],
            max_groups: fused.map_or(s.policy.upfront.max_groups, |f| f.most),
            host_n: b.max_n as u32,
            gpu_count: b.count.is_some() as u32,
            vecs: vecs as u32,
            control: (off == 0) as u32,
            fused_places: fused.map_or(0, |f| f.places),
            fused_loop_max: fused.map_or(0, |f| f.loop_max),
            fused_ups: fused.map_or(0, |f| f.upfront_items),
        };
        rec.pass("vksort::radix::setup", &k)
            .bind(&[count, region.slice(off, bytes)])
            .push(&push)
            .groups(vecs.div_ceil(wg as u64 * SETUP_VECS) as u32)?;
        off += bytes;
    }
    Ok(())
}

push_block! {
    /// Push constants of `radix_copy`.
    pub struct CopyPush {
        pub first: u32,
        pub portion_len: u32,
    }
}

/// Records the final copy, one dispatch per source portion.
pub(crate) fn record_copy(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    let wg = s.plan.workgroup_size(s.ctx.caps(), COPY_WG);
    use crate::shaders::{radix_copy as sh, Spec};
    let k = s.kernel(
        sh::SHADER,
        wg,
        Spec::new()
            .with(sh::KPT, COPY_KPT)
            .with(sh::KEY_WORDS, s.key_words)
            .with(sh::VAL_WORDS, s.val_words),
    )?;
    b.per_source_portion(s, rec, |rec, q, count, len, src| {
        let [ka, kb, va, vb] = src.refs;
        rec.pass(&super::portion_label("vksort::radix::copy", q, count), &k)
            .bind(&[ka, kb, va, vb, b.meta])
            .push(&CopyPush {
                first: src.first as u32,
                portion_len: len as u32,
            })
            .indirect(b.args(CTRL_COPY_ARGS))
    })
}
