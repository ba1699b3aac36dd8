//! The Vulkan context: instance, device, queue, allocator, pipeline cache and what vksort knows of the device.
//! [`Context::new`] creates its own from [`ContextOptions`]; [`Context::adopt`] takes a renderer's and destroys
//! only what it created. Devices lacking something fail the constructor ([`Error::Unsupported`]); a failed
//! creation destroys what it made; a timed-out wait leaves the context lost ([`Context::is_lost`]).
//! docs/architecture.md ("The GPU layer: context lifecycle") gives the reasons.

use super::debug::DebugUtils;
use super::device::{adopted_debug_utils, check_adopted, create_device};
use super::instance::{create_instance, ValidationLog};
use super::kernel::{Kernel, KernelKey};
use super::owned::{checkpoint, destroy_device, destroy_instance, DeviceChild, Owner};
use super::pipeline_cache::create_pipeline_cache;
use super::requirements::{check_instance_version, OptionalFeatures};
use crate::error::{Error, Result, VkContext};
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use gpu_allocator::AllocationSizes;
use std::collections::HashMap;
use std::ffi::CString;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

pub use super::caps::DeviceCaps;
pub use super::kernel::KernelStatistics;
pub use super::options::{AdoptInfo, ContextOptions};
pub use super::owned::CreationStep;
#[cfg(feature = "diagnostics")]
pub use super::owned::{fail_creation_after, live_objects, LiveObjects};
pub use super::pipeline_cache::PipelineCacheStatus;

/// The host form's command pool and the one command buffer every submission re-records (docs/architecture.md).
pub(crate) struct CommandSlot {
    pub(crate) pool: vk::CommandPool,
    /// `None` until the first submission, and again after one that failed (its buffer is freed then).
    pub(crate) cmd: Option<vk::CommandBuffer>,
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
    /// Pipeline creation holds it shared, a merge exclusive (the merge's destination needs external sync).
    pub(crate) cache_lock: RwLock<()>,
    pub(super) cache_status: Mutex<PipelineCacheStatus>,
    pub(crate) pipelines_created: AtomicUsize,
    pub(crate) pipeline_cache_hits: AtomicUsize,
    pub(crate) pipeline_times: Mutex<Vec<(&'static str, Duration)>>,
    pub(crate) creation_feedback: bool,
    pub(crate) kernels: Mutex<HashMap<KernelKey, Arc<Kernel>>>,
    /// Zeroed look-back status blocks not leased now (`status.rs`), destroyed with the context.
    pub(crate) status_pool: Mutex<Vec<super::buffer::RawBuffer>>,
    pub(crate) commands: Mutex<CommandSlot>,
    pub(crate) caps: DeviceCaps,
    pub(crate) wait_timeout: Duration,
    pub(crate) validation: Option<Arc<ValidationLog>>,
    /// Set when a host-form wait timed out or the device was lost ([`Context::is_lost`]).
    pub(crate) lost: AtomicBool,
    messenger: vk::DebugUtilsMessengerEXT,
    owns_device: bool,
    /// Unique per context in this process ([`Error::ForeignBuffer`] for another context's buffer).
    pub(crate) id: u64,
}

static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(1);

// SAFETY: handles are plain identifiers; externally synchronized objects are behind mutexes.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

/// The Vulkan objects a context runs on, its own or a renderer's.
struct Handles {
    entry: ash::Entry,
    instance: ash::Instance,
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue_family: u32,
    queue: vk::Queue,
}

/// What a context creates on its device, each destroyed on drop until handed over.
struct Children {
    allocator: Allocator,
    pipeline_cache: DeviceChild<vk::PipelineCache>,
    cache_status: PipelineCacheStatus,
    command_pool: DeviceChild<vk::CommandPool>,
}

impl Context {
    /// Creates an instance and a device of its own, on the best device (or the one `options.device` names).
    pub fn new(options: ContextOptions) -> Result<Arc<Self>> {
        let limits = options
            .limits
            .as_deref()
            .map(super::options::LimitOverride::parse)
            .transpose()?;
        // SAFETY: loading the system Vulkan loader; its symbols are trusted.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| Error::Loader(e.to_string()))?;
        // Declared before the guards, so it outlives them: the layer reports through it until the instance dies.
        let log = Arc::new(ValidationLog::default());
        let (instance, debug_utils) = create_instance(&entry, options.validation, &log)?;
        let (physical, device, queue_family, mut caps) =
            create_device(&instance.instance, &options)?;
        if let Some(limits) = limits {
            caps.lower(limits);
        }
        checkpoint(CreationStep::Device)?;
        // SAFETY: the family index was chosen with a queue of index 0.
        let queue = unsafe { device.device.get_device_queue(queue_family, 0) };
        let handles = Handles {
            entry,
            instance: instance.instance.clone(),
            physical,
            device: device.device.clone(),
            queue_family,
            queue,
        };
        Self::finish(
            handles,
            caps,
            debug_utils,
            options.wait_timeout,
            options.pipeline_cache.as_deref(),
            options.validation.then(|| log.clone()),
            Some(Owner { device, instance }),
        )
    }

    /// Adopts a renderer's instance and device. Creates nothing global and destroys nothing it did not create.
    /// Checks first what it can of the device: one [`Error::Unsupported`] names every missing item.
    ///
    /// # Safety
    /// The caller promises that:
    /// - `info`'s instance was created through its entry; its physical device was enumerated from it; its
    ///   device was created from that physical device; its queue is a queue of the device in its queue family;
    /// - all of them stay alive (not destroyed) until the returned context and everything created from it
    ///   (buffers, profilers, sorters, scanners, compactors) are dropped, and until the GPU has finished every
    ///   command buffer vksort recorded into (dropping the context waits for the device to be idle);
    /// - the instance was created with Vulkan 1.2 or later (`VkApplicationInfo::apiVersion`; where the
    ///   [`super::DeviceRequirements`] say the version, [`Error::Unsupported`] names a lower one before any
    ///   query), and with `VK_EXT_debug_utils` if [`AdoptInfo::with_debug_utils`] says so;
    /// - the device was created with at least the extensions and features the [`super::DeviceRequirements`]
    ///   given to [`AdoptInfo::new`] list (vksort cannot read them back from a device: it uses those the
    ///   hardware supports of them, and none other);
    /// - vksort's host forms submit to the queue and wait on their own fences: the caller does not use that
    ///   queue from another thread while a host form runs (Vulkan requires external synchronization of a queue).
    pub unsafe fn adopt(info: AdoptInfo) -> Result<Arc<Self>> {
        if let Some(v) = info.instance_api_version {
            // SAFETY: the caller's promise; a Vulkan 1.0 query, before any of a later version.
            let props = unsafe {
                info.instance
                    .get_physical_device_properties(info.physical_device)
            };
            let name = props
                .device_name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            check_instance_version(&name, v)?;
        }
        let mut caps = DeviceCaps::query(
            &info.instance,
            info.physical_device,
            info.queue_family_index,
        );
        // SAFETY: the caller's promise (live handles of one another), for the three calls.
        unsafe { check_adopted(&info, &caps) }?;
        let supported = unsafe {
            OptionalFeatures::supported(
                &info.instance,
                info.physical_device,
                info.instance_api_version,
            )
        };
        caps.set_features(supported.and(info.features));
        let debug_utils = unsafe { adopted_debug_utils(&info) };
        let handles = Handles {
            entry: info.entry,
            instance: info.instance,
            physical: info.physical_device,
            device: info.device,
            queue_family: info.queue_family_index,
            queue: info.queue,
        };
        let cache = info.pipeline_cache.as_deref();
        Self::finish(
            handles,
            caps,
            debug_utils,
            info.wait_timeout,
            cache,
            None,
            None,
        )
    }

    /// Creates the allocator, pipeline cache and command pool; on an error every guard destroys its object.
    fn create_children(
        h: &Handles,
        caps: &DeviceCaps,
        initial_cache: Option<&[u8]>,
    ) -> Result<Children> {
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: h.instance.clone(),
            device: h.device.clone(),
            physical_device: h.physical,
            debug_settings: Default::default(),
            buffer_device_address: caps.buffer_device_address,
            allocation_sizes: AllocationSizes::new(256 << 20, super::buffer::HOST_BLOCK),
        })
        .map_err(|source| Error::Allocation {
            name: "allocator".into(),
            reason: source.to_string(),
        })?;
        checkpoint(CreationStep::Allocator)?;
        let (cache, cache_status) = create_pipeline_cache(&h.device, caps, initial_cache)?;
        // SAFETY (the closure): called only on the unused cache just created, on its device.
        let pipeline_cache = DeviceChild::new(&h.device, cache, |d, h| unsafe {
            d.destroy_pipeline_cache(h, None)
        });
        checkpoint(CreationStep::PipelineCache)?;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(h.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        let pool =
            unsafe { h.device.create_command_pool(&pool_info, None) }.vk("vkCreateCommandPool")?;
        // SAFETY (the closure): called only on the unused pool just created, on its device.
        let command_pool = DeviceChild::new(&h.device, pool, |d, h| unsafe {
            d.destroy_command_pool(h, None)
        });
        checkpoint(CreationStep::CommandPool)?;
        Ok(Children {
            allocator,
            pipeline_cache,
            cache_status,
            command_pool,
        })
    }

    /// Creates what a context owns on the device and assembles it. `owner` (the instance and device vksort
    /// created, if it did) drops after the children on an error.
    fn finish(
        h: Handles,
        caps: DeviceCaps,
        debug_utils: bool,
        wait_timeout: Duration,
        initial_cache: Option<&[u8]>,
        validation: Option<Arc<ValidationLog>>,
        owner: Option<Owner>,
    ) -> Result<Arc<Self>> {
        let children = Self::create_children(&h, &caps, initial_cache)?;
        // Nothing fails from here on: the guards hand their objects to the context.
        let push_descriptor = ash::khr::push_descriptor::Device::new(&h.instance, &h.device);
        let debug = debug_utils.then(|| DebugUtils::new(&h.instance, &h.device));
        let pipeline_cache = children.pipeline_cache.release();
        let command_pool = children.command_pool.release();
        // Creation feedback is core in 1.3: used where vksort made the device (the version is known).
        let creation_feedback = owner.is_some() && caps.api_version >= vk::API_VERSION_1_3;
        let (owns_device, messenger) = match owner {
            Some(o) => {
                o.device.release();
                (true, o.instance.release().1)
            }
            None => (false, vk::DebugUtilsMessengerEXT::null()),
        };
        let ctx = Self {
            entry: h.entry,
            instance: h.instance,
            physical: h.physical,
            device: h.device,
            queue: Mutex::new(h.queue),
            queue_family: h.queue_family,
            push_descriptor,
            debug,
            allocator: ManuallyDrop::new(Mutex::new(children.allocator)),
            pipeline_cache,
            cache_lock: RwLock::new(()),
            cache_status: Mutex::new(children.cache_status),
            pipelines_created: AtomicUsize::new(0),
            pipeline_cache_hits: AtomicUsize::new(0),
            creation_feedback,
            kernels: Mutex::new(HashMap::new()),
            status_pool: Mutex::new(Vec::new()),
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

    /// The device's capabilities.
    pub fn caps(&self) -> &DeviceCaps {
        &self.caps
    }

    /// The usage of vksort's buffers: [`super::DEFAULT_USAGE`], with `SHADER_DEVICE_ADDRESS` where enabled.
    pub fn default_usage(&self) -> vk::BufferUsageFlags {
        if self.caps.buffer_device_address {
            super::DEFAULT_USAGE | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        } else {
            super::DEFAULT_USAGE
        }
    }

    /// The device address of `region`'s first byte (`bufferDeviceAddress` and usage checked).
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
        // SAFETY: a valid buffer of this device with SHADER_DEVICE_ADDRESS usage (checked above).
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

    /// Whether a host-form wait timed out or found the device lost: the context then frees nothing a
    /// submission might use (leaked) and its host forms fail at once.
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

    /// Names an object vksort created for captures (a foreign handle would make the call unsound).
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
            // Late work may still run: freeing what it uses or waiting could fault or hang. Leak it all.
            return;
        }
        // SAFETY: the device is idle; this Context created every object destroyed here.
        unsafe {
            let _ = self.device.device_wait_idle();
            for (_, k) in self.kernels.lock().unwrap().drain() {
                k.destroy(&self.device);
            }
            for mut raw in self.status_pool.lock().unwrap().drain(..) {
                raw.destroy(self);
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
