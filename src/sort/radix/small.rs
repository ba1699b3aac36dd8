//! The small sort (`SortAlgorithm::Small`, `radix_small.comp`): one rank pass, in place.

use super::{policy, Bindings, RadixSort};
use crate::error::{Error, Result};
use crate::gpu::{push_block, Recorder, STATUS_BLOCK_BYTES};

push_block! {
    /// Push constants of `radix_small` (and the first fields of the MSD split pass's).
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
    /// The most keys the small sort holds: the policy's capacity, within the device's shared memory and the
    /// status block (a place per key and an entry per workgroup, past its 16-byte header).
    pub(crate) fn small_capacity(&self) -> u32 {
        let fit = policy::small_shared_keys(self.ctx.caps().max_shared_memory, self.key_words);
        let p = &self.policy.small;
        let placed = self.small_placed(p.targets_per_subgroup.min(p.few_targets_per_subgroup)) as u64;
        let words = STATUS_BLOCK_BYTES / 4 - 4;
        let block = (words * placed / (placed + 1)) as u32;
        self.policy.small_capacity().min(fit).min(block)
    }

    /// Keys a workgroup of the small sort places with `tps` targets per subgroup, for the fewest subgroups it
    /// may have (the largest size).
    fn small_placed(&self, tps: u32) -> u32 {
        tps * (self.policy.small.workgroup_size / self.plan.max).max(1)
    }

    /// The small sort (`radix_small`), one pass after [`Recorder::order_block_run`]: each subgroup places
    /// `targets_per_subgroup` keys, `few_targets_per_subgroup` up to `few_max` (the shader: the in-place rule).
    /// A GPU-side count whose capacity is past `few_max` chooses on the GPU, over a grid that covers both.
    pub(super) fn record_small(&self, rec: &mut Recorder, b: &Bindings) -> Result<()> {
        use crate::shaders::{radix_small as sh, Spec};
        let (p, capacity) = (&self.policy.small, self.small_capacity());
        let n = b.max_n.min(capacity as u64).max(1);
        let few = n <= p.few_max as u64;
        let tps = match few {
            true => p.few_targets_per_subgroup,
            false => p.targets_per_subgroup,
        };
        let few_max = match b.count.is_some() && !few && p.few_targets_per_subgroup <= tps {
            true => p.few_max,
            false => 0,
        };
        let groups = n
            .div_ceil(self.small_placed(tps) as u64)
            .max((few_max as u64).div_ceil(self.small_placed(p.few_targets_per_subgroup) as u64));
        let spec = Spec::new()
            .with(sh::TPS, tps)
            .with(sh::MAX_KEYS, capacity)
            .with(sh::KEY_WORDS, self.key_words)
            .with(sh::VAL_WORDS, self.val_words)
            .with(sh::FEW_TPS, p.few_targets_per_subgroup)
            .with(sh::FEW_MAX, few_max);
        let k = self.kernel(sh::SHADER, p.workgroup_size, spec)?;
        let (count, _) = b.count.unwrap_or((b.meta, 0));
        let (va, vb) = b.vals();
        let block = self.small_block.as_ref().ok_or(Error::UnsupportedAlgorithm {
            algorithm: "small",
            reason: "this sorter was made for other algorithms".into(),
        })?;
        rec.order_block_run();
        rec.pass("vksort::radix::small", &k)
            .bind(&[b.keys, va, b.alt_keys, vb, count, b.meta, block.region()])
            .push(&self.count_push(b))
            .groups(groups as u32)
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
