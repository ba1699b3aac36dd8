//! What vksort knows of a device ([`DeviceCaps`]): read once from the physical device, with the optional
//! features the device was created with; [`Context::enumerate`] lists them without creating a device.

use super::options::LimitOverride;
use super::requirements::OptionalFeatures;
#[cfg(doc)]
use super::ContextOptions;
use super::{Context, DeviceClass};
use crate::error::{Error, Result, VkContext};
use ash::vk;

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
    pub class: DeviceClass,
    /// The device's Vulkan API version, packed (`vk::api_version_major` and friends unpack it).
    pub api_version: u32,
    /// The driver's version, packed as the vendor does.
    pub driver_version: u32,
    /// The driver's name and info string (`VkPhysicalDeviceDriverProperties`).
    pub driver_info: String,
    /// `pipelineCacheUUID`, the key of on-disk caches.
    pub pipeline_cache_uuid: [u8; 16],
    /// `deviceUUID`: the same physical device across processes and APIs.
    pub device_uuid: [u8; 16],
    /// The default subgroup size in invocations (`subgroupSize`).
    pub subgroup_size: u32,
    /// The smallest subgroup size the device may use (`subgroup_size` where it reports no range).
    pub min_subgroup_size: u32,
    /// The largest subgroup size the device may use (as `min_subgroup_size`).
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
    /// `bufferDeviceAddress` enabled: passes may write through device addresses (sorts larger than a binding).
    pub buffer_device_address: bool,
    /// Pipelines capture driver statistics ([`ContextOptions::pipeline_statistics`]; never when adopted).
    pub pipeline_statistics: bool,
    /// `VK_KHR_shader_clock` enabled ([`ContextOptions::shader_clock`]; never when adopted).
    pub shader_clock: bool,
    /// `VK_NV_shader_sm_builtins` enabled alongside `shader_clock` (the SM id in the tile clock records).
    pub sm_builtins: bool,
    /// `VK_KHR_workgroup_memory_explicit_layout` enabled ([`ContextOptions::residency_probes`]).
    pub explicit_layout: bool,
    /// `VK_NV_cooperative_matrix` enabled (with `shaderFloat16` and the device-scope memory model).
    pub cooperative_matrix: bool,
    /// Bytes of workgroup shared memory (`maxComputeSharedMemorySize`).
    pub max_shared_memory: u32,
    /// Invocations per workgroup (within `maxComputeWorkgroupSubgroups` subgroups where sizes are required).
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
    /// `max_shared_memory` or `max_workgroup_invocations` lowered by [`ContextOptions::limits`]: every kernel's
    /// shared memory is then checked against them too.
    pub limits_lowered: bool,
}

/// The properties [`DeviceCaps::query`] reads through one `vkGetPhysicalDeviceProperties2` chain.
struct Properties {
    base: vk::PhysicalDeviceProperties,
    sub: vk::PhysicalDeviceSubgroupProperties<'static>,
    ssc: vk::PhysicalDeviceSubgroupSizeControlProperties<'static>,
    id: vk::PhysicalDeviceIDProperties<'static>,
    driver: vk::PhysicalDeviceDriverProperties<'static>,
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

    /// The capabilities of `pd` with queue family `family`, no optional feature enabled yet.
    pub(super) fn query(instance: &ash::Instance, pd: vk::PhysicalDevice, family: u32) -> Self {
        let p = Properties::query(instance, pd);
        // SAFETY: plain queries on a physical device of the live instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let mem = unsafe { instance.get_physical_device_memory_properties(pd) };
        let limits = &p.base.limits;
        let (min_subgroup_size, max_subgroup_size) = p.subgroup_sizes();
        DeviceCaps {
            name: c_text(p.base.device_name_as_c_str()),
            vendor_id: p.base.vendor_id,
            device_id: p.base.device_id,
            device_type: p.base.device_type,
            class: DeviceClass::of(p.base.vendor_id, p.base.device_type),
            api_version: p.base.api_version,
            driver_version: p.base.driver_version,
            driver_info: p.driver_info(),
            pipeline_cache_uuid: p.base.pipeline_cache_uuid,
            device_uuid: p.id.device_uuid,
            subgroup_size: p.sub.subgroup_size,
            min_subgroup_size,
            max_subgroup_size,
            subgroup_size_control: p.size_control(),
            subgroup_ops: p.sub.supported_operations,
            subgroup_stages: p.sub.supported_stages,
            int64: false,
            subgroup_partitioned: false,
            buffer_device_address: false,
            pipeline_statistics: false,
            shader_clock: false,
            sm_builtins: false,
            explicit_layout: false,
            cooperative_matrix: false,
            max_shared_memory: limits.max_compute_shared_memory_size,
            max_workgroup_invocations: p.max_workgroup_invocations(),
            max_workgroup_count: limits.max_compute_work_group_count,
            max_storage_buffer_range: limits.max_storage_buffer_range as u64,
            min_storage_buffer_offset_alignment: limits.min_storage_buffer_offset_alignment,
            max_push_constants_size: limits.max_push_constants_size,
            timestamp_period: limits.timestamp_period,
            timestamp_valid_bits: families
                .get(family as usize)
                .map(|f| f.timestamp_valid_bits)
                .unwrap_or(0),
            device_local_bytes: largest_device_local_heap(&mem),
            limits_lowered: false,
        }
    }

    /// Lowers the limits to `o`'s where they are below the device's (never raises one).
    pub(super) fn lower(&mut self, o: LimitOverride) {
        if let Some(s) = o.shared.filter(|&s| s < self.max_shared_memory) {
            self.max_shared_memory = s;
            self.limits_lowered = true;
        }
        if let Some(i) = o
            .invocations
            .filter(|&i| i < self.max_workgroup_invocations)
        {
            self.max_workgroup_invocations = i;
            self.limits_lowered = true;
        }
    }

    /// Sets the optional features to `f`: what the device has enabled of what vksort uses.
    pub(super) fn set_features(&mut self, f: OptionalFeatures) {
        self.int64 = f.int64;
        self.subgroup_size_control = f.subgroup_size_control;
        self.subgroup_partitioned = f.subgroup_partitioned;
        self.buffer_device_address = f.buffer_device_address;
    }
}

impl Properties {
    fn query(instance: &ash::Instance, pd: vk::PhysicalDevice) -> Self {
        let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
        let mut ssc = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut id = vk::PhysicalDeviceIDProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut sub)
            .push_next(&mut ssc)
            .push_next(&mut id)
            .push_next(&mut driver);
        // SAFETY: valid chain of output structs.
        unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
        let base = p2.properties;
        sub.p_next = std::ptr::null_mut();
        ssc.p_next = std::ptr::null_mut();
        id.p_next = std::ptr::null_mut();
        driver.p_next = std::ptr::null_mut();
        Self {
            base,
            sub,
            ssc,
            id,
            driver,
        }
    }

    /// `(min, max)` subgroup sizes: the size-control range where reported, else the default size.
    fn subgroup_sizes(&self) -> (u32, u32) {
        let ssc = &self.ssc;
        if ssc.min_subgroup_size > 0 && ssc.max_subgroup_size >= ssc.min_subgroup_size {
            (ssc.min_subgroup_size, ssc.max_subgroup_size)
        } else {
            (self.sub.subgroup_size, self.sub.subgroup_size)
        }
    }

    /// Whether compute pipelines may require a subgroup size.
    fn size_control(&self) -> bool {
        self.ssc
            .required_subgroup_size_stages
            .contains(vk::ShaderStageFlags::COMPUTE)
    }

    /// At most `maxComputeWorkgroupSubgroups` subgroups where pipelines require a subgroup size.
    fn max_workgroup_invocations(&self) -> u32 {
        let max = self.base.limits.max_compute_work_group_invocations;
        if self.ssc.max_compute_workgroup_subgroups > 0 && self.size_control() {
            max.min(self.ssc.max_compute_workgroup_subgroups * self.sub.subgroup_size.max(1))
        } else {
            max
        }
    }

    fn driver_info(&self) -> String {
        let name = c_text(self.driver.driver_name_as_c_str());
        let info = c_text(self.driver.driver_info_as_c_str());
        format!("{name} {info}").trim().to_string()
    }
}

/// A fixed-size C string field as text (empty where it is not terminated).
fn c_text(s: std::result::Result<&std::ffi::CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn largest_device_local_heap(mem: &vk::PhysicalDeviceMemoryProperties) -> u64 {
    mem.memory_heaps[..mem.memory_heap_count as usize]
        .iter()
        .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|h| h.size)
        .max()
        .unwrap_or(0)
}

impl Context {
    /// Lists every physical device (index, capabilities with the features [`Context::new`] would enable).
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
                    let mut caps = DeviceCaps::query(&instance, pd, fam as u32);
                    // SAFETY: `pd` was enumerated from the live `instance`.
                    caps.set_features(unsafe {
                        OptionalFeatures::supported(&instance, pd, Some(vk::API_VERSION_1_3))
                    });
                    (i, caps)
                })
                .collect()
        });
        unsafe { instance.destroy_instance(None) };
        out
    }
}
