//! Look-back status blocks: every run that binds one leaves it zeroed (`lookback.glsl`, `LB_RESET`), so the next
//! needs no clear dispatch. Leased by Scanners and Compactors, pooled by their context on drop (recorded work
//! may still use them), destroyed with it; runs on one block must not overlap ([`super::Recorder::new`]).

use super::buffer::RawBuffer;
use super::{Context, MemoryLocation, Region};
use crate::error::Result;
use ash::vk;
use std::sync::Arc;

/// Bytes of a block: a 16-byte header and 4,096 tiles of 64-bit values (8,192 of 32-bit ones).
pub(crate) const STATUS_BLOCK_BYTES: u64 = 16 + 4096 * 16;

const USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw() | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

/// A zeroed status block of a context, returned to its pool on drop.
pub(crate) struct StatusLease {
    ctx: Arc<Context>,
    raw: Option<RawBuffer>,
}

impl StatusLease {
    /// A block from `ctx`'s pool, or a new one zeroed by a host submission.
    pub(crate) fn new(ctx: &Arc<Context>) -> Result<Self> {
        let pooled = ctx.status_pool.lock().unwrap().pop();
        let lease = |raw| Self {
            ctx: ctx.clone(),
            raw: Some(raw),
        };
        if let Some(raw) = pooled {
            return Ok(lease(raw));
        }
        let raw = RawBuffer::new(
            ctx,
            "vksort::status",
            STATUS_BLOCK_BYTES,
            USAGE,
            MemoryLocation::GpuOnly,
        )?;
        let mut block = lease(raw);
        let region = block.region();
        let cleared = ctx.submit("vksort::status::clear", |rec| {
            rec.fill_region("vksort::status::clear", region, 0)
        });
        if let Err(e) = cleared {
            // SAFETY: the failed submission waited for its work, or left the context lost (`destroy` leaks).
            if let Some(mut raw) = block.raw.take() {
                unsafe { raw.destroy(ctx) };
            }
            return Err(e);
        }
        Ok(block)
    }

    pub(crate) fn region(&self) -> Region {
        let raw = self
            .raw
            .as_ref()
            .expect("a lease holds its block until dropped");
        Region {
            buffer: raw.handle,
            offset: 0,
            size: raw.size,
            usage: USAGE,
            owner: self.ctx.id,
        }
    }
}

impl Drop for StatusLease {
    fn drop(&mut self) {
        if let Some(raw) = self.raw.take() {
            self.ctx.status_pool.lock().unwrap().push(raw);
        }
    }
}
