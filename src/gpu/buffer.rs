//! Buffers: vksort's own ([`Buffer`], allocated through gpu-allocator, named, freed on drop) and regions of
//! them or of a caller's ([`BufferRef`]). Every primitive checks each region with [`BufferRef::check`] before
//! it records anything; the handle's validity is the caller's promise.

use super::Context;
use crate::error::{Error, Result, VkContext};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use std::marker::PhantomData;
use std::sync::Arc;

/// The size of the allocator's blocks of host-visible memory (the context's `AllocationSizes`).
pub(crate) const HOST_BLOCK: u64 = 64 << 20;

/// The largest staging buffer (larger transfers go in chunks, a submission each): short of a host block, which
/// must also hold each submission's small host buffers (docs/tuning.md, "Staging chunks").
pub const STAGING_CHUNK: u64 = HOST_BLOCK - HOST_BLOCK / 8;

/// Where a [`Buffer`]'s memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryLocation {
    /// Device-local memory, not mapped (uploads and readbacks go through staging buffers).
    GpuOnly,
    /// Host-visible memory the CPU writes and the GPU reads (uploads, per-frame parameters).
    CpuToGpu,
    /// Host-visible, cached memory the GPU writes and the CPU reads (readbacks).
    GpuToCpu,
}

impl From<MemoryLocation> for gpu_allocator::MemoryLocation {
    fn from(l: MemoryLocation) -> Self {
        match l {
            MemoryLocation::GpuOnly => gpu_allocator::MemoryLocation::GpuOnly,
            MemoryLocation::CpuToGpu => gpu_allocator::MemoryLocation::CpuToGpu,
            MemoryLocation::GpuToCpu => gpu_allocator::MemoryLocation::GpuToCpu,
        }
    }
}

/// A region of a buffer that a vksort command reads or writes: a [`Buffer`]'s ([`Buffer::as_ref`],
/// [`Buffer::slice`], borrowing it) or a renderer's ([`BufferRef::from_raw`], an `unsafe fn`). Every command
/// checks it before recording ([`Error::NullBuffer`], [`Error::MissingUsage`], [`Error::Misaligned`],
/// [`Error::BufferTooSmall`], [`Error::WrongContext`], [`Error::Overlap`]). The borrow ends when the region
/// drops, not when the GPU is done: keep the [`Buffer`] alive until the command buffer has completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferRef<'a> {
    region: Region,
    _buffer: PhantomData<&'a Buffer>,
}

impl<'a> BufferRef<'a> {
    /// A region `[offset, offset + size)` of a buffer vksort did not allocate, created with `usage`.
    ///
    /// # Safety
    /// The caller promises that `buffer` is a buffer of the device of every [`Context`] it is used with (not
    /// destroyed, its memory bound and not freed), created with at least `usage`, that `[offset, offset +
    /// size)` lies within it, and that it stays so until the GPU has finished every command buffer recorded
    /// with this region. vksort checks everything else before recording.
    pub unsafe fn from_raw(
        buffer: vk::Buffer,
        offset: u64,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> BufferRef<'static> {
        BufferRef {
            region: Region {
                buffer,
                offset,
                size,
                usage,
                owner: 0,
            },
            _buffer: PhantomData,
        }
    }

    /// The sub-region `[offset, offset + size)` of this region, clamped to it.
    pub fn slice(&self, offset: u64, size: u64) -> BufferRef<'a> {
        BufferRef {
            region: self.region.slice(offset, size),
            _buffer: PhantomData,
        }
    }

    /// The Vulkan buffer handle.
    pub fn buffer(&self) -> vk::Buffer {
        self.region.buffer
    }

    /// Byte offset of the region in its buffer.
    pub fn offset(&self) -> u64 {
        self.region.offset
    }

    /// Byte size of the region.
    pub fn size(&self) -> u64 {
        self.region.size
    }

    /// The usage flags the buffer was created with.
    pub fn usage(&self) -> vk::BufferUsageFlags {
        self.region.usage
    }

    /// The crate-internal form (what the passes bind).
    pub(crate) fn region(&self) -> Region {
        self.region
    }
}

/// The crate-internal form of a [`BufferRef`]: handle, byte range, usage and the allocating context (`owner`,
/// 0 for a renderer's buffer). Only [`BufferRef`] crosses the public boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Region {
    pub(crate) buffer: vk::Buffer,
    pub(crate) offset: u64,
    pub(crate) size: u64,
    pub(crate) usage: vk::BufferUsageFlags,
    /// [`Context::id`] of the context whose [`Buffer`] this lies in; 0: a renderer's buffer (unknown).
    pub(crate) owner: u64,
}

impl Region {
    /// A sub-region `[offset, offset + size)` relative to this region (clamped to it).
    pub(crate) fn slice(&self, offset: u64, size: u64) -> Region {
        let offset = offset.min(self.size);
        Region {
            offset: self.offset + offset,
            size: size.min(self.size - offset),
            ..*self
        }
    }

    /// Checks that the region holds `needed` bytes, has `usage`, is aligned for storage-buffer binding and
    /// belongs to `ctx` when vksort allocated it.
    pub(crate) fn check(
        &self,
        ctx: &Context,
        what: &'static str,
        needed: u64,
        usage: vk::BufferUsageFlags,
    ) -> Result<()> {
        if self.buffer == vk::Buffer::null() && needed > 0 {
            return Err(Error::NullBuffer { what });
        }
        if self.owner != 0 && self.owner != ctx.id {
            return Err(Error::WrongContext { what });
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

/// Fails with [`Error::Overlap`] when two of `regions` (name, region, bytes the operation touches from its
/// offset) share a byte of one buffer. Regions of zero bytes overlap nothing.
pub(crate) fn check_disjoint(regions: &[(&'static str, Region, u64)]) -> Result<()> {
    for (i, &(a, ra, na)) in regions.iter().enumerate() {
        for &(b, rb, nb) in &regions[i + 1..] {
            if ra.buffer != rb.buffer || ra.buffer == vk::Buffer::null() || na == 0 || nb == 0 {
                continue;
            }
            let (a0, b0) = (ra.offset, rb.offset);
            let (a1, b1) = (a0.saturating_add(na), b0.saturating_add(nb));
            if a0 < b1 && b0 < a1 {
                return Err(Error::Overlap { a, b });
            }
        }
    }
    Ok(())
}

/// The usage flags vksort gives its own buffers: storage, transfer both ways, indirect.
pub const DEFAULT_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw()
        | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw(),
);

/// A buffer and its memory without an owner: the building block of [`Buffer`] and of the context's own
/// bookkeeping buffers. Must be released with [`RawBuffer::destroy`].
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
                location: location.into(),
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            });
        let allocation = match alloc {
            Ok(a) => a,
            Err(source) => {
                unsafe { ctx.device.destroy_buffer(handle, None) };
                return Err(Error::Allocation {
                    name: name.into(),
                    reason: source.to_string(),
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
    /// No pending GPU work may use the buffer (after a timeout it is leaked instead).
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

    /// The whole buffer as a [`BufferRef`] (borrowing the buffer).
    pub fn as_ref(&self) -> BufferRef<'_> {
        BufferRef {
            region: Region {
                buffer: self.raw.handle,
                offset: 0,
                size: self.raw.size,
                usage: self.usage,
                owner: self.ctx.id,
            },
            _buffer: PhantomData,
        }
    }

    /// `[offset, offset + size)` of this buffer as a [`BufferRef`], clamped to the buffer.
    pub fn slice(&self, offset: u64, size: u64) -> BufferRef<'_> {
        self.as_ref().slice(offset, size)
    }

    /// The device address of the buffer's first byte (diagnostics); [`Error::Unsupported`] without
    /// `bufferDeviceAddress`.
    #[cfg(feature = "diagnostics")]
    pub fn device_address(&self) -> Result<u64> {
        self.ctx.buffer_address("buffer", &self.as_ref().region())
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

    /// The mapping of a host-visible staging buffer (gpu-allocator maps every one; an error, not a panic).
    fn mapped_or_error(&self) -> Result<*mut u8> {
        self.mapped().ok_or_else(|| Error::Allocation {
            name: self.name.clone(),
            reason: "host-visible memory was not mapped".into(),
        })
    }

    /// Writes `bytes` at `offset` (directly when host-visible, else through staging chunks).
    pub fn write(&self, offset: u64, bytes: &[u8]) -> Result<()> {
        self.write_through(offset, bytes, self.mapped())
    }

    /// [`Buffer::write`] through staging chunks even where the buffer is mapped (tests on CPU drivers).
    #[cfg(feature = "diagnostics")]
    pub fn write_staged(&self, offset: u64, bytes: &[u8]) -> Result<()> {
        self.write_through(offset, bytes, None)
    }

    fn write_through(&self, offset: u64, bytes: &[u8], mapped: Option<*mut u8>) -> Result<()> {
        self.check_range("write target", offset, bytes.len() as u64)?;
        if bytes.is_empty() {
            return Ok(());
        }
        if let Some(p) = mapped {
            // SAFETY: the mapping covers `size` bytes; bounds checked above; no GPU work uses it now (host form).
            let dst =
                unsafe { std::slice::from_raw_parts_mut(p.add(offset as usize), bytes.len()) };
            par_copy(bytes, dst);
            return Ok(());
        }
        let staging = Buffer::new(
            &self.ctx,
            &format!("{}::staging_up", self.name),
            (bytes.len() as u64).min(STAGING_CHUNK),
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
        )?;
        let p = staging.mapped_or_error()?;
        for (k, chunk) in bytes.chunks(STAGING_CHUNK as usize).enumerate() {
            // SAFETY: the mapping covers STAGING_CHUNK >= chunk.len() bytes; the last copy from it has waited.
            let dst = unsafe { std::slice::from_raw_parts_mut(p, chunk.len()) };
            par_copy(chunk, dst);
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

    /// Reads `out.len()` bytes at `offset` into `out` (directly when host-visible, else through staging chunks).
    pub fn read_into(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        self.read_through(offset, out, self.mapped())
    }

    /// [`Buffer::read_into`] through staging chunks even where the buffer is mapped (tests on CPU drivers).
    #[cfg(feature = "diagnostics")]
    pub fn read_staged_into(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        self.read_through(offset, out, None)
    }

    fn read_through(&self, offset: u64, out: &mut [u8], mapped: Option<*mut u8>) -> Result<()> {
        let len = out.len() as u64;
        self.check_range("read source", offset, len)?;
        if len == 0 {
            return Ok(());
        }
        if let Some(p) = mapped {
            // SAFETY: in bounds; the host form waited for the GPU before reading.
            let src = unsafe { std::slice::from_raw_parts(p.add(offset as usize), out.len()) };
            par_copy(src, out);
            return Ok(());
        }
        let staging = Buffer::new(
            &self.ctx,
            &format!("{}::staging_down", self.name),
            len.min(STAGING_CHUNK),
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let p = staging.mapped_or_error()?;
        for (k, chunk) in out.chunks_mut(STAGING_CHUNK as usize).enumerate() {
            let region = vk::BufferCopy {
                src_offset: offset + k as u64 * STAGING_CHUNK,
                dst_offset: 0,
                size: chunk.len() as u64,
            };
            copy_and_wait("vksort::download", self, &staging, region)?;
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

/// `dst.copy_from_slice(src)` on up to 8 host threads for large copies (docs/tuning.md, "Staging chunks").
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
