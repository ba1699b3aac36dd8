//! The buffer regions one recorded radix sort binds: the caller's arrays, its scratch regions and each
//! portion's sources.

use super::layout::Layout;
use super::{Checked, RadixSort};
use crate::error::Result;
use crate::gpu::{Context, Recorder, Region};
use crate::sort::algorithm::SortAlgorithm;
use crate::sort::backend::SortBuffers;

/// The regions a sort binds.
pub(crate) struct Bindings {
    pub keys: Region,
    pub alt_keys: Region,
    pub values: Option<Region>,
    pub alt_values: Region,
    pub meta: Region,
    pub status: Region,
    /// The MSD sort's second scratch arrays and tables, and the hybrid sort's group starts.
    pub msd_keys: Region,
    pub msd_values: Region,
    pub msd_tables: Region,
    pub hybrid_starts: Region,
    /// The hybrid sort's plan word (MSD places | log2 of the groups << 8; 0 for every other sort).
    pub hybrid: u32,
    /// Wide passes: device addresses (lo, hi words) of keys, scratch keys, values, scratch values.
    pub addr: [u32; 8],
    pub layout: Layout,
    pub max_n: u64,
    pub count: Option<(Region, u32)>,
}

/// One portion's sources: keys A, keys B, values A, values B, and the index of the first key they hold.
pub(crate) struct PortionSources {
    pub refs: [Region; 4],
    pub first: u64,
}

impl Bindings {
    /// The regions a checked sort of `max_n` keys binds: the caller's arrays, the scratch's regions and, for
    /// wide sorts (but the small sort and planning recordings), the arrays' device addresses.
    pub fn new(
        s: &RadixSort,
        ctx: &Context,
        planning: bool,
        buffers: SortBuffers,
        c: Checked,
        max_n: u64,
    ) -> Result<Bindings> {
        let (kb, vb) = s.array_bytes(max_n);
        let (l, scratch) = (c.layout, buffers.scratch);
        let keys = buffers.keys.slice(0, kb.max(4));
        let alt_keys = scratch.slice(l.alt_keys_off, l.alt_keys_bytes);
        let values = buffers.values.map(|v| v.slice(0, vb));
        let alt_values = scratch.slice(l.alt_vals_off, l.alt_vals_bytes);
        let addr = if l.portions.wide && c.algorithm != SortAlgorithm::Small && !planning {
            let arrays = [keys, alt_keys, values.unwrap_or(alt_values), alt_values];
            addresses(ctx, arrays)?
        } else {
            [0; 8]
        };
        Ok(Self {
            keys,
            alt_keys,
            values,
            alt_values,
            meta: scratch.slice(l.meta_off, l.meta_bytes),
            status: scratch.slice(l.status_off, l.status_bytes),
            msd_keys: scratch.slice(l.msd_keys_off, l.msd_keys_bytes),
            msd_values: scratch.slice(l.msd_vals_off, l.msd_vals_bytes),
            msd_tables: scratch.slice(l.msd_tables_off, l.msd_tables_bytes),
            hybrid_starts: scratch.slice(l.hybrid_off, l.hybrid_bytes),
            hybrid: c.hybrid,
            addr,
            layout: l,
            max_n,
            count: c.count,
        })
    }

    /// Value bindings (the meta region stands in when there are no values; the shaders then never touch it).
    pub fn vals(&self) -> (Region, Region) {
        match self.values {
            Some(v) => (v, self.alt_values),
            None => (self.meta, self.meta),
        }
    }

    /// Portion `q`'s sources: the whole arrays, or (wide sorts) the portion's slices of them.
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

    /// (Dispatches, keys per dispatch) of the passes that read keys by index (upfront, copy): one per portion
    /// when the sort is wide, else one.
    pub fn source_portions(&self) -> (u64, u64) {
        let p = self.layout.portions;
        if p.wide {
            (p.count, p.keys)
        } else {
            (1, u32::MAX as u64)
        }
    }

    /// Runs `pass` once per source portion with (portion, portions, keys per portion, its sources), a barrier
    /// between them: the portions touch disjoint keys but share bindings the validation layers track.
    pub fn per_source_portion<'a>(
        &self,
        s: &RadixSort,
        rec: &mut Recorder<'a>,
        mut pass: impl FnMut(&mut Recorder<'a>, u64, u64, u64, PortionSources) -> Result<()>,
    ) -> Result<()> {
        let (count, len) = self.source_portions();
        for q in 0..count {
            if q > 0 {
                rec.barrier();
            }
            pass(rec, q, count, len, self.sources(s, q))?;
        }
        Ok(())
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

/// The device addresses (lo, hi words) of keys, scratch keys, values and scratch values.
fn addresses(ctx: &Context, arrays: [Region; 4]) -> Result<[u32; 8]> {
    let mut a = [0u32; 8];
    let names = ["keys", "scratch", "values", "scratch"];
    for (i, (what, r)) in names.into_iter().zip(arrays).enumerate() {
        let x = ctx.buffer_address(what, &r)?;
        a[2 * i] = x as u32;
        a[2 * i + 1] = (x >> 32) as u32;
    }
    Ok(a)
}
