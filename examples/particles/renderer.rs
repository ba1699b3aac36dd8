//! A headless Vulkan particle renderer that embeds vksort: the renderer's own instance, device, buffers, image
//! and pipelines, adopted into a `vksort::Context`, and one command buffer per frame that simulates, culls,
//! sorts (vksort) and draws.
//!
//! Contract:
//! - [`Renderer::new`] creates everything: an instance (with `VK_EXT_debug_utils`, and with
//!   `VK_LAYER_KHRONOS_validation` plus synchronization validation when [`Options::validation`]), a device with a
//!   graphics+compute queue (Vulkan 1.2, vksort's minimum; the extensions `vksort::Context::device_extensions`
//!   lists; subgroup size control where the device has Vulkan 1.3), the particle buffer (uploaded once from
//!   [`crate::scene::initial_particles`]), the key, value, draw argument and sort scratch buffers, an
//!   `R16G16B16A16_SFLOAT` colour image with its render pass, the renderer's shaders (GLSL under `shaders/`,
//!   compiled with shaderc at start-up) and pipelines, then adopts the device into vksort and builds the
//!   [`Sorter`] (every sort pipeline, before the first frame). Every object it creates is named,
//!   every pass is labelled (`particles::simulate`, `particles::cull`, `particles::draw`; vksort's are
//!   `vksort::sort` > `vksort::radix::...`).
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

use crate::scene::{self, Camera, Mat4, Particle};
use anyhow::{anyhow, bail, Context as _, Result};
use ash::vk;
use std::ffi::{c_char, CStr, CString};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vksort::gpu::{AdoptInfo, BufferRef, Profiler, Recorder};
use vksort::sort::{KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};

/// The colour target's format: blendable on every Vulkan device (a mandatory format feature).
pub const COLOR_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// The colour every frame starts from.
pub const CLEAR: [f32; 4] = [0.02, 0.02, 0.05, 1.0];
/// The stamp labels of a frame's passes, in order (the per-run profiler's spans).
pub const SIMULATE: &str = "particles::simulate";
pub const CULL: &str = "particles::cull";
pub const SORT: &str = "vksort::sort";
pub const DRAW: &str = "particles::draw";

const WORKGROUP: u32 = 256;
const FRAMES_IN_FLIGHT: usize = 2;
const WAIT: Duration = Duration::from_secs(60);

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

/// Push constants of `shaders/simulate.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct SimPush {
    dt: f32,
    gm: f32,
    eps2: f32,
    n: u32,
}

/// Push constants of `shaders/cull.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct CullPush {
    view: Mat4,
    tan_half: [f32; 2],
    near: f32,
    far: f32,
    n: u32,
}

/// Push constants of `shaders/particle.vert`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct DrawPush {
    view_proj: Mat4,
    right: [f32; 4],
    up: [f32; 4],
}

/// Validation errors, filled by the debug messenger.
#[derive(Default)]
struct Log {
    errors: Mutex<Vec<String>>,
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut std::ffi::c_void,
) -> vk::Bool32 {
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
        && !data.is_null()
        && !user.is_null()
    {
        // SAFETY: the layer passes valid callback data; `user` is the renderer's Log, which outlives the
        // messenger.
        let (msg, log) = unsafe {
            let d = &*data;
            let msg = if d.p_message.is_null() {
                "(no message)".to_string()
            } else {
                CStr::from_ptr(d.p_message).to_string_lossy().into_owned()
            };
            (msg, &*(user as *const Log))
        };
        eprintln!("[particles validation] {msg}");
        log.errors.lock().unwrap().push(msg);
    }
    vk::FALSE
}

/// A buffer with its own memory allocation.
struct GpuBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    size: u64,
    usage: vk::BufferUsageFlags,
    /// The persistent mapping of host-visible buffers (null otherwise).
    mapped: *mut u8,
}

impl GpuBuffer {
    /// The whole buffer as vksort takes it: handle, offset, size and the usage it was created with.
    fn whole(&self) -> BufferRef {
        BufferRef {
            buffer: self.buffer,
            offset: 0,
            size: self.size,
            usage: self.usage,
        }
    }
}

/// One frame in flight: its command buffer, fence and timestamps.
struct Slot {
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    profiler: Option<Profiler>,
    /// The frame submitted with it and not yet retired.
    pending: Option<u32>,
}

/// The renderer's own Vulkan objects (everything but vksort's).
struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    debug: Option<ash::ext::debug_utils::Device>,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    log: Arc<Log>,
    buffers: Vec<GpuBuffer>,
    /// What `create_device` enabled of vksort's optional features (told to `Context::adopt`).
    size_control: bool,
    partitioned: bool,
    image: vk::Image,
    image_memory: vk::DeviceMemory,
    view: vk::ImageView,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layouts: Vec<vk::PipelineLayout>,
    pipelines: Vec<vk::Pipeline>,
    descriptor_pool: vk::DescriptorPool,
    compute_set: vk::DescriptorSet,
    draw_set: vk::DescriptorSet,
    command_pool: vk::CommandPool,
    fences: Vec<vk::Fence>,
}

// Indices into `Gpu::buffers`.
const PARTICLES: usize = 0;
const KEYS: usize = 1;
const VALUES: usize = 2;
const DRAW_ARGS: usize = 3;
const SCRATCH: usize = 4;
const READBACK: usize = 5;
// Indices into `Gpu::layouts` and `Gpu::pipelines`.
const COMPUTE: usize = 0;
const GRAPHICS: usize = 1;
const SIM_PIPE: usize = 0;
const CULL_PIPE: usize = 1;
const DRAW_PIPE: usize = 2;

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
        gpu.buffer("particles::depth_keys", n * 4, storage, local)?;
        gpu.buffer("particles::sorted_indices", n * 4, storage, local)?;
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
        // with compute), the device created with Context::device_extensions and with the features the flags
        // below claim; they outlive the context, which Drop releases before destroying them. vksort's host forms
        // (used only in `build`, before any frame) submit to this queue from this thread.
        let ctx = unsafe {
            vksort::Context::adopt(AdoptInfo {
                entry: gpu._entry.clone(),
                instance: gpu.instance.clone(),
                physical_device: gpu.physical,
                device: gpu.device.clone(),
                queue_family_index: gpu.family,
                queue: gpu.queue,
                debug_utils: gpu.debug.is_some(),
                subgroup_size_control: gpu.size_control,
                int64: false,
                subgroup_partitioned: gpu.partitioned,
                buffer_device_address: false,
                wait_timeout: WAIT,
            })
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
        let req = sorter.as_ref().map(|s| s.storage_requirements(n));
        gpu.buffer(
            "particles::sort_scratch",
            req.map_or(16, |r| r.scratch_bytes),
            req.map_or(storage, |r| r.scratch_usage),
            local,
        )?;
        let image_bytes = opts.width as u64 * opts.height as u64 * 8;
        gpu.buffer(
            "particles::readback",
            image_bytes + 16,
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

fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1)
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

/// The renderer's shaders, compiled with shaderc (the same library build.rs compiles vksort's with).
fn compile(name: &str, kind: shaderc::ShaderKind, source: &str) -> Result<Vec<u32>> {
    const COMMON: &str = include_str!("shaders/particle.glsl");
    let compiler = shaderc::Compiler::new().context("shaderc")?;
    let mut opts = shaderc::CompileOptions::new().context("shaderc options")?;
    opts.set_target_env(
        shaderc::TargetEnv::Vulkan,
        shaderc::EnvVersion::Vulkan1_2 as u32,
    );
    opts.set_optimization_level(shaderc::OptimizationLevel::Performance);
    opts.set_include_callback(|requested, _, _, _| {
        if requested == "particle.glsl" {
            Ok(shaderc::ResolvedInclude {
                resolved_name: "shaders/particle.glsl".into(),
                content: COMMON.into(),
            })
        } else {
            Err(format!("unknown include {requested}"))
        }
    });
    let out = compiler
        .compile_into_spirv(source, kind, name, "main", Some(&opts))
        .map_err(|e| anyhow!("compiling {name}: {e}"))?;
    Ok(out.as_binary().to_vec())
}

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

impl Gpu {
    /// Instance, device and queue (see the module docs).
    fn new(opts: &Options) -> Result<Gpu> {
        // SAFETY: loading the system Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.context("loading the Vulkan loader")?;
        // SAFETY: plain enumeration.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }?;
        if opts.validation
            && !layers
                .iter()
                .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER))
        {
            bail!("validation asked for, but VK_LAYER_KHRONOS_validation is not installed");
        }
        let exts = unsafe { entry.enumerate_instance_extension_properties(None) }?;
        let debug_utils = exts.iter().any(|e| {
            e.extension_name_as_c_str()
                .is_ok_and(|n| n == ash::ext::debug_utils::NAME)
        });
        let ext_ptrs: Vec<*const c_char> = if debug_utils {
            vec![ash::ext::debug_utils::NAME.as_ptr()]
        } else {
            vec![]
        };
        let layer_ptrs: Vec<*const c_char> = if opts.validation {
            vec![VALIDATION_LAYER.as_ptr()]
        } else {
            vec![]
        };
        let app = vk::ApplicationInfo::default()
            .application_name(c"particles")
            .engine_name(c"particles")
            .api_version(vk::API_VERSION_1_3);
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let log = Arc::new(Log::default());
        let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                    | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(on_message))
            .user_data(Arc::as_ptr(&log) as *mut std::ffi::c_void);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_ptrs)
            .enabled_extension_names(&ext_ptrs);
        if opts.validation {
            info = info.push_next(&mut features);
        }
        // SAFETY: every pointer in `info` outlives the call.
        let instance = unsafe { entry.create_instance(&info, None) }?;
        let messenger = if opts.validation && debug_utils {
            let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
            // SAFETY: the messenger's user data (the Log) lives in Gpu, which destroys the messenger first.
            match unsafe { du.create_debug_utils_messenger(&messenger_info, None) } {
                Ok(m) => Some((du, m)),
                Err(e) => {
                    unsafe { instance.destroy_instance(None) };
                    return Err(e.into());
                }
            }
        } else {
            None
        };
        let destroy_instance = |messenger: &Option<(ash::ext::debug_utils::Instance, _)>| unsafe {
            if let Some((du, m)) = messenger {
                du.destroy_debug_utils_messenger(*m, None);
            }
            instance.destroy_instance(None);
        };
        let (physical, family) = match Self::pick_device(&instance, opts) {
            Ok(v) => v,
            Err(e) => {
                destroy_instance(&messenger);
                return Err(e);
            }
        };
        let (device, size_control, partitioned) =
            match Self::create_device(&instance, physical, family) {
                Ok(d) => d,
                Err(e) => {
                    destroy_instance(&messenger);
                    return Err(e);
                }
            };
        // SAFETY: queue 0 of the family was created with the device.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        let debug = debug_utils.then(|| ash::ext::debug_utils::Device::new(&instance, &device));
        let gpu = Gpu {
            _entry: entry,
            instance,
            physical,
            device,
            queue,
            family,
            memory,
            debug,
            messenger,
            log,
            buffers: Vec::new(),
            size_control,
            partitioned,
            image: vk::Image::null(),
            image_memory: vk::DeviceMemory::null(),
            view: vk::ImageView::null(),
            render_pass: vk::RenderPass::null(),
            framebuffer: vk::Framebuffer::null(),
            set_layouts: Vec::new(),
            layouts: Vec::new(),
            pipelines: Vec::new(),
            descriptor_pool: vk::DescriptorPool::null(),
            compute_set: vk::DescriptorSet::null(),
            draw_set: vk::DescriptorSet::null(),
            command_pool: vk::CommandPool::null(),
            fences: Vec::new(),
        };
        // The device-level objects are named through the device; the instance-level ones (instance, physical
        // device, messenger) are left as they are (the validation layer of Debian 12 rejects their names).
        gpu.name(gpu.device.handle(), "particles::device");
        gpu.name(gpu.queue, "particles::queue");
        Ok(gpu)
    }

    /// The best Vulkan 1.2 device with a graphics+compute queue family (discrete, integrated, virtual, then CPU),
    /// or the one `opts.device` names.
    fn pick_device(instance: &ash::Instance, opts: &Options) -> Result<(vk::PhysicalDevice, u32)> {
        // SAFETY: plain queries on a live instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }?;
        let mut candidates = Vec::new();
        for (i, &pd) in physicals.iter().enumerate() {
            let props = unsafe { instance.get_physical_device_properties(pd) };
            let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
            let Some(family) = families.iter().position(|f| {
                f.queue_flags
                    .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
            }) else {
                continue;
            };
            if props.api_version < vk::API_VERSION_1_2 {
                continue;
            }
            let name = props
                .device_name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            let rank = match props.device_type {
                vk::PhysicalDeviceType::DISCRETE_GPU => 0,
                vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
                vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
                vk::PhysicalDeviceType::CPU => 3,
                _ => 4,
            };
            candidates.push((i, pd, family as u32, name, rank));
        }
        let chosen = match &opts.device {
            Some(sel) => candidates.iter().find(|c| {
                sel.parse::<usize>().ok() == Some(c.0)
                    || c.3.to_lowercase().contains(&sel.to_lowercase())
            }),
            None => candidates.iter().min_by_key(|c| (c.4, c.0)),
        };
        let Some(c) = chosen else {
            bail!(
                "no Vulkan 1.2 device with a graphics+compute queue{}",
                opts.device
                    .as_ref()
                    .map(|d| format!(" matches `{d}`"))
                    .unwrap_or_default()
            );
        };
        Ok((c.1, c.2))
    }

    /// The device: vksort's extensions, and subgroup size control where the device has Vulkan 1.3 and the
    /// feature (RenderDoc 1.24 presents lavapipe as Vulkan 1.2). Returns it with what it enabled of subgroup size
    /// control and `VK_NV_shader_subgroup_partitioned`.
    fn create_device(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        family: u32,
    ) -> Result<(ash::Device, bool, bool)> {
        // What vksort uses of what the device has (VK_KHR_push_descriptor required). Subgroup size control is a
        // Vulkan 1.3 feature here (its extension left out); pipeline statistics and shader clocks are vksort's
        // diagnostics, left off.
        // SAFETY: `instance` is live and `physical` was enumerated from it.
        let names: Vec<&CStr> = unsafe { vksort::Context::device_extensions(instance, physical) }?
            .into_iter()
            .filter(|e| {
                [
                    ash::khr::push_descriptor::NAME,
                    ash::nv::shader_subgroup_partitioned::NAME,
                ]
                .contains(e)
            })
            .collect();
        let partitioned = names.contains(&ash::nv::shader_subgroup_partitioned::NAME);
        let exts: Vec<*const c_char> = names.iter().map(|e| e.as_ptr()).collect();
        // SAFETY: plain queries with valid output chains.
        let api = unsafe { instance.get_physical_device_properties(physical) }.api_version;
        let mut size_control = false;
        if api >= vk::API_VERSION_1_3 {
            let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f13);
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            size_control =
                f13.subgroup_size_control == vk::TRUE && f13.compute_full_subgroups == vk::TRUE;
        }
        let mut enable13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(size_control)
            .compute_full_subgroups(size_control);
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts);
        if size_control {
            info = info.push_next(&mut enable13);
        }
        // SAFETY: every pointer in `info` outlives the call.
        let device = unsafe { instance.create_device(physical, &info, None) }?;
        Ok((device, size_control, partitioned))
    }

    /// Names `handle` (a debugging aid: failures are ignored).
    fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        if let Some(d) = &self.debug {
            let name = CString::new(name).unwrap();
            let info = vk::DebugUtilsObjectNameInfoEXT::default()
                .object_handle(handle)
                .object_name(&name);
            // SAFETY: the handle is one of this renderer's live objects (of this device or its instance).
            let _ = unsafe { d.set_debug_utils_object_name(&info) };
        }
    }

    fn begin_label(&self, cmd: vk::CommandBuffer, label: &str) {
        if let Some(d) = &self.debug {
            let name = CString::new(label).unwrap();
            let info = vk::DebugUtilsLabelEXT::default()
                .label_name(&name)
                .color([0.9, 0.5, 0.2, 1.0]);
            // SAFETY: `cmd` is recording.
            unsafe { d.cmd_begin_debug_utils_label(cmd, &info) };
        }
    }

    fn end_label(&self, cmd: vk::CommandBuffer) {
        if let Some(d) = &self.debug {
            // SAFETY: matched with a begin_label on `cmd`.
            unsafe { d.cmd_end_debug_utils_label(cmd) };
        }
    }

    /// A memory type for `bits` with `want` (falling back to any type of `bits` for device-local memory).
    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32> {
        let types = &self.memory.memory_types[..self.memory.memory_type_count as usize];
        let find = |want: vk::MemoryPropertyFlags| {
            (0..types.len() as u32)
                .find(|&i| bits & (1 << i) != 0 && types[i as usize].property_flags.contains(want))
        };
        find(want)
            .or_else(|| {
                (want == vk::MemoryPropertyFlags::DEVICE_LOCAL)
                    .then(|| find(vk::MemoryPropertyFlags::empty()))
                    .flatten()
            })
            .ok_or_else(|| anyhow!("no memory type with {want:?}"))
    }

    /// Allocates `req`'s memory with `props`, named `name`.
    fn allocate(
        &self,
        name: &str,
        req: vk::MemoryRequirements,
        props: vk::MemoryPropertyFlags,
    ) -> Result<vk::DeviceMemory> {
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(self.memory_type(req.memory_type_bits, props)?);
        // SAFETY: plain allocation; freed in `destroy`.
        let memory = unsafe { self.device.allocate_memory(&info, None) }
            .with_context(|| format!("allocating {} bytes for {name}", req.size))?;
        self.name(memory, &format!("{name}::memory"));
        Ok(memory)
    }

    /// A buffer of its own allocation, kept in `self.buffers` (mapped when host-visible).
    fn buffer(
        &mut self,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        props: vk::MemoryPropertyFlags,
    ) -> Result<()> {
        let info = vk::BufferCreateInfo::default()
            .size(size.max(16))
            .usage(usage);
        // SAFETY: plain object creation; destroyed in `destroy`.
        let buffer = unsafe { self.device.create_buffer(&info, None) }?;
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let memory = match self.allocate(name, req, props) {
            Ok(m) => m,
            Err(e) => {
                unsafe { self.device.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        let mut mapped = std::ptr::null_mut();
        // SAFETY: the memory fits the buffer's requirements; host-visible memory is mapped whole, once.
        unsafe {
            self.device.bind_buffer_memory(buffer, memory, 0)?;
            if props.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) {
                mapped = self.device.map_memory(
                    memory,
                    0,
                    vk::WHOLE_SIZE,
                    vk::MemoryMapFlags::empty(),
                )? as *mut u8;
            }
        }
        self.name(buffer, name);
        self.buffers.push(GpuBuffer {
            buffer,
            memory,
            size: size.max(16),
            usage,
            mapped,
        });
        Ok(())
    }

    /// The colour image and its view.
    fn image(&mut self, width: u32, height: u32) -> Result<()> {
        // SAFETY: plain queries and object creation; destroyed in `destroy`.
        let props = unsafe {
            self.instance
                .get_physical_device_format_properties(self.physical, COLOR_FORMAT)
        };
        let need =
            vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND | vk::FormatFeatureFlags::TRANSFER_SRC;
        if !props.optimal_tiling_features.contains(need) {
            bail!("{COLOR_FORMAT:?} is not a blendable colour attachment here");
        }
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(COLOR_FORMAT)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        self.image = unsafe { self.device.create_image(&info, None) }?;
        self.name(self.image, "particles::color");
        let req = unsafe { self.device.get_image_memory_requirements(self.image) };
        self.image_memory = self.allocate(
            "particles::color",
            req,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        )?;
        unsafe {
            self.device
                .bind_image_memory(self.image, self.image_memory, 0)?
        };
        let view = vk::ImageViewCreateInfo::default()
            .image(self.image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(COLOR_FORMAT)
            .subresource_range(color_range());
        self.view = unsafe { self.device.create_image_view(&view, None) }?;
        self.name(self.view, "particles::color_view");
        // One subpass drawing into the colour image, cleared on load. The image stays in
        // COLOR_ATTACHMENT_OPTIMAL through the pass: the frame's own barrier (record_frame) makes the layout
        // transition and orders the previous frame's writes, so the pass needs no dependency of its own.
        let attachment = [vk::AttachmentDescription::default()
            .format(COLOR_FORMAT)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
        let color_ref = [vk::AttachmentReference::default()
            .attachment(0)
            .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&color_ref)];
        let info = vk::RenderPassCreateInfo::default()
            .attachments(&attachment)
            .subpasses(&subpass);
        self.render_pass = unsafe { self.device.create_render_pass(&info, None) }?;
        self.name(self.render_pass, "particles::render_pass");
        let views = [self.view];
        let info = vk::FramebufferCreateInfo::default()
            .render_pass(self.render_pass)
            .attachments(&views)
            .width(width)
            .height(height)
            .layers(1);
        self.framebuffer = unsafe { self.device.create_framebuffer(&info, None) }?;
        self.name(self.framebuffer, "particles::framebuffer");
        Ok(())
    }

    /// Descriptor sets, layouts, shader modules and the three pipelines.
    fn pipelines(&mut self) -> Result<()> {
        let dev = self.device.clone();
        let binding = |i: u32, stage: vk::ShaderStageFlags| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(i)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(stage)
        };
        let c = vk::ShaderStageFlags::COMPUTE;
        let v = vk::ShaderStageFlags::VERTEX;
        let compute_bindings = [binding(0, c), binding(1, c), binding(2, c), binding(3, c)];
        let draw_bindings = [binding(0, v), binding(1, v)];
        // SAFETY (this function): plain object creation on the renderer's device; everything is kept in `self`
        // and destroyed in `destroy`.
        for (bindings, name) in [
            (&compute_bindings[..], "particles::compute_set_layout"),
            (&draw_bindings[..], "particles::draw_set_layout"),
        ] {
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
            let l = unsafe { dev.create_descriptor_set_layout(&info, None) }?;
            self.name(l, name);
            self.set_layouts.push(l);
        }
        for (i, (stage, size, name)) in [
            (
                c,
                std::mem::size_of::<CullPush>(),
                "particles::compute_layout",
            ),
            (v, std::mem::size_of::<DrawPush>(), "particles::draw_layout"),
        ]
        .into_iter()
        .enumerate()
        {
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(stage)
                .size(size as u32)];
            let sets = [self.set_layouts[i]];
            let info = vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&sets)
                .push_constant_ranges(&ranges);
            let l = unsafe { dev.create_pipeline_layout(&info, None) }?;
            self.name(l, name);
            self.layouts.push(l);
        }
        let module = |name: &str, kind, src: &str| -> Result<vk::ShaderModule> {
            let words = compile(name, kind, src)?;
            let m = unsafe {
                dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
            }?;
            self.name(m, &format!("particles::{name}"));
            Ok(m)
        };
        use shaderc::ShaderKind;
        let modules = [
            module(
                "simulate.comp",
                ShaderKind::Compute,
                include_str!("shaders/simulate.comp"),
            )?,
            module(
                "cull.comp",
                ShaderKind::Compute,
                include_str!("shaders/cull.comp"),
            )?,
            module(
                "particle.vert",
                ShaderKind::Vertex,
                include_str!("shaders/particle.vert"),
            )?,
            module(
                "particle.frag",
                ShaderKind::Fragment,
                include_str!("shaders/particle.frag"),
            )?,
        ];
        let result = self.build_pipelines(&modules);
        for m in modules {
            // SAFETY: pipelines keep what they need of their modules.
            unsafe { dev.destroy_shader_module(m, None) };
        }
        result?;

        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(6)];
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(2)
            .pool_sizes(&sizes);
        self.descriptor_pool = unsafe { dev.create_descriptor_pool(&info, None) }?;
        self.name(self.descriptor_pool, "particles::descriptor_pool");
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.descriptor_pool)
            .set_layouts(&self.set_layouts);
        let sets = unsafe { dev.allocate_descriptor_sets(&alloc) }?;
        (self.compute_set, self.draw_set) = (sets[0], sets[1]);
        self.name(self.compute_set, "particles::compute_set");
        self.name(self.draw_set, "particles::draw_set");
        let whole = |i: usize| {
            [vk::DescriptorBufferInfo {
                buffer: self.buffers[i].buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }]
        };
        let infos = [
            whole(PARTICLES),
            whole(KEYS),
            whole(VALUES),
            whole(DRAW_ARGS),
        ];
        let draw_infos = [whole(PARTICLES), whole(VALUES)];
        let mut writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .enumerate()
            .map(|(i, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(self.compute_set)
                    .dst_binding(i as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        writes.extend(draw_infos.iter().enumerate().map(|(i, info)| {
            vk::WriteDescriptorSet::default()
                .dst_set(self.draw_set)
                .dst_binding(i as u32)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(info)
        }));
        unsafe { dev.update_descriptor_sets(&writes, &[]) };
        Ok(())
    }

    fn build_pipelines(&mut self, modules: &[vk::ShaderModule; 4]) -> Result<()> {
        let dev = &self.device;
        for (module, name) in [
            (modules[0], "particles::simulate"),
            (modules[1], "particles::cull"),
        ] {
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(self.layouts[COMPUTE]);
            // SAFETY: valid create info; the pipeline is kept and destroyed in `destroy`.
            let p =
                unsafe { dev.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
                    .map_err(|(_, e)| e)?[0];
            self.name(p, name);
            self.pipelines.push(p);
        }
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(modules[2])
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(modules[3])
                .name(c"main"),
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_STRIP);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        // "Over": src * a + dst * (1 - a) for colour; alpha accumulates coverage.
        let blend = [vk::PipelineColorBlendAttachmentState::default()
            .blend_enable(true)
            .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
            .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
            .color_blend_op(vk::BlendOp::ADD)
            .src_alpha_blend_factor(vk::BlendFactor::ONE)
            .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
            .alpha_blend_op(vk::BlendOp::ADD)
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let blend_state = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let dynamic = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic_state = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend_state)
            .dynamic_state(&dynamic_state)
            .layout(self.layouts[GRAPHICS])
            .render_pass(self.render_pass)
            .subpass(0);
        // SAFETY: valid create info; kept and destroyed in `destroy`.
        let p = unsafe { dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
            .map_err(|(_, e)| e)?[0];
        self.name(p, "particles::draw");
        self.pipelines.push(p);
        Ok(())
    }

    fn command_pool(&mut self) -> Result<()> {
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(self.family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: plain creation; destroyed in `destroy`.
        self.command_pool = unsafe { self.device.create_command_pool(&info, None) }?;
        self.name(self.command_pool, "particles::command_pool");
        Ok(())
    }

    /// Frame slot `i`'s command buffer and fence.
    fn frame_objects(&mut self, i: usize) -> Result<(vk::CommandBuffer, vk::Fence)> {
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: plain creation; freed with the pool, the fence destroyed in `destroy`.
        let cmd = unsafe { self.device.allocate_command_buffers(&alloc) }?[0];
        self.name(cmd, &format!("particles::frame_commands{i}"));
        let fence = unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }?;
        self.name(fence, &format!("particles::frame_fence{i}"));
        self.fences.push(fence);
        Ok((cmd, fence))
    }

    /// Records `f` into a fresh command buffer named `name`, submits it and waits (bounded).
    fn one_shot(&self, name: &str, f: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Result<()> {
        let dev = &self.device;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: a command buffer and fence of this device, freed after the bounded wait (or leaked when the
        // wait runs out, as the GPU may still use them).
        unsafe {
            let cmd = dev.allocate_command_buffers(&alloc)?[0];
            self.name(cmd, name);
            let fence = dev.create_fence(&vk::FenceCreateInfo::default(), None)?;
            self.name(fence, &format!("{name}::fence"));
            dev.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )?;
            self.begin_label(cmd, name);
            f(dev, cmd);
            self.end_label(cmd);
            dev.end_command_buffer(cmd)?;
            let cmds = [cmd];
            dev.queue_submit(
                self.queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                fence,
            )?;
            dev.wait_for_fences(&[fence], true, WAIT.as_nanos() as u64)
                .map_err(|e| anyhow!("{name} did not complete within {WAIT:?}: {e}"))?;
            dev.destroy_fence(fence, None);
            dev.free_command_buffers(self.command_pool, &cmds);
        }
        Ok(())
    }

    /// Uploads the initial particles through a staging buffer (freed afterwards).
    fn upload_particles(&mut self, particles: &[Particle]) -> Result<()> {
        let bytes: &[u8] = bytemuck::cast_slice(particles);
        self.buffer(
            "particles::staging",
            bytes.len() as u64,
            vk::BufferUsageFlags::TRANSFER_SRC,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )?;
        let staging = self.buffers.pop().unwrap();
        // SAFETY: the mapping covers the buffer.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), staging.mapped, bytes.len()) };
        let dst = self.buffers[PARTICLES].buffer;
        let result = self.one_shot("particles::upload", |dev, cmd| {
            // SAFETY: recording; both buffers live until the wait returns. The first frame's start barrier
            // orders this copy (an earlier submission) before the simulation.
            unsafe {
                dev.cmd_copy_buffer(
                    cmd,
                    staging.buffer,
                    dst,
                    &[vk::BufferCopy {
                        src_offset: 0,
                        dst_offset: 0,
                        size: bytes.len() as u64,
                    }],
                )
            };
        });
        // SAFETY: the upload completed (or failed before running); nothing else uses the staging buffer.
        unsafe {
            self.device.destroy_buffer(staging.buffer, None);
            self.device.free_memory(staging.memory, None);
        }
        result
    }

    /// Destroys every object of the renderer, the device and the instance.
    ///
    /// # Safety
    /// The device is idle and nothing (vksort included) uses any of these objects any more.
    unsafe fn destroy(&mut self) {
        let dev = &self.device;
        unsafe {
            for f in self.fences.drain(..) {
                dev.destroy_fence(f, None);
            }
            dev.destroy_command_pool(self.command_pool, None);
            dev.destroy_descriptor_pool(self.descriptor_pool, None);
            for p in self.pipelines.drain(..) {
                dev.destroy_pipeline(p, None);
            }
            for l in self.layouts.drain(..) {
                dev.destroy_pipeline_layout(l, None);
            }
            for l in self.set_layouts.drain(..) {
                dev.destroy_descriptor_set_layout(l, None);
            }
            dev.destroy_framebuffer(self.framebuffer, None);
            dev.destroy_render_pass(self.render_pass, None);
            dev.destroy_image_view(self.view, None);
            dev.destroy_image(self.image, None);
            dev.free_memory(self.image_memory, None);
            for b in self.buffers.drain(..) {
                dev.destroy_buffer(b.buffer, None);
                dev.free_memory(b.memory, None);
            }
            dev.destroy_device(None);
            if let Some((du, m)) = self.messenger.take() {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}
