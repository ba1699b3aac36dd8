//! Where a sort's count comes from, and the control block (at [`crate::sort::Sorter::control_offset`] in the
//! scratch) in which every backend leaves it: a GPU-side count (a u32 written before the sort runs) is clamped
//! to the capacity the sort was recorded for; [`CTRL_N`], [`CTRL_OVERFLOW`], [`CTRL_RAW_COUNT`] say how.

use crate::error::{Error, Result};
use crate::gpu::{Context, Region};
use crate::shaders::include::control;
use ash::vk;

/// Control block word: the number of keys sorted (the GPU-side count clamped to the capacity, or the host n).
pub const CTRL_N: u64 = control::CTRL_N as u64;
/// Control block word: 1 when the GPU-side count exceeded the capacity (the first `capacity` keys sorted).
pub const CTRL_OVERFLOW: u64 = control::CTRL_OVERFLOW as u64;
/// Control block word: the GPU-side count as read.
pub const CTRL_RAW_COUNT: u64 = control::CTRL_RAW_COUNT as u64;
/// Words of the control block (the backends keep their own words after the three above).
pub const CTRL_WORDS: u64 = control::CTRL_WORDS as u64;

/// Where a sort's count comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Count {
    /// Known when recording.
    Host(u64),
    /// A u32 at `count` (4-byte aligned), written on the GPU before the sort runs; at most `capacity` keys sorted.
    Gpu { count: Region, capacity: u64 },
}

impl Count {
    /// The most keys the sort may see: n, or the capacity.
    pub fn max_n(&self) -> u64 {
        match *self {
            Count::Host(n) => n,
            Count::Gpu { capacity, .. } => capacity,
        }
    }
}

/// A GPU-side count checked and bound: the binding (from an aligned offset down) and the count's u32 index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CountBinding {
    pub buffer: Region,
    pub word: u32,
}

/// Checks a GPU-side count's buffer (4-byte aligned offset, 4 bytes, storage usage) and binds it from the
/// device's storage-offset alignment down. Host counts bind nothing.
pub(crate) fn bind(ctx: &Context, count: &Count) -> Result<Option<CountBinding>> {
    let Count::Gpu { count: c, .. } = *count else {
        return Ok(None);
    };
    if c.offset % 4 != 0 {
        return Err(Error::Misaligned {
            what: "count",
            offset: c.offset,
            alignment: 4,
        });
    }
    if c.size < 4 {
        return Err(Error::BufferTooSmall {
            what: "count",
            needed: 4,
            available: c.size,
        });
    }
    let align = ctx.caps().min_storage_buffer_offset_alignment.max(4);
    let base = c.offset / align * align;
    let bound = Region {
        buffer: c.buffer,
        offset: base,
        size: c.offset - base + 4,
        ..c
    };
    bound.check(
        ctx,
        "count",
        bound.size,
        vk::BufferUsageFlags::STORAGE_BUFFER,
    )?;
    Ok(Some(CountBinding {
        buffer: bound,
        word: ((c.offset - base) / 4) as u32,
    }))
}
