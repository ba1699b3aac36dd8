//! `vksort::radix::small` (glsl/sort/radix/radix_small.comp, variants `ballot` / `partitioned`): the whole sort in one
//! workgroup, one dispatch, for n <= `policy.small_capacity()`. Reads and writes the caller's keys and values
//! once; with a GPU-side count it records n and the overflow flag in the control block.

use super::{Bindings, RadixSort};
use crate::error::Result;
use crate::gpu::Recorder;

/// Push constants of `radix_small_*`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SmallPush {
    pub n_host: u32,
    pub use_count: u32,
    pub count_word: u32,
    pub capacity: u32,
    pub lo: u32,
    pub hi: u32,
    pub key_kind: u32,
    pub flags: u32,
}

/// The count and key fields the one-workgroup sort shares with the MSD split pass: the host's n or the
/// GPU-side count's word, the capacity, the bit range, the key kind and the order.
pub(crate) fn count_push(s: &RadixSort, b: &Bindings) -> SmallPush {
    SmallPush {
        n_host: b.max_n as u32,
        use_count: b.count.is_some() as u32,
        count_word: b.count.map_or(0, |(_, w)| w),
        capacity: b.max_n as u32,
        lo: s.lo,
        hi: s.hi,
        key_kind: s.key.kind(),
        flags: s.flags(),
    }
}

pub(crate) fn record(s: &RadixSort, rec: &mut Recorder, b: &Bindings) -> Result<()> {
    use crate::shaders::{radix_small as sh, Spec};
    let k = s.kernel(
        if s.policy.use_partitioned {
            sh::PARTITIONED
        } else {
            sh::BALLOT
        },
        s.policy.small_workgroup_size,
        Spec::new()
            .with(sh::KPT, s.policy.small_keys_per_thread)
            .with(sh::DIGIT_BITS, s.policy.digit_bits)
            .with(sh::KEY_WORDS, s.key_words)
            .with(sh::VAL_WORDS, s.val_words)
            .with(sh::BALLOT_WORDS, s.ballot_words()),
    )?;
    let (count, _) = b.count.unwrap_or((b.meta, 0));
    let push = count_push(s, b);
    let (va, _) = b.vals();
    rec.dispatch(
        "vksort::radix::small",
        &k,
        &[b.keys, va, count, b.meta],
        &push,
        1,
    )
}
