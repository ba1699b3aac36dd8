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
//!   command pool, its pipeline cache). The renderer creates its device with [`DeviceRequirements`] and hands
//!   them to [`AdoptInfo::new`].
//! - What can be known before recording fails the constructor: a device without what vksort needs (Vulkan 1.2,
//!   `VK_KHR_push_descriptor` enabled, a compute queue family, the kernels' subgroup operations) is
//!   [`Error::Unsupported`] naming each missing item, at [`Context::new`] and [`Context::adopt`], never a panic.
//! - On an error during creation, everything created so far is destroyed (guards that destroy on drop unless
//!   handed to the context): instance, messenger, device, allocator, pipeline cache, command pool; for an
//!   adopted device only vksort's own objects.
//! - Functions that take raw Vulkan handles whose validity vksort cannot check are `unsafe fn` with a
//!   `# Safety` section ([`Context::adopt`], [`DeviceRequirements::query`], [`super::Recorder::new`],
//!   [`super::Profiler::begin`], [`super::BufferRef::from_raw`]). Regions of vksort's own buffers
//!   ([`super::Buffer::as_ref`]) borrow them, so safe code cannot make vksort touch memory it was not given.
//! - Every wait is bounded by [`ContextOptions::wait_timeout`] and ends in [`Error::Timeout`] or
//!   [`Error::DeviceLost`] naming the last pass the GPU started. Either leaves the context lost
//!   ([`Context::is_lost`]): the late work may still run, so from then on nothing it might use is freed (buffers,
//!   query pools and the device are leaked; dropping the context neither waits nor destroys) and host forms fail
//!   at once.
//! - With validation on, every message of severity error from `VK_LAYER_KHRONOS_validation` (with
//!   synchronization validation) is kept; [`Context::take_validation_errors`] hands them out.

use super::debug::DebugUtils;
use super::kernel::{Kernel, KernelKey};
use super::requirements::{
    missing_subgroup_ops, version_string, DeviceRequirements, OptionalFeatures, MIN_API_VERSION,
};
use crate::error::{Error, Result, VkContext};
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How [`Context::new`] creates its instance and device. `Default` reads no environment variable (and is what a
/// library or renderer should start from); binaries and tests that want the `VKSORT_*` variables ask for
/// [`ContextOptions::from_env`]. [`Context::adopt`] takes none of these: the renderer made its device.
#[derive(Clone)]
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
    /// cooperative-matrix kinds (diagnostics; `examples/residency`, `vksort::diagnostics::ResidencyMemory` with the `diagnostics` feature).
    /// Without them the option is ignored ([`DeviceCaps::explicit_layout`], [`DeviceCaps::cooperative_matrix`]
    /// say what was enabled). Default: `false`.
    pub residency_probes: bool,
    /// Pipeline-cache data to start from: what [`Context::pipeline_cache_data`] returned in an earlier run
    /// on the same device and driver (the caller decides where it lives; the library reads and writes no
    /// file). Data whose header names another device or driver, or that the driver refuses, is ignored: the
    /// cache starts empty and [`Context::pipeline_cache_status`] says why. Default: `None` (an empty cache).
    pub pipeline_cache: Option<Vec<u8>>,
}

impl std::fmt::Debug for ContextOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextOptions")
            .field("device", &self.device)
            .field("validation", &self.validation)
            .field("wait_timeout", &self.wait_timeout)
            .field("pipeline_statistics", &self.pipeline_statistics)
            .field("shader_clock", &self.shader_clock)
            .field("residency_probes", &self.residency_probes)
            .field(
                "pipeline_cache",
                &self.pipeline_cache.as_ref().map(|d| format!("{} bytes", d.len())),
            )
            .finish()
    }
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
            pipeline_cache: None,
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
    /// `VKSORT_VALIDATION=1`); the library itself never reads the environment. No pipeline-cache data (that
    /// lives in a file the caller owns: [`ContextOptions::pipeline_cache`]).
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
            pipeline_cache: None,
        }
    }
}

/// What a renderer hands to [`Context::adopt`]: its handles, and the [`DeviceRequirements`] it created the device
/// with (which say what vksort may use of the device). vksort keeps clones of the function tables and never
/// destroys these objects. The promises about the handles are listed under [`Context::adopt`]'s `# Safety`.
pub struct AdoptInfo {
    entry: ash::Entry,
    instance: ash::Instance,
    physical_device: vk::PhysicalDevice,
    device: ash::Device,
    queue_family_index: u32,
    queue: vk::Queue,
    features: OptionalFeatures,
    debug_utils: bool,
    wait_timeout: Duration,
    pipeline_cache: Option<Vec<u8>>,
}

impl AdoptInfo {
    /// The renderer's handles: the loader `entry` its `instance` was created through, the `physical_device`
    /// enumerated from it, the `device` created from that with `requirements` (through
    /// [`DeviceRequirements::enable`] or its extensions and `merge_*` helpers), and a `queue` of that device in
    /// `queue_family_index`, a family with compute. vksort uses exactly the optional features `requirements`
    /// lists. Defaults: no debug names or labels ([`AdoptInfo::with_debug_utils`]), fence waits bounded by 60 s
    /// ([`AdoptInfo::with_wait_timeout`]).
    pub fn new(
        entry: &ash::Entry,
        instance: &ash::Instance,
        physical_device: vk::PhysicalDevice,
        device: &ash::Device,
        queue_family_index: u32,
        queue: vk::Queue,
        requirements: &DeviceRequirements,
    ) -> Self {
        Self {
            entry: entry.clone(),
            instance: instance.clone(),
            physical_device,
            device: device.clone(),
            queue_family_index,
            queue,
            features: requirements.optional(),
            debug_utils: false,
            wait_timeout: ContextOptions::default().wait_timeout,
            pipeline_cache: None,
        }
    }

    /// Whether the instance was created with `VK_EXT_debug_utils`: vksort then names its objects and labels its
    /// passes for captures (where the device's commands for it load; otherwise names stay off).
    pub fn with_debug_utils(mut self, enabled: bool) -> Self {
        self.debug_utils = enabled;
        self
    }

    /// The upper bound of every fence wait of the host forms, in wall time (default 60 s, as
    /// [`ContextOptions::wait_timeout`]).
    pub fn with_wait_timeout(mut self, timeout: Duration) -> Self {
        self.wait_timeout = timeout;
        self
    }

    /// Pipeline-cache data to start vksort's pipeline cache from (as [`ContextOptions::pipeline_cache`]:
    /// what [`Context::pipeline_cache_data`] returned earlier; ignored, with the reason in
    /// [`Context::pipeline_cache_status`], when it belongs to another device or driver).
    pub fn with_pipeline_cache(mut self, data: Vec<u8>) -> Self {
        self.pipeline_cache = Some(data);
        self
    }
}

/// What became of the pipeline-cache data a context was given ([`ContextOptions::pipeline_cache`],
/// [`AdoptInfo::with_pipeline_cache`], [`Context::merge_pipeline_cache`]): [`Context::pipeline_cache_status`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PipelineCacheStatus {
    /// No data was given: the cache started empty.
    Empty,
    /// The data was handed to the driver's pipeline cache.
    Loaded {
        /// Its size in bytes.
        bytes: usize,
    },
    /// The data was ignored (the cache is as it was without it).
    Rejected {
        /// Why: too short, another device or driver (its header), or the driver refused it.
        reason: String,
    },
}

/// The size of `VkPipelineCacheHeaderVersionOne`.
const CACHE_HEADER_BYTES: usize = 32;

/// Checks the `VkPipelineCacheHeaderVersionOne` at the start of `data` against the device (the driver checks it
/// too and ignores a mismatch silently; this says why).
fn check_cache_header(data: &[u8], caps: &DeviceCaps) -> std::result::Result<(), String> {
    if data.len() < CACHE_HEADER_BYTES {
        return Err(format!(
            "{} bytes, shorter than a pipeline-cache header ({CACHE_HEADER_BYTES})",
            data.len()
        ));
    }
    // The header is little-endian whatever the host's byte order.
    let word = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    let (size, version, vendor, device) = (word(0), word(4), word(8), word(12));
    if (size as usize) < CACHE_HEADER_BYTES || size as usize > data.len() {
        return Err(format!("a header size of {size} bytes in {} bytes of data", data.len()));
    }
    if version != vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32 {
        return Err(format!("header version {version} (Vulkan's is 1)"));
    }
    let uuid = &data[16..32];
    if vendor != caps.vendor_id || device != caps.device_id || uuid != caps.pipeline_cache_uuid {
        let hex = |u: &[u8]| u.iter().map(|b| format!("{b:02x}")).collect::<String>();
        return Err(format!(
            "written by another device or driver (vendor {vendor:#x}, device {device:#x}, cache UUID {}; this \
             device: vendor {:#x}, device {:#x}, cache UUID {})",
            hex(uuid),
            caps.vendor_id,
            caps.device_id,
            hex(&caps.pipeline_cache_uuid)
        ));
    }
    Ok(())
}

/// A pipeline cache on `device` started from `initial` where its header matches the device and the driver
/// takes it; otherwise an empty one, with the reason in the status. Fails only when not even an empty cache
/// can be created.
fn create_pipeline_cache(
    device: &ash::Device,
    caps: &DeviceCaps,
    initial: Option<&[u8]>,
) -> Result<(vk::PipelineCache, PipelineCacheStatus)> {
    let mut status = PipelineCacheStatus::Empty;
    if let Some(data) = initial {
        match check_cache_header(data, caps) {
            Ok(()) => {
                let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
                // SAFETY: plain object creation on a valid device; `data` outlives the call.
                match unsafe { device.create_pipeline_cache(&info, None) } {
                    Ok(c) => {
                        return Ok((c, PipelineCacheStatus::Loaded { bytes: data.len() }));
                    }
                    Err(e) => {
                        status = PipelineCacheStatus::Rejected {
                            reason: format!("the driver refused it ({e})"),
                        }
                    }
                }
            }
            Err(reason) => status = PipelineCacheStatus::Rejected { reason },
        }
    }
    // SAFETY: plain object creation on a valid device.
    let cache =
        unsafe { device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
            .vk("vkCreatePipelineCache")?;
    Ok((cache, status))
}

/// What vksort knows about the device: limits and features that the policies and checks read.
#[derive(Clone, Debug)]
pub struct DeviceCaps {
    /// The device's name (`deviceName`), as errors name it.
    pub name: String,
    /// PCI vendor id (`vendorID`; [`DeviceCaps::vendor`] names it).
    pub vendor_id: u32,
    /// Vendor-specific device id (`deviceID`).
    pub device_id: u32,
    /// Discrete, integrated, virtual GPU or CPU.
    pub device_type: vk::PhysicalDeviceType,
    /// The class policies tune for, decided from `vendor_id` and `device_type`.
    pub class: super::DeviceClass,
    /// The device's Vulkan API version, packed (`vk::api_version_major` and friends unpack it).
    pub api_version: u32,
    /// The driver's version, packed as the vendor does.
    pub driver_version: u32,
    /// The driver's name and info string (`VkPhysicalDeviceDriverProperties`).
    pub driver_info: String,
    /// `pipelineCacheUUID`, the key of on-disk caches (calibration).
    pub pipeline_cache_uuid: [u8; 16],
    /// `deviceUUID`: the same physical device across processes and APIs.
    pub device_uuid: [u8; 16],
    /// The default subgroup size in invocations (`VkPhysicalDeviceSubgroupProperties::subgroupSize`).
    pub subgroup_size: u32,
    /// The smallest subgroup size the device may use, in invocations (`VK_EXT_subgroup_size_control`
    /// properties; `subgroup_size` where the device does not report it).
    pub min_subgroup_size: u32,
    /// The largest subgroup size the device may use, in invocations (as `min_subgroup_size`).
    pub max_subgroup_size: u32,
    /// Whether pipelines can require a subgroup size and full subgroups (enabled on the device).
    pub subgroup_size_control: bool,
    /// The subgroup operations the device supports (`supportedOperations`).
    pub subgroup_ops: vk::SubgroupFeatureFlags,
    /// The shader stages with subgroup operations (`supportedStages`).
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
    /// `VK_KHR_shader_clock` (subgroup and device clocks) enabled: only when [`ContextOptions::shader_clock`]
    /// was set at creation (never for an adopted device; diagnostics: the Onesweep kernel's per-tile phase
    /// clocks, `RadixDebug::tile_clocks`).
    pub shader_clock: bool,
    /// `VK_NV_shader_sm_builtins` enabled alongside `shader_clock` (the SM id in the tile clock records).
    pub sm_builtins: bool,
    /// Diagnostics, enabled with [`ContextOptions::residency_probes`] where the device has it (never for an
    /// adopted device): `VK_KHR_workgroup_memory_explicit_layout` (`workgroupMemoryExplicitLayout`), for the
    /// residency probe's question whether it changes how much shared memory an SM gives Vulkan compute
    /// (`vksort::diagnostics::ResidencyMemory`).
    pub explicit_layout: bool,
    /// Diagnostics, as `explicit_layout`: `VK_NV_cooperative_matrix` (with `shaderFloat16` and
    /// `vulkanMemoryModel` with its device scope).
    pub cooperative_matrix: bool,
    /// Bytes of workgroup shared memory (`maxComputeSharedMemorySize`).
    pub max_shared_memory: u32,
    /// Invocations per workgroup (`maxComputeWorkGroupInvocations`; where pipelines require the subgroup size,
    /// at most `maxComputeWorkgroupSubgroups` subgroups of it).
    pub max_workgroup_invocations: u32,
    /// Workgroups per dispatch in x, y and z (`maxComputeWorkGroupCount`).
    pub max_workgroup_count: [u32; 3],
    /// Bytes one storage buffer descriptor may cover (`maxStorageBufferRange`).
    pub max_storage_buffer_range: u64,
    /// Bytes a storage buffer descriptor's offset must be a multiple of (`minStorageBufferOffsetAlignment`).
    pub min_storage_buffer_offset_alignment: u64,
    /// Bytes of push constants (`maxPushConstantsSize`).
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
        self.class.is_cpu()
    }
}

/// A kernel's name and specialization, and the driver's statistics of it as (name, value) pairs.
pub type KernelStatistics = (String, Vec<(String, String)>);

/// The host form's command pool and the command buffer every submission re-records.
///
/// One buffer, reset by each `vkBeginCommandBuffer`, rather than one allocated and freed per submission: a
/// freed buffer's handle comes straight back from the next allocation, and Khronos' validation layer before
/// 1.3.243 (Debian 12 ships 1.3.239) can then drop its state for the freed one on its queue thread while this
/// thread labels the new one, without a lock (the heap faults of `docs/tuning.md`, "Open problems").
pub(crate) struct CommandSlot {
    pub(crate) pool: vk::CommandPool,
    /// `None` until the first submission, and again after one that failed (its buffer is freed then).
    pub(crate) cmd: Option<vk::CommandBuffer>,
}

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
    /// Pipeline creation reads the cache (shared); a merge into it writes (exclusive): Vulkan requires
    /// `vkMergePipelineCaches`' destination to be externally synchronized.
    pub(crate) cache_lock: std::sync::RwLock<()>,
    /// What became of the pipeline-cache data given at creation or merged since.
    cache_status: Mutex<PipelineCacheStatus>,
    /// Pipelines created so far, and of them those the driver found in the pipeline cache
    /// (`VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT`, where it reports feedback).
    pub(crate) pipelines_created: AtomicUsize,
    pub(crate) pipeline_cache_hits: AtomicUsize,
    /// Wall time of each `vkCreateComputePipelines` call, with the shader it built (diagnostics).
    pub(crate) pipeline_times: Mutex<Vec<(&'static str, Duration)>>,
    /// Whether pipeline creation feedback is available (Vulkan 1.3 or `VK_EXT_pipeline_creation_feedback`).
    pub(crate) creation_feedback: bool,
    pub(crate) kernels: Mutex<HashMap<KernelKey, Arc<Kernel>>>,
    /// The host form's command pool and its one command buffer (allocated on first use), locked for a whole
    /// submission ([`Context::submit`]).
    pub(crate) commands: Mutex<CommandSlot>,
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

/// Whether the device command `name` loads on `device` (the spec returns NULL for commands of extensions not
/// enabled on the device).
///
/// # Safety
/// `device` is a live device created from a physical device of the live `instance`.
unsafe fn device_fn_loads(instance: &ash::Instance, device: &ash::Device, name: &CStr) -> bool {
    // SAFETY: the caller's promise; `name` is NUL-terminated.
    unsafe { instance.get_device_proc_addr(device.handle(), name.as_ptr()) }.is_some()
}

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
        VALIDATION_ERRORS.fetch_add(1, Ordering::SeqCst);
        eprintln!("[vksort validation] {msg}");
        log.errors.lock().unwrap().push(msg);
    }
    vk::FALSE
}

/// The steps of [`Context::new`] (all) and [`Context::adopt`] (from `Allocator`), in order. Errors and the
/// diagnostics fault injection (`fail_creation_after`, with the `diagnostics` feature) name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CreationStep {
    /// The instance (`Context::new` only).
    Instance,
    /// The debug messenger, where validation is on (`Context::new` only; the step passes without one).
    Messenger,
    /// The device (`Context::new` only).
    Device,
    /// The memory allocator.
    Allocator,
    /// The pipeline cache.
    PipelineCache,
    /// The command pool of the host forms.
    CommandPool,
}

impl CreationStep {
    /// The call a fault injected after this step is reported as.
    #[cfg(feature = "diagnostics")]
    fn injected(self) -> &'static str {
        match self {
            Self::Instance => "fault injected after vkCreateInstance",
            Self::Messenger => "fault injected after vkCreateDebugUtilsMessengerEXT",
            Self::Device => "fault injected after vkCreateDevice",
            Self::Allocator => "fault injected after the allocator",
            Self::PipelineCache => "fault injected after vkCreatePipelineCache",
            Self::CommandPool => "fault injected after vkCreateCommandPool",
        }
    }
}

#[cfg(feature = "diagnostics")]
thread_local! {
    static FAIL_AFTER: std::cell::Cell<Option<CreationStep>> = const { std::cell::Cell::new(None) };
}

/// Diagnostics (leak tests): makes the next [`Context::new`] or [`Context::adopt`] on this thread that reaches
/// `step` fail right after it, with [`Error::Vulkan`] (`ERROR_INITIALIZATION_FAILED`, the call naming the
/// step), as a real failure there would; `None` clears it. The injection fires once.
#[cfg(feature = "diagnostics")]
pub fn fail_creation_after(step: Option<CreationStep>) {
    FAIL_AFTER.with(|f| f.set(step));
}

/// The fault-injection point after `step`: `Ok` unless [`fail_creation_after`] asked for `step`.
fn checkpoint(step: CreationStep) -> Result<()> {
    #[cfg(feature = "diagnostics")]
    if FAIL_AFTER.with(|f| f.get()) == Some(step) {
        FAIL_AFTER.with(|f| f.set(None));
        return Err(Error::Vulkan {
            call: step.injected(),
            result: vk::Result::ERROR_INITIALIZATION_FAILED,
        });
    }
    let _ = step;
    Ok(())
}

/// Instances and devices vksort created and has not destroyed, process-wide (leaked ones included).
static LIVE_INSTANCES: AtomicUsize = AtomicUsize::new(0);
static LIVE_DEVICES: AtomicUsize = AtomicUsize::new(0);
/// Validation errors any vksort messenger received, process-wide (also those after a context is gone).
static VALIDATION_ERRORS: AtomicUsize = AtomicUsize::new(0);

/// Diagnostics (leak tests): process-wide counts of what vksort created.
#[cfg(feature = "diagnostics")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveObjects {
    /// Instances created by [`Context::new`] and not destroyed yet.
    pub instances: usize,
    /// Devices created by [`Context::new`] and not destroyed yet.
    pub devices: usize,
    /// Validation errors received by vksort's messengers so far (a total; it never goes down).
    pub validation_errors: usize,
}

/// Diagnostics (leak tests): the counts now. A creation that failed leaves `instances` and `devices` where they
/// were before it.
#[cfg(feature = "diagnostics")]
pub fn live_objects() -> LiveObjects {
    LiveObjects {
        instances: LIVE_INSTANCES.load(Ordering::SeqCst),
        devices: LIVE_DEVICES.load(Ordering::SeqCst),
        validation_errors: VALIDATION_ERRORS.load(Ordering::SeqCst),
    }
}

/// An instance vksort created, with its debug messenger once there is one: destroyed on drop unless
/// [`OwnedInstance::release`]d into a [`Context`] (whose `Drop` then destroys them).
struct OwnedInstance {
    entry: ash::Entry,
    instance: ash::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    armed: bool,
}

impl OwnedInstance {
    fn new(entry: &ash::Entry, instance: ash::Instance) -> Self {
        LIVE_INSTANCES.fetch_add(1, Ordering::SeqCst);
        Self {
            entry: entry.clone(),
            instance,
            messenger: vk::DebugUtilsMessengerEXT::null(),
            armed: true,
        }
    }

    /// Hands the instance and messenger over: the caller destroys them ([`destroy_instance`]).
    fn release(mut self) -> (ash::Instance, vk::DebugUtilsMessengerEXT) {
        self.armed = false;
        (self.instance.clone(), self.messenger)
    }
}

impl Drop for OwnedInstance {
    fn drop(&mut self) {
        if self.armed {
            // SAFETY: vksort created both and nothing else of the instance is left (guards drop in reverse
            // order of creation: the device before this).
            unsafe { destroy_instance(&self.entry, &self.instance, self.messenger) };
        }
    }
}

/// Destroys an instance vksort created, and its messenger if not null.
///
/// # Safety
/// vksort created `instance` (through `entry`) and `messenger`, nothing created from them is left, and neither
/// is used afterwards.
unsafe fn destroy_instance(
    entry: &ash::Entry,
    instance: &ash::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
) {
    // SAFETY: the caller's promise.
    unsafe {
        if messenger != vk::DebugUtilsMessengerEXT::null() {
            ash::ext::debug_utils::Instance::new(entry, instance)
                .destroy_debug_utils_messenger(messenger, None);
        }
        instance.destroy_instance(None);
    }
    LIVE_INSTANCES.fetch_sub(1, Ordering::SeqCst);
}

/// A device vksort created: destroyed on drop unless [`OwnedDevice::release`]d into a [`Context`].
struct OwnedDevice {
    device: ash::Device,
    armed: bool,
}

impl OwnedDevice {
    fn new(device: ash::Device) -> Self {
        LIVE_DEVICES.fetch_add(1, Ordering::SeqCst);
        Self {
            device,
            armed: true,
        }
    }

    fn release(mut self) -> ash::Device {
        self.armed = false;
        self.device.clone()
    }
}

impl Drop for OwnedDevice {
    fn drop(&mut self) {
        if self.armed {
            // SAFETY: vksort created the device; its children were released first (they are guards declared
            // after it) and nothing was submitted.
            unsafe { destroy_device(&self.device) };
        }
    }
}

/// Destroys a device vksort created.
///
/// # Safety
/// vksort created `device`, nothing created from it is left, no work of it is pending, and it is not used
/// afterwards.
unsafe fn destroy_device(device: &ash::Device) {
    // SAFETY: the caller's promise.
    unsafe { device.destroy_device(None) };
    LIVE_DEVICES.fetch_sub(1, Ordering::SeqCst);
}

/// What [`Context::new`] created globally, handed to [`Context::finish`]: the device drops (is destroyed)
/// before the instance.
struct Owner {
    device: OwnedDevice,
    instance: OwnedInstance,
}

/// An object vksort created on a device (pipeline cache, command pool): destroyed on drop unless released.
struct DeviceChild<H: vk::Handle + Copy> {
    device: ash::Device,
    handle: H,
    destroy: fn(&ash::Device, H),
    armed: bool,
}

impl<H: vk::Handle + Copy> DeviceChild<H> {
    /// `destroy` destroys `handle` on `device`: it is called only on an unused object vksort created.
    fn new(device: &ash::Device, handle: H, destroy: fn(&ash::Device, H)) -> Self {
        Self {
            device: device.clone(),
            handle,
            destroy,
            armed: true,
        }
    }

    fn release(mut self) -> H {
        self.armed = false;
        self.handle
    }
}

impl<H: vk::Handle + Copy> Drop for DeviceChild<H> {
    fn drop(&mut self) {
        if self.armed {
            (self.destroy)(&self.device, self.handle);
        }
    }
}

impl Context {
    /// Creates an instance and a device of its own, on the best device (or the one `options.device` names), as
    /// `options` says and nothing else (no environment variable is read here). Fails with
    /// [`Error::Unsupported`] naming what the chosen device lacks ([`DeviceRequirements::query`]); on any
    /// error, everything created so far is destroyed.
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
        // The log outlives every guard below (declared first): the layer reports through it up to the
        // instance's destruction.
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
        let mut owned_instance = OwnedInstance::new(&entry, instance);
        checkpoint(CreationStep::Instance)?;
        if validation && has_debug_utils {
            let du = ash::ext::debug_utils::Instance::new(&entry, &owned_instance.instance);
            messenger_info.p_next = std::ptr::null();
            // SAFETY: the messenger's user data (the log) outlives it: the Context keeps the log and destroys
            // the messenger first; on an error here the guard destroys it before `log` drops.
            owned_instance.messenger =
                unsafe { du.create_debug_utils_messenger(&messenger_info, None) }
                    .vk("vkCreateDebugUtilsMessengerEXT")?;
        }
        checkpoint(CreationStep::Messenger)?;
        let (physical, owned_device, family, caps) =
            Self::create_device(&owned_instance.instance, &options)?;
        checkpoint(CreationStep::Device)?;
        // SAFETY: the family index was chosen with a queue of index 0.
        let queue = unsafe { owned_device.device.get_device_queue(family, 0) };
        Self::finish(
            entry,
            owned_instance.instance.clone(),
            physical,
            owned_device.device.clone(),
            family,
            queue,
            caps,
            has_debug_utils,
            options.wait_timeout,
            options.pipeline_cache.as_deref(),
            validation.then(|| log.clone()),
            Some(Owner {
                device: owned_device,
                instance: owned_instance,
            }),
        )
    }

    /// Adopts a renderer's instance and device. Creates nothing global and destroys nothing it did not create.
    ///
    /// Before creating anything it checks what it can of the device: Vulkan 1.2 or later, a queue family with
    /// compute, `VK_KHR_push_descriptor` enabled (its command loads on the device), and the subgroup
    /// operations of vksort's kernels in compute shaders; what fails is [`Error::Unsupported`] naming every
    /// missing extension, feature or operation. Optional features are used as `info`'s
    /// [`DeviceRequirements`] list them (and the device supports them). On an error after the checks, what
    /// vksort created is destroyed; the renderer's objects are untouched.
    ///
    /// # Safety
    /// The caller promises that:
    /// - `info`'s instance was created through its entry; its physical device was enumerated from it; its
    ///   device was created from that physical device; its queue is a queue of the device in its queue family;
    /// - all of them stay alive (not destroyed) until the returned context and everything created from it
    ///   (buffers, profilers, sorters, scanners, compactors) are dropped, and until the GPU has finished every
    ///   command buffer vksort recorded into (dropping the context waits for the device to be idle);
    /// - the device was created with the extensions and features of the [`DeviceRequirements`] given to
    ///   [`AdoptInfo::new`] (those vksort cannot check on a device), and the instance with `VK_EXT_debug_utils`
    ///   if [`AdoptInfo::with_debug_utils`] says so;
    /// - vksort's host forms submit to the queue and wait on their own fences: the caller does not use that
    ///   queue from another thread while a host form runs (Vulkan requires external synchronization of a queue).
    pub unsafe fn adopt(info: AdoptInfo) -> Result<Arc<Self>> {
        let mut caps = Self::query_caps(
            &info.instance,
            info.physical_device,
            info.queue_family_index,
        );
        // SAFETY: the caller's promise (live handles of one another).
        unsafe { Self::check_adopted(&info, &caps) }?;
        // What the device supports, and of that what the renderer enabled.
        // SAFETY: the caller's promise.
        let supported =
            unsafe { OptionalFeatures::supported(&info.instance, info.physical_device) };
        Self::set_features(&mut caps, supported.and(info.features));
        // Names and labels only where the commands load (a flag claimed without the extension would leave
        // ash's panicking stubs).
        let debug_utils = info.debug_utils
            && [
                c"vkSetDebugUtilsObjectNameEXT",
                c"vkCmdBeginDebugUtilsLabelEXT",
                c"vkCmdEndDebugUtilsLabelEXT",
            ]
            .iter()
            // SAFETY: a live device of this instance (the caller's promise).
            .all(|n| unsafe { device_fn_loads(&info.instance, &info.device, n) });
        Self::finish(
            info.entry,
            info.instance,
            info.physical_device,
            info.device,
            info.queue_family_index,
            info.queue,
            caps,
            debug_utils,
            info.wait_timeout,
            info.pipeline_cache.as_deref(),
            None,
            None,
        )
    }

    /// [`Context::adopt`]'s checks of the device, before anything is created: every missing item named in one
    /// [`Error::Unsupported`].
    ///
    /// # Safety
    /// `info`'s handles are live and of one another ([`Context::adopt`]'s promise).
    unsafe fn check_adopted(info: &AdoptInfo, caps: &DeviceCaps) -> Result<()> {
        let mut missing = Vec::new();
        if caps.api_version < MIN_API_VERSION {
            missing.push(format!(
                "Vulkan 1.2 (the device has {})",
                version_string(caps.api_version)
            ));
        }
        // SAFETY: the caller's promise.
        let families = unsafe {
            info.instance
                .get_physical_device_queue_family_properties(info.physical_device)
        };
        let family = info.queue_family_index;
        if !families
            .get(family as usize)
            .is_some_and(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        {
            missing.push(format!(
                "a queue family with compute (family {family} has none)"
            ));
        }
        // The spec returns NULL for commands of extensions not enabled on the device.
        // SAFETY: the caller's promise.
        if !unsafe { device_fn_loads(&info.instance, &info.device, c"vkCmdPushDescriptorSetKHR") } {
            missing.push("the extension VK_KHR_push_descriptor enabled on the device".into());
        }
        if let Some(what) = missing_subgroup_ops(caps.subgroup_ops, caps.subgroup_stages) {
            missing.push(what);
        }
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Error::Unsupported {
                device: caps.name.clone(),
                what: format!("vksort needs {}", missing.join(", ")),
            })
        }
    }

    /// Creates what a context owns on the device (allocator, pipeline cache, command pool) and assembles it.
    /// `owner` holds the instance and device when vksort created them; on an error every guard destroys its
    /// object, children before the device before the instance.
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
        initial_cache: Option<&[u8]>,
        validation: Option<Arc<ValidationLog>>,
        owner: Option<Owner>,
    ) -> Result<Arc<Self>> {
        // Locals drop before `owner` (an argument): the allocator and the children before the device.
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
        checkpoint(CreationStep::Allocator)?;
        let (pipeline_cache, cache_status) = create_pipeline_cache(&device, &caps, initial_cache)?;
        // SAFETY (the closure): called only on the unused cache just created, on its device.
        let pipeline_cache = DeviceChild::new(&device, pipeline_cache, |d, h| unsafe {
            d.destroy_pipeline_cache(h, None)
        });
        checkpoint(CreationStep::PipelineCache)?;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        let command_pool =
            unsafe { device.create_command_pool(&pool_info, None) }.vk("vkCreateCommandPool")?;
        // SAFETY (the closure): called only on the unused pool just created, on its device.
        let command_pool = DeviceChild::new(&device, command_pool, |d, h| unsafe {
            d.destroy_command_pool(h, None)
        });
        checkpoint(CreationStep::CommandPool)?;
        // Nothing fails from here on: the guards hand their objects to the context.
        let push_descriptor = ash::khr::push_descriptor::Device::new(&instance, &device);
        let debug = debug_utils.then(|| DebugUtils::new(&instance, &device));
        let (pipeline_cache, command_pool) = (pipeline_cache.release(), command_pool.release());
        // Creation feedback (cache hits) is core in Vulkan 1.3: on devices vksort created with 1.3 (an adopted
        // device's instance version is not known).
        let creation_feedback = owner.is_some() && caps.api_version >= vk::API_VERSION_1_3;
        let (owns_device, messenger) = match owner {
            Some(o) => {
                o.device.release();
                (true, o.instance.release().1)
            }
            None => (false, vk::DebugUtilsMessengerEXT::null()),
        };
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
            cache_lock: std::sync::RwLock::new(()),
            cache_status: Mutex::new(cache_status),
            pipelines_created: AtomicUsize::new(0),
            pipeline_cache_hits: AtomicUsize::new(0),
            creation_feedback,
            kernels: Mutex::new(HashMap::new()),
            pipeline_times: Mutex::new(Vec::new()),
            commands: Mutex::new(CommandSlot {
                pool: command_pool,
                cmd: None,
            }),
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

    /// The device extensions vksort enables on `physical`: [`DeviceRequirements::extensions`]. Fails with
    /// [`Error::Unsupported`] where the device cannot run vksort. A renderer creating its device for
    /// [`Context::adopt`] needs the features too: see [`DeviceRequirements`].
    ///
    /// # Safety
    /// The caller promises that `instance` is a live instance (not destroyed) and that `physical` was
    /// enumerated from it.
    pub unsafe fn device_extensions(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
    ) -> Result<Vec<&'static CStr>> {
        // SAFETY: the caller's promise.
        unsafe { DeviceRequirements::query(instance, physical) }.map(|r| r.extensions().to_vec())
    }

    fn create_device(
        instance: &ash::Instance,
        options: &ContextOptions,
    ) -> Result<(vk::PhysicalDevice, OwnedDevice, u32, DeviceCaps)> {
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
        // What vksort needs and uses of this device, as an adopting renderer gets it (Err: what it lacks).
        // SAFETY: `instance` is live and `pd` was enumerated from it just above.
        let mut reqs = unsafe { DeviceRequirements::query(instance, pd) }?;
        Self::set_features(&mut caps, reqs.optional());
        // The diagnostics extensions, on request and where present (not in the requirements, which an
        // adopting renderer enables).
        // SAFETY: plain query on a valid physical device.
        let all = unsafe { instance.enumerate_device_extension_properties(pd) }
            .vk("vkEnumerateDeviceExtensionProperties")?;
        let has = |n: &CStr| {
            all.iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|x| x == n))
        };
        let mut diag_exts: Vec<&'static CStr> = Vec::new();
        caps.pipeline_statistics =
            options.pipeline_statistics && has(ash::khr::pipeline_executable_properties::NAME);
        let mut epe = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(caps.pipeline_statistics);
        if caps.pipeline_statistics {
            diag_exts.push(ash::khr::pipeline_executable_properties::NAME);
        }
        if options.shader_clock && has(ash::khr::shader_clock::NAME) {
            let mut f = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f);
            // SAFETY: the chain is valid for the call.
            unsafe { instance.get_physical_device_features2(pd, &mut f2) };
            caps.shader_clock =
                f.shader_subgroup_clock == vk::TRUE && f.shader_device_clock == vk::TRUE;
        }
        caps.sm_builtins = caps.shader_clock && has(ash::nv::shader_sm_builtins::NAME);
        if caps.shader_clock {
            diag_exts.push(ash::khr::shader_clock::NAME);
        }
        if caps.sm_builtins {
            diag_exts.push(ash::nv::shader_sm_builtins::NAME);
        }
        let mut clock = vk::PhysicalDeviceShaderClockFeaturesKHR::default()
            .shader_subgroup_clock(caps.shader_clock)
            .shader_device_clock(caps.shader_clock);
        let mut smb = vk::PhysicalDeviceShaderSMBuiltinsFeaturesNV::default()
            .shader_sm_builtins(caps.sm_builtins);
        if options.residency_probes {
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
        // other kernels' device-scope atomics and barriers need its device scope too.) vksort's own 1.2
        // features are merged into this struct by `enable`.
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
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
        let ext_ptrs: Vec<*const c_char> = diag_exts.iter().map(|n| n.as_ptr()).collect();
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_ptrs)
            .push_next(&mut e12);
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
        // SAFETY: `info` was built with ash's builders from locals that outlive its use.
        let info = unsafe { reqs.enable(info) };
        // SAFETY: every pointer in `info` outlives the call.
        let device = unsafe { instance.create_device(pd, &info, None) }.vk("vkCreateDevice")?;
        Ok((pd, OwnedDevice::new(device), family, caps))
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
            class: super::DeviceClass::of(p.vendor_id, p.device_type),
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

    /// Sets the optional features of `caps` to `f`: what the device has enabled of what vksort uses.
    fn set_features(caps: &mut DeviceCaps, f: OptionalFeatures) {
        caps.int64 = f.int64;
        caps.subgroup_size_control = f.subgroup_size_control;
        caps.subgroup_partitioned = f.subgroup_partitioned;
        caps.buffer_device_address = f.buffer_device_address;
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
                    // What a device created by `Context::new` would enable.
                    // SAFETY: `pd` was enumerated from the live `instance`.
                    let f = unsafe { OptionalFeatures::supported(&instance, pd) };
                    Self::set_features(&mut caps, f);
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

    /// What became of the pipeline-cache data given at creation ([`ContextOptions::pipeline_cache`],
    /// [`AdoptInfo::with_pipeline_cache`]) or, after a [`Context::merge_pipeline_cache`], of the last data
    /// merged. The library logs nothing: a binary prints [`PipelineCacheStatus::Rejected`]'s reason as a
    /// warning.
    pub fn pipeline_cache_status(&self) -> PipelineCacheStatus {
        self.cache_status.lock().unwrap().clone()
    }

    /// The pipeline cache's current data (`vkGetPipelineCacheData`): what was given at creation and every
    /// pipeline built since, for [`ContextOptions::pipeline_cache`] in a later run. Where it is kept is the
    /// caller's choice (a file keyed by [`DeviceCaps::pipeline_cache_uuid`] and
    /// [`DeviceCaps::driver_version`], written atomically, is what the `vksort` tools do).
    pub fn pipeline_cache_data(&self) -> Result<Vec<u8>> {
        let _shared = self.cache_lock.read().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the cache was created on this device and lives as long as the context.
        unsafe { self.device.get_pipeline_cache_data(self.pipeline_cache) }
            .vk("vkGetPipelineCacheData")
    }

    /// Merges pipeline-cache data into the context's cache after creation (for callers that learn the device,
    /// and so which data fits it, only from [`Context::caps`]): checked as [`ContextOptions::pipeline_cache`]
    /// is, and ignored (the cache unchanged) when it belongs to another device or the driver refuses it. Its
    /// result is also what [`Context::pipeline_cache_status`] reports from then on. Pipelines already built
    /// are unaffected; merge before creating sorters.
    pub fn merge_pipeline_cache(&self, data: &[u8]) -> PipelineCacheStatus {
        let status = match create_pipeline_cache(&self.device, &self.caps, Some(data)) {
            Ok((src, status)) => {
                if let PipelineCacheStatus::Loaded { .. } = status {
                    let _exclusive = self.cache_lock.write().unwrap_or_else(|e| e.into_inner());
                    // SAFETY: both caches belong to this device; the destination's access is synchronized by
                    // the lock (pipeline creation holds it shared).
                    let merged =
                        unsafe { self.device.merge_pipeline_caches(self.pipeline_cache, &[src]) };
                    // SAFETY: `src` was created above and is used by nothing else.
                    unsafe { self.device.destroy_pipeline_cache(src, None) };
                    match merged {
                        Ok(()) => status,
                        Err(e) => PipelineCacheStatus::Rejected {
                            reason: format!("vkMergePipelineCaches failed ({e})"),
                        },
                    }
                } else {
                    // SAFETY: `src` is an empty cache created above and used by nothing else.
                    unsafe { self.device.destroy_pipeline_cache(src, None) };
                    status
                }
            }
            Err(e) => PipelineCacheStatus::Rejected {
                reason: e.to_string(),
            },
        };
        *self.cache_status.lock().unwrap() = status.clone();
        status
    }

    /// Pipelines this context has created so far, and how many of them the driver reported as found in the
    /// pipeline cache (`(created, cache hits)`); the hits are `None` where the device reports no creation
    /// feedback (Vulkan 1.3; never for an adopted device). A warm cache shows as hits close to `created`.
    pub fn pipeline_counts(&self) -> (usize, Option<usize>) {
        (
            self.pipelines_created.load(Ordering::Relaxed),
            self.creation_feedback
                .then(|| self.pipeline_cache_hits.load(Ordering::Relaxed)),
        )
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
                .destroy_command_pool(self.commands.lock().unwrap().pool, None);
            self.device
                .destroy_pipeline_cache(self.pipeline_cache, None);
            ManuallyDrop::drop(&mut self.allocator);
            if self.owns_device {
                destroy_device(&self.device);
                destroy_instance(&self.entry, &self.instance, self.messenger);
            }
        }
    }
}
