//! The particle renderer's Vulkan objects, created and destroyed here so that `renderer.rs` reads as the frame:
//! the instance (with `VK_EXT_debug_utils`, and `VK_LAYER_KHRONOS_validation` with synchronization validation when
//! asked, its errors kept), the device and queue, one memory allocation per buffer, the colour image with its
//! render pass and framebuffer, descriptor sets, the shaders (GLSL under `shaders/`, compiled with shaderc) and
//! pipelines, the command pool, frame slots and one-shot submissions. Every object is named (the instance-level
//! ones excepted: the validation layer of Debian 12 rejects their names).
//!
//! Contract: [`Gpu::new`] makes the instance, device and queue; the other constructors add to [`Gpu`], which
//! keeps every handle; [`Gpu::destroy`] (an `unsafe fn`: the caller vouches that the device is idle and nothing
//! else uses the objects) destroys them all, the device and the instance.

use super::Options;
use crate::scene::{Mat4, Particle};
use anyhow::{anyhow, bail, Context as _, Result};
use ash::vk;
use std::ffi::{c_char, CStr, CString};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use vksort::gpu::BufferRef;

/// The colour target's format: blendable on every Vulkan device (a mandatory format feature).
pub const COLOR_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// The bound of every fence wait.
pub(crate) const WAIT: Duration = Duration::from_secs(60);

/// The renderer's own Vulkan objects (everything but vksort's).
pub(crate) struct Gpu {
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) family: u32,
    pub(crate) memory: vk::PhysicalDeviceMemoryProperties,
    pub(crate) debug: Option<ash::ext::debug_utils::Device>,
    pub(crate) messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub(crate) log: Arc<Log>,
    pub(crate) buffers: Vec<GpuBuffer>,
    /// What `create_device` enabled for vksort (handed to `Context::adopt` through `AdoptInfo::new`).
    pub(crate) requirements: vksort::gpu::DeviceRequirements,
    pub(crate) image: vk::Image,
    pub(crate) image_memory: vk::DeviceMemory,
    pub(crate) view: vk::ImageView,
    pub(crate) render_pass: vk::RenderPass,
    pub(crate) framebuffer: vk::Framebuffer,
    pub(crate) set_layouts: Vec<vk::DescriptorSetLayout>,
    pub(crate) layouts: Vec<vk::PipelineLayout>,
    pub(crate) pipelines: Vec<vk::Pipeline>,
    pub(crate) descriptor_pool: vk::DescriptorPool,
    pub(crate) compute_set: vk::DescriptorSet,
    pub(crate) draw_set: vk::DescriptorSet,
    pub(crate) command_pool: vk::CommandPool,
    pub(crate) fences: Vec<vk::Fence>,
}

// Indices into `Gpu::buffers`.
pub(crate) const PARTICLES: usize = 0;
pub(crate) const KEYS: usize = 1;
pub(crate) const VALUES: usize = 2;
pub(crate) const DRAW_ARGS: usize = 3;
pub(crate) const SCRATCH: usize = 4;
pub(crate) const READBACK: usize = 5;
// Indices into `Gpu::layouts` and `Gpu::pipelines`.
pub(crate) const COMPUTE: usize = 0;
pub(crate) const GRAPHICS: usize = 1;
pub(crate) const SIM_PIPE: usize = 0;
pub(crate) const CULL_PIPE: usize = 1;
pub(crate) const DRAW_PIPE: usize = 2;

/// Push constants of `shaders/simulate.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct SimPush {
    pub(crate) dt: f32,
    pub(crate) gm: f32,
    pub(crate) eps2: f32,
    pub(crate) n: u32,
}

/// Push constants of `shaders/cull.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct CullPush {
    pub(crate) view: Mat4,
    pub(crate) tan_half: [f32; 2],
    pub(crate) near: f32,
    pub(crate) far: f32,
    pub(crate) n: u32,
}

/// Push constants of `shaders/particle.vert`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct DrawPush {
    pub(crate) view_proj: Mat4,
    pub(crate) right: [f32; 4],
    pub(crate) up: [f32; 4],
}

/// Validation errors, filled by the debug messenger.
#[derive(Default)]
pub(crate) struct Log {
    pub(crate) errors: Mutex<Vec<String>>,
}

pub(crate) unsafe extern "system" fn on_message(
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
pub(crate) struct GpuBuffer {
    pub(crate) buffer: vk::Buffer,
    pub(crate) memory: vk::DeviceMemory,
    pub(crate) size: u64,
    pub(crate) usage: vk::BufferUsageFlags,
    /// The persistent mapping of host-visible buffers (null otherwise).
    pub(crate) mapped: *mut u8,
}

impl GpuBuffer {
    /// The whole buffer as vksort takes it: handle, offset, size and the usage it was created with.
    pub(crate) fn whole(&self) -> BufferRef<'_> {
        // SAFETY: a live buffer of the renderer's device (the one vksort adopted), created with `usage`, of
        // `size` bytes; it outlives every frame that sorts it (the renderer waits before destroying it).
        unsafe { BufferRef::from_raw(self.buffer, 0, self.size, self.usage) }
    }
}

pub(crate) fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1)
}

/// The renderer's shaders, compiled with shaderc (the same library build.rs compiles vksort's with).
pub(crate) fn compile(name: &str, kind: shaderc::ShaderKind, source: &str) -> Result<Vec<u32>> {
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

pub(crate) const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

impl Gpu {
    /// Instance, device and queue (see the module docs).
    pub(crate) fn new(opts: &Options) -> Result<Gpu> {
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
        let (device, requirements) = match Self::create_device(&instance, physical, family) {
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
            entry,
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
            requirements,
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
    pub(crate) fn pick_device(
        instance: &ash::Instance,
        opts: &Options,
    ) -> Result<(vk::PhysicalDevice, u32)> {
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

    /// The device, with what vksort needs and uses of it (`DeviceRequirements`: its extensions, and its
    /// optional features where the device has them; the renderer itself needs none). Returns it with those
    /// requirements, which `Context::adopt` is told.
    pub(crate) fn create_device(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        family: u32,
    ) -> Result<(ash::Device, vksort::gpu::DeviceRequirements)> {
        // SAFETY: `instance` is live and `physical` was enumerated from it.
        let mut requirements = unsafe {
            vksort::gpu::DeviceRequirements::query(instance, vk::API_VERSION_1_3, physical)
        }?;
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        // SAFETY: `info` was built with ash's builders from locals that outlive the device creation.
        let info = unsafe { requirements.enable(info) };
        // SAFETY: every pointer in `info` outlives the call.
        let device = unsafe { instance.create_device(physical, &info, None) }?;
        Ok((device, requirements))
    }

    /// Names `handle` (a debugging aid: failures are ignored).
    pub(crate) fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        if let Some(d) = &self.debug {
            let name = CString::new(name).unwrap();
            let info = vk::DebugUtilsObjectNameInfoEXT::default()
                .object_handle(handle)
                .object_name(&name);
            // SAFETY: the handle is one of this renderer's live objects (of this device or its instance).
            let _ = unsafe { d.set_debug_utils_object_name(&info) };
        }
    }

    pub(crate) fn begin_label(&self, cmd: vk::CommandBuffer, label: &str) {
        if let Some(d) = &self.debug {
            let name = CString::new(label).unwrap();
            let info = vk::DebugUtilsLabelEXT::default()
                .label_name(&name)
                .color([0.9, 0.5, 0.2, 1.0]);
            // SAFETY: `cmd` is recording.
            unsafe { d.cmd_begin_debug_utils_label(cmd, &info) };
        }
    }

    pub(crate) fn end_label(&self, cmd: vk::CommandBuffer) {
        if let Some(d) = &self.debug {
            // SAFETY: matched with a begin_label on `cmd`.
            unsafe { d.cmd_end_debug_utils_label(cmd) };
        }
    }

    /// A memory type for `bits` with `want` (falling back to any type of `bits` for device-local memory).
    pub(crate) fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32> {
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
    pub(crate) fn allocate(
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
    pub(crate) fn buffer(
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
    pub(crate) fn image(&mut self, width: u32, height: u32) -> Result<()> {
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
    pub(crate) fn pipelines(&mut self) -> Result<()> {
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

    pub(crate) fn build_pipelines(&mut self, modules: &[vk::ShaderModule; 4]) -> Result<()> {
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

    pub(crate) fn command_pool(&mut self) -> Result<()> {
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(self.family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: plain creation; destroyed in `destroy`.
        self.command_pool = unsafe { self.device.create_command_pool(&info, None) }?;
        self.name(self.command_pool, "particles::command_pool");
        Ok(())
    }

    /// Frame slot `i`'s command buffer and fence.
    pub(crate) fn frame_objects(&mut self, i: usize) -> Result<(vk::CommandBuffer, vk::Fence)> {
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
    pub(crate) fn one_shot(
        &self,
        name: &str,
        f: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<()> {
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
    pub(crate) fn upload_particles(&mut self, particles: &[Particle]) -> Result<()> {
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
    pub(crate) unsafe fn destroy(&mut self) {
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
