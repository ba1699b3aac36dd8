//! The public sort API: key/value types, the configuration, the [`Sorter`] (recorded form) and the host forms.
//!
//! What it sorts: keys of type u32, i32, f32, u64, i64 or f64 (floats in IEEE 754 totalOrder: -NaN < -inf < ...
//! < -0.0 < +0.0 < ... < +inf < +NaN), optionally with a 4- or 8-byte value per key, ascending or descending,
//! always stable (equal keys keep their input order, in both orders), on all key bits or on a bit range
//! `[lo, hi)` of the transformed key (see [`types`]; as CUB's begin_bit/end_bit). The sorted keys
//! and values land back in the caller's buffers.
//!
//! Memory: besides the caller's key and value buffers, a scratch buffer of
//! [`Sorter::storage_requirements`]`(max_n).scratch_bytes`: one more copy of the keys and of the values
//! (ping-pong), a 1 KiB control block, the digit offsets (2 x places x 2^digit_bits u32) and the look-back status
//! (places x tiles x 2^digit_bits u32, about 0.33 bytes per key and place with the NVIDIA policy's 3072-key
//! tiles, 1 byte with lavapipe's; sorts up to the policy's `short_max` keys use shorter tiles, 0.67 bytes on
//! NVIDIA, and the storage query for a capacity covers them). A sorter that may use the MSD sort (configured, or
//! Auto up to the policy's `msd_max`, 2^16 keys on NVIDIA) needs, for up to that many keys, a second copy of the
//! keys and values and 4 x (4 + 2^digit_bits) bytes per MSD split tile (about 1 byte per key with NVIDIA's
//! 1024-key tiles), plus 4 x 2^digit_bits bytes of split-digit counts. Layout and passes: [`radix`].
//!
//! Sizes: up to [`radix::MAX_KEYS`] (2^32 - 2^16) keys where memory allows. A sort larger than one look-back status
//! word counts (2^30 - 1 keys) is cut into portions, each pass running once per portion. When the keys or
//! values exceed one storage-buffer binding (`maxStorageBufferRange`, 4 GiB on NVIDIA, 128 MiB on lavapipe),
//! the passes read each portion through its own binding and write through 64-bit buffer device addresses: that
//! needs `bufferDeviceAddress` (enabled by [`Context::new`] where present; for an adopted device, say so in
//! [`crate::gpu::AdoptInfo`]), and the key, value and scratch buffers need `SHADER_DEVICE_ADDRESS` usage
//! ([`StorageRequirements::scratch_usage`] says so for the scratch; buffers vksort allocates have it). Without
//! the feature, such inputs are rejected with [`Error::TooLarge`]. Measured: 2^31 u32 keys (8 GiB) in 3
//! portions on an H100, BENCHMARKS.md.

use crate::error::{Error, Result};
use crate::gpu::{Buffer, BufferRef, Context, Recorder};
pub mod radix;
pub mod types;

pub use types::{cpu_sort_reference, KeyType, Order, SortKey, SortValue, ValueType};

use ash::vk;
use radix::RadixPolicy;
use std::sync::Arc;

/// Which radix-sort algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SortAlgorithm {
    /// Small for n <= `policy.small_sort_max`, Msd for n <= `policy.msd_max`, else Onesweep where the device policy allows it
    /// (`policy.onesweep_safe`), else ReduceThenScan.
    #[default]
    Auto,
    /// One pass per digit place with decoupled look-back (bounded spin and a self-made fallback).
    Onesweep,
    /// Upsweep, spine and downsweep per digit place; no inter-workgroup waiting.
    ReduceThenScan,
    /// One workgroup sorts everything in shared memory (n <= `policy.small_capacity()`).
    Small,
    /// Three dispatches, most significant digit first: a pass finds where the keys differ (per-tile AND/OR), a
    /// split pass sorts each tile on the highest differing digit, then one workgroup per bucket gathers the
    /// bucket's runs from all tiles and sorts them (n <= [`crate::sort::radix::MSD_MAX_KEYS`]; Auto uses it up to
    /// `policy.msd_max`). See [`crate::sort::radix::msd`].
    Msd,
}

impl SortAlgorithm {
    pub const ALL: [SortAlgorithm; 5] = [
        SortAlgorithm::Auto,
        SortAlgorithm::Onesweep,
        SortAlgorithm::ReduceThenScan,
        SortAlgorithm::Small,
        SortAlgorithm::Msd,
    ];
    pub fn name(self) -> &'static str {
        match self {
            SortAlgorithm::Auto => "auto",
            SortAlgorithm::Onesweep => "onesweep",
            SortAlgorithm::ReduceThenScan => "reduce-then-scan",
            SortAlgorithm::Small => "small",
            SortAlgorithm::Msd => "msd",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// What a [`Sorter`] sorts and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SortConfig {
    pub key: KeyType,
    pub value: ValueType,
    pub order: Order,
    /// Sort on bits `[lo, hi)` of the transformed key only (None: all bits). Needs lo < hi <= key bits.
    pub bits: Option<(u32, u32)>,
    pub algorithm: SortAlgorithm,
    /// Tuning; None: [`RadixPolicy::for_device`].
    pub policy: Option<RadixPolicy>,
}

impl Default for SortConfig {
    fn default() -> Self {
        Self {
            key: KeyType::U32,
            value: ValueType::None,
            order: Order::Ascending,
            bits: None,
            algorithm: SortAlgorithm::Auto,
            policy: None,
        }
    }
}

/// The scratch buffer a sort needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageRequirements {
    pub scratch_bytes: u64,
    pub scratch_usage: vk::BufferUsageFlags,
}

/// A planned sort for one [`SortConfig`] on one context: records sorts into command buffers.
pub struct Sorter {
    pub(crate) ctx: Arc<Context>,
    pub(crate) config: SortConfig,
    pub(crate) radix: radix::RadixSort,
}

impl Sorter {
    /// Validates `config` (bit range, policy against the device limits, needed subgroup operations).
    pub fn new(ctx: &Arc<Context>, config: SortConfig) -> Result<Self> {
        let radix = radix::RadixSort::new(ctx, &config)?;
        Ok(Self {
            ctx: ctx.clone(),
            config,
            radix,
        })
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    pub fn config(&self) -> &SortConfig {
        &self.config
    }

    /// The policy in use (sorts of up to its `short_max` keys run with `short_keys_per_thread` instead: see
    /// [`Sorter::policy_for`]).
    pub fn policy(&self) -> &RadixPolicy {
        &self.radix.policy
    }

    /// The policy a sort of `max_n` keys (host n or capacity) runs with.
    pub fn policy_for(&self, max_n: u64) -> &RadixPolicy {
        &self.radix.pick(max_n).policy
    }

    /// Scratch needed to sort up to `max_n` keys (any algorithm).
    pub fn storage_requirements(&self, max_n: u64) -> StorageRequirements {
        StorageRequirements {
            scratch_bytes: self.radix.scratch_bytes(max_n),
            scratch_usage: self.radix.scratch_usage(max_n),
        }
    }

    /// What [`SortAlgorithm::Auto`] (or the configured algorithm) resolves to for `n` keys.
    pub fn algorithm_for(&self, n: u64) -> SortAlgorithm {
        self.radix.pick(n).algorithm_for(n)
    }

    /// Records the sort of the first `n` keys of `keys` (and values) in place. `scratch` holds
    /// [`Sorter::storage_requirements`]`(n)` bytes with its usage flags. Barrier contract: [`crate::gpu::recorder`].
    pub fn cmd_sort(
        &self,
        rec: &mut Recorder,
        keys: BufferRef,
        values: Option<BufferRef>,
        scratch: BufferRef,
        n: u64,
    ) -> Result<()> {
        self.radix
            .pick(n)
            .cmd_sort(rec, keys, values, scratch, radix::Count::Host(n))
    }

    /// Records the sort of a GPU-side count of keys: `count` is a u32 (4-byte aligned offset) written before
    /// this command. The count is clamped to `capacity` (the size the buffers and scratch are made for); the
    /// clamped count and an overflow flag are left in the scratch's control block
    /// ([`crate::sort::radix::CTRL_N`], [`crate::sort::radix::CTRL_OVERFLOW`], [`crate::sort::radix::CTRL_RAW_COUNT`] at
    /// [`Sorter::control_offset`]).
    pub fn cmd_sort_indirect(
        &self,
        rec: &mut Recorder,
        keys: BufferRef,
        values: Option<BufferRef>,
        scratch: BufferRef,
        count: BufferRef,
        capacity: u64,
    ) -> Result<()> {
        self.radix.pick(capacity).cmd_sort(
            rec,
            keys,
            values,
            scratch,
            radix::Count::Gpu { count, capacity },
        )
    }

    /// Byte offset, within the scratch, of the control block for a sort planned for `max_n` keys (host n or
    /// the capacity): u32 words [`crate::sort::radix::CTRL_N`] (sorted count), [`crate::sort::radix::CTRL_OVERFLOW`]
    /// (1 when the GPU-side count exceeded the capacity), [`crate::sort::radix::CTRL_RAW_COUNT`].
    pub fn control_offset(&self, max_n: u64) -> u64 {
        self.radix.pick(max_n).layout(max_n).meta_off
    }

    /// The radix sort's scratch layout for `max_n` keys, with how the sort is cut into portions (diagnostics
    /// and tests).
    pub fn radix_layout(&self, max_n: u64) -> radix::Layout {
        self.radix.pick(max_n).layout(max_n)
    }
}

/// Sorts `keys` ascending on the GPU.
pub fn sort<K: SortKey>(ctx: &Arc<Context>, keys: &mut [K]) -> Result<()> {
    sort_with(ctx, keys, &SortConfig::default())
}

/// Sorts `keys` on the GPU as `config` says (its key and value types are taken from `K`).
pub fn sort_with<K: SortKey>(
    ctx: &Arc<Context>,
    keys: &mut [K],
    config: &SortConfig,
) -> Result<()> {
    host_sort::<K, u32>(ctx, keys, None, config)
}

/// Sorts `keys` ascending and carries `values` along (stable).
pub fn sort_pairs<K: SortKey, V: SortValue>(
    ctx: &Arc<Context>,
    keys: &mut [K],
    values: &mut [V],
) -> Result<()> {
    sort_pairs_with(ctx, keys, values, &SortConfig::default())
}

/// Sorts `keys` as `config` says and carries `values` along (stable).
pub fn sort_pairs_with<K: SortKey, V: SortValue>(
    ctx: &Arc<Context>,
    keys: &mut [K],
    values: &mut [V],
    config: &SortConfig,
) -> Result<()> {
    if values.len() != keys.len() {
        return Err(Error::InvalidArgument(format!(
            "{} values for {} keys",
            values.len(),
            keys.len()
        )));
    }
    host_sort(ctx, keys, Some(values), config)
}

fn host_sort<K: SortKey, V: SortValue>(
    ctx: &Arc<Context>,
    keys: &mut [K],
    values: Option<&mut [V]>,
    config: &SortConfig,
) -> Result<()> {
    let config = SortConfig {
        key: K::TYPE,
        value: if values.is_some() {
            V::TYPE
        } else {
            ValueType::None
        },
        ..*config
    };
    let sorter = Sorter::new(ctx, config)?;
    let n = keys.len() as u64;
    if n <= 1 {
        return Ok(());
    }
    let kb = Buffer::from_slice(ctx, "vksort::sort::keys", keys)?;
    let vb = match &values {
        Some(v) => Some(Buffer::from_slice(ctx, "vksort::sort::values", v)?),
        None => None,
    };
    let req = sorter.storage_requirements(n);
    let scratch = Buffer::device_local(ctx, "vksort::sort::scratch", req.scratch_bytes)?;
    ctx.submit("vksort::sort", |rec| {
        sorter.cmd_sort(
            rec,
            kb.as_ref(),
            vb.as_ref().map(|b| b.as_ref()),
            scratch.as_ref(),
            n,
        )
    })?;
    keys.copy_from_slice(&kb.read_vec::<K>(keys.len())?);
    if let (Some(v), Some(b)) = (values, vb) {
        v.copy_from_slice(&b.read_vec::<V>(v.len())?);
    }
    Ok(())
}
