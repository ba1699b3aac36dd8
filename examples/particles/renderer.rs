//! A headless Vulkan particle renderer that embeds vksort: the renderer's own instance, device, buffers, image
//! and pipelines, adopted into a `vksort::Context`, and one command buffer per frame that simulates, culls,
//! sorts (vksort) and draws.
//!
//! Contract:
//! - [`Renderer::new`] creates everything (the plain Vulkan objects through `vulkan.rs`): an instance (with
//!   `VK_EXT_debug_utils`, and with `VK_LAYER_KHRONOS_validation` plus synchronization validation when
//!   [`Options::validation`]), a device with a graphics+compute queue (Vulkan 1.2, vksort's minimum; the extensions
//!   and features `vksort::gpu::DeviceRequirements` lists, optional ones where the device has them), the particle
//!   buffer (uploaded once from [`crate::scene::initial_particles`]), the key, value, draw argument and sort scratch
//!   buffers, an `R16G16B16A16_SFLOAT` colour image with its render pass, the renderer's shaders (GLSL under
//!   `shaders/`, compiled with shaderc at start-up) and pipelines, then adopts the device into vksort and builds the
//!   [`Sorter`] (every sort pipeline, before the first frame). Every object it creates is named, every pass is labelled
//!   (`particles::simulate`, `particles::cull`, `particles::draw`; vksort's are `vksort::sort` > `vksort::radix::...`).
//! - [`Renderer::render`] records frame after frame, each into ONE command buffer (two frames in flight):
//!   `particles::simulate` (one Euler step of every particle), `particles::cull` (frustum test, appends the
//!   visible particles' view depth and index; the visible count is the instance count of the indirect draw's
//!   arguments and the sort's GPU-side count, and never goes to the host), vksort's
//!   `Sorter::cmd_sort_indirect` (f32 depth keys descending, u32 particle indices: back to front; skipped with
//!   `Options::sort == false`), `particles::draw` (instanced camera-facing quads, alpha-blended "over", from the
//!   sorted indices, into the colour image). Each barrier's comment says which side of vksort's barrier
//!   contract (`vksort::gpu::recorder`) or which of the renderer's own hazards it serves. GPU times come from a
//!   `vksort::gpu::Profiler::per_run` stamped after each pass.
//! - [`Renderer::read_image`] copies the colour image of the last frame to the host.
//! - With validation on, every validation error is kept; [`Renderer::take_validation_errors`] hands them out.
//! - Dropping the renderer waits for the device, drops vksort's objects (sorter, profilers, context) first, then
//!   destroys the renderer's own objects, device and instance.

// The Vulkan objects' creation and destruction (plain Vulkan, no vksort).
#[path = "vulkan.rs"]
mod vulkan;

use crate::scene::{self, Camera, Particle};
use anyhow::{anyhow, bail, Result};
use ash::vk;
use std::sync::Arc;
use std::time::{Duration, Instant};
use vksort::gpu::{AdoptInfo, Profiler, Recorder};
use vksort::sort::{KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vulkan::*;

/// The colour every frame starts from.
pub const CLEAR: [f32; 4] = [0.02, 0.02, 0.05, 1.0];
/// The stamp labels of a frame's passes, in order (the per-run profiler's spans).
pub const SIMULATE: &str = "particles::simulate";
pub const CULL: &str = "particles::cull";
pub const SORT: &str = "vksort::sort";
pub const DRAW: &str = "particles::draw";

const WORKGROUP: u32 = 256;
const FRAMES_IN_FLIGHT: usize = 2;

/// What to render.
#[derive(Clone, Debug)]
pub struct Options {
    pub particles: u32,
    pub width: u32,
    pub height: u32,
    /// The particles' half-size (world units; [`scene::default_size`] scales it with the count).
    pub size: f32,
    pub seed: u64,
    /// Sort the visible particles back to front (false: draw them in the cull's order).
    pub sort: bool,
    /// The sort algorithm (`SortAlgorithm::Auto`: vksort's policy picks).
    pub algorithm: SortAlgorithm,
    /// `VK_LAYER_KHRONOS_validation` with synchronization validation; errors kept.
    pub validation: bool,
    /// Device: an index into the enumeration order or a name substring (default: the best device).
    pub device: Option<String>,
}

impl Options {
    /// `particles` particles at `width` x `height`, sorted with vksort's choice, the default size, seed 1,
    /// validation and device as `VKSORT_VALIDATION=1` and `VKSORT_DEVICE` say.
    pub fn new(particles: u32, width: u32, height: u32) -> Self {
        Self {
            particles,
            width,
            height,
            size: scene::default_size(particles),
            seed: 1,
            sort: true,
            algorithm: SortAlgorithm::Auto,
            validation: std::env::var("VKSORT_VALIDATION").is_ok_and(|v| v == "1"),
            device: std::env::var("VKSORT_DEVICE")
                .ok()
                .filter(|s| !s.is_empty()),
        }
    }
}

/// GPU time of each pass of one frame, nanoseconds (from the frame's timestamps).
#[derive(Clone, Debug, Default)]
pub struct FrameTimes {
    pub frame: u32,
    pub simulate: f64,
    pub cull: f64,
    /// 0 without sorting.
    pub sort: f64,
    pub draw: f64,
}

impl FrameTimes {
    /// From the first stamp (frame start) to the end of the draw.
    pub fn total(&self) -> f64 {
        self.simulate + self.cull + self.sort + self.draw
    }
}

/// What [`Renderer::render`] measured.
#[derive(Clone, Debug)]
pub struct RunStats {
    pub frames: Vec<FrameTimes>,
    /// Wall time from the first frame's recording to the last frame's completion.
    pub wall: Duration,
}

/// The colour image of the last frame, linear RGBA floats (from the half floats of the target), rows top down.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[f32; 4]>,
}

/// One frame in flight: its command buffer, fence and timestamps.
struct Slot {
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    profiler: Option<Profiler>,
    /// The frame submitted with it and not yet retired.
    pending: Option<u32>,
}

/// The renderer.
pub struct Renderer {
    // vksort's objects first: they are dropped (explicitly, in Drop) before the device.
    sorter: Option<Sorter>,
    ctx: Option<Arc<vksort::Context>>,
    slots: Vec<Slot>,
    gpu: Gpu,
    opts: Options,
    groups: [u32; 2],
    /// The number of the next frame to render (the animation goes on across `render` calls).
    next_frame: u32,
}

impl Renderer {
    /// Creates the renderer's instance, device and resources, adopts the device into vksort and builds the
    /// sorter (see the module docs).
    pub fn new(opts: &Options) -> Result<Self> {
        if opts.particles == 0 || opts.width == 0 || opts.height == 0 {
            bail!("particles, width and height must be positive");
        }
        let mut gpu = Gpu::new(opts)?;
        match Self::build(&mut gpu, opts) {
            Ok((ctx, sorter, slots, groups)) => Ok(Self {
                sorter,
                ctx: Some(ctx),
                slots,
                gpu,
                opts: opts.clone(),
                groups,
                next_frame: 0,
            }),
            Err(e) => {
                // SAFETY: nothing of `gpu` is in use (no submission is pending after a failed build).
                unsafe { gpu.destroy() };
                Err(e)
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn build(
        gpu: &mut Gpu,
        opts: &Options,
    ) -> Result<(Arc<vksort::Context>, Option<Sorter>, Vec<Slot>, [u32; 2])> {
        let n = opts.particles as u64;
        let particles = scene::initial_particles(opts.particles, opts.size, opts.seed);
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        gpu.buffer(
            "particles::particles",
            n * std::mem::size_of::<Particle>() as u64,
            storage | vk::BufferUsageFlags::TRANSFER_DST,
            local,
        )?;
        // TRANSFER_SRC: `read_sorted` copies them out (tests).
        let sorted = storage | vk::BufferUsageFlags::TRANSFER_SRC;
        gpu.buffer("particles::depth_keys", n * 4, sorted, local)?;
        gpu.buffer("particles::sorted_indices", n * 4, sorted, local)?;
        // VkDrawIndirectCommand; its instance count is the visible count (the cull's atomic counter, the sort's
        // GPU-side count).
        gpu.buffer(
            "particles::draw_args",
            16,
            storage
                | vk::BufferUsageFlags::INDIRECT_BUFFER
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::TRANSFER_SRC,
            local,
        )?;

        // vksort adopts the renderer's device: it creates nothing global and destroys nothing of the renderer's.
        // SAFETY: the handles are this renderer's live instance, physical device, device and queue (of a family
        // with compute), the device created with `gpu.requirements` (and the instance with VK_EXT_debug_utils
        // where `gpu.debug` is set); they outlive the context, which Drop releases before destroying them.
        // vksort's host forms (used only in `build`, before any frame) submit to this queue from this thread.
        let ctx = unsafe {
            vksort::Context::adopt(
                AdoptInfo::new(
                    &gpu.entry,
                    &gpu.instance,
                    gpu.physical,
                    &gpu.device,
                    gpu.family,
                    gpu.queue,
                    &gpu.requirements,
                )
                .with_debug_utils(gpu.debug.is_some())
                .with_wait_timeout(WAIT),
            )
        }?;
        let particle_bytes = n * std::mem::size_of::<Particle>() as u64;
        if particle_bytes > ctx.caps().max_storage_buffer_range {
            bail!(
                "{n} particles ({particle_bytes} bytes) exceed one storage-buffer binding on {} (at most {} \
                 particles)",
                ctx.caps().name,
                ctx.caps().max_storage_buffer_range / std::mem::size_of::<Particle>() as u64
            );
        }
        // The sorter is made for the capacity (every pipeline built now, none while recording a frame), and
        // its scratch sized by its storage query. None without sorting.
        let sorter = if opts.sort {
            Some(Sorter::new(
                &ctx,
                SortConfig {
                    key: KeyType::F32,
                    value: ValueType::U32,
                    order: Order::Descending,
                    algorithm: opts.algorithm,
                    max_n: n,
                    ..Default::default()
                },
            )?)
        } else {
            None
        };
        let req = sorter
            .as_ref()
            .map(|s| s.storage_requirements(n))
            .transpose()?;
        gpu.buffer(
            "particles::sort_scratch",
            req.map_or(16, |r| r.scratch_bytes),
            req.map_or(storage, |r| r.scratch_usage),
            local,
        )?;
        let image_bytes = opts.width as u64 * opts.height as u64 * 8;
        gpu.buffer(
            "particles::readback",
            image_bytes + 16 + 8 * n.min(SORTED_READBACK_MAX),
            vk::BufferUsageFlags::TRANSFER_DST,
            host,
        )?;
        gpu.image(opts.width, opts.height)?;
        gpu.pipelines()?;
        gpu.command_pool()?;
        gpu.upload_particles(&particles)?;
        let mut slots = Vec::new();
        for i in 0..FRAMES_IN_FLIGHT {
            let (cmd, fence) = gpu.frame_objects(i)?;
            let profiler = Profiler::per_run(&ctx, 8)?;
            slots.push(Slot {
                cmd,
                fence,
                profiler: Some(profiler),
                pending: None,
            });
        }
        let max_x = ctx.caps().max_workgroup_count[0].max(1);
        let groups = opts.particles.div_ceil(WORKGROUP);
        let x = groups.min(max_x);
        let groups = [x, groups.div_ceil(x)];
        Ok((ctx, sorter, slots, groups))
    }

    /// The device's name.
    pub fn device_name(&self) -> String {
        self.ctx
            .as_ref()
            .map(|c| c.caps().name.clone())
            .unwrap_or_default()
    }

    /// The sort algorithm the frames record (what `Auto` resolves to for the capacity), or None without sorting.
    pub fn sort_algorithm(&self) -> Option<SortAlgorithm> {
        self.sorter
            .as_ref()
            .map(|s| s.algorithm_for(self.opts.particles as u64))
    }

    /// Takes the validation errors reported so far (empty without validation).
    pub fn take_validation_errors(&self) -> Vec<String> {
        std::mem::take(&mut *self.gpu.log.errors.lock().unwrap())
    }

    /// The vksort context the renderer adopted its device into. A clone of it must be dropped before the
    /// renderer (the renderer destroys the device; while a clone lives, it leaks the device instead).
    pub fn context(&self) -> &Arc<vksort::Context> {
        self.ctx.as_ref().expect("context")
    }

    /// Renders the next `frames` frames (the animation goes on from the previous call's last frame), calling
    /// `on_frame` with each frame's GPU times as it completes; returns when the last one has completed.
    pub fn render(
        &mut self,
        frames: u32,
        mut on_frame: impl FnMut(&FrameTimes),
    ) -> Result<RunStats> {
        let start = Instant::now();
        let mut times = Vec::with_capacity(frames as usize);
        let first = self.next_frame;
        self.next_frame += frames;
        for frame in first..first + frames {
            let slot = frame as usize % FRAMES_IN_FLIGHT;
            if let Some(t) = self.retire(slot)? {
                on_frame(&t);
                times.push(t);
            }
            let s = &mut self.slots[slot];
            let ctx = self.ctx.as_ref().expect("context");
            let profiler = s.profiler.as_mut().expect("profiler");
            let dev = &self.gpu.device;
            // SAFETY: the slot's previous submission has completed (retired above); the pool allows resets.
            unsafe {
                dev.begin_command_buffer(
                    s.cmd,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )?;
                // SAFETY (Profiler::begin): `dev` is the device of the profiler's context, `s.cmd` is recording
                // on this thread, and the profiler lives in the slot until the frame is retired.
                profiler.begin(dev, s.cmd);
            }
            // SAFETY (Recorder::new): `s.cmd` is this device's, from a pool of a graphics+compute family,
            // recording until `end_command_buffer` below (after `rec` is dropped) and recorded on this thread
            // only; the buffers, the context and the profiler outlive the frame's fence wait (`retire`, Drop).
            let mut rec = unsafe { Recorder::new(ctx, s.cmd) }.with_profiler(profiler);
            let recorded = record_frame(
                &self.gpu,
                &mut rec,
                self.sorter.as_ref(),
                &self.opts,
                self.groups,
                frame,
            );
            drop(rec);
            // SAFETY: recording state; ended even after a failed recording, which is then not submitted.
            unsafe { dev.end_command_buffer(s.cmd)? };
            recorded?;
            let cmds = [s.cmd];
            // SAFETY: the fence is unsignalled-reset here and belongs to this device; the queue is used by this
            // thread only.
            unsafe {
                dev.reset_fences(&[s.fence])?;
                dev.queue_submit(
                    self.gpu.queue,
                    &[vk::SubmitInfo::default().command_buffers(&cmds)],
                    s.fence,
                )?;
            }
            s.pending = Some(frame);
        }
        let mut pending: Vec<(u32, usize)> = (0..FRAMES_IN_FLIGHT)
            .filter_map(|i| self.slots[i].pending.map(|f| (f, i)))
            .collect();
        pending.sort_unstable();
        for (_, slot) in pending {
            if let Some(t) = self.retire(slot)? {
                on_frame(&t);
                times.push(t);
            }
        }
        Ok(RunStats {
            frames: times,
            wall: start.elapsed(),
        })
    }

    /// Waits for the slot's pending frame (bounded) and returns its GPU times.
    fn retire(&mut self, slot: usize) -> Result<Option<FrameTimes>> {
        let s = &mut self.slots[slot];
        let Some(frame) = s.pending.take() else {
            return Ok(None);
        };
        // SAFETY: the fence was submitted with the frame.
        unsafe {
            self.gpu
                .device
                .wait_for_fences(&[s.fence], true, WAIT.as_nanos() as u64)
        }
        .map_err(|e| anyhow!("frame {frame} did not complete within {WAIT:?}: {e}"))?;
        let mut t = FrameTimes {
            frame,
            ..Default::default()
        };
        for p in s.profiler.as_ref().expect("profiler").results()? {
            match p.label.as_str() {
                SIMULATE => t.simulate = p.ns,
                CULL => t.cull = p.ns,
                SORT => t.sort = p.ns,
                DRAW => t.draw = p.ns,
                _ => {}
            }
        }
        Ok(Some(t))
    }

    /// Copies the colour image (of the last rendered frame) to the host; also returns the last frame's visible
    /// count, read here once for the report (the frames themselves never read it back).
    pub fn read_image(&mut self) -> Result<(Image, u32)> {
        let (w, h) = (self.opts.width, self.opts.height);
        let gpu = &self.gpu;
        let readback = &gpu.buffers[READBACK];
        let image_bytes = w as u64 * h as u64 * 8;
        gpu.one_shot("particles::read_image", |dev, cmd| {
            // The last frame's colour writes -> this copy; the image to a transfer layout.
            let to_src = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(gpu.image)
                .subresource_range(color_range());
            // The last frame's cull (atomics on the count) -> this copy.
            let count = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ);
            let region = vk::BufferImageCopy::default()
                .image_subresource(
                    vk::ImageSubresourceLayers::default()
                        .aspect_mask(vk::ImageAspectFlags::COLOR)
                        .layer_count(1),
                )
                .image_extent(vk::Extent3D {
                    width: w,
                    height: h,
                    depth: 1,
                });
            // The copies -> the host's reads.
            let to_host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            // SAFETY: recording a one-shot command buffer of this device; the handles are the renderer's.
            unsafe {
                dev.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
                        | vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[count],
                    &[],
                    &[to_src],
                );
                dev.cmd_copy_image_to_buffer(
                    cmd,
                    gpu.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    readback.buffer,
                    &[region],
                );
                dev.cmd_copy_buffer(
                    cmd,
                    gpu.buffers[DRAW_ARGS].buffer,
                    readback.buffer,
                    &[vk::BufferCopy {
                        src_offset: 4,
                        dst_offset: image_bytes,
                        size: 4,
                    }],
                );
                dev.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[to_host],
                    &[],
                    &[],
                );
            }
        })?;
        // The next frame starts from an UNDEFINED layout (it clears), whatever this left.
        // SAFETY: the one-shot submission has completed; the mapping covers the image and the count.
        let bytes = unsafe {
            std::slice::from_raw_parts(readback.mapped as *const u8, image_bytes as usize + 4)
        };
        let halves: &[u16] = bytemuck::cast_slice(&bytes[..image_bytes as usize]);
        let pixels = halves
            .chunks_exact(4)
            .map(|c| [half(c[0]), half(c[1]), half(c[2]), half(c[3])])
            .collect();
        let visible = u32::from_le_bytes(bytes[image_bytes as usize..].try_into().unwrap());
        Ok((
            Image {
                width: w,
                height: h,
                pixels,
            },
            visible,
        ))
    }
}

/// The most particles [`Renderer::read_sorted`] reads back (the read-back buffer is sized for them).
pub const SORTED_READBACK_MAX: u64 = 1 << 16;

impl Renderer {
    /// The last frame's sort output, read back: the visible count, then that many depth keys (f32 bits) and
    /// particle indices in the order the draw used them. Only for renderers of at most
    /// [`SORTED_READBACK_MAX`] particles. (tests/particles.rs checks the frame's order with it.)
    #[allow(dead_code)]
    pub fn read_sorted(&mut self) -> Result<(Vec<u32>, Vec<u32>)> {
        let n = self.opts.particles as u64;
        if n > SORTED_READBACK_MAX {
            bail!("read_sorted: {n} particles, at most {SORTED_READBACK_MAX}");
        }
        let gpu = &self.gpu;
        let readback = &gpu.buffers[READBACK];
        let base = self.opts.width as u64 * self.opts.height as u64 * 8 + 16;
        gpu.one_shot("particles::read_sorted", |dev, cmd| {
            // The last frame's sort and cull writes -> these copies -> the host's reads.
            let before = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ);
            let after = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            let copy = |src: usize, src_offset: u64, dst_offset: u64, size: u64| {
                // SAFETY: recording a one-shot command buffer of this device; the buffers are the renderer's
                // and the ranges lie within them.
                unsafe {
                    dev.cmd_copy_buffer(
                        cmd,
                        gpu.buffers[src].buffer,
                        readback.buffer,
                        &[vk::BufferCopy {
                            src_offset,
                            dst_offset,
                            size,
                        }],
                    )
                }
            };
            // SAFETY: as above.
            unsafe {
                dev.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[before],
                    &[],
                    &[],
                );
            }
            copy(DRAW_ARGS, 4, base - 16, 4);
            copy(KEYS, 0, base, n * 4);
            copy(VALUES, 0, base + n * 4, n * 4);
            // SAFETY: as above.
            unsafe {
                dev.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[after],
                    &[],
                    &[],
                );
            }
        })?;
        // SAFETY: the one-shot submission has completed; the mapping covers the count and 2n words after it.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                (readback.mapped as *const u8).add(base as usize - 16),
                16 + 8 * n as usize,
            )
        };
        let words: &[u32] = bytemuck::cast_slice(bytes);
        let count = (words[0] as usize).min(n as usize);
        let keys = words[4..4 + count].to_vec();
        let indices = words[4 + n as usize..4 + n as usize + count].to_vec();
        Ok((keys, indices))
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        // SAFETY: after the wait nothing is in flight; vksort's objects go before the device they were made on.
        unsafe {
            let _ = self.gpu.device.device_wait_idle();
        }
        for s in &mut self.slots {
            s.profiler = None;
        }
        self.sorter = None;
        if let Some(ctx) = self.ctx.take() {
            if let Err(ctx) = Arc::try_unwrap(ctx) {
                // Someone still holds the context (a clone of `context()`): its objects need the device, which
                // is then left alive rather than destroyed under it.
                eprintln!(
                    "particles: the vksort context outlives the renderer; leaking the device"
                );
                std::mem::forget(ctx);
                return;
            }
        }
        // SAFETY: the device is idle and vksort holds nothing of it any more (the context was the last one).
        unsafe { self.gpu.destroy() };
    }
}

/// Records one frame into `rec`'s command buffer (see the module docs for the passes).
fn record_frame(
    gpu: &Gpu,
    rec: &mut Recorder,
    sorter: Option<&Sorter>,
    opts: &Options,
    groups: [u32; 2],
    frame: u32,
) -> Result<()> {
    let dev = &gpu.device;
    let cmd = rec.cmd();
    let cam = Camera::at_frame(frame, opts.width, opts.height);
    let n = opts.particles;
    let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
    let transfer = vk::PipelineStageFlags::TRANSFER;
    gpu.begin_label(cmd, "particles::frame");

    // Frame start. For vksort (its "before" side): earlier uses of the sort's outputs and scratch (the previous
    // frame's sort writing keys, values and scratch; its draw reading the sorted indices) are ordered before
    // this frame's compute and transfer writes to them. For the renderer: the previous draw's reads of the
    // particles and of the draw arguments come before the simulation and the count reset write them.
    barrier(
        dev,
        cmd,
        vk::PipelineStageFlags::VERTEX_SHADER
            | vk::PipelineStageFlags::DRAW_INDIRECT
            | compute
            | transfer,
        compute | transfer,
        vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
        vk::AccessFlags::SHADER_READ
            | vk::AccessFlags::SHADER_WRITE
            | vk::AccessFlags::TRANSFER_WRITE,
    );

    gpu.begin_label(cmd, SIMULATE);
    let sim = SimPush {
        dt: scene::SIM.dt,
        gm: scene::SIM.gm,
        eps2: scene::SIM.eps2,
        n,
    };
    // SAFETY (this function's raw commands): `cmd` is recording (the caller's Recorder promise); every handle is
    // the renderer's and lives until Drop, which waits for the device first.
    unsafe {
        // The draw arguments: 4 vertices (a strip), 0 instances until the cull counts them.
        dev.cmd_update_buffer(
            cmd,
            gpu.buffers[DRAW_ARGS].buffer,
            0,
            bytemuck::cast_slice(&[4u32, 0, 0, 0]),
        );
        dev.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, gpu.pipelines[SIM_PIPE]);
        // Rebound every frame: vksort's passes (last frame) rebound compute set 0 with their push descriptors.
        dev.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::COMPUTE,
            gpu.layouts[COMPUTE],
            0,
            &[gpu.compute_set],
            &[],
        );
        dev.cmd_push_constants(
            cmd,
            gpu.layouts[COMPUTE],
            vk::ShaderStageFlags::COMPUTE,
            0,
            bytemuck::bytes_of(&sim),
        );
        dev.cmd_dispatch(cmd, groups[0], groups[1], 1);
    }
    gpu.end_label(cmd);
    rec.stamp(SIMULATE);

    // The renderer's own: the simulated particles and the zeroed count -> the cull's reads and atomics.
    barrier(
        dev,
        cmd,
        compute | transfer,
        compute,
        vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
    );

    gpu.begin_label(cmd, CULL);
    let cull = CullPush {
        view: cam.view,
        tan_half: cam.tan_half,
        near: cam.near,
        far: cam.far,
        n,
    };
    // SAFETY: as above (the compute set stays bound: same pipeline layout).
    unsafe {
        dev.cmd_bind_pipeline(
            cmd,
            vk::PipelineBindPoint::COMPUTE,
            gpu.pipelines[CULL_PIPE],
        );
        dev.cmd_push_constants(
            cmd,
            gpu.layouts[COMPUTE],
            vk::ShaderStageFlags::COMPUTE,
            0,
            bytemuck::bytes_of(&cull),
        );
        dev.cmd_dispatch(cmd, groups[0], groups[1], 1);
    }
    gpu.end_label(cmd);
    rec.stamp(CULL);

    if let Some(sorter) = sorter {
        // For vksort (its "before" side): the cull's writes to the keys, the values and the count (compute)
        // visible to the sort's compute-shader reads, and ordered before its compute/transfer writes to the
        // keys and values.
        barrier(
            dev,
            cmd,
            compute,
            compute | transfer,
            vk::AccessFlags::SHADER_WRITE,
            vk::AccessFlags::SHADER_READ
                | vk::AccessFlags::SHADER_WRITE
                | vk::AccessFlags::TRANSFER_READ
                | vk::AccessFlags::TRANSFER_WRITE,
        );
        // The visible particles, back to front: the count is the draw's instance count (offset 4 of the draw
        // arguments; vksort binds it from the storage-offset alignment down), the capacity all particles.
        let draw_args = gpu.buffers[DRAW_ARGS].whole();
        sorter.cmd_sort_indirect(
            rec,
            gpu.buffers[KEYS].whole(),
            Some(gpu.buffers[VALUES].whole()),
            gpu.buffers[SCRATCH].whole(),
            draw_args.slice(4, 4),
            n as u64,
        )?;
        // vksort overwrote the compute pipeline, push constants and push descriptor set 0 (its contract): the
        // renderer's compute state is rebound at the next frame's start; graphics state is untouched.
        rec.stamp(SORT);
    }

    // For vksort (its "after" side): the sort's compute-shader writes (the sorted indices) -> the vertex
    // shader's reads. For the renderer: the cull's count (compute atomics) -> the indirect draw's read, and the
    // simulated particles -> the vertex shader. And the colour image: the previous frame's colour writes (or the
    // read-back's copy) before this frame's, its contents discarded (UNDEFINED: the pass clears it).
    let mb = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
        .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::INDIRECT_COMMAND_READ);
    let to_color = vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
        .dst_access_mask(
            vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        )
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(gpu.image)
        .subresource_range(color_range());
    // SAFETY: as above.
    unsafe {
        dev.cmd_pipeline_barrier(
            cmd,
            compute | vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT | transfer,
            vk::PipelineStageFlags::VERTEX_SHADER
                | vk::PipelineStageFlags::DRAW_INDIRECT
                | vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::DependencyFlags::empty(),
            &[mb],
            &[],
            &[to_color],
        );
    }

    gpu.begin_label(cmd, DRAW);
    let draw = DrawPush {
        view_proj: cam.view_proj,
        right: [cam.right[0], cam.right[1], cam.right[2], 0.0],
        up: [cam.up[0], cam.up[1], cam.up[2], 0.0],
    };
    let extent = vk::Extent2D {
        width: opts.width,
        height: opts.height,
    };
    let clear = [vk::ClearValue {
        color: vk::ClearColorValue { float32: CLEAR },
    }];
    let pass = vk::RenderPassBeginInfo::default()
        .render_pass(gpu.render_pass)
        .framebuffer(gpu.framebuffer)
        .render_area(extent.into())
        .clear_values(&clear);
    // SAFETY: as above; the graphics pipeline was built for this render pass.
    unsafe {
        dev.cmd_begin_render_pass(cmd, &pass, vk::SubpassContents::INLINE);
        dev.cmd_bind_pipeline(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            gpu.pipelines[DRAW_PIPE],
        );
        dev.cmd_set_viewport(
            cmd,
            0,
            &[vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: opts.width as f32,
                height: opts.height as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            }],
        );
        dev.cmd_set_scissor(cmd, 0, &[extent.into()]);
        dev.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            gpu.layouts[GRAPHICS],
            0,
            &[gpu.draw_set],
            &[],
        );
        dev.cmd_push_constants(
            cmd,
            gpu.layouts[GRAPHICS],
            vk::ShaderStageFlags::VERTEX,
            0,
            bytemuck::bytes_of(&draw),
        );
        dev.cmd_draw_indirect(cmd, gpu.buffers[DRAW_ARGS].buffer, 0, 1, 16);
        dev.cmd_end_render_pass(cmd);
    }
    gpu.end_label(cmd);
    rec.stamp(DRAW);
    gpu.end_label(cmd);
    Ok(())
}

/// One global memory barrier.
fn barrier(
    dev: &ash::Device,
    cmd: vk::CommandBuffer,
    src: vk::PipelineStageFlags,
    dst: vk::PipelineStageFlags,
    src_access: vk::AccessFlags,
    dst_access: vk::AccessFlags,
) {
    let mb = vk::MemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(dst_access);
    // SAFETY: `cmd` is recording (callers' promise).
    unsafe {
        dev.cmd_pipeline_barrier(cmd, src, dst, vk::DependencyFlags::empty(), &[mb], &[], &[])
    };
}

/// An IEEE half float's value.
fn half(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let frac = (h & 0x3ff) as f32;
    sign * match exp {
        0 => frac * 2f32.powi(-24),
        31 if frac == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + frac / 1024.0) * 2f32.powi(e as i32 - 15),
    }
}
