//! The small sort (`SortAlgorithm::Small`, `radix_small.comp`): a copy to the scratch, then a rank pass.

use super::{policy, Bindings, RadixSort};
use crate::error::Result;
use crate::gpu::{push_block, Recorder};

push_block! {
    /// Push constants of `radix_small` (flags bit 1: the rank phase; and the first fields of the MSD split pass's).
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
}

impl RadixSort {
    /// The most keys the small sort holds: the policy's capacity, within the device's shared memory.
    pub(crate) fn small_capacity(&self) -> u32 {
        let fit = policy::small_shared_keys(self.ctx.caps().max_shared_memory, self.key_words);
        self.policy.small_capacity().min(fit)
    }

    /// The small sort (`radix_small`): the copy of the keys (and values) to the scratch arrays, then the rank
    /// pass, whose workgroups each place `targets_per_subgroup` keys per subgroup into the caller's arrays.
    pub(super) fn record_small(&self, rec: &mut Recorder, b: &Bindings) -> Result<()> {
        use crate::shaders::{radix_small as sh, Spec};
        let p = &self.policy;
        let wg = p.small.workgroup_size;
        let spec = Spec::new()
            .with(sh::TPS, p.small.targets_per_subgroup)
            .with(sh::MAX_KEYS, self.small_capacity())
            .with(sh::KEY_WORDS, self.key_words)
            .with(sh::VAL_WORDS, self.val_words);
        let k = self.kernel(sh::SHADER, wg, spec)?;
        let (count, _) = b.count.unwrap_or((b.meta, 0));
        let (va, vb) = b.vals();
        let n = b.max_n.min(self.small_capacity() as u64).max(1);
        // Workgroups for the fewest subgroups a workgroup may have (the largest subgroup size).
        let placed = (p.small.targets_per_subgroup * (wg / self.plan.max).max(1)) as u64;
        let copy = n.div_ceil(wg as u64 * 4) as u32;
        let push = self.count_push(b);
        let bindings = [b.keys, va, b.alt_keys, vb, count, b.meta];
        rec.pass("vksort::radix::small::copy", &k)
            .bind(&bindings)
            .push(&push)
            .groups(copy)?;
        rec.barrier();
        let rank = SmallPush {
            flags: push.flags | 2,
            ..push
        };
        rec.pass("vksort::radix::small::rank", &k)
            .bind(&bindings)
            .push(&rank)
            .groups(n.div_ceil(placed) as u32)
    }

    /// The count and key fields the small sort shares with the MSD split pass.
    pub(crate) fn count_push(&self, b: &Bindings) -> SmallPush {
        SmallPush {
            n_host: b.max_n as u32,
            use_count: b.count.is_some() as u32,
            count_word: b.count.map_or(0, |(_, w)| w),
            capacity: b.max_n as u32,
            lo: self.lo,
            hi: self.hi,
            key_kind: self.key.kind(),
            flags: self.flags(),
        }
    }
}
