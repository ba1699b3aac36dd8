//! Recording passes into a command buffer: labels, push descriptors, push constants, dispatches, barriers,
//! timestamps. Barrier contract of every vksort `cmd_*` primitive (recorded through a [`Recorder`]):
//! - Before: a global memory barrier (`VkMemoryBarrier`) making the caller's writes to the inputs (and count)
//!   visible to `COMPUTE_SHADER` reads, ordering earlier uses of the output and scratch before `COMPUTE_SHADER` /
//!   `TRANSFER` writes, and ordering earlier vksort commands on this queue (`COMPUTE_SHADER` `SHADER_WRITE`)
//!   before this one: their status blocks rely on it (each run leaves its block zeroed for the next).
//! - Between its own passes vksort records [`Recorder::barrier`] (`COMPUTE_SHADER | TRANSFER` writes to
//!   `COMPUTE_SHADER | TRANSFER | DRAW_INDIRECT` reads and writes).
//! - After: the caller owes a barrier from `COMPUTE_SHADER` writes to whatever reads the results.
//! - Overwritten: the compute pipeline, push constants and push descriptor set 0; graphics state untouched.

use super::buffer::RawBuffer;
use super::{BufferRef, Context, Kernel, Profiler, Region};
use crate::error::{Error, Result};
use ash::vk;

/// Breadcrumbs of a host submission: a u32 slot per pass, set to 1 as it starts (a timeout names the last).
pub(super) struct Crumbs {
    pub(super) buffer: RawBuffer,
    pub(super) labels: Vec<String>,
    /// False for [`Context::submit_timed`]: no fills, and a timeout names no pass.
    pub(super) active: bool,
}

pub(super) const CRUMB_SLOTS: u64 = 4096;

/// Records vksort passes into one command buffer.
pub struct Recorder<'a> {
    pub(super) ctx: &'a Context,
    pub(super) cmd: vk::CommandBuffer,
    pub(super) profiler: Option<&'a mut Profiler>,
    pub(super) crumbs: Option<Crumbs>,
    /// Nothing recorded since a barrier ordering all earlier work (the caller's, a submission's, or its own).
    pub(super) ordered: bool,
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
    ///   freed without being submitted;
    /// - a global memory barrier from `COMPUTE_SHADER` `SHADER_WRITE` to `COMPUTE_SHADER` reads and writes (or a
    ///   semaphore) orders every earlier vksort command of `ctx` on this queue before this recorder's first one;
    ///   vksort orders the commands of one recorder itself;
    /// - command buffers with `ctx`'s look-back scans or compactions ([`crate::scan::Scanner`], the split sorts,
    ///   [`crate::compact::Compactor`]) or small sorts never execute at once on two queues: their runs share
    ///   status blocks, and only one queue's order behind the barrier above keeps them apart.
    ///
    /// vksort checks sizes, offsets and the usage flags the caller states, but cannot check handles.
    pub unsafe fn new(ctx: &'a Context, cmd: vk::CommandBuffer) -> Self {
        Self {
            ctx,
            cmd,
            profiler: None,
            crumbs: None,
            ordered: true,
        }
    }

    /// A recorder that writes no command: every pass is planned (kernel built, bindings and push constants
    /// checked) but nothing recorded. Sorters record through it once, to build every pipeline ahead of time.
    pub(crate) fn planning(ctx: &'a Context) -> Self {
        Self {
            ctx,
            cmd: vk::CommandBuffer::null(),
            profiler: None,
            crumbs: None,
            ordered: true,
        }
    }

    /// Whether this recorder records nothing ([`Recorder::planning`]).
    pub(crate) fn is_planning(&self) -> bool {
        self.cmd == vk::CommandBuffer::null()
    }

    /// Attaches a profiler: every pass then writes a timestamp. Call [`Profiler::begin`] on the command buffer
    /// first (the host forms do).
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
        self.ordered = false;
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

    /// With a per-run profiler ([`Profiler::per_run`]): a stamp ending the span `label` since the last one.
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

    /// The (x, y) grid covering `groups` workgroups within `maxComputeWorkGroupCount` (shaders read the linear
    /// id from `flat_group_id()` and ignore ids past their count).
    pub(crate) fn grid(&self, groups: u32) -> [u32; 2] {
        let max_x = self.ctx.caps.max_workgroup_count[0].max(1);
        let x = groups.clamp(1, max_x);
        [x, groups.div_ceil(x).max(1)]
    }

    /// Records pass `label`: `kernel` with `bindings` (set 0) and the push-constant bytes `push`, over `groups`
    /// workgroups (none: no-op): what the pass builder records.
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

    /// Records pass `label` over the group counts of `args` (`INDIRECT_BUFFER` usage, written before the last
    /// [`Recorder::barrier`]).
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
        self.ordered = true;
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

    /// Orders a status block's run after its previous one: [`Recorder::barrier`] unless nothing was recorded
    /// since the last barrier (the caller's before this recorder's first command included).
    pub(crate) fn order_block_run(&mut self) {
        if !self.ordered {
            self.barrier();
        }
    }

    /// Fills `region` (size rounded down to 4 bytes) with `value` (`TRANSFER_DST` usage); then [`Recorder::barrier`].
    pub fn fill(&mut self, label: &str, region: BufferRef<'_>, value: u32) -> Result<()> {
        self.fill_region(label, region.region(), value)
    }

    /// Copies `size` bytes from `src` to `dst` (`TRANSFER_SRC`, `TRANSFER_DST`; no overlap: [`Error::Overlap`]).
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

#[cfg(test)]
mod tests {
    use super::super::{Buffer, ContextOptions};
    use super::*;

    /// A status block's run records a barrier after any pass since the last barrier, not at a submission's start.
    #[test]
    fn a_block_run_is_ordered_after_what_the_recorder_recorded() {
        let Ok(ctx) = Context::new(ContextOptions::default()) else {
            return; // no Vulkan device: nothing to check here
        };
        let buf = Buffer::device_local(&ctx, "test::fill", 64).unwrap();
        ctx.submit("test::order", |rec| {
            assert!(rec.ordered, "a submission starts behind its full barrier");
            rec.fill("test::fill", buf.as_ref(), 0)?;
            assert!(!rec.ordered, "a pass since the last barrier");
            rec.order_block_run();
            assert!(rec.ordered, "the block's run is ordered by a barrier");
            rec.fill("test::fill", buf.as_ref(), 1)?;
            rec.barrier();
            assert!(rec.ordered, "a barrier orders what came before");
            Ok(())
        })
        .unwrap();
        assert_eq!(buf.read_vec::<u32>(1).unwrap(), [1]);
    }
}
