//! Buffers: vksort's own (allocated through gpu-allocator, each allocation named) and the caller's
//! ([`BufferRef`]: a handle, an offset, a size and the usage flags it was created with).
//!
//! Contract: every primitive checks each [`BufferRef`] with [`BufferRef::check`] before it records anything:
//! a non-null handle, the size from the offset, the usage flags, the offset alignment
//! (`minStorageBufferOffsetAlignment`) and the device's `maxStorageBufferRange`. What it cannot check, the
//! handle's validity, is the caller's promise (see [`BufferRef`]). A [`Buffer`] owns its memory and frees it on
//! drop; its `as_ref`/`slice` regions are valid while it lives.

use super::Context;
use crate::error::{Error, Result, VkContext};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
pub use gpu_allocator::MemoryLocation;
use std::sync::Arc;

/// The largest staging buffer [`Buffer::read`] and [`Buffer::write`] allocate (bytes): larger transfers go in
/// chunks of this size, one copy and wait each, so a transfer pins at most this much host memory (a sort of 2^28
/// keys reads back 1-2 GiB). On the H200 host a 64 MiB chunk took ~25 ms to copy into host memory and ~13 ms
/// to copy out of it on one thread (reads are copied out on up to 8 threads).
pub const STAGING_CHUNK: u64 = 64 << 20;

/// A region of a caller's (or vksort's) buffer, as vksort binds it. Vulkan has no query for a buffer's usage
/// flags, so the caller states the flags the buffer was created with; vksort checks them against its needs.
///
/// A plain value with public fields (building one is safe, and it borrows nothing): vksort checks the null
/// handle, sizes, offsets and the stated usage, but it cannot check that `buffer` is a real buffer. Recording
/// with a `BufferRef` (any `cmd_*` function, [`crate::gpu::Recorder`]'s passes, a host submission through
/// [`Context::submit`], [`Context::buffer_address`]) is only sound if `buffer` is a live buffer of the
/// context's device, created with at least `usage`, whose `[offset, offset + size)` lies within it, and which
/// stays alive (not destroyed, its memory not freed) until the GPU has finished the command buffer that uses
/// it. Regions from [`Buffer::as_ref`] / [`Buffer::slice`] meet this while their [`Buffer`] lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferRef {
    /// The buffer handle; see the type's docs for what it must be.
    pub buffer: vk::Buffer,
    /// Byte offset of the region in the buffer.
    pub offset: u64,
    /// Byte size of the region.
    pub size: u64,
    /// The usage flags the buffer was created with.
    pub usage: vk::BufferUsageFlags,
}

impl BufferRef {
    /// A sub-region `[offset, offset + size)` relative to this region (clamped to it).
    pub fn slice(&self, offset: u64, size: u64) -> BufferRef {
        let offset = offset.min(self.size);
        BufferRef {
            buffer: self.buffer,
            offset: self.offset + offset,
            size: size.min(self.size - offset),
            usage: self.usage,
        }
    }

    /// Checks that the region holds `needed` bytes, has `usage`, and is aligned for storage-buffer binding:
    /// [`Error::NullBuffer`] (a null handle where `needed > 0`), [`Error::MissingUsage`], [`Error::Misaligned`],
    /// [`Error::BufferTooSmall`]. Cannot check that the handle is live (see the type's docs).
    pub fn check(
        &self,
        ctx: &Context,
        what: &'static str,
        needed: u64,
        usage: vk::BufferUsageFlags,
    ) -> Result<()> {
        if self.buffer == vk::Buffer::null() && needed > 0 {
            return Err(Error::NullBuffer { what });
        }
        if !self.usage.contains(usage) {
            return Err(Error::MissingUsage {
                what,
                missing: usage & !self.usage,
            });
        }
        let align = ctx.caps.min_storage_buffer_offset_alignment.max(4);
        if usage.contains(vk::BufferUsageFlags::STORAGE_BUFFER) && self.offset % align != 0 {
            return Err(Error::Misaligned {
                what,
                offset: self.offset,
                alignment: align,
            });
        }
        if self.size < needed {
            return Err(Error::BufferTooSmall {
                what,
                needed,
                available: self.size,
            });
        }
        Ok(())
    }

    /// The descriptor info for binding this region.
    pub(crate) fn descriptor(&self) -> vk::DescriptorBufferInfo {
        vk::DescriptorBufferInfo {
            buffer: self.buffer,
            offset: self.offset,
            range: if self.size == 0 {
                vk::WHOLE_SIZE
            } else {
                self.size
            },
        }
    }
}

/// The usage flags vksort gives its own buffers: storage, transfer both ways, indirect.
pub const DEFAULT_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw()
        | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw(),
);

/// A buffer and its memory without an owner of the context: the building block of [`Buffer`] and of the
/// context's own bookkeeping buffers. Must be released with [`RawBuffer::destroy`].
pub(crate) struct RawBuffer {
    pub(crate) handle: vk::Buffer,
    pub(crate) allocation: Option<Allocation>,
    pub(crate) size: u64,
}

impl RawBuffer {
    pub(crate) fn new(
        ctx: &Context,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Self> {
        let size = size.max(4).next_multiple_of(4);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device; the buffer is destroyed in `destroy` (or below on failure).
        let handle = unsafe { ctx.device.create_buffer(&info, None) }.vk("vkCreateBuffer")?;
        let requirements = unsafe { ctx.device.get_buffer_memory_requirements(handle) };
        let alloc = ctx
            .allocator
            .lock()
            .unwrap()
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            });
        let allocation = match alloc {
            Ok(a) => a,
            Err(source) => {
                unsafe { ctx.device.destroy_buffer(handle, None) };
                return Err(Error::Allocation {
                    name: name.into(),
                    source,
                });
            }
        };
        // SAFETY: memory and offset come from the allocator for this buffer's requirements.
        if let Err(e) = unsafe {
            ctx.device
                .bind_buffer_memory(handle, allocation.memory(), allocation.offset())
        } {
            unsafe { ctx.device.destroy_buffer(handle, None) };
            let _ = ctx.allocator.lock().unwrap().free(allocation);
            return Err(Error::Vulkan {
                call: "vkBindBufferMemory",
                result: e,
            });
        }
        ctx.name(handle, name);
        Ok(Self {
            handle,
            allocation: Some(allocation),
            size,
        })
    }

    pub(crate) fn mapped(&self) -> Option<*mut u8> {
        self.allocation
            .as_ref()
            .and_then(|a| a.mapped_ptr())
            .map(|p| p.as_ptr() as *mut u8)
    }

    /// # Safety
    /// No pending GPU work may use the buffer. (After a timeout, [`Context::is_lost`], the buffer is leaked
    /// instead: the timed-out work may still use it.)
    pub(crate) unsafe fn destroy(&mut self, ctx: &Context) {
        if ctx.is_lost() {
            if let Some(a) = self.allocation.take() {
                std::mem::forget(a);
            }
            return;
        }
        ctx.device.destroy_buffer(self.handle, None);
        if let Some(a) = self.allocation.take() {
            let _ = ctx.allocator.lock().unwrap().free(a);
        }
    }
}

/// A buffer owned by vksort (or by a test or the CLI), freed on drop.
pub struct Buffer {
    ctx: Arc<Context>,
    raw: RawBuffer,
    usage: vk::BufferUsageFlags,
    name: String,
}

impl Buffer {
    /// Allocates `size` bytes (at least 4) named `name` with `usage` in `location`.
    pub fn new(
        ctx: &Arc<Context>,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Self> {
        let raw = RawBuffer::new(ctx, name, size, usage, location)?;
        Ok(Self {
            ctx: ctx.clone(),
            raw,
            usage,
            name: name.into(),
        })
    }

    /// A device-local buffer holding `data` (uploaded through a staging buffer where needed).
    pub fn from_slice<T: bytemuck::Pod>(
        ctx: &Arc<Context>,
        name: &str,
        data: &[T],
    ) -> Result<Self> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let buf = Self::new(
            ctx,
            name,
            bytes.len() as u64,
            ctx.default_usage(),
            MemoryLocation::GpuOnly,
        )?;
        buf.write(0, bytes)?;
        Ok(buf)
    }

    /// A device-local buffer of `size` bytes with [`Context::default_usage`].
    pub fn device_local(ctx: &Arc<Context>, name: &str, size: u64) -> Result<Self> {
        Self::new(
            ctx,
            name,
            size,
            ctx.default_usage(),
            MemoryLocation::GpuOnly,
        )
    }

    /// The whole buffer as a [`BufferRef`].
    pub fn as_ref(&self) -> BufferRef {
        BufferRef {
            buffer: self.raw.handle,
            offset: 0,
            size: self.raw.size,
            usage: self.usage,
        }
    }

    /// `[offset, offset + size)` of this buffer as a [`BufferRef`].
    pub fn slice(&self, offset: u64, size: u64) -> BufferRef {
        self.as_ref().slice(offset, size)
    }

    /// The Vulkan handle (valid while this `Buffer` lives).
    pub fn handle(&self) -> vk::Buffer {
        self.raw.handle
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.raw.size
    }

    /// The name given at creation (also the object's debug name).
    pub fn name(&self) -> &str {
        &self.name
    }

    fn mapped(&self) -> Option<*mut u8> {
        self.raw.mapped()
    }

    /// Writes `bytes` at `offset` (directly when host-visible, else through a staging buffer of at most
    /// [`STAGING_CHUNK`] bytes, one copy and bounded wait per chunk).
    pub fn write(&self, offset: u64, bytes: &[u8]) -> Result<()> {
        self.check_range("write target", offset, bytes.len() as u64)?;
        if bytes.is_empty() {
            return Ok(());
        }
        if let Some(p) = self.mapped() {
            // SAFETY: the mapping covers `size` bytes; bounds checked above; no GPU work uses it now (host form).
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.add(offset as usize), bytes.len())
            };
            return Ok(());
        }
        let staging = Buffer::new(
            &self.ctx,
            &format!("{}::staging_up", self.name),
            (bytes.len() as u64).min(STAGING_CHUNK),
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        for (k, chunk) in bytes.chunks(STAGING_CHUNK as usize).enumerate() {
            staging.write(0, chunk)?;
            let region = vk::BufferCopy {
                src_offset: 0,
                dst_offset: offset + k as u64 * STAGING_CHUNK,
                size: chunk.len() as u64,
            };
            copy_and_wait("vksort::upload", &staging, self, region)?;
        }
        Ok(())
    }

    /// Reads `len` bytes at `offset` (directly when host-visible, else through a staging copy).
    pub fn read(&self, offset: u64, len: u64) -> Result<Vec<u8>> {
        let mut out = vec![0u8; len as usize];
        self.read_into(offset, &mut out)?;
        Ok(out)
    }

    /// Reads `out.len()` bytes at `offset` into `out` (directly when host-visible, else through a staging
    /// buffer of at most [`STAGING_CHUNK`] bytes, one copy and bounded wait per chunk).
    pub fn read_into(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        let len = out.len() as u64;
        self.check_range("read source", offset, len)?;
        if len == 0 {
            return Ok(());
        }
        if let Some(p) = self.mapped() {
            // SAFETY: in bounds; the host form waited for the GPU before reading.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    p.add(offset as usize),
                    out.as_mut_ptr(),
                    len as usize,
                )
            };
            return Ok(());
        }
        let staging = Buffer::new(
            &self.ctx,
            &format!("{}::staging_down", self.name),
            len.min(STAGING_CHUNK),
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        for (k, chunk) in out.chunks_mut(STAGING_CHUNK as usize).enumerate() {
            let region = vk::BufferCopy {
                src_offset: offset + k as u64 * STAGING_CHUNK,
                dst_offset: 0,
                size: chunk.len() as u64,
            };
            copy_and_wait("vksort::download", self, &staging, region)?;
            let p = staging.mapped().expect("GpuToCpu staging memory is mapped");
            // SAFETY: the staging mapping covers STAGING_CHUNK >= chunk.len() bytes, and the wait above returned.
            let src = unsafe { std::slice::from_raw_parts(p as *const u8, chunk.len()) };
            par_copy(src, chunk);
        }
        Ok(())
    }

    /// `[offset, offset + len)` lies within the buffer, else [`Error::BufferTooSmall`] naming `what`.
    fn check_range(&self, what: &'static str, offset: u64, len: u64) -> Result<()> {
        if offset + len > self.raw.size {
            return Err(Error::BufferTooSmall {
                what,
                needed: offset + len,
                available: self.raw.size,
            });
        }
        Ok(())
    }

    /// Reads the first `count` elements of type `T`.
    pub fn read_vec<T: bytemuck::Pod>(&self, count: usize) -> Result<Vec<T>> {
        let mut out = vec![T::zeroed(); count];
        self.read_into(0, bytemuck::cast_slice_mut::<T, u8>(&mut out))?;
        Ok(out)
    }
}

/// Copies `region` from `src` to `dst` (buffers of one context) in a submission of its own, with its bounded wait.
fn copy_and_wait(label: &str, src: &Buffer, dst: &Buffer, region: vk::BufferCopy) -> Result<()> {
    src.ctx.submit(label, |rec| {
        // SAFETY: both buffers are alive until the submission's bounded wait returns.
        unsafe {
            src.ctx
                .device
                .cmd_copy_buffer(rec.cmd(), src.raw.handle, dst.raw.handle, &[region])
        };
        Ok(())
    })
}

/// `dst.copy_from_slice(src)` on up to 8 host threads for large copies: a staging chunk of 64 MiB took 13 ms
/// to copy on one thread of the H200 host (5 GB/s), against 25 ms for the GPU's copy into it.
fn par_copy(src: &[u8], dst: &mut [u8]) {
    const PART: usize = 8 << 20;
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(8);
    if threads <= 1 || dst.len() <= PART {
        dst.copy_from_slice(src);
        return;
    }
    let step = dst.len().div_ceil(threads).max(PART);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(step).zip(src.chunks(step)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: host forms wait for their GPU work before returning, so nothing uses the buffer any more.
        unsafe { self.raw.destroy(&self.ctx) };
    }
}
