//! Recording passes into a command buffer: labels, push descriptors, push constants, dispatches, barriers,
//! timestamps; and the host form's one-shot submission with a bounded wait.
//!
//! Barrier contract of every vksort `cmd_*` primitive (recorded through a [`Recorder`]):
//! - Before: the caller owes a barrier that makes its writes to the input buffers (and the count buffer)
//!   visible to `COMPUTE_SHADER` reads (`SHADER_READ`), and that orders any earlier use of the output and
//!   scratch buffers before `COMPUTE_SHADER` / `TRANSFER` writes.
//! - Between its own dispatches vksort records [`Recorder::barrier`]: a global memory barrier from
//!   `COMPUTE_SHADER | TRANSFER` writes to `COMPUTE_SHADER | TRANSFER | DRAW_INDIRECT` reads and writes.
//! - After: the caller owes a barrier from `COMPUTE_SHADER` writes (`SHADER_WRITE`) to whatever reads the
//!   results (vertex shaders, transfers, host).
//! - State overwritten: the bound compute pipeline, compute push constants and the push descriptor set 0 of
//!   the bound layout. Graphics state is untouched. Labels are balanced; timestamps go to the caller's
//!   [`Profiler`] only when one is attached.

use super::buffer::RawBuffer;
use super::{BufferRef, Context, Kernel, MemoryLocation, Profiler, Region};
use crate::error::{Error, Result, VkContext};
use ash::vk;

/// Breadcrumbs of a host submission: one u32 slot per pass, filled with 1 right before the pass starts (after
/// the barrier that waits for the previous pass). After a timeout or device loss, the highest filled slot names
/// the last pass the GPU started.
struct Crumbs {
    buffer: RawBuffer,
    labels: Vec<String>,
    /// False for [`Context::submit_timed`]: no fills, and a timeout names no pass.
    active: bool,
}

const CRUMB_SLOTS: u64 = 4096;

/// Records vksort passes into one command buffer.
pub struct Recorder<'a> {
    ctx: &'a Context,
    cmd: vk::CommandBuffer,
    profiler: Option<&'a mut Profiler>,
    crumbs: Option<Crumbs>,
}

impl<'a> Recorder<'a> {
    /// A recorder for the caller's command buffer `cmd` (the renderer's frame, typically). vksort records into
    /// it and never begins, ends, submits or resets it.
    ///
    /// # Safety
    /// The caller promises that:
    /// - `cmd` is a primary or secondary command buffer of `ctx`'s device, allocated from a pool of a queue
    ///   family with compute support, and in the recording state from now until the recorder is dropped (not
    ///   ended, reset or freed meanwhile);
    /// - nothing else records into `cmd`, or uses its command pool, from another thread while the recorder
    ///   lives (Vulkan requires external synchronization of both);
    /// - every buffer recorded with is a live buffer of that device (regions of vksort's [`crate::Buffer`]s are;
    ///   [`BufferRef::from_raw`] states the promise for a renderer's), and the
    ///   buffers, `ctx` (whose pipelines and layouts the commands use) and an attached [`Profiler`] (whose query
    ///   pool they write) stay alive until the GPU has finished executing `cmd`, or until `cmd` is reset or
    ///   freed without being submitted.
    ///
    /// vksort checks sizes, offsets and the usage flags the caller states, but cannot check handles.
    pub unsafe fn new(ctx: &'a Context, cmd: vk::CommandBuffer) -> Self {
        Self {
            ctx,
            cmd,
            profiler: None,
            crumbs: None,
        }
    }

    /// A recorder that writes no command: every pass is planned (its kernel built, its bindings and push
    /// constants checked against the shader) but nothing is recorded. Sorters record through it once when they
    /// are created, so that a later recording finds every pipeline built.
    pub(crate) fn planning(ctx: &'a Context) -> Self {
        Self {
            ctx,
            cmd: vk::CommandBuffer::null(),
            profiler: None,
            crumbs: None,
        }
    }

    /// Whether this recorder records nothing: the planning recorder sorters record through once when they are
    /// created, to build every pipeline ahead of time.
    pub(crate) fn is_planning(&self) -> bool {
        self.cmd == vk::CommandBuffer::null()
    }

    /// Attaches a profiler: every pass then writes a timestamp. Call [`Profiler::begin`] on the same command
    /// buffer first (the host forms do it themselves); without it [`Profiler::results`] fails with
    /// [`Error::ProfilerOverflow`].
    pub fn with_profiler(mut self, profiler: &'a mut Profiler) -> Self {
        self.profiler = Some(profiler);
        self
    }

    /// The context the passes run on.
    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }

    /// The command buffer recorded into (`VK_NULL_HANDLE` for a planning recorder).
    pub fn cmd(&self) -> vk::CommandBuffer {
        self.cmd
    }

    /// Runs `f` inside a debug label region `label`.
    pub fn scope<T>(&mut self, label: &str, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.is_planning() {
            return f(self);
        }
        if let Some(d) = &self.ctx.debug {
            d.begin_label(self.cmd, label);
        }
        let r = f(self);
        if let Some(d) = &self.ctx.debug {
            d.end_label(self.cmd);
        }
        r
    }

    fn before_pass(&mut self, label: &str) {
        if let Some(c) = self.crumbs.as_mut().filter(|c| c.active) {
            let slot = c.labels.len() as u64;
            if slot < CRUMB_SLOTS {
                c.labels.push(label.to_string());
                // SAFETY: slot in bounds; the crumb buffer outlives the submission's wait.
                unsafe {
                    self.ctx
                        .device
                        .cmd_fill_buffer(self.cmd, c.buffer.handle, slot * 4, 4, 1)
                };
            }
        }
        if let Some(d) = &self.ctx.debug {
            d.begin_label(self.cmd, label);
        }
    }

    fn after_pass(&mut self, label: &str) {
        if let Some(d) = &self.ctx.debug {
            d.end_label(self.cmd);
        }
        if let Some(p) = self.profiler.as_deref_mut() {
            p.mark(&self.ctx.device, self.cmd, label, false);
        }
    }

    /// With a per-run profiler ([`Profiler::per_run`]) attached: writes a stamp that ends the span `label` (all
    /// the work recorded since the previous stamp). Does nothing otherwise.
    pub fn stamp(&mut self, label: &str) {
        if let Some(p) = self.profiler.as_deref_mut() {
            p.mark(&self.ctx.device, self.cmd, label, true);
        }
    }

    fn bind(&mut self, kernel: &Kernel, bindings: &[Region], push: &[u8]) -> Result<()> {
        if bindings.len() != kernel.interface.bindings.len() {
            return Err(Error::Shader {
                name: kernel.name.clone(),
                what: format!(
                    "{} bindings given, shader declares {}",
                    bindings.len(),
                    kernel.interface.bindings.len()
                ),
            });
        }
        if push.len() as u32 != kernel.interface.push_constant_size {
            return Err(Error::Shader {
                name: kernel.name.clone(),
                what: format!(
                    "{} push-constant bytes given, shader declares {}",
                    push.len(),
                    kernel.interface.push_constant_size
                ),
            });
        }
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> =
            bindings.iter().map(|b| [b.descriptor()]).collect();
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .enumerate()
            .map(|(i, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_binding(i as u32)
                    .descriptor_type(kernel.interface.bindings[i])
                    .buffer_info(info)
            })
            .collect();
        if self.is_planning() {
            return Ok(());
        }
        let dev = &self.ctx.device;
        // SAFETY: `cmd` is recording (caller's contract); the kernel lives in the context's cache.
        unsafe {
            dev.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, kernel.pipeline);
            if !writes.is_empty() {
                self.ctx.push_descriptor.cmd_push_descriptor_set(
                    self.cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    kernel.layout,
                    0,
                    &writes,
                );
            }
            if !push.is_empty() {
                dev.cmd_push_constants(
                    self.cmd,
                    kernel.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    push,
                );
            }
        }
        Ok(())
    }

    /// The (x, y) grid that covers `groups` workgroups within `maxComputeWorkGroupCount`. Shaders take the
    /// linear id from `flat_group_id()` and ignore ids at or above the count they are given.
    pub(crate) fn grid(&self, groups: u32) -> [u32; 2] {
        let max_x = self.ctx.caps.max_workgroup_count[0].max(1);
        let x = groups.clamp(1, max_x);
        [x, groups.div_ceil(x).max(1)]
    }

    /// Records pass `label`: binds `kernel` with `bindings` (set 0, in binding order) and the push constants
    /// `push`, and dispatches `groups` workgroups (nothing when 0).
    pub(crate) fn dispatch<P: bytemuck::Pod>(
        &mut self,
        label: &str,
        kernel: &Kernel,
        bindings: &[Region],
        push: &P,
        groups: u32,
    ) -> Result<()> {
        self.dispatch_bytes(label, kernel, bindings, bytemuck::bytes_of(push), groups)
    }

    /// [`Recorder::dispatch`] with the push constants as bytes (the pass builder's form).
    pub(crate) fn dispatch_bytes(
        &mut self,
        label: &str,
        kernel: &Kernel,
        bindings: &[Region],
        push: &[u8],
        groups: u32,
    ) -> Result<()> {
        if groups == 0 {
            return Ok(());
        }
        let [x, y] = self.grid(groups);
        if y > self.ctx.caps.max_workgroup_count[1] {
            let caps = &self.ctx.caps;
            return Err(Error::GridTooLarge {
                groups: groups as u64,
                max: caps.max_workgroup_count[0].max(1) as u64 * caps.max_workgroup_count[1] as u64,
            });
        }
        self.bind(kernel, bindings, push)?;
        if self.is_planning() {
            return Ok(());
        }
        self.before_pass(label);
        // SAFETY: pipeline and descriptors bound above.
        unsafe { self.ctx.device.cmd_dispatch(self.cmd, x, y, 1) };
        self.after_pass(label);
        Ok(())
    }

    /// Records pass `label` with the group counts read from `args` (a `VkDispatchIndirectCommand`, which needs
    /// `INDIRECT_BUFFER` usage and was written before the last [`Recorder::barrier`]).
    pub(crate) fn dispatch_indirect<P: bytemuck::Pod>(
        &mut self,
        label: &str,
        kernel: &Kernel,
        bindings: &[Region],
        push: &P,
        args: Region,
    ) -> Result<()> {
        self.dispatch_indirect_bytes(label, kernel, bindings, bytemuck::bytes_of(push), args)
    }

    /// [`Recorder::dispatch_indirect`] with the push constants as bytes (the pass builder's form).
    pub(crate) fn dispatch_indirect_bytes(
        &mut self,
        label: &str,
        kernel: &Kernel,
        bindings: &[Region],
        push: &[u8],
        args: Region,
    ) -> Result<()> {
        args.check(
            self.ctx,
            "indirect arguments",
            12,
            vk::BufferUsageFlags::INDIRECT_BUFFER,
        )?;
        self.bind(kernel, bindings, push)?;
        if self.is_planning() {
            return Ok(());
        }
        self.before_pass(label);
        // SAFETY: bound above; `args` checked.
        unsafe {
            self.ctx
                .device
                .cmd_dispatch_indirect(self.cmd, args.buffer, args.offset)
        };
        self.after_pass(label);
        Ok(())
    }

    /// The barrier vksort records between its own passes (see the module docs).
    pub fn barrier(&mut self) {
        if self.is_planning() {
            return;
        }
        let mb = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::INDIRECT_COMMAND_READ
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE,
            );
        // SAFETY: recording state.
        unsafe {
            self.ctx.device.cmd_pipeline_barrier(
                self.cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::COMPUTE_SHADER
                    | vk::PipelineStageFlags::TRANSFER
                    | vk::PipelineStageFlags::DRAW_INDIRECT,
                vk::DependencyFlags::empty(),
                &[mb],
                &[],
                &[],
            )
        };
    }

    /// Fills `region` (its size rounded down to a multiple of 4) with `value` by `vkCmdFillBuffer` (the buffer
    /// needs `TRANSFER_DST` usage). Follow it with [`Recorder::barrier`] before a pass reads the region.
    pub fn fill(&mut self, label: &str, region: BufferRef<'_>, value: u32) -> Result<()> {
        self.fill_region(label, region.region(), value)
    }

    /// Copies `size` bytes from `src` to `dst` with `vkCmdCopyBuffer` (the buffers need `TRANSFER_SRC` and
    /// `TRANSFER_DST` usage; the two ranges may not overlap: [`crate::Error::Overlap`]).
    pub fn copy(
        &mut self,
        label: &str,
        src: BufferRef<'_>,
        dst: BufferRef<'_>,
        size: u64,
    ) -> Result<()> {
        self.copy_region(label, src.region(), dst.region(), size)
    }

    pub(crate) fn fill_region(&mut self, label: &str, region: Region, value: u32) -> Result<()> {
        if region.size == 0 {
            return Ok(());
        }
        region.check(
            self.ctx,
            "fill target",
            region.size,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        if self.is_planning() {
            return Ok(());
        }
        self.before_pass(label);
        // SAFETY: checked region; recording state.
        unsafe {
            self.ctx.device.cmd_fill_buffer(
                self.cmd,
                region.buffer,
                region.offset,
                region.size & !3,
                value,
            )
        };
        self.after_pass(label);
        Ok(())
    }

    pub(crate) fn copy_region(
        &mut self,
        label: &str,
        src: Region,
        dst: Region,
        size: u64,
    ) -> Result<()> {
        if size == 0 {
            return Ok(());
        }
        src.check(
            self.ctx,
            "copy source",
            size,
            vk::BufferUsageFlags::TRANSFER_SRC,
        )?;
        dst.check(
            self.ctx,
            "copy target",
            size,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        super::check_disjoint(&[("copy source", src, size), ("copy target", dst, size)])?;
        if self.is_planning() {
            return Ok(());
        }
        self.before_pass(label);
        let region = vk::BufferCopy {
            src_offset: src.offset,
            dst_offset: dst.offset,
            size,
        };
        // SAFETY: checked regions.
        unsafe {
            self.ctx
                .device
                .cmd_copy_buffer(self.cmd, src.buffer, dst.buffer, &[region])
        };
        self.after_pass(label);
        Ok(())
    }
}

impl Context {
    /// The host form's engine: records `f` into the context's own command buffer (between full memory
    /// barriers), submits it, and waits at most [`Context::wait_timeout`]. `label` names the submission in
    /// captures. One host-form submission runs at a time per context.
    ///
    /// The command buffer is vksort's own, so this is a safe function; the [`BufferRef`]s that `f` records
    /// with must stay valid until this call returns (a [`crate::Buffer`]'s region borrows it; a raw one
    /// carries [`BufferRef::from_raw`]'s promise). On
    /// [`Error::Timeout`] the command buffer may still run: the context is then lost ([`Context::is_lost`]),
    /// frees no buffer any more (they are leaked, so the late work never touches freed memory) and refuses
    /// further host-form work.
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

    /// [`Context::submit_profiled`] without breadcrumbs (no fill command before each pass): for timed
    /// benchmark runs, whose work a probe run with breadcrumbs has already exercised. A timeout then names no
    /// last pass.
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
        let dev = &self.device;
        let crumb_buf = RawBuffer::new(
            self,
            "vksort::breadcrumbs",
            if breadcrumbs { CRUMB_SLOTS * 4 } else { 4 },
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
        )?;
        let mut slot = self.commands.lock().unwrap();
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
        self.name(cmd, label);
        let fence = unsafe { dev.create_fence(&vk::FenceCreateInfo::default(), None) }
            .vk("vkCreateFence")?;
        // After a failure the buffer is freed (the next submission allocates a fresh one), so no state of a
        // failed recording or submission carries over; after a wait that returned, it is kept for the next.
        let mut cleanup = |failed: bool| unsafe {
            if failed {
                dev.free_command_buffers(slot.pool, &[cmd]);
                slot.cmd = None;
            }
            dev.destroy_fence(fence, None);
        };
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the buffer is not pending (the last wait on it returned) and its pool allows resets.
        if let Err(e) = unsafe { dev.begin_command_buffer(cmd, &begin) } {
            cleanup(true);
            return Err(Error::Vulkan {
                call: "vkBeginCommandBuffer",
                result: e,
            });
        }
        let full = |src: vk::PipelineStageFlags,
                    dst: vk::PipelineStageFlags,
                    sa: vk::AccessFlags,
                    da: vk::AccessFlags| {
            let mb = vk::MemoryBarrier::default()
                .src_access_mask(sa)
                .dst_access_mask(da);
            // SAFETY: recording state.
            unsafe {
                dev.cmd_pipeline_barrier(
                    cmd,
                    src,
                    dst,
                    vk::DependencyFlags::empty(),
                    &[mb],
                    &[],
                    &[],
                )
            };
        };
        if breadcrumbs {
            // Slots of passes that never start must read 0 after a timeout (the allocation is not zeroed); the
            // barrier below orders this fill before the passes' own.
            // SAFETY: recording state; the buffer is this context's and outlives the submission's wait.
            unsafe { dev.cmd_fill_buffer(cmd, crumb_buf.handle, 0, CRUMB_SLOTS * 4, 0) };
        }
        full(
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::MEMORY_WRITE,
            vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
        );
        // What `Recorder::new`'s caller promises holds here by construction: `cmd` is this device's, allocated
        // from the context's compute-family pool, in the recording state until `end_command_buffer` below (after
        // `rec` is dropped), and recorded only on this thread (the pool is locked throughout); the context and
        // the profiler are borrowed until the wait has returned. The buffers `f` records with carry
        // `Region`'s promise.
        let mut rec = Recorder {
            ctx: self,
            cmd,
            profiler,
            crumbs: Some(Crumbs {
                buffer: crumb_buf,
                labels: Vec::new(),
                active: breadcrumbs,
            }),
        };
        if let Some(p) = rec.profiler.as_deref_mut() {
            // SAFETY: `cmd` is this device's, in the recording state (begun above), and recorded only on this
            // thread (the pool is locked); the profiler's pool is of this context's device (`Profiler::new`
            // takes the context), and the profiler is borrowed until the wait below has returned.
            unsafe { p.begin(dev, cmd) };
        }
        let recorded = rec.scope(label, f);
        let mut crumbs = rec.crumbs.take().unwrap();
        drop(rec);
        // SAFETY: called only once the GPU is done with the crumbs (or never, when it may still run).
        let release = |c: &mut Crumbs| unsafe { c.buffer.destroy(self) };
        full(
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::MEMORY_WRITE,
            vk::AccessFlags::HOST_READ
                | vk::AccessFlags::MEMORY_READ
                | vk::AccessFlags::MEMORY_WRITE,
        );
        if let Err(e) = recorded {
            unsafe { dev.end_command_buffer(cmd).ok() };
            cleanup(true);
            release(&mut crumbs);
            return Err(e);
        }
        if let Err(e) = unsafe { dev.end_command_buffer(cmd) } {
            cleanup(true);
            release(&mut crumbs);
            return Err(Error::Vulkan {
                call: "vkEndCommandBuffer",
                result: e,
            });
        }
        let cmds = [cmd];
        let submit = vk::SubmitInfo::default().command_buffers(&cmds);
        {
            let queue = self.queue.lock().unwrap();
            if let Err(e) = unsafe { dev.queue_submit(*queue, &[submit], fence) } {
                cleanup(true);
                release(&mut crumbs);
                if e == vk::Result::ERROR_DEVICE_LOST {
                    self.mark_lost();
                }
                return Err(match e {
                    vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost {
                        last_pass: "(none: submission failed)".into(),
                    },
                    e => Error::Vulkan {
                        call: "vkQueueSubmit",
                        result: e,
                    },
                });
            }
        }
        let timeout_ns = self.wait_timeout.as_nanos().min(u64::MAX as u128) as u64;
        // SAFETY: the fence belongs to this device; the wait is bounded.
        match unsafe { dev.wait_for_fences(&[fence], true, timeout_ns) } {
            Ok(()) => {
                cleanup(false);
                release(&mut crumbs);
                Ok(())
            }
            Err(vk::Result::TIMEOUT) => {
                // The command buffer may still run: leak it, its fence and the crumbs rather than free them,
                // and everything else it may use from now on (Context::is_lost).
                self.mark_lost();
                let last_pass = last_crumb(&crumbs);
                Err(Error::Timeout {
                    timeout: self.wait_timeout,
                    last_pass,
                })
            }
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                self.mark_lost();
                let last_pass = last_crumb(&crumbs);
                Err(Error::DeviceLost { last_pass })
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
