//! The item model the sort families share: the items of a configuration (`Items`: key and value words, order,
//! the bit range as a mask), the push constants every comparison pass starts with (`ITEM_PUSH`,
//! `glsl/include/items.glsl`), the buffer checks, the GPU-side count pass, scratch regions after the control
//! block (at offset 0, so `control_offset` is 0) and the planning recordings that build pipelines ahead of
//! time. With a GPU-side count the first pass (`vksort::sort::count`, or merge's block pass) clamps it into the
//! control block and the passes, recorded for the capacity, read n from there (docs/architecture.md, "Layers").

use super::algorithm::SortAlgorithm;
use super::backend::{Capabilities, Overrides, SortBackend, SortBuffers, StorageRequirements};
use super::config::SortConfig;
use super::count::{self, Count, CountBinding, CTRL_WORDS};
use super::types::{KeyType, Order};
use crate::error::{Error, Result};
use crate::gpu::{push_block, Context, DeviceCaps, Kernel, Recorder, Region};
use crate::policy::SubgroupPlan;
use crate::shaders::{ShaderId, Spec};
use crate::workload::PassModel;
use ash::vk;
use std::sync::Arc;

/// The bit range `[lo, hi)` a configuration sorts on (all key bits by default), checked.
pub(crate) fn bit_range(config: &SortConfig) -> Result<(u32, u32)> {
    let key_bits = config.key.bits();
    let (lo, hi) = config.bits.unwrap_or((0, key_bits));
    if lo >= hi || hi > key_bits {
        return Err(Error::InvalidBitRange { lo, hi, key_bits });
    }
    Ok((lo, hi))
}

/// Bytes of the control block at the start of the scratch.
pub(crate) const CONTROL_BYTES: u64 = CTRL_WORDS * 4;

/// Usage flags the scratch buffer of a comparison sort needs.
pub(crate) const SCRATCH_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::STORAGE_BUFFER;

/// The items of a sorter's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Items {
    pub key: KeyType,
    /// u32 words per key (1, 2 or 4).
    pub key_words: u32,
    /// u32 words per value (0, 1 or 2).
    pub val_words: u32,
    pub descending: bool,
    /// The bits of the transformed key that order it (lowest word first).
    pub mask: [u32; 4],
}

impl Items {
    /// The items of `config`; checks the bit range.
    pub fn new(config: &SortConfig) -> Result<Self> {
        let (lo, hi) = bit_range(config)?;
        let width = hi - lo;
        let m: u128 = if width >= 128 {
            u128::MAX
        } else {
            ((1u128 << width) - 1) << lo
        };
        Ok(Self {
            key: config.key,
            key_words: config.key.words(),
            val_words: config.value.bytes() / 4,
            descending: config.order == Order::Descending,
            mask: [
                m as u32,
                (m >> 32) as u32,
                (m >> 64) as u32,
                (m >> 96) as u32,
            ],
        })
    }

    /// Bytes of `n` keys.
    pub fn key_bytes(&self, n: u64) -> u64 {
        n * self.key_words as u64 * 4
    }

    /// Bytes of `n` values (0 without values).
    pub fn val_bytes(&self, n: u64) -> u64 {
        n * self.val_words as u64 * 4
    }

    /// Checks the key and value regions of `n` items (one storage binding each, [`Region::check`], values present
    /// exactly when the items have them) and returns their bytes.
    pub fn check_data(
        &self,
        ctx: &Context,
        keys: &Region,
        values: Option<&Region>,
        n: u64,
    ) -> Result<(u64, u64)> {
        let range = ctx.caps().max_storage_buffer_range;
        let (kb, vb) = (self.key_bytes(n), self.val_bytes(n));
        if kb > range || vb > range {
            return Err(Error::TooLarge {
                n,
                max: range / (self.key_words.max(self.val_words) * 4) as u64,
                limit: "one storage-buffer binding",
            });
        }
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        keys.check(ctx, "keys", kb, storage)?;
        match (values, self.val_words) {
            (Some(v), w) if w > 0 => v.check(ctx, "values", vb, storage)?,
            (None, 0) => {}
            (Some(_), _) => return Err(Error::ValuesMismatch { expected: false }),
            (None, _) => return Err(Error::ValuesMismatch { expected: true }),
        }
        Ok((kb, vb))
    }

    /// The specialization constants of items.glsl: key and value words, and whether items carry a tag.
    pub fn spec(&self, tagged: bool) -> Spec {
        use crate::shaders::include::items as sh;
        Spec::new()
            .with(sh::KEY_WORDS, self.key_words)
            .with(sh::VAL_WORDS, self.val_words)
            .with(sh::TAGGED, tagged as u32)
    }

    /// The push constants every pass starts with, for a sort of `count`.
    pub fn push(&self, count: &Count) -> ItemPush {
        let (n_host, use_count) = match *count {
            Count::Host(n) => (n as u32, 0),
            Count::Gpu { .. } => (0, 1),
        };
        ItemPush {
            n_host,
            use_count,
            capacity: count.max_n() as u32,
            key_kind: self.key.kind(),
            flags: self.descending as u32,
            mask: self.mask,
        }
    }
}

crate::gpu::push_block! {
    /// `ITEM_PUSH` of items.glsl: the first fields of every comparison-sort pass's push constants.
    pub struct ItemPush {
        /// The host's count (when `use_count` is 0).
        pub n_host: u32,
        /// 1: n is the clamped GPU-side count in the control block.
        pub use_count: u32,
        /// The count the sort was recorded for.
        pub capacity: u32,
        /// keys.glsl `KEY_KIND_*` (6: u128).
        pub key_kind: u32,
        /// Bit 0: descending.
        pub flags: u32,
        /// The ordering bits of the transformed key.
        pub mask: [u32; 4],
    }
}

/// Consecutive scratch regions, each aligned for binding.
pub(crate) struct Regions {
    pub total: u64,
    align: u64,
}

impl Regions {
    /// Regions after the control block.
    pub fn after_control(ctx: &Context) -> Self {
        Self {
            total: CONTROL_BYTES,
            align: ctx.caps().min_storage_buffer_offset_alignment.max(256),
        }
    }

    /// A region of `bytes` (at least 16, so that an empty one still binds): its offset.
    pub fn take(&mut self, bytes: u64) -> (u64, u64) {
        let off = self.total.div_ceil(self.align) * self.align;
        let bytes = bytes.max(16);
        self.total = off + bytes;
        (off, bytes)
    }
}

/// The caller's buffers of one sort, checked, with the GPU-side count bound.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checked {
    pub keys: Region,
    /// The caller's values, or (keys only) a stand-in region that no pass reads or writes meaningfully.
    pub values: Region,
    pub scratch: Region,
    /// The control block at the start of the scratch.
    pub meta: Region,
    pub count: Option<CountBinding>,
}

/// Checks a sort's buffers, recording nothing: the count's maximum within `max_keys` (the limit of `algorithm`),
/// the keys and values ([`Items::check_data`]), the scratch (`scratch_bytes`, [`SCRATCH_USAGE`]), the count.
pub(crate) fn check(
    ctx: &Context,
    items: &Items,
    algorithm: &'static str,
    max_keys: u64,
    buffers: &SortBuffers,
    count: &Count,
    scratch_bytes: u64,
) -> Result<Checked> {
    let n = count.max_n();
    if n > max_keys {
        return Err(Error::AlgorithmLimit {
            algorithm,
            max: max_keys,
            n,
        });
    }
    let (kb, vb) = items.check_data(ctx, &buffers.keys, buffers.values.as_ref(), n)?;
    buffers
        .scratch
        .check(ctx, "scratch", scratch_bytes, SCRATCH_USAGE)?;
    let count_binding = count::bind(ctx, count)?;
    let meta = buffers.scratch.slice(0, CONTROL_BYTES);
    Ok(Checked {
        keys: buffers.keys.slice(0, kb.max(16)),
        values: buffers.values.map_or(meta, |v| v.slice(0, vb.max(16))),
        scratch: buffers.scratch,
        meta,
        count: count_binding,
    })
}

push_block! {
    /// Push constants of `sort_count`.
    pub struct CountPush {
        pub count_word: u32,
        pub capacity: u32,
    }
}

/// Records `vksort::sort::count` (GPU-side counts only) and the barrier after it: the clamped count, the raw
/// count and the overflow flag into the control block.
pub(crate) fn record_count(
    ctx: &Context,
    plan: &SubgroupPlan,
    rec: &mut Recorder,
    c: &Checked,
    capacity: u64,
) -> Result<()> {
    let Some(cb) = c.count else {
        return Ok(());
    };
    let wg = plan.workgroup_size(ctx.caps(), 1);
    let k = plan.kernel(ctx, crate::shaders::sort_count::SHADER, wg, Spec::new())?;
    let push = CountPush {
        count_word: cb.word,
        capacity: capacity as u32,
    };
    rec.pass("vksort::sort::count", &k)
        .bind(&[cb.buffer, c.meta])
        .push(&push)
        .groups(1)?;
    rec.barrier();
    Ok(())
}

/// A kernel of a comparison sort: `shader` with workgroup size `wg`, the items' constants and `spec`.
pub(crate) fn kernel(
    ctx: &Context,
    plan: &SubgroupPlan,
    items: &Items,
    tagged: bool,
    shader: ShaderId,
    wg: u32,
    spec: Spec,
) -> Result<Arc<Kernel>> {
    plan.kernel(ctx, shader, wg, items.spec(tagged).merge(spec))
}

/// The sizes whose planning recordings cover every pipeline a sort of up to `max_n` keys may use: 0..4, and
/// every power of two, family threshold (`extra`) and `max_n` with its neighbours.
pub(crate) fn planning_sizes(max_n: u64, extra: &[u64]) -> Vec<u64> {
    let mut sizes: Vec<u64> = (0..4).collect();
    let mut x = 4u64;
    while x <= max_n {
        sizes.extend([x - 1, x, x + 1]);
        x *= 2;
    }
    for &t in extra.iter().chain([max_n].iter()) {
        sizes.extend([t.saturating_sub(1), t, t + 1]);
    }
    sizes.retain(|&n| n <= max_n);
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// What every comparison family is made of for `config`: its items, its policy `P` (the override, else
/// `default`) checked by `check`, and the subgroup plan, once the device has the subgroup operations needed.
pub(crate) fn family_parts<P: Copy + 'static>(
    ctx: &Context,
    config: &SortConfig,
    overrides: &Overrides,
    default: impl FnOnce(&DeviceCaps, &Items) -> P,
    check: impl FnOnce(&P, &DeviceCaps, &Items) -> Result<()>,
) -> Result<(Items, P, SubgroupPlan)> {
    let items = Items::new(config)?;
    let caps = ctx.caps();
    let policy = overrides
        .get::<P>()
        .unwrap_or_else(|| default(caps, &items));
    check(&policy, caps, &items)?;
    crate::policy::require_sort_subgroup_ops(ctx)?;
    Ok((items, policy, SubgroupPlan::for_device(caps)))
}

/// A family of one algorithm on the shared items (bitonic, merge, WarpSort, quicksort); its [`SortBackend`]
/// follows (pipelines built by planning recordings of [`ItemsFamily::plan_sizes`]).
pub(crate) trait ItemsFamily: Send + Sync + 'static {
    /// The family's one public algorithm.
    const ALGORITHM: SortAlgorithm;
    fn context(&self) -> &Arc<Context>;
    fn items(&self) -> &Items;
    /// The most keys one sort takes.
    fn max_keys(&self) -> u64;
    /// Scratch bytes of any sort of up to `max_n` keys.
    fn scratch_bytes(&self, max_n: u64) -> u64;
    /// Usage flags the scratch needs (default [`SCRATCH_USAGE`]).
    fn scratch_usage(&self) -> vk::BufferUsageFlags {
        SCRATCH_USAGE
    }
    /// The sizes whose recordings build every pipeline a sort of up to `max_n` keys uses.
    fn plan_sizes(&self, max_n: u64) -> Vec<u64>;
    /// Checks the buffers and records one sort.
    fn record_sort(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()>;
    /// The modelled passes of a sort of `n` keys.
    fn model_passes(&self, n: u64) -> Vec<PassModel>;
}

impl<T: ItemsFamily> SortBackend for T {
    fn capabilities(&self, _: SortAlgorithm) -> Capabilities {
        // The keys and values are bound whole: one storage-buffer binding bounds them too.
        let items = self.items();
        let range = self.context().caps().max_storage_buffer_range;
        let widest = (items.key_words.max(items.val_words) * 4) as u64;
        Capabilities {
            max_keys: self.max_keys().min(range / widest),
            stable: T::ALGORITHM.stable(),
        }
    }

    fn policy_choice(&self, _: u64) -> SortAlgorithm {
        T::ALGORITHM
    }

    fn storage_requirements(&self, max_n: u64) -> StorageRequirements {
        StorageRequirements {
            scratch_bytes: self.scratch_bytes(max_n),
            scratch_usage: self.scratch_usage(),
        }
    }

    fn control_offset(&self, _: u64) -> u64 {
        0
    }

    fn prepare(&self, _: &[SortAlgorithm], max_n: u64) -> Result<()> {
        let sizes = self.plan_sizes(max_n.min(self.max_keys()));
        prepare_by_planning(
            self.context(),
            self.items(),
            &sizes,
            |n| self.scratch_bytes(n),
            self.scratch_usage(),
            |rec, buffers, count| self.record_sort(rec, buffers, count),
        )
    }

    fn record(
        &self,
        rec: &mut Recorder,
        _: SortAlgorithm,
        buffers: SortBuffers,
        count: Count,
    ) -> Result<()> {
        self.record_sort(rec, buffers, count)
    }

    fn workload(&self, _: SortAlgorithm, n: u64) -> Vec<PassModel> {
        self.model_passes(n)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Records, through planning recorders (no commands), sorts of every size in `sizes` with host and GPU-side
/// counts on stand-in buffers, so that `record(rec, buffers, count)` builds each one's pipelines.
pub(crate) fn prepare_by_planning(
    ctx: &Context,
    items: &Items,
    sizes: &[u64],
    scratch_bytes: impl Fn(u64) -> u64,
    scratch_usage: vk::BufferUsageFlags,
    mut record: impl FnMut(&mut Recorder, SortBuffers, Count) -> Result<()>,
) -> Result<()> {
    let fake = |size: u64, usage: vk::BufferUsageFlags| Region {
        buffer: vk::Handle::from_raw(1),
        offset: 0,
        size: size.max(16),
        usage,
        owner: 0,
    };
    let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
    for &n in sizes {
        let buffers = SortBuffers {
            keys: fake(items.key_bytes(n), storage),
            values: (items.val_words > 0).then(|| fake(items.val_bytes(n), storage)),
            scratch: fake(scratch_bytes(n), scratch_usage),
        };
        for count in [
            Count::Host(n),
            Count::Gpu {
                count: fake(16, storage),
                capacity: n,
            },
        ] {
            let mut rec = Recorder::planning(ctx);
            record(&mut rec, buffers, count)?;
        }
    }
    Ok(())
}
