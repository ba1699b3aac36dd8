//! Host submission: the context's one command buffer recorded, submitted and waited on with a bound, with
//! breadcrumbs that name the last pass the GPU started when a wait runs out.

use super::buffer::RawBuffer;
use super::context::CommandSlot;
use super::recorder::{Crumbs, CRUMB_SLOTS};
#[cfg(doc)]
use super::BufferRef;
use super::{Context, MemoryLocation, Profiler, Recorder};
use crate::error::{Error, Result, VkContext};
use ash::vk;
use std::sync::MutexGuard;

impl Context {
    /// The host form's engine: records `f` into the context's own command buffer between full memory
    /// barriers, submits it and waits at most [`Context::wait_timeout`]; one at a time per context. The
    /// [`BufferRef`]s `f` records with stay valid until it returns. On [`Error::Timeout`] the buffer may still
    /// run: the context is then lost ([`Context::is_lost`]) and leaks what the late work may use.
    pub fn submit(&self, label: &str, f: impl FnOnce(&mut Recorder) -> Result<()>) -> Result<()> {
        self.submit_profiled(label, None, f)
    }

    /// [`Context::submit`] with a profiler attached; the profiler's timestamps are ready when this returns.
    pub fn submit_profiled(
        &self,
        label: &str,
        profiler: Option<&mut Profiler>,
        f: impl FnOnce(&mut Recorder) -> Result<()>,
    ) -> Result<()> {
        self.submit_inner(label, profiler, true, f)
    }

    /// [`Context::submit_profiled`] without breadcrumbs (no fill before each pass), for timed runs; a timeout
    /// then names no last pass.
    pub fn submit_timed(
        &self,
        label: &str,
        profiler: Option<&mut Profiler>,
        f: impl FnOnce(&mut Recorder) -> Result<()>,
    ) -> Result<()> {
        self.submit_inner(label, profiler, false, f)
    }

    fn submit_inner(
        &self,
        label: &str,
        profiler: Option<&mut Profiler>,
        breadcrumbs: bool,
        f: impl FnOnce(&mut Recorder) -> Result<()>,
    ) -> Result<()> {
        if self.is_lost() {
            return Err(Error::DeviceLost {
                last_pass: "(none: an earlier submission timed out or lost the device)".into(),
            });
        }
        let mut crumb_buf = RawBuffer::new(
            self,
            "vksort::breadcrumbs",
            if breadcrumbs { CRUMB_SLOTS * 4 } else { 4 },
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let sub = match Submission::start(self, label) {
            Ok(sub) => sub,
            Err(e) => {
                // SAFETY: nothing was recorded with the crumbs.
                unsafe { crumb_buf.destroy(self) };
                return Err(e);
            }
        };
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the buffer is not pending (the last wait on it returned) and its pool allows resets.
        if let Err(e) = unsafe { self.device.begin_command_buffer(sub.cmd, &begin) } {
            sub.end(true);
            // SAFETY: nothing was recorded with the crumbs.
            unsafe { crumb_buf.destroy(self) };
            return Err(Error::Vulkan {
                call: "vkBeginCommandBuffer",
                result: e,
            });
        }
        let crumbs = Crumbs {
            buffer: crumb_buf,
            labels: Vec::new(),
            active: breadcrumbs,
        };
        let (recorded, mut crumbs) = self.record(&sub, label, profiler, crumbs, f);
        // SAFETY: the buffer is in the recording state (begun above).
        let ended = unsafe { self.device.end_command_buffer(sub.cmd) }.vk("vkEndCommandBuffer");
        if let Err(e) = recorded.and(ended).and_then(|()| sub.queue()) {
            sub.end(true);
            // SAFETY: nothing of the crumbs was submitted.
            unsafe { crumbs.buffer.destroy(self) };
            return Err(e);
        }
        self.wait(sub, crumbs)
    }

    /// Records `f` into the begun buffer between full memory barriers; returns its result and the crumbs.
    fn record(
        &self,
        sub: &Submission,
        label: &str,
        profiler: Option<&mut Profiler>,
        crumbs: Crumbs,
        f: impl FnOnce(&mut Recorder) -> Result<()>,
    ) -> (Result<()>, Crumbs) {
        let (dev, cmd) = (&self.device, sub.cmd);
        if crumbs.active {
            // Slots of passes that never start must read 0 after a timeout (the allocation is not zeroed).
            // SAFETY: recording state; the buffer outlives the submission's wait.
            unsafe { dev.cmd_fill_buffer(cmd, crumbs.buffer.handle, 0, CRUMB_SLOTS * 4, 0) };
        }
        sub.barrier(
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
        );
        // `Recorder::new`'s promises hold by construction: `cmd` is this device's, from the context's compute
        // pool, recording until ended after `rec` drops, only on this thread (the pool is locked); the context
        // and profiler are borrowed until the wait returns. The full barrier above orders all earlier work.
        let mut rec = Recorder {
            ctx: self,
            cmd,
            profiler,
            crumbs: Some(crumbs),
            ordered: true,
        };
        if let Some(p) = rec.profiler.as_deref_mut() {
            // SAFETY: as above; the profiler's pool is of this device (`Profiler::new` takes the context).
            unsafe { p.begin(dev, cmd) };
        }
        let recorded = rec.scope(label, f);
        let crumbs = rec.crumbs.take().unwrap();
        drop(rec);
        sub.barrier(
            vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::HOST_READ
                | vk::AccessFlags::MEMORY_READ
                | vk::AccessFlags::MEMORY_WRITE,
        );
        (recorded, crumbs)
    }

    /// Waits for the submitted `sub` at most [`Context::wait_timeout`]. After a timeout or device loss the
    /// context is lost, and the buffer, fence and crumbs are leaked: the late work may still use them.
    fn wait(&self, sub: Submission, mut crumbs: Crumbs) -> Result<()> {
        let timeout_ns = self.wait_timeout.as_nanos().min(u64::MAX as u128) as u64;
        // SAFETY: the fence belongs to this device; the wait is bounded.
        match unsafe { self.device.wait_for_fences(&[sub.fence], true, timeout_ns) } {
            Ok(()) => {
                sub.end(false);
                // SAFETY: the GPU is done with the crumbs.
                unsafe { crumbs.buffer.destroy(self) };
                Ok(())
            }
            Err(vk::Result::TIMEOUT) => {
                self.mark_lost();
                Err(Error::Timeout {
                    timeout: self.wait_timeout,
                    last_pass: last_crumb(&crumbs),
                })
            }
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                self.mark_lost();
                Err(Error::DeviceLost {
                    last_pass: last_crumb(&crumbs),
                })
            }
            Err(e) => {
                self.mark_lost();
                Err(Error::Vulkan {
                    call: "vkWaitForFences",
                    result: e,
                })
            }
        }
    }
}

/// A host submission: the context's command buffer (its slot locked throughout) and a fence.
struct Submission<'c> {
    ctx: &'c Context,
    slot: MutexGuard<'c, CommandSlot>,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
}

impl<'c> Submission<'c> {
    /// Locks the context's command slot (allocating its buffer on first use) and creates a fence.
    fn start(ctx: &'c Context, label: &str) -> Result<Self> {
        let dev = &ctx.device;
        let mut slot = ctx.commands.lock().unwrap();
        let cmd = match slot.cmd {
            Some(cmd) => cmd,
            None => {
                let alloc = vk::CommandBufferAllocateInfo::default()
                    .command_pool(slot.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1);
                // SAFETY: the pool is locked for the whole recording and submission.
                let cmd = unsafe { dev.allocate_command_buffers(&alloc) }
                    .vk("vkAllocateCommandBuffers")?[0];
                slot.cmd = Some(cmd);
                cmd
            }
        };
        ctx.name(cmd, label);
        let fence = unsafe { dev.create_fence(&vk::FenceCreateInfo::default(), None) }
            .vk("vkCreateFence")?;
        Ok(Self {
            ctx,
            slot,
            cmd,
            fence,
        })
    }

    /// A memory barrier from every command's writes to `dst`'s `access`.
    fn barrier(&self, dst: vk::PipelineStageFlags, access: vk::AccessFlags) {
        let mb = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
            .dst_access_mask(access);
        let src = vk::PipelineStageFlags::ALL_COMMANDS;
        let none = vk::DependencyFlags::empty();
        // SAFETY: the buffer is in the recording state.
        unsafe {
            (self.ctx.device).cmd_pipeline_barrier(self.cmd, src, dst, none, &[mb], &[], &[])
        };
    }

    /// Submits the ended buffer. A lost device marks the context lost.
    fn queue(&self) -> Result<()> {
        let cmds = [self.cmd];
        let submit = vk::SubmitInfo::default().command_buffers(&cmds);
        let queue = self.ctx.queue.lock().unwrap();
        // SAFETY: the queue is locked; the buffer and fence are this device's.
        match unsafe { self.ctx.device.queue_submit(*queue, &[submit], self.fence) } {
            Ok(()) => Ok(()),
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                self.ctx.mark_lost();
                Err(Error::DeviceLost {
                    last_pass: "(none: submission failed)".into(),
                })
            }
            Err(e) => Err(Error::Vulkan {
                call: "vkQueueSubmit",
                result: e,
            }),
        }
    }

    /// Destroys the fence; after a failure also frees the buffer, so nothing of it carries over.
    fn end(mut self, failed: bool) {
        let dev = &self.ctx.device;
        // SAFETY: the buffer is not pending (never submitted, or its wait returned) and the pool is locked.
        unsafe {
            if failed {
                dev.free_command_buffers(self.slot.pool, &[self.cmd]);
                self.slot.cmd = None;
            }
            dev.destroy_fence(self.fence, None);
        }
    }
}

fn last_crumb(c: &Crumbs) -> String {
    if !c.active {
        return "(not tracked in timed runs)".into();
    }
    let n = c.labels.len();
    let Some(p) = c.buffer.mapped() else {
        return "(unknown)".into();
    };
    // SAFETY: the mapping covers CRUMB_SLOTS u32s and n <= CRUMB_SLOTS; the values are read racily on purpose
    // (the GPU may still write them), which is harmless for u32 flags.
    let v: Vec<u32> = (0..n)
        .map(|i| unsafe { std::ptr::read_volatile((p as *const u32).add(i)) })
        .collect();
    match v.iter().rposition(|&x| x != 0) {
        Some(i) => c.labels[i].clone(),
        None if n == 0 => "(no pass recorded)".into(),
        None => "(none started)".into(),
    }
}
