//! The radix sort's scratch layout and geometry: how a sort of up to `max_n` keys is cut into portions, where
//! each region of the scratch buffer lies, the control block's words, and the workgroup geometry that several
//! passes share (the upfront pass's chunk, the final copy's chunk).

use super::policy::MSD_MAX_KEYS;
use super::RadixSort;
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::count::CTRL_WORDS;

/// Radix-internal control block words (u32 index into the meta region; see `glsl/sort/radix/radix_common.glsl`),
/// after the sort-wide ones of [`crate::sort::count`].
pub const CTRL_TILES: u64 = 3;
pub(crate) const CTRL_UPFRONT_ARGS: u64 = 4;
pub(crate) const CTRL_COPY_ARGS: u64 = 8;
pub(crate) const CTRL_PASS: u64 = 32;
/// Onesweep status slot: words before the first tile's status (the tile counter is word 0).
pub(crate) const STATUS_HDR: u64 = 32;
/// Most keys one sort takes: 2^32 - 2^16 (counts and indices are 32-bit words on the GPU, and rounding a count
/// up to whole tiles or chunks, at most 2^16 keys each, must not wrap). Larger sorts than one look-back status
/// word can count (2^30 - 1 keys) or than one binding can hold are cut into portions.
pub const MAX_KEYS: u64 = (1 << 32) - (1 << 16);
/// Most keys of one Onesweep portion (the look-back status word holds a 30-bit count).
pub const MAX_PORTION_KEYS: u64 = (1 << 30) - 1;

/// Invocations (wished for) and keys per invocation of the final copy.
pub(crate) const COPY_WG: u32 = 256;
pub(crate) const COPY_KPT: u32 = 4;

/// How a sort of up to `max_n` keys is cut into portions (see `glsl/sort/radix/radix_common.glsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Portions {
    /// The passes write through 64-bit device addresses (an array exceeds one binding, or the policy's
    /// `force_wide`); sources are then bound per portion.
    pub wide: bool,
    /// Tiles per portion.
    pub tiles: u64,
    /// Keys per portion (tiles x keys per tile).
    pub keys: u64,
    /// Portions of a sort of `max_n` keys (at least 1).
    pub count: u64,
}

/// Byte layout of the scratch buffer for a capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub alt_keys_off: u64,
    pub alt_keys_bytes: u64,
    pub alt_vals_off: u64,
    pub alt_vals_bytes: u64,
    /// Control block and histograms (one binding).
    pub meta_off: u64,
    pub meta_bytes: u64,
    /// Meta word offset of the histograms / global digit offsets (2 x places x RADIX words: the plan's offsets,
    /// then the second running-offsets array of portions).
    pub hist_word: u64,
    /// Status region: Onesweep's (place, portion) slots of `status_slot_bytes` each, or reduce-then-scan's
    /// per-(digit, tile) counts (`rts_status_bytes`), whichever is larger.
    pub status_off: u64,
    pub status_slot_bytes: u64,
    pub status_slots: u64,
    pub rts_status_bytes: u64,
    pub status_bytes: u64,
    /// The MSD sort's regions (empty when the sorter never uses it): the second scratch arrays, where buckets
    /// larger than the bucket tile are sorted (keys, then values: up to `MSD_MAX_KEYS` keys), and its tables:
    /// the differ pass's min/max words (4 u32 per split tile), then the split pass's run table (2^digit_bits rows
    /// of `msd_stride` u32), then the counts row (2^digit_bits u32: each split digit's keys), then the bucket
    /// pass's cooperative helpers' control words (4 u32 per split digit) and rows (2^digit_bits u32 per helper,
    /// `msd_coop_rows` of them).
    pub msd_keys_off: u64,
    pub msd_keys_bytes: u64,
    pub msd_vals_off: u64,
    pub msd_vals_bytes: u64,
    pub msd_tables_off: u64,
    pub msd_tables_bytes: u64,
    /// Split tiles of the MSD sort's capacity (the run table's row length).
    pub msd_stride: u64,
    /// Helpers whose rows the MSD tables hold (the most helpers a bucket pass of the capacity can have).
    pub msd_coop_rows: u64,
    /// The hybrid sort's group starts (2^groups + 1 u32, [`super::RadixPolicy::hybrid_geometry`]; empty when
    /// the sorter never uses it).
    pub hybrid_off: u64,
    pub hybrid_bytes: u64,
    pub portions: Portions,
    pub total: u64,
}

const ALIGN: u64 = 256;
impl RadixSort {
    /// Invocations of the upfront histogram pass on this device.
    pub(crate) fn upfront_wg(&self) -> u32 {
        self.plan
            .workgroup_size(self.ctx.caps(), self.policy.upfront_workgroup_size)
    }

    /// Keys per workgroup of the final copy on this device.
    pub(crate) fn copy_chunk(&self) -> u32 {
        self.plan.workgroup_size(self.ctx.caps(), COPY_WG) * COPY_KPT
    }

    /// How a sort of up to `max_n` keys is cut into portions: as few as the look-back status word (2^30 - 1
    /// keys), the binding range (sources bound per portion when an array exceeds one binding) and the policy's
    /// diagnostics knob `portion_tiles` allow.
    pub fn portions(&self, max_n: u64) -> Portions {
        let cap = max_n.max(1);
        let tile = self.policy.tile() as u64;
        let range = self.binding_range();
        let (kb, vb) = (self.key_words as u64 * 4, self.val_words as u64 * 4);
        let wide = self.debug.force_wide || cap * kb > range || cap * vb > range;
        let mut keys = MAX_PORTION_KEYS;
        if wide {
            keys = keys.min(range / kb);
            if let Some(k) = range.checked_div(vb) {
                keys = keys.min(k);
            }
        }
        let radix = self.policy.radix() as u64;
        let mut tiles = (keys / tile).min((range / 4).saturating_sub(STATUS_HDR) / radix);
        if self.debug.portion_tiles > 0 {
            tiles = tiles.min(self.debug.portion_tiles as u64);
        }
        // As few portions as allowed, of (nearly) equal size: the last one's grid has few idle workgroups.
        let all = cap.div_ceil(tile);
        let tiles = tiles.clamp(1, all);
        let tiles = all.div_ceil(all.div_ceil(tiles));
        Portions {
            wide,
            tiles,
            keys: tiles * tile,
            count: cap.div_ceil(tiles * tile),
        }
    }

    /// The scratch layout for up to `max_n` keys.
    pub fn layout(&self, max_n: u64) -> Layout {
        let cap = max_n.max(1);
        let portions = self.portions(cap);
        let alt_keys_bytes = cap * self.key_words as u64 * 4;
        let alt_vals_bytes = cap * self.val_words as u64 * 4;
        let alt_vals_off = alt_keys_bytes.next_multiple_of(ALIGN);
        let meta_off = (alt_vals_off + alt_vals_bytes).next_multiple_of(ALIGN);
        let radix = self.policy.radix() as u64;
        let tiles = cap.div_ceil(self.policy.tile() as u64);
        let hist_word = CTRL_WORDS;
        let meta_bytes = (hist_word + 2 * self.places as u64 * radix) * 4;
        let status_off = (meta_off + meta_bytes).next_multiple_of(ALIGN);
        let status_slot_bytes = ((STATUS_HDR + portions.tiles * radix) * 4).next_multiple_of(ALIGN);
        let status_slots = self.places as u64 * portions.count;
        let rts_status_bytes = radix * tiles * 4;
        let status_bytes = (status_slot_bytes * status_slots).max(rts_status_bytes);
        let msd_cap = cap.min(self.msd_capacity());
        let msd_keys_off = (status_off + status_bytes).next_multiple_of(ALIGN);
        let msd_keys_bytes = msd_cap * self.key_words as u64 * 4;
        let msd_vals_off = (msd_keys_off + msd_keys_bytes).next_multiple_of(ALIGN);
        let msd_vals_bytes = msd_cap * self.val_words as u64 * 4;
        let msd_tables_off = (msd_vals_off + msd_vals_bytes).next_multiple_of(ALIGN);
        let msd_stride = msd_cap.div_ceil(self.policy.msd_split_tile() as u64);
        // The most helpers: the policy's least bucket keys per invocation (a bucket pass's may grow, never shrink).
        let msd_coop_rows = self
            .policy
            .msd_helpers(msd_cap, self.policy.msd_bucket_keys_per_thread) as u64;
        let msd_tables_bytes = ((4 + radix) * msd_stride + 5 * radix + msd_coop_rows * radix) * 4;
        let hybrid_off = (msd_tables_off + msd_tables_bytes).next_multiple_of(ALIGN);
        let hybrid_bytes = if self.hybrid_reachable() {
            let (_, g) = self.hybrid_geometry(cap);
            ((1u64 << g) + 1) * 4
        } else {
            0
        };
        Layout {
            alt_keys_off: 0,
            alt_keys_bytes,
            alt_vals_off,
            alt_vals_bytes,
            meta_off,
            meta_bytes,
            hist_word,
            status_off,
            status_slot_bytes,
            status_slots,
            rts_status_bytes,
            status_bytes,
            msd_keys_off,
            msd_keys_bytes,
            msd_vals_off,
            msd_vals_bytes,
            msd_tables_off,
            msd_tables_bytes,
            msd_stride,
            msd_coop_rows,
            hybrid_off,
            hybrid_bytes,
            portions,
            total: hybrid_off + hybrid_bytes,
        }
    }

    /// Whether this sorter may record the hybrid sort: only when configured (Auto never chooses it,
    /// [`SortAlgorithm::auto_eligible`]).
    pub(crate) fn hybrid_reachable(&self) -> bool {
        self.algorithm == SortAlgorithm::Hybrid
    }

    /// The hybrid sort's (MSD places, log2 of the groups) for up to `max_n` keys (see
    /// [`super::RadixPolicy::hybrid_geometry`]).
    pub(crate) fn hybrid_geometry(&self, max_n: u64) -> (u32, u32) {
        self.policy
            .hybrid_geometry(self.places, self.hi - self.lo, max_n.max(1))
    }

    /// The most keys this sorter may sort with the MSD sort (0: never): [`MSD_MAX_KEYS`] when it is the
    /// configured algorithm or a cost model may choose it, the policy's `msd_max` (at most that) under the
    /// policy's Auto.
    pub(crate) fn msd_capacity(&self) -> u64 {
        match self.algorithm {
            SortAlgorithm::Msd => MSD_MAX_KEYS,
            SortAlgorithm::Auto if self.any => MSD_MAX_KEYS,
            SortAlgorithm::Auto => (self.policy.msd_max as u64).min(MSD_MAX_KEYS),
            _ => 0,
        }
    }
}
