//! The buffer regions one recorded radix sort binds: the caller's arrays, the scratch regions of its
//! [`super::Layout`], and each portion's source bindings.

use super::layout::Layout;
use super::RadixSort;
use crate::gpu::Region;

/// The regions a sort binds.
pub(crate) struct Bindings {
    pub keys: Region,
    pub alt_keys: Region,
    pub values: Option<Region>,
    pub alt_values: Region,
    pub meta: Region,
    pub status: Region,
    /// The MSD sort's second scratch arrays and tables (see [`Layout`]).
    pub msd_keys: Region,
    pub msd_values: Region,
    pub msd_tables: Region,
    /// The hybrid sort's group starts (see [`Layout`]).
    pub hybrid_starts: Region,
    /// The hybrid sort's plan word (MSD places | log2 of the groups << 8; 0 for every other sort).
    pub hybrid: u32,
    /// Wide passes: device addresses (lo, hi words) of keys, scratch keys, values, scratch values.
    pub addr: [u32; 8],
    pub layout: Layout,
    pub max_n: u64,
    pub count: Option<(Region, u32)>,
}

/// The source bindings of one portion of a pass: keys A, keys B, values A, values B, and the index of the
/// first key they hold.
pub(crate) struct PortionSources {
    pub refs: [Region; 4],
    pub first: u64,
}

impl Bindings {
    /// Value bindings (the meta region stands in when there are no values; the shaders then never touch it).
    pub fn vals(&self) -> (Region, Region) {
        match self.values {
            Some(v) => (v, self.alt_values),
            None => (self.meta, self.meta),
        }
    }

    /// Portion `q`'s sources: the whole arrays (first key 0) unless the sort is wide, else the portion's
    /// slices of them (each within one binding).
    pub fn sources(&self, s: &RadixSort, q: u64) -> PortionSources {
        let (va, vb) = self.vals();
        let whole = [self.keys, self.alt_keys, va, vb];
        let p = self.layout.portions;
        if !p.wide {
            return PortionSources {
                refs: whole,
                first: 0,
            };
        }
        let first = q * p.keys;
        let len = p.keys.min(self.max_n.max(1).saturating_sub(first)).max(1);
        let (kb, vbytes) = (s.key_words as u64 * 4, s.val_words as u64 * 4);
        let cut = |r: Region, eb: u64| {
            if eb == 0 {
                r
            } else {
                r.slice(first * eb, len * eb)
            }
        };
        PortionSources {
            refs: [
                cut(whole[0], kb),
                cut(whole[1], kb),
                cut(whole[2], if self.values.is_some() { vbytes } else { 0 }),
                cut(whole[3], if self.values.is_some() { vbytes } else { 0 }),
            ],
            first,
        }
    }

    /// The portions of the passes that only read keys by index (upfront histogram, final copy): one per
    /// portion when the sort is wide, else one covering every key. Returns (dispatches, keys per dispatch).
    pub fn source_portions(&self) -> (u64, u64) {
        let p = self.layout.portions;
        if p.wide {
            (p.count, p.keys)
        } else {
            (1, u32::MAX as u64)
        }
    }

    /// Onesweep's status slot of (place `p`, portion `q`).
    pub fn status_slot(&self, p: u32, q: u64) -> Region {
        let l = &self.layout;
        let slot = p as u64 * l.portions.count + q;
        self.status
            .slice(slot * l.status_slot_bytes, l.status_slot_bytes)
    }

    /// Reduce-then-scan's per-(digit, tile) region.
    pub fn rts_status(&self) -> Region {
        self.status.slice(0, self.layout.rts_status_bytes)
    }
    /// The indirect arguments at meta word `word`.
    pub fn args(&self, word: u64) -> Region {
        self.meta.slice(word * 4, 12)
    }
}
