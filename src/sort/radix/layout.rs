//! The radix sort's scratch layout: how a sort is cut into portions, where each scratch region lies, the control
//! block's words and the geometry several passes share. docs/architecture.md "The radix sorts" draws it.

use super::RadixSort;
use crate::shaders::include::radix_common as glsl;
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::count::CTRL_WORDS;

/// Radix control block words (generated from radix_common.glsl), after the sort-wide ones of [`crate::sort::count`].
pub const CTRL_TILES: u64 = glsl::CTRL_TILES as u64;
pub(crate) const CTRL_UPFRONT_ARGS: u64 = glsl::CTRL_UPFRONT_ARGS as u64;
pub(crate) const CTRL_COPY_ARGS: u64 = glsl::CTRL_COPY_ARGS as u64;
pub(crate) const CTRL_PASS: u64 = glsl::CTRL_PASS as u64;
/// Onesweep status slot: words before the first tile's status (word 0: the tile counter).
pub(crate) const STATUS_HDR: u64 = glsl::STATUS_HDR as u64;
/// Most keys one sort takes: 2^32 - 2^16 (32-bit counts on the GPU, rounded up to tiles of at most 2^16 keys).
pub const MAX_KEYS: u64 = (1 << 32) - (1 << 16);
/// Most keys of one Onesweep portion (the look-back status word holds a 30-bit count).
pub const MAX_PORTION_KEYS: u64 = (1 << 30) - 1;

/// Invocations (wished for) and keys per invocation of the final copy.
pub(crate) const COPY_WG: u32 = 256;
pub(crate) const COPY_KPT: u32 = 4;

/// How a sort of up to `max_n` keys is cut into portions (see `glsl/sort/radix/radix_common.glsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Portions {
    /// The passes write through device addresses and bind their sources per portion (an array beyond a binding).
    pub wide: bool,
    /// Tiles and keys per portion.
    pub tiles: u64,
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
    /// Meta word offset of the histograms, then the global digit offsets (2 x places x RADIX words).
    pub hist_word: u64,
    /// Onesweep's (place, portion) status slots or reduce-then-scan's counts, whichever is larger.
    pub status_off: u64,
    pub status_slot_bytes: u64,
    pub status_slots: u64,
    pub rts_status_bytes: u64,
    pub status_bytes: u64,
    /// The MSD sort's second scratch arrays and tables, and its run table's row length (split tiles).
    pub msd_keys_off: u64,
    pub msd_keys_bytes: u64,
    pub msd_vals_off: u64,
    pub msd_vals_bytes: u64,
    pub msd_tables_off: u64,
    pub msd_tables_bytes: u64,
    pub msd_stride: u64,
    /// Helpers whose rows the MSD tables hold.
    pub msd_coop_rows: u64,
    /// The hybrid sort's group starts, 2^groups + 1 u32 (empty when the sorter never uses it).
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
            .workgroup_size(self.ctx.caps(), self.policy.upfront.workgroup_size)
    }

    /// Keys per workgroup of the final copy on this device.
    pub(crate) fn copy_chunk(&self) -> u32 {
        self.plan.workgroup_size(self.ctx.caps(), COPY_WG) * COPY_KPT
    }

    /// How a sort of up to `max_n` keys is cut into portions: as few as the status word's count, the binding
    /// range and the diagnostics knob `portion_tiles` allow, of nearly equal size.
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
        // The most helpers: the least bucket keys per invocation (a bucket pass's may grow, never shrink).
        let msd_coop_rows = self
            .policy
            .msd_helpers(msd_cap, self.policy.msd_bucket.items_per_invocation)
            as u64;
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

    /// Whether this sorter may record the hybrid sort: only when configured (Auto never chooses it).
    pub(crate) fn hybrid_reachable(&self) -> bool {
        self.algorithm == SortAlgorithm::Hybrid
    }

    /// The hybrid sort's [`super::RadixPolicy::hybrid_geometry`] for up to `max_n` keys.
    pub(crate) fn hybrid_geometry(&self, max_n: u64) -> (u32, u32) {
        self.policy
            .hybrid_geometry(self.places, self.hi - self.lo, max_n.max(1))
    }

    /// The most keys this sorter may sort with the MSD sort (0: never): `msd_max_keys` when configured or a
    /// cost model may choose it, else the policy's `msd.max`.
    pub(crate) fn msd_capacity(&self) -> u64 {
        match self.algorithm {
            SortAlgorithm::Msd => self.msd_max_keys(),
            SortAlgorithm::Auto if self.any => self.msd_max_keys(),
            SortAlgorithm::Auto => (self.policy.msd.max as u64).min(self.msd_max_keys()),
            _ => 0,
        }
    }
}
