//! The Vulkan context: instance, device, queue, allocator, pipeline cache and what vksort knows of the device.
//!
//! Contract:
//! - [`Context::new`] creates its own instance and device (best device first: discrete, integrated, virtual,
//!   then CPU; [`ContextOptions::device`] picks by index or name substring) and destroys them on drop. It is
//!   driven by [`ContextOptions`] alone: the library reads no environment variable. Binaries, tests and
//!   examples that want the `VKSORT_*` variables opt in with [`ContextOptions::from_env`].
//! - [`Context::adopt`] (an `unsafe fn`: the caller vouches for the raw handles) takes a renderer's existing
//!   instance, physical device, device and queue family. It creates nothing global (no instance, no device, no
//!   debug messenger) and destroys only what it created itself (allocator blocks, pipelines, layouts, its
//!   command pool, its pipeline cache).
//! - Functions that take raw Vulkan handles whose validity vksort cannot check are `unsafe fn` with a
//!   `# Safety` section ([`Context::adopt`], [`Context::device_extensions`], [`super::Recorder::new`],
//!   [`super::Profiler::begin`]). [`super::Region`] stays a plain struct; its docs state the promise that
//!   every function taking one relies on.
//! - Every wait is bounded by [`ContextOptions::wait_timeout`] and ends in [`Error::Timeout`] or
//!   [`Error::DeviceLost`] naming the last pass the GPU started. Either leaves the context lost
//!   ([`Context::is_lost`]): the late work may still run, so from then on nothing it might use is freed (buffers,
//!   query pools and the device are leaked; dropping the context neither waits nor destroys) and host forms fail
//!   at once.
//! - With validation on, every message of severity error from `VK_LAYER_KHRONOS_validation` (with
//!   synchronization validation) is kept; [`Context::take_validation_errors`] hands them out.

use super::debug::DebugUtils;
use super::kernel::{Kernel, KernelKey};
use crate::error::{Error, Result, VkContext};
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How [`Context::new`] creates its instance and device. `Default` reads no environment variable (and is what a
/// library or renderer should start from); binaries and tests that want the `VKSORT_*` variables ask for
/// [`ContextOptions::from_env`]. [`Context::adopt`] takes none of these: the renderer made its device.
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// Device choice: an index into the enumeration order of [`Context::enumerate`], or a case-insensitive name
    /// substring (the first match wins; none matching is [`Error::NoDevice`]). Default: `None`, the best device
    /// (discrete GPUs first, then integrated, virtual, CPU; lavapipe where there is no GPU).
    pub device: Option<String>,
    /// Enable `VK_LAYER_KHRONOS_validation` with synchronization validation and keep its errors
    /// ([`Context::take_validation_errors`]); creation fails with [`Error::Unsupported`] when the layer is not
    /// installed. Default: `false`.
    pub validation: bool,
    /// Upper bound of every fence wait of the host forms, in wall time; a wait that runs out is
    /// [`Error::Timeout`]. Default: 60 s.
    pub wait_timeout: Duration,
    /// Enable `VK_KHR_pipeline_executable_properties` with statistics capture, where present, so that
    /// [`Context::kernel_statistics`] reports registers and shared memory per kernel (`examples/pipeline_stats`).
    /// Without the extension the option is ignored ([`DeviceCaps::pipeline_statistics`] says what was enabled).
    /// Default: `false` (capturing costs pipeline-creation time).
    pub pipeline_statistics: bool,
    /// Enable `VK_KHR_shader_clock` (and `VK_NV_shader_sm_builtins`), where present, for the radix sort's
    /// per-tile clock records (diagnostics; `examples/tile_clocks`). Without the extension or its subgroup and
    /// device clock features the option is ignored ([`DeviceCaps::shader_clock`] says what was enabled).
    /// Default: `false`.
    pub shader_clock: bool,
    /// Enable `VK_KHR_workgroup_memory_explicit_layout` and `VK_NV_cooperative_matrix` (with `shaderFloat16` and
    /// `vulkanMemoryModel` with its device scope), where present, for the residency probe's block and
    /// cooperative-matrix kinds (diagnostics; `examples/residency`, [`crate::diagnostics::ResidencyMemory`]).
    /// Without them the option is ignored ([`DeviceCaps::explicit_layout`], [`DeviceCaps::cooperative_matrix`]
    /// say what was enabled). Default: `false`.
    pub residency_probes: bool,
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            device: None,
            validation: false,
            wait_timeout: Duration::from_secs(60),
            pipeline_statistics: false,
            shader_clock: false,
            residency_probes: false,
        }
    }
}

impl ContextOptions {
    /// The options the `VKSORT_*` environment variables ask for, over [`ContextOptions::default`]:
    /// - `VKSORT_DEVICE`: [`ContextOptions::device`] (index or name; empty means unset);
    /// - `VKSORT_VALIDATION=1`: [`ContextOptions::validation`];
    /// - `VKSORT_TIMEOUT_MS`: [`ContextOptions::wait_timeout`] in milliseconds (unparsable: the default);
    /// - `VKSORT_PIPELINE_STATS=1`: [`ContextOptions::pipeline_statistics`];
    /// - `VKSORT_SHADER_CLOCK=1`: [`ContextOptions::shader_clock`].
    ///
    /// A flag is on only for the exact value `1`. The opt-in for binaries, tests and examples (`./dev test` sets
    /// `VKSORT_VALIDATION=1`); the library itself never reads the environment.
    pub fn from_env() -> Self {
        let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
        let d = Self::default();
        Self {
            device: std::env::var("VKSORT_DEVICE")
                .ok()
                .filter(|s| !s.is_empty()),
            validation: flag("VKSORT_VALIDATION"),
            wait_timeout: std::env::var("VKSORT_TIMEOUT_MS")
                .ok()
                .and_then(|v| v.parse().ok())
                .map_or(d.wait_timeout, Duration::from_millis),
            pipeline_statistics: flag("VKSORT_PIPELINE_STATS"),
            shader_clock: flag("VKSORT_SHADER_CLOCK"),
            residency_probes: false,
        }
    }
}

/// What a renderer hands to [`Context::adopt`]. vksort keeps clones of the function tables and never destroys
/// these objects. The device must have been created with the extensions of [`Context::device_extensions`]
/// (at least `VK_KHR_push_descriptor`); the flags below say which optional features were enabled. The promises
/// about these handles are listed under [`Context::adopt`]'s `# Safety`.
pub struct AdoptInfo {
    /// The loader the instance was created through.
    pub entry: ash::Entry,
    /// The renderer's instance (Vulkan 1.2 or later).
    pub instance: ash::Instance,
    /// The physical device of `device`, enumerated from `instance`.
    pub physical_device: vk::PhysicalDevice,
    /// The renderer's device.
    pub device: ash::Device,
    /// A queue family with compute support; vksort's host forms submit to `queue` of this family.
    pub queue_family_index: u32,
    pub queue: vk::Queue,
    /// Whether the instance was created with `VK_EXT_debug_utils` (names and labels are off otherwise).
    pub debug_utils: bool,
    /// Whether the device was created with `subgroupSizeControl` and `computeFullSubgroups` enabled.
    pub subgroup_size_control: bool,
    /// Whether `shaderInt64` and `shaderSubgroupExtendedTypes` were enabled (64-bit scans and reduces).
    pub int64: bool,
    /// Whether `VK_NV_shader_subgroup_partitioned` was enabled.
    pub subgroup_partitioned: bool,
    /// Whether `bufferDeviceAddress` was enabled. Sorts whose arrays exceed one storage-buffer binding
    /// (`maxStorageBufferRange`) need it, and then their key, value and scratch buffers need
    /// `SHADER_DEVICE_ADDRESS` usage and memory allocated with `VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT`.
    pub buffer_device_address: bool,
    /// Upper bound of every fence wait of the host forms, in wall time ([`ContextOptions::wait_timeout`]
    /// defaults to 60 s).
    pub wait_timeout: Duration,
}

/// What vksort knows about the device: limits and features that the policies and checks read.
#[derive(Clone, Debug)]
pub struct DeviceCaps {
    pub name: String,
    pub vendor_id: u32,
    pub device_id: u32,
    pub device_type: vk::PhysicalDeviceType,
    pub api_version: u32,
    pub driver_version: u32,
    pub driver_info: String,
    /// `pipelineCacheUUID`, the key of on-disk caches (calibration).
    pub pipeline_cache_uuid: [u8; 16],
    pub device_uuid: [u8; 16],
    /// The default subgroup size (`VkPhysicalDeviceSubgroupProperties::subgroupSize`).
    pub subgroup_size: u32,
    /// Range of subgroup sizes the device may use (`VK_EXT_subgroup_size_control` properties; both equal
    /// `subgroup_size` where the device does not report them).
    pub min_subgroup_size: u32,
    pub max_subgroup_size: u32,
    /// Whether pipelines can require a subgroup size and full subgroups (enabled on the device).
    pub subgroup_size_control: bool,
    pub subgroup_ops: vk::SubgroupFeatureFlags,
    pub subgroup_stages: vk::ShaderStageFlags,
    /// `shaderInt64` and `shaderSubgroupExtendedTypes`, both enabled.
    pub int64: bool,
    /// `VK_NV_shader_subgroup_partitioned` enabled (match-any).
    pub subgroup_partitioned: bool,
    /// `bufferDeviceAddress` enabled: passes may write through 64-bit device addresses (sorts of arrays
    /// larger than one storage-buffer binding).
    pub buffer_device_address: bool,
    /// Pipelines capture driver statistics (registers, spills, ...) through
    /// `VK_KHR_pipeline_executable_properties`: only when [`ContextOptions::pipeline_statistics`] was set at
    /// creation and the device has the extension (never for an adopted device).
    pub pipeline_statistics: bool,
    /// `VK_KHR_shader_clock` (subgroup and device clocks) enabled, and `VK_NV_shader_sm_builtins` in
    /// `sm_builtins`: only when [`ContextOptions::shader_clock`] was set at creation (never for an adopted
    /// device; diagnostics: the Onesweep kernel's per-tile phase clocks, `RadixDebug::tile_clocks`).
    pub shader_clock: bool,
    pub sm_builtins: bool,
    /// Diagnostics, enabled with [`ContextOptions::residency_probes`] where the device has them (never for an
    /// adopted device): `VK_KHR_workgroup_memory_explicit_layout` (`workgroupMemoryExplicitLayout`) and
    /// `VK_NV_cooperative_matrix` (with `shaderFloat16` and `vulkanMemoryModel` with its device scope), for the
    /// residency probe's question whether either changes how much shared memory an SM gives Vulkan compute
    /// (`vksort::diagnostics::ResidencyMemory`).
    pub explicit_layout: bool,
    pub cooperative_matrix: bool,
    /// Bytes of workgroup shared memory.
    pub max_shared_memory: u32,
    /// Invocations per workgroup (`maxComputeWorkGroupInvocations`; where pipelines require the subgroup size,
    /// at most `maxComputeWorkgroupSubgroups` subgroups of it).
    pub max_workgroup_invocations: u32,
    pub max_workgroup_count: [u32; 3],
    /// Bytes one storage buffer descriptor may cover.
    pub max_storage_buffer_range: u64,
    pub min_storage_buffer_offset_alignment: u64,
    pub max_push_constants_size: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// Valid bits of timestamps on the queue family (0: no timestamps).
    pub timestamp_valid_bits: u32,
    /// Bytes of the largest device-local heap.
    pub device_local_bytes: u64,
}

impl DeviceCaps {
    /// True when the device supports every subgroup operation in `ops` in compute shaders.
    pub fn has_subgroup_ops(&self, ops: vk::SubgroupFeatureFlags) -> bool {
        self.subgroup_stages.contains(vk::ShaderStageFlags::COMPUTE)
            && self.subgroup_ops.contains(ops)
    }

    /// A human name for the vendor.
    pub fn vendor(&self) -> &'static str {
        match self.vendor_id {
            0x10de => "NVIDIA",
            0x1002 => "AMD",
            0x8086 => "Intel",
            0x13b5 => "ARM",
            0x5143 => "Qualcomm",
            0x106b => "Apple",
            0x10005 => "Mesa",
            _ => "unknown",
        }
    }

    /// True for CPU implementations such as lavapipe.
    pub fn is_cpu(&self) -> bool {
        self.device_type == vk::PhysicalDeviceType::CPU
    }
}

/// A kernel's name and specialization, and the driver's statistics of it as (name, value) pairs.
pub type KernelStatistics = (String, Vec<(String, String)>);

/// Kept validation messages (errors only).
#[derive(Default)]
pub(crate) struct ValidationLog {
    pub(crate) errors: Mutex<Vec<String>>,
}

/// The Vulkan context every vksort primitive runs on. `Send + Sync`; the queue is guarded by a mutex.
pub struct Context {
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) queue: Mutex<vk::Queue>,
    pub(crate) queue_family: u32,
    pub(crate) push_descriptor: ash::khr::push_descriptor::Device,
    pub(crate) debug: Option<DebugUtils>,
    pub(crate) allocator: ManuallyDrop<Mutex<Allocator>>,
    pub(crate) pipeline_cache: vk::PipelineCache,
    pub(crate) kernels: Mutex<HashMap<KernelKey, Arc<Kernel>>>,
    pub(crate) command_pool: Mutex<vk::CommandPool>,
    pub(crate) caps: DeviceCaps,
    pub(crate) wait_timeout: Duration,
    pub(crate) validation: Option<Arc<ValidationLog>>,
    /// Set when a host-form wait timed out or the device was lost: work this context submitted may still run,
    /// so nothing it might use is freed any more (buffers, query pools and, on drop, the device are leaked) and
    /// later host-form submissions fail at once with [`Error::DeviceLost`].
    pub(crate) lost: AtomicBool,
    messenger: vk::DebugUtilsMessengerEXT,
    owns_device: bool,
    /// Unique per context in this process (from 1): buffers remember the context that made them, so that a
    /// region of another context's buffer is refused ([`Error::ForeignBuffer`]) instead of recorded.
    pub(crate) id: u64,
}

/// The source of [`Context::id`].
static NEXT_CONTEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

// SAFETY: Vulkan handles are plain identifiers; the only externally synchronized objects (queue, command pool,
// allocator, kernel map) are behind mutexes.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

unsafe extern "system" fn validation_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut std::ffi::c_void,
) -> vk::Bool32 {
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
        && !data.is_null()
        && !user.is_null()
    {
        // SAFETY: the layer passes a valid callback data struct; `user` is the ValidationLog kept alive by the
        // Context for as long as the messenger exists.
        let msg = unsafe {
            let d = &*data;
            if d.p_message.is_null() {
                "(no message)".to_string()
            } else {
                CStr::from_ptr(d.p_message).to_string_lossy().into_owned()
            }
        };
        let log = unsafe { &*(user as *const ValidationLog) };
        eprintln!("[vksort validation] {msg}");
        log.errors.lock().unwrap().push(msg);
    }
    vk::FALSE
}

impl Context {
    /// Creates an instance and a device of its own, on the best device (or the one `options.device` names), as
    /// `options` says and nothing else (no environment variable is read here).
    pub fn new(options: ContextOptions) -> Result<Arc<Self>> {
        // SAFETY: loading the system Vulkan loader; its symbols are trusted.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| Error::Loader(e.to_string()))?;
        let validation = options.validation;
        // SAFETY: plain enumeration calls on a loaded entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }
            .vk("vkEnumerateInstanceLayerProperties")?;
        let has_layer = layers
            .iter()
            .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
        if validation && !has_layer {
            return Err(Error::Unsupported {
                device: "instance".into(),
                what: "validation requested but VK_LAYER_KHRONOS_validation is not installed"
                    .into(),
            });
        }
        let exts = unsafe { entry.enumerate_instance_extension_properties(None) }
            .vk("vkEnumerateInstanceExtensionProperties")?;
        let has_debug_utils = exts.iter().any(|e| {
            e.extension_name_as_c_str()
                .is_ok_and(|n| n == ash::ext::debug_utils::NAME)
        });
        let mut inst_exts: Vec<*const c_char> = Vec::new();
        if has_debug_utils {
            inst_exts.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let layer_ptrs: Vec<*const c_char> = if validation {
            vec![VALIDATION_LAYER.as_ptr()]
        } else {
            vec![]
        };
        let app = vk::ApplicationInfo::default()
            .application_name(c"vksort")
            .engine_name(c"vksort")
            .api_version(vk::API_VERSION_1_3);
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut vfeatures =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let log = Arc::new(ValidationLog::default());
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                    | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(validation_callback))
            .user_data(Arc::as_ptr(&log) as *mut std::ffi::c_void);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_ptrs)
            .enabled_extension_names(&inst_exts);
        if validation {
            info = info.push_next(&mut vfeatures);
            if has_debug_utils {
                info = info.push_next(&mut messenger_info);
            }
        }
        // SAFETY: every pointer in `info` outlives the call.
        let instance = unsafe { entry.create_instance(&info, None) }.vk("vkCreateInstance")?;
        let result = Self::create_device(&instance, &options);
        let (physical, device, family, caps) = match result {
            Ok(v) => v,
            Err(e) => {
                // SAFETY: nothing else was created from the instance.
                unsafe { instance.destroy_instance(None) };
                return Err(e);
            }
        };
        let mut messenger = vk::DebugUtilsMessengerEXT::null();
        if validation && has_debug_utils {
            let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
            messenger_info.p_next = std::ptr::null();
            // SAFETY: the messenger's user data (the log) lives as long as the Context, which destroys it first.
            messenger = unsafe { du.create_debug_utils_messenger(&messenger_info, None) }
                .vk("vkCreateDebugUtilsMessengerEXT")?;
        }
        // SAFETY: the family index was chosen with a queue of index 0.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Self::finish(
            entry,
            instance,
            physical,
            device,
            family,
            queue,
            caps,
            has_debug_utils,
            options.wait_timeout,
            validation.then_some(log),
            messenger,
            true,
        )
    }

    /// Adopts a renderer's instance and device. Creates nothing global and destroys nothing it did not create.
    ///
    /// # Safety
    /// The caller promises that:
    /// - `info.instance` was created through `info.entry`; `info.physical_device` was enumerated from it;
    ///   `info.device` was created from that physical device; `info.queue` is a queue of `info.device` in family
    ///   `info.queue_family_index`, which supports compute;
    /// - all of them stay alive (not destroyed) until the returned context and everything created from it
    ///   (buffers, profilers, sorters, scanners, compactors) are dropped, and until the GPU has finished every
    ///   command buffer vksort recorded into (dropping the context waits for the device to be idle);
    /// - the device was created with the extensions of [`Context::device_extensions`] and with every feature
    ///   the flags of `info` claim (`subgroup_size_control`, `int64`, `subgroup_partitioned`,
    ///   `buffer_device_address`), and the instance with `VK_EXT_debug_utils` if `info.debug_utils` says so;
    /// - vksort's host forms submit to `info.queue` and wait on their own fences: the caller does not use that
    ///   queue from another thread while a host form runs (Vulkan requires external synchronization of a queue).
    pub unsafe fn adopt(info: AdoptInfo) -> Result<Arc<Self>> {
        let mut caps = Self::query_caps(
            &info.instance,
            info.physical_device,
            info.queue_family_index,
        );
        // What the device supports, and of that what the renderer says it enabled.
        Self::fill_optional_features(&info.instance, info.physical_device, &mut caps);
        caps.subgroup_size_control &= info.subgroup_size_control;
        caps.int64 &= info.int64;
        caps.subgroup_partitioned &= info.subgroup_partitioned;
        caps.buffer_device_address &= info.buffer_device_address;
        Self::finish(
            info.entry,
            info.instance,
            info.physical_device,
            info.device,
            info.queue_family_index,
            info.queue,
            caps,
            info.debug_utils,
            info.wait_timeout,
            None,
            vk::DebugUtilsMessengerEXT::null(),
            false,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        entry: ash::Entry,
        instance: ash::Instance,
        physical: vk::PhysicalDevice,
        device: ash::Device,
        queue_family: u32,
        queue: vk::Queue,
        caps: DeviceCaps,
        debug_utils: bool,
        wait_timeout: Duration,
        validation: Option<Arc<ValidationLog>>,
        messenger: vk::DebugUtilsMessengerEXT,
        owns_device: bool,
    ) -> Result<Arc<Self>> {
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: caps.buffer_device_address,
            allocation_sizes: Default::default(),
        })
        .map_err(|source| Error::Allocation {
            name: "allocator".into(),
            reason: source.to_string(),
        })?;
        let push_descriptor = ash::khr::push_descriptor::Device::new(&instance, &device);
        let debug = debug_utils.then(|| DebugUtils::new(&instance, &device));
        // SAFETY: plain object creation on a valid device.
        let pipeline_cache =
            unsafe { device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
                .vk("vkCreatePipelineCache")?;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(queue_family)
            .flags(
                vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER
                    | vk::CommandPoolCreateFlags::TRANSIENT,
            );
        let command_pool =
            unsafe { device.create_command_pool(&pool_info, None) }.vk("vkCreateCommandPool")?;
        let ctx = Self {
            entry,
            instance,
            physical,
            device,
            queue: Mutex::new(queue),
            queue_family,
            push_descriptor,
            debug,
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            pipeline_cache,
            kernels: Mutex::new(HashMap::new()),
            command_pool: Mutex::new(command_pool),
            caps,
            wait_timeout,
            validation,
            lost: AtomicBool::new(false),
            messenger,
            owns_device,
            id: NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed),
        };
        ctx.name(pipeline_cache, "vksort::pipeline_cache");
        ctx.name(command_pool, "vksort::command_pool");
        Ok(Arc::new(ctx))
    }

    /// Device extensions vksort uses, of those `physical` supports. `VK_KHR_push_descriptor` is required
    /// ([`Error::Unsupported`] without it). For a renderer that creates its device for [`Context::adopt`].
    ///
    /// # Safety
    /// The caller promises that `instance` is a live instance (not destroyed) and that `physical` was
    /// enumerated from it.
    pub unsafe fn device_extensions(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
    ) -> Result<Vec<&'static CStr>> {
        // SAFETY: plain query on a valid physical device.
        let exts = unsafe { instance.enumerate_device_extension_properties(physical) }
            .vk("vkEnumerateDeviceExtensionProperties")?;
        let has = |n: &CStr| {
            exts.iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|x| x == n))
        };
        let mut out = vec![ash::khr::push_descriptor::NAME];
        if !has(ash::khr::push_descriptor::NAME) {
            let name = Self::query_caps(instance, physical, 0).name;
            return Err(Error::Unsupported {
                device: name,
                what: "needs VK_KHR_push_descriptor".into(),
            });
        }
        for e in [
            ash::ext::subgroup_size_control::NAME,
            ash::nv::shader_subgroup_partitioned::NAME,
            ash::khr::pipeline_executable_properties::NAME,
            ash::khr::shader_clock::NAME,
            ash::nv::shader_sm_builtins::NAME,
        ] {
            if has(e) {
                out.push(e);
            }
        }
        Ok(out)
    }

    fn create_device(
        instance: &ash::Instance,
        options: &ContextOptions,
    ) -> Result<(vk::PhysicalDevice, ash::Device, u32, DeviceCaps)> {
        // SAFETY: plain enumeration on a valid instance.
        let physicals =
            unsafe { instance.enumerate_physical_devices() }.vk("vkEnumeratePhysicalDevices")?;
        let mut candidates: Vec<(usize, vk::PhysicalDevice, u32, DeviceCaps)> = Vec::new();
        for (i, &pd) in physicals.iter().enumerate() {
            let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
            let Some(family) = families
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            else {
                continue;
            };
            let caps = Self::query_caps(instance, pd, family as u32);
            if caps.api_version < vk::API_VERSION_1_2 {
                continue;
            }
            candidates.push((i, pd, family as u32, caps));
        }
        if candidates.is_empty() {
            return Err(Error::NoDevice(
                "no Vulkan 1.2 device with a compute queue".into(),
            ));
        }
        let rank = |t: vk::PhysicalDeviceType| match t {
            vk::PhysicalDeviceType::DISCRETE_GPU => 0,
            vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
            vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
            vk::PhysicalDeviceType::CPU => 3,
            _ => 4,
        };
        let chosen = match &options.device {
            Some(sel) => {
                let by_index = sel.parse::<usize>().ok();
                candidates
                    .iter()
                    .find(|c| {
                        Some(c.0) == by_index
                            || c.3.name.to_lowercase().contains(&sel.to_lowercase())
                    })
                    .ok_or_else(|| {
                        let names: Vec<String> = candidates
                            .iter()
                            .map(|c| format!("{}: {}", c.0, c.3.name))
                            .collect();
                        Error::NoDevice(format!(
                            "no device matches `{sel}`; devices: {}",
                            names.join(", ")
                        ))
                    })?
            }
            None => candidates
                .iter()
                .min_by_key(|c| (rank(c.3.device_type), c.0))
                .unwrap(),
        };
        let (_, pd, family, mut caps) = chosen.clone();
        // SAFETY: `instance` is live and `pd` was enumerated from it just above.
        let ext_names = unsafe { Self::device_extensions(instance, pd) }?;
        // Features to enable: what exists of what vksort uses.
        Self::fill_optional_features(instance, pd, &mut caps);
        let (int64, size_control) = (caps.int64, caps.subgroup_size_control);
        let features = vk::PhysicalDeviceFeatures::default().shader_int64(int64);
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_subgroup_extended_types(int64)
            .buffer_device_address(caps.buffer_device_address);
        let mut e13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(size_control)
            .compute_full_subgroups(size_control);
        caps.pipeline_statistics = options.pipeline_statistics
            && ext_names.contains(&ash::khr::pipeline_executable_properties::NAME);
        let mut epe = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(caps.pipeline_statistics);
        if options.shader_clock && ext_names.contains(&ash::khr::shader_clock::NAME) {
            let mut f = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f);
            // SAFETY: the chain is valid for the call.
            unsafe { instance.get_physical_device_features2(pd, &mut f2) };
            caps.shader_clock =
                f.shader_subgroup_clock == vk::TRUE && f.shader_device_clock == vk::TRUE;
        }
        caps.sm_builtins =
            caps.shader_clock && ext_names.contains(&ash::nv::shader_sm_builtins::NAME);
        let mut clock = vk::PhysicalDeviceShaderClockFeaturesKHR::default()
            .shader_subgroup_clock(caps.shader_clock)
            .shader_device_clock(caps.shader_clock);
        let mut smb = vk::PhysicalDeviceShaderSMBuiltinsFeaturesNV::default()
            .shader_sm_builtins(caps.sm_builtins);
        // The residency probe's extensions (diagnostics only; not in `device_extensions`, which an adopting
        // renderer enables).
        let mut diag_exts: Vec<&'static CStr> = Vec::new();
        if options.residency_probes {
            // SAFETY: plain query on a valid physical device.
            let all = unsafe { instance.enumerate_device_extension_properties(pd) }
                .vk("vkEnumerateDeviceExtensionProperties")?;
            let has = |n: &CStr| {
                all.iter()
                    .any(|e| e.extension_name_as_c_str().is_ok_and(|x| x == n))
            };
            let mut wel = vk::PhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR::default();
            let mut coop = vk::PhysicalDeviceCooperativeMatrixFeaturesNV::default();
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut wel)
                .push_next(&mut coop)
                .push_next(&mut f12);
            // SAFETY: the chain is valid for the call (unknown structs are ignored).
            unsafe { instance.get_physical_device_features2(pd, &mut f2) };
            caps.explicit_layout = has(ash::khr::workgroup_memory_explicit_layout::NAME)
                && wel.workgroup_memory_explicit_layout == vk::TRUE;
            caps.cooperative_matrix = has(ash::nv::cooperative_matrix::NAME)
                && coop.cooperative_matrix == vk::TRUE
                && f12.shader_float16 == vk::TRUE
                && f12.vulkan_memory_model == vk::TRUE
                && f12.vulkan_memory_model_device_scope == vk::TRUE;
            if caps.explicit_layout {
                diag_exts.push(ash::khr::workgroup_memory_explicit_layout::NAME);
            }
            if caps.cooperative_matrix {
                diag_exts.push(ash::nv::cooperative_matrix::NAME);
            }
        }
        // (glslang declares the Vulkan memory model in cooperative-matrix shaders; with the model enabled, the
        // other kernels' device-scope atomics and barriers need its device scope too)
        e12 = e12
            .shader_float16(caps.cooperative_matrix)
            .vulkan_memory_model(caps.cooperative_matrix)
            .vulkan_memory_model_device_scope(caps.cooperative_matrix);
        let mut wel = vk::PhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR::default()
            .workgroup_memory_explicit_layout(caps.explicit_layout);
        let mut coop = vk::PhysicalDeviceCooperativeMatrixFeaturesNV::default()
            .cooperative_matrix(caps.cooperative_matrix);
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let ext_ptrs: Vec<*const c_char> = ext_names
            .iter()
            .filter(|n| {
                **n != ash::ext::subgroup_size_control::NAME
                    || caps.api_version < vk::API_VERSION_1_3
            })
            .filter(|n| {
                **n != ash::khr::pipeline_executable_properties::NAME || caps.pipeline_statistics
            })
            .filter(|n| **n != ash::khr::shader_clock::NAME || caps.shader_clock)
            .filter(|n| **n != ash::nv::shader_sm_builtins::NAME || caps.sm_builtins)
            .chain(diag_exts.iter())
            .map(|n| n.as_ptr())
            .collect();
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_ptrs)
            .enabled_features(&features)
            .push_next(&mut e12);
        if caps.api_version >= vk::API_VERSION_1_3 {
            info = info.push_next(&mut e13);
        }
        if caps.pipeline_statistics {
            info = info.push_next(&mut epe);
        }
        if caps.shader_clock {
            info = info.push_next(&mut clock);
        }
        if caps.sm_builtins {
            info = info.push_next(&mut smb);
        }
        if caps.explicit_layout {
            info = info.push_next(&mut wel);
        }
        if caps.cooperative_matrix {
            info = info.push_next(&mut coop);
        }
        // SAFETY: every pointer in `info` outlives the call.
        let device = unsafe { instance.create_device(pd, &info, None) }.vk("vkCreateDevice")?;
        Ok((pd, device, family, caps))
    }

    fn query_caps(instance: &ash::Instance, pd: vk::PhysicalDevice, family: u32) -> DeviceCaps {
        let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
        let mut ssc = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut idp = vk::PhysicalDeviceIDProperties::default();
        let mut drv = vk::PhysicalDeviceDriverProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut sub)
            .push_next(&mut ssc)
            .push_next(&mut idp)
            .push_next(&mut drv);
        // SAFETY: valid chain of output structs.
        unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
        let p = p2.properties;
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let mem = unsafe { instance.get_physical_device_memory_properties(pd) };
        let device_local_bytes = mem.memory_heaps[..mem.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0);
        let name = p
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        let driver_info = format!(
            "{} {}",
            drv.driver_name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default(),
            drv.driver_info_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        let (min_sg, max_sg) =
            if ssc.min_subgroup_size > 0 && ssc.max_subgroup_size >= ssc.min_subgroup_size {
                (ssc.min_subgroup_size, ssc.max_subgroup_size)
            } else {
                (sub.subgroup_size, sub.subgroup_size)
            };
        DeviceCaps {
            name,
            vendor_id: p.vendor_id,
            device_id: p.device_id,
            device_type: p.device_type,
            api_version: p.api_version,
            driver_version: p.driver_version,
            driver_info: driver_info.trim().to_string(),
            pipeline_cache_uuid: p.pipeline_cache_uuid,
            device_uuid: idp.device_uuid,
            subgroup_size: sub.subgroup_size,
            min_subgroup_size: min_sg,
            max_subgroup_size: max_sg,
            subgroup_size_control: ssc
                .required_subgroup_size_stages
                .contains(vk::ShaderStageFlags::COMPUTE),
            subgroup_ops: sub.supported_operations,
            subgroup_stages: sub.supported_stages,
            int64: false,
            subgroup_partitioned: false,
            buffer_device_address: false,
            pipeline_statistics: false,
            shader_clock: false,
            sm_builtins: false,
            explicit_layout: false,
            cooperative_matrix: false,
            max_shared_memory: p.limits.max_compute_shared_memory_size,
            // Pipelines that require a subgroup size may hold at most maxComputeWorkgroupSubgroups subgroups
            // of it (lavapipe: 32 x 8 = 256 invocations).
            max_workgroup_invocations: if ssc.max_compute_workgroup_subgroups > 0
                && ssc
                    .required_subgroup_size_stages
                    .contains(vk::ShaderStageFlags::COMPUTE)
            {
                p.limits
                    .max_compute_work_group_invocations
                    .min(ssc.max_compute_workgroup_subgroups * sub.subgroup_size.max(1))
            } else {
                p.limits.max_compute_work_group_invocations
            },
            max_workgroup_count: p.limits.max_compute_work_group_count,
            max_storage_buffer_range: p.limits.max_storage_buffer_range as u64,
            min_storage_buffer_offset_alignment: p.limits.min_storage_buffer_offset_alignment,
            max_push_constants_size: p.limits.max_push_constants_size,
            timestamp_period: p.limits.timestamp_period,
            timestamp_valid_bits: families
                .get(family as usize)
                .map(|f| f.timestamp_valid_bits)
                .unwrap_or(0),
            device_local_bytes,
        }
    }

    /// Fills what a device created by [`Context::new`] enables where the device has it: 64-bit scans
    /// (`shaderInt64` + `shaderSubgroupExtendedTypes`), subgroup size control with full subgroups, match-any
    /// (`VK_NV_shader_subgroup_partitioned`) and `bufferDeviceAddress`.
    fn fill_optional_features(
        instance: &ash::Instance,
        pd: vk::PhysicalDevice,
        caps: &mut DeviceCaps,
    ) {
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12);
        if caps.api_version >= vk::API_VERSION_1_3 {
            f2 = f2.push_next(&mut f13);
        }
        // SAFETY: the chain is valid for the call.
        unsafe { instance.get_physical_device_features2(pd, &mut f2) };
        caps.int64 =
            f2.features.shader_int64 == vk::TRUE && f12.shader_subgroup_extended_types == vk::TRUE;
        caps.subgroup_size_control = caps.api_version >= vk::API_VERSION_1_3
            && f13.subgroup_size_control == vk::TRUE
            && f13.compute_full_subgroups == vk::TRUE;
        caps.buffer_device_address =
            caps.api_version >= vk::API_VERSION_1_2 && f12.buffer_device_address == vk::TRUE;
        // SAFETY: callers pass a live instance and a physical device of it (`new`, `enumerate`, and `adopt`,
        // whose caller promised it).
        caps.subgroup_partitioned = unsafe { Self::device_extensions(instance, pd) }
            .is_ok_and(|e| e.contains(&ash::nv::shader_subgroup_partitioned::NAME));
    }

    /// Lists every physical device (index, capabilities) without creating a device. For `vksort info`.
    pub fn enumerate() -> Result<Vec<(usize, DeviceCaps)>> {
        // SAFETY: loading the system loader; a throwaway instance destroyed before return.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| Error::Loader(e.to_string()))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = unsafe {
            entry.create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
        }
        .vk("vkCreateInstance")?;
        let pds = unsafe { instance.enumerate_physical_devices() }.vk("vkEnumeratePhysicalDevices");
        let out = pds.map(|pds| {
            pds.iter()
                .enumerate()
                .map(|(i, &pd)| {
                    let families =
                        unsafe { instance.get_physical_device_queue_family_properties(pd) };
                    let fam = families
                        .iter()
                        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                        .unwrap_or(0);
                    let mut caps = Self::query_caps(&instance, pd, fam as u32);
                    Self::fill_optional_features(&instance, pd, &mut caps);
                    (i, caps)
                })
                .collect()
        });
        unsafe { instance.destroy_instance(None) };
        out
    }

    /// Driver statistics of every kernel built so far (name, [(statistic, value)]): registers, spills, shared
    /// memory and the like, as the driver names them. Empty unless [`DeviceCaps::pipeline_statistics`].
    pub fn kernel_statistics(&self) -> Result<Vec<KernelStatistics>> {
        if !self.caps.pipeline_statistics {
            return Ok(Vec::new());
        }
        let fns =
            ash::khr::pipeline_executable_properties::Device::new(&self.instance, &self.device);
        let mut out = Vec::new();
        for (key, k) in self.kernels.lock().unwrap().iter() {
            let info = vk::PipelineInfoKHR::default().pipeline(k.pipeline);
            // SAFETY: the pipeline was created with CAPTURE_STATISTICS on this device.
            let count = unsafe { fns.get_pipeline_executable_properties(&info) }
                .vk("vkGetPipelineExecutablePropertiesKHR")?
                .len();
            for e in 0..count as u32 {
                let einfo = vk::PipelineExecutableInfoKHR::default()
                    .pipeline(k.pipeline)
                    .executable_index(e);
                let stats = unsafe { fns.get_pipeline_executable_statistics(&einfo) }
                    .vk("vkGetPipelineExecutableStatisticsKHR")?;
                let values = stats
                    .iter()
                    .map(|st| {
                        let name = st
                            .name_as_c_str()
                            .map(|c| c.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        // SAFETY: the union member read is the one `format` names.
                        let v = unsafe {
                            match st.format {
                                vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                                    (st.value.b32 != 0).to_string()
                                }
                                vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                                    st.value.i64.to_string()
                                }
                                vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                                    st.value.u64.to_string()
                                }
                                vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                                    st.value.f64.to_string()
                                }
                                _ => "?".into(),
                            }
                        };
                        (name, v)
                    })
                    .collect();
                out.push((format!("{} spec {:?}", key.shader, key.spec), values));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// The device's capabilities.
    pub fn caps(&self) -> &DeviceCaps {
        &self.caps
    }

    /// The usage flags vksort gives the buffers it allocates: [`super::DEFAULT_USAGE`], plus
    /// `SHADER_DEVICE_ADDRESS` where `bufferDeviceAddress` is enabled (so they can take sorts larger than one
    /// binding).
    pub fn default_usage(&self) -> vk::BufferUsageFlags {
        if self.caps.buffer_device_address {
            super::DEFAULT_USAGE | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        } else {
            super::DEFAULT_USAGE
        }
    }

    /// The device address of `region`'s first byte. Needs `bufferDeviceAddress` and a buffer with
    /// `SHADER_DEVICE_ADDRESS` usage (checked). Relies on [`super::Region`]'s promise: `region.buffer` is a
    /// live buffer of this context's device (vksort cannot check handles).
    pub(crate) fn buffer_address(&self, what: &'static str, region: &super::Region) -> Result<u64> {
        if !self.caps.buffer_device_address {
            return Err(Error::Unsupported {
                device: self.caps.name.clone(),
                what: format!(
                    "`{what}` needs a device address, and bufferDeviceAddress is not enabled"
                ),
            });
        }
        region.check(self, what, 0, vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS)?;
        let info = vk::BufferDeviceAddressInfo::default().buffer(region.buffer);
        // SAFETY: a valid buffer of this device, created with SHADER_DEVICE_ADDRESS usage (checked above) while
        // bufferDeviceAddress is enabled.
        let base = unsafe { self.device.get_buffer_device_address(&info) };
        Ok(base + region.offset)
    }

    /// The ash device (for callers that record around vksort's commands).
    pub fn device(&self) -> &ash::Device {
        &self.device
    }

    /// The physical device.
    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.physical
    }

    /// The instance.
    pub fn instance(&self) -> &ash::Instance {
        &self.instance
    }

    /// The queue family vksort's host forms submit to.
    pub fn queue_family(&self) -> u32 {
        self.queue_family
    }

    /// The bound of every fence wait.
    pub fn wait_timeout(&self) -> Duration {
        self.wait_timeout
    }

    /// Whether a host-form wait of this context timed out or found the device lost. From then on the context
    /// frees nothing a submission might still use (buffers, query pools, on drop the device itself: leaked),
    /// and its host forms fail at once with [`Error::DeviceLost`]; make a new context to go on.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    pub(crate) fn mark_lost(&self) {
        self.lost.store(true, Ordering::Release);
    }

    /// Whether validation is on (and its errors kept).
    pub fn validation_enabled(&self) -> bool {
        self.validation.is_some()
    }

    /// Takes the validation errors kept since the last call (empty without validation).
    pub fn take_validation_errors(&self) -> Vec<String> {
        match &self.validation {
            Some(log) => std::mem::take(&mut *log.errors.lock().unwrap()),
            None => Vec::new(),
        }
    }

    /// Names a Vulkan object for captures (no-op without VK_EXT_debug_utils). Crate-internal: vksort names
    /// only the objects it created (a foreign handle would make the call unsound).
    pub(crate) fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        if let Some(d) = &self.debug {
            d.name(handle, name);
        }
    }

    /// Fails with [`Error::Unsupported`] unless the device has the subgroup operations `ops` in compute.
    pub fn require_subgroup_ops(&self, ops: vk::SubgroupFeatureFlags, what: &str) -> Result<()> {
        if self.caps.has_subgroup_ops(ops) {
            Ok(())
        } else {
            Err(self.unsupported(format!(
                "needs subgroup {what} ({ops:?}) in compute shaders"
            )))
        }
    }

    /// An [`Error::Unsupported`] naming this device.
    pub fn unsupported(&self, what: impl Into<String>) -> Error {
        Error::Unsupported {
            device: self.caps.name.clone(),
            what: what.into(),
        }
    }

    pub(crate) fn cstring(s: &str) -> CString {
        CString::new(s.replace('\0', " ")).unwrap()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.is_lost() {
            // Work that timed out may still run (or the device is gone): destroying what it uses could make the
            // driver touch freed memory, and waiting for it could hang. Leak the device and all it holds.
            return;
        }
        // SAFETY: the device is idle after the wait; every object destroyed here was created by this Context,
        // and the instance/device only when this Context created them.
        unsafe {
            let _ = self.device.device_wait_idle();
            for (_, k) in self.kernels.lock().unwrap().drain() {
                k.destroy(&self.device);
            }
            self.device
                .destroy_command_pool(*self.command_pool.lock().unwrap(), None);
            self.device
                .destroy_pipeline_cache(self.pipeline_cache, None);
            ManuallyDrop::drop(&mut self.allocator);
            if self.owns_device {
                self.device.destroy_device(None);
                if self.messenger != vk::DebugUtilsMessengerEXT::null() {
                    ash::ext::debug_utils::Instance::new(&self.entry, &self.instance)
                        .destroy_debug_utils_messenger(self.messenger, None);
                }
                self.instance.destroy_instance(None);
            }
        }
    }
}
