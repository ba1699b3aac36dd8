//! What vksort needs from a device and can use of it: the description a renderer creates its device from for
//! [`super::Context::adopt`] (docs/recording.md shows it). Diagnostics-only extensions are not listed: only
//! [`super::Context::new`] enables them, on request.

use crate::error::{Error, Result, VkContext};
use ash::vk;
use std::ffi::{c_char, CStr};

/// The subgroup operations vksort's kernels use in compute shaders (required by [`DeviceRequirements::query`]).
pub const REQUIRED_SUBGROUP_OPS: vk::SubgroupFeatureFlags = vk::SubgroupFeatureFlags::from_raw(
    vk::SubgroupFeatureFlags::BASIC.as_raw()
        | vk::SubgroupFeatureFlags::VOTE.as_raw()
        | vk::SubgroupFeatureFlags::ARITHMETIC.as_raw()
        | vk::SubgroupFeatureFlags::BALLOT.as_raw()
        | vk::SubgroupFeatureFlags::SHUFFLE.as_raw(),
);

/// The lowest Vulkan API version vksort runs on.
pub const MIN_API_VERSION: u32 = vk::API_VERSION_1_2;

/// The optional features vksort uses, as enabled on (or supported by) a device: 64-bit scans
/// (`shaderInt64`, `shaderSubgroupExtendedTypes`), subgroup size control, match-any, device addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OptionalFeatures {
    pub(crate) int64: bool,
    pub(crate) subgroup_size_control: bool,
    pub(crate) subgroup_partitioned: bool,
    pub(crate) buffer_device_address: bool,
}

impl OptionalFeatures {
    /// What `pd` supports of the optional features (a failed query supports none).
    ///
    /// # Safety
    /// `instance` is live and `pd` was enumerated from it.
    pub(crate) unsafe fn supported(instance: &ash::Instance, pd: vk::PhysicalDevice) -> Self {
        // SAFETY: the caller's promise; plain queries with valid output chains.
        let api = unsafe { instance.get_physical_device_properties(pd) }.api_version;
        let exts =
            unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap_or_default();
        let has = |n: &CStr| {
            exts.iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|x| x == n))
        };
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut ssc = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let size_control_ext =
            api < vk::API_VERSION_1_3 && has(ash::ext::subgroup_size_control::NAME);
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        if api >= MIN_API_VERSION {
            f2 = f2.push_next(&mut f12);
        }
        if api >= vk::API_VERSION_1_3 {
            f2 = f2.push_next(&mut f13);
        } else if size_control_ext {
            f2 = f2.push_next(&mut ssc);
        }
        // SAFETY: the chain holds only structs of the device's version or of its extensions.
        unsafe { instance.get_physical_device_features2(pd, &mut f2) };
        let on = |b: vk::Bool32| b == vk::TRUE;
        Self {
            int64: on(f2.features.shader_int64) && on(f12.shader_subgroup_extended_types),
            subgroup_size_control: if api >= vk::API_VERSION_1_3 {
                on(f13.subgroup_size_control) && on(f13.compute_full_subgroups)
            } else {
                size_control_ext && on(ssc.subgroup_size_control) && on(ssc.compute_full_subgroups)
            },
            subgroup_partitioned: has(ash::nv::shader_subgroup_partitioned::NAME),
            buffer_device_address: api >= MIN_API_VERSION && on(f12.buffer_device_address),
        }
    }

    /// The features of both.
    pub(crate) fn and(self, o: Self) -> Self {
        Self {
            int64: self.int64 && o.int64,
            subgroup_size_control: self.subgroup_size_control && o.subgroup_size_control,
            subgroup_partitioned: self.subgroup_partitioned && o.subgroup_partitioned,
            buffer_device_address: self.buffer_device_address && o.buffer_device_address,
        }
    }
}

/// What vksort needs from a device and will use of it: extensions, features and a queue family with compute.
/// docs/recording.md shows a renderer creating its device with it.
#[derive(Clone, Debug)]
pub struct DeviceRequirements {
    device_name: String,
    api_version: u32,
    compute_queue_family: u32,
    optional: OptionalFeatures,
    extensions: Vec<&'static CStr>,
    /// `extensions` and the renderer's own, as pointers, for the create info of [`Self::enable`].
    extension_ptrs: Vec<*const c_char>,
    features: vk::PhysicalDeviceFeatures,
    features12: vk::PhysicalDeviceVulkan12Features<'static>,
    features13: vk::PhysicalDeviceVulkan13Features<'static>,
    size_control_ext: vk::PhysicalDeviceSubgroupSizeControlFeatures<'static>,
}

// SAFETY: the raw pointers (`pNext`, `extension_ptrs`) are written by `enable` only (reset first) and read only
// through the create info it returns, under its `'a` borrow: never dereferenced across threads.
unsafe impl Send for DeviceRequirements {}
unsafe impl Sync for DeviceRequirements {}

impl DeviceRequirements {
    /// What vksort needs and can use on `physical_device`: [`Error::Unsupported`] names everything it lacks
    /// (Vulkan 1.2, `VK_KHR_push_descriptor`, a compute queue family, [`REQUIRED_SUBGROUP_OPS`]).
    ///
    /// # Safety
    /// `instance` is a live instance (not destroyed) and `physical_device` was enumerated from it.
    pub unsafe fn query(
        instance: &ash::Instance,
        physical_device: vk::PhysicalDevice,
    ) -> Result<Self> {
        let pd = physical_device;
        let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sub);
        // SAFETY: the caller's promise; plain queries with valid output chains.
        unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
        let props = p2.properties;
        let exts = unsafe { instance.enumerate_device_extension_properties(pd) }
            .vk("vkEnumerateDeviceExtensionProperties")?;
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let device_name = props
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        let has = |n: &CStr| {
            exts.iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|x| x == n))
        };
        let compute_queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE));
        let mut missing = Vec::new();
        if props.api_version < MIN_API_VERSION {
            missing.push(format!(
                "Vulkan 1.2 (the device has {})",
                version_string(props.api_version)
            ));
        }
        if !has(ash::khr::push_descriptor::NAME) {
            missing.push("the extension VK_KHR_push_descriptor".to_string());
        }
        if compute_queue_family.is_none() {
            missing.push("a queue family with compute".to_string());
        }
        if let Some(what) = missing_subgroup_ops(sub.supported_operations, sub.supported_stages) {
            missing.push(what);
        }
        if !missing.is_empty() {
            return Err(Error::Unsupported {
                device: device_name,
                what: format!("vksort needs {}", missing.join(", ")),
            });
        }
        // SAFETY: the caller's promise.
        let optional = unsafe { OptionalFeatures::supported(instance, pd) };
        let api_version = props.api_version;
        let size_control_ext = optional.subgroup_size_control && api_version < vk::API_VERSION_1_3;
        let mut extensions = vec![ash::khr::push_descriptor::NAME];
        if size_control_ext {
            extensions.push(ash::ext::subgroup_size_control::NAME);
        }
        if optional.subgroup_partitioned {
            extensions.push(ash::nv::shader_subgroup_partitioned::NAME);
        }
        let sc = optional.subgroup_size_control;
        Ok(Self {
            device_name,
            api_version,
            compute_queue_family: compute_queue_family.unwrap_or(0) as u32,
            optional,
            extension_ptrs: Vec::new(),
            extensions,
            features: vk::PhysicalDeviceFeatures::default().shader_int64(optional.int64),
            features12: vk::PhysicalDeviceVulkan12Features::default()
                .shader_subgroup_extended_types(optional.int64)
                .buffer_device_address(optional.buffer_device_address),
            features13: vk::PhysicalDeviceVulkan13Features::default()
                .subgroup_size_control(sc && !size_control_ext)
                .compute_full_subgroups(sc && !size_control_ext),
            size_control_ext: vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
                .subgroup_size_control(size_control_ext)
                .compute_full_subgroups(size_control_ext),
        })
    }

    /// The device's name (`VkPhysicalDeviceProperties::deviceName`).
    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// The device's Vulkan API version (`VkPhysicalDeviceProperties::apiVersion`, at least 1.2).
    pub fn api_version(&self) -> u32 {
        self.api_version
    }

    /// The first queue family with compute (any family with compute will do for [`super::AdoptInfo`]).
    pub fn compute_queue_family(&self) -> u32 {
        self.compute_queue_family
    }

    /// The device extensions to enable: `VK_KHR_push_descriptor`, and the optional ones the device has.
    pub fn extensions(&self) -> &[&'static CStr] {
        &self.extensions
    }

    /// [`Self::extensions`] as the pointers `enabled_extension_names` takes (to `'static` strings).
    pub fn extension_names(&self) -> Vec<*const c_char> {
        self.extensions.iter().map(|e| e.as_ptr()).collect()
    }

    /// The core features to enable (`shaderInt64` where supported).
    pub fn features(&self) -> &vk::PhysicalDeviceFeatures {
        &self.features
    }

    /// The Vulkan 1.2 features to enable (`shaderSubgroupExtendedTypes`, `bufferDeviceAddress`).
    pub fn features12(&self) -> &vk::PhysicalDeviceVulkan12Features<'static> {
        &self.features12
    }

    /// The Vulkan 1.3 features to enable (`subgroupSizeControl`, `computeFullSubgroups`).
    pub fn features13(&self) -> &vk::PhysicalDeviceVulkan13Features<'static> {
        &self.features13
    }

    /// Whether `shaderInt64` and `shaderSubgroupExtendedTypes` are among the features to enable.
    pub fn int64(&self) -> bool {
        self.optional.int64
    }

    /// Whether `subgroupSizeControl` and `computeFullSubgroups` are among the features to enable.
    pub fn subgroup_size_control(&self) -> bool {
        self.optional.subgroup_size_control
    }

    /// Whether `VK_NV_shader_subgroup_partitioned` is among the extensions to enable.
    pub fn subgroup_partitioned(&self) -> bool {
        self.optional.subgroup_partitioned
    }

    /// Whether `bufferDeviceAddress` is among the features to enable (sorts larger than one binding).
    pub fn buffer_device_address(&self) -> bool {
        self.optional.buffer_device_address
    }

    pub(crate) fn optional(&self) -> OptionalFeatures {
        self.optional
    }

    /// Sets vksort's core features in the renderer's `features` (OR: the renderer's stay on).
    pub fn merge_features(&self, features: &mut vk::PhysicalDeviceFeatures) {
        if self.optional.int64 {
            features.shader_int64 = vk::TRUE;
        }
    }

    /// Sets vksort's Vulkan 1.2 features in the renderer's own `features12` (OR).
    pub fn merge_features12(&self, features12: &mut vk::PhysicalDeviceVulkan12Features<'_>) {
        let f = &self.features12;
        features12.shader_subgroup_extended_types |= f.shader_subgroup_extended_types;
        features12.buffer_device_address |= f.buffer_device_address;
    }

    /// Sets vksort's Vulkan 1.3 features in the renderer's own `features13` (OR; a 1.3 device only).
    pub fn merge_features13(&self, features13: &mut vk::PhysicalDeviceVulkan13Features<'_>) {
        let f = &self.features13;
        features13.subgroup_size_control |= f.subgroup_size_control;
        features13.compute_full_subgroups |= f.compute_full_subgroups;
    }

    /// Sets vksort's subgroup size control in the renderer's own size-control features struct (OR).
    pub fn merge_subgroup_size_control(
        &self,
        features: &mut vk::PhysicalDeviceSubgroupSizeControlFeatures<'_>,
    ) {
        if self.optional.subgroup_size_control {
            features.subgroup_size_control = vk::TRUE;
            features.compute_full_subgroups = vk::TRUE;
        }
    }

    /// Adds what vksort needs to the renderer's create info: its extensions beside the renderer's, its
    /// features merged into the chained `Features2`/`Vulkan12`/`Vulkan13`/size-control structs where present,
    /// else `self`'s chained (a chain of separate 1.2 feature structs needs the `merge_*` helpers instead).
    ///
    /// # Safety
    /// Every pointer `info` holds (extension names, `pEnabledFeatures`, the `pNext` chain) is valid for `'a`,
    /// as ash's builders make them; the chain's structs were pushed as `&'a mut` (vksort writes into them).
    pub unsafe fn enable<'a>(
        &'a mut self,
        info: vk::DeviceCreateInfo<'a>,
    ) -> vk::DeviceCreateInfo<'a> {
        let Self {
            api_version,
            optional,
            extensions,
            extension_ptrs,
            features,
            features12,
            features13,
            size_control_ext,
            ..
        } = self;
        features12.p_next = std::ptr::null_mut();
        features13.p_next = std::ptr::null_mut();
        size_control_ext.p_next = std::ptr::null_mut();
        // SAFETY (both): the caller's promise.
        let mut info = unsafe { add_extensions(info, extensions, extension_ptrs) };
        let chained = unsafe { merge_into_chain(info.p_next, *optional, features12) };
        if !chained.features2 {
            if !info.p_enabled_features.is_null() {
                // SAFETY: the caller's promise.
                *features = unsafe { *info.p_enabled_features };
                if optional.int64 {
                    features.shader_int64 = vk::TRUE;
                }
            }
            info = info.enabled_features(features);
        }
        if !chained.vulkan12 {
            info = info.push_next(features12);
        }
        if optional.subgroup_size_control && !chained.vulkan13 && !chained.size_control {
            if *api_version >= vk::API_VERSION_1_3 {
                info = info.push_next(features13);
            } else {
                info = info.push_next(size_control_ext);
            }
        }
        info
    }
}

/// `info`'s extensions (kept) and those of `extensions` not among them, through `ptrs`.
///
/// # Safety
/// `info`'s extension names are `enabled_extension_count` valid, NUL-terminated strings.
unsafe fn add_extensions<'a>(
    info: vk::DeviceCreateInfo<'a>,
    extensions: &[&'static CStr],
    ptrs: &'a mut Vec<*const c_char>,
) -> vk::DeviceCreateInfo<'a> {
    ptrs.clear();
    if info.enabled_extension_count > 0 && !info.pp_enabled_extension_names.is_null() {
        // SAFETY: the caller's promise.
        let theirs = unsafe {
            std::slice::from_raw_parts(
                info.pp_enabled_extension_names,
                info.enabled_extension_count as usize,
            )
        };
        ptrs.extend_from_slice(theirs);
    }
    for e in extensions {
        // SAFETY: as above.
        let present = ptrs
            .iter()
            .any(|&p| !p.is_null() && unsafe { CStr::from_ptr(p) } == *e);
        if !present {
            ptrs.push(e.as_ptr());
        }
    }
    info.enabled_extension_names(ptrs)
}

/// The structs of a renderer's chain vksort merged into.
#[derive(Default)]
struct Chained {
    features2: bool,
    vulkan12: bool,
    vulkan13: bool,
    size_control: bool,
}

/// Sets vksort's features in the structs of the chain from `node` that hold them (OR).
///
/// # Safety
/// Each node is a live struct of the type its `sType` names, pushed as `&'a mut`.
unsafe fn merge_into_chain(
    node: *const std::ffi::c_void,
    optional: OptionalFeatures,
    features12: &vk::PhysicalDeviceVulkan12Features<'_>,
) -> Chained {
    let mut found = Chained::default();
    let mut node = node as *mut vk::BaseOutStructure<'_>;
    let size_control = |on: &mut vk::Bool32, full: &mut vk::Bool32| {
        if optional.subgroup_size_control {
            (*on, *full) = (vk::TRUE, vk::TRUE);
        }
    };
    while !node.is_null() {
        // SAFETY: the caller's promise.
        unsafe {
            match (*node).s_type {
                vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 => {
                    let f = &mut *(node as *mut vk::PhysicalDeviceFeatures2<'_>);
                    if optional.int64 {
                        f.features.shader_int64 = vk::TRUE;
                    }
                    found.features2 = true;
                }
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => {
                    let f = &mut *(node as *mut vk::PhysicalDeviceVulkan12Features<'_>);
                    f.shader_subgroup_extended_types |= features12.shader_subgroup_extended_types;
                    f.buffer_device_address |= features12.buffer_device_address;
                    found.vulkan12 = true;
                }
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => {
                    let f = &mut *(node as *mut vk::PhysicalDeviceVulkan13Features<'_>);
                    size_control(&mut f.subgroup_size_control, &mut f.compute_full_subgroups);
                    found.vulkan13 = true;
                }
                vk::StructureType::PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES => {
                    let f = &mut *(node as *mut vk::PhysicalDeviceSubgroupSizeControlFeatures<'_>);
                    size_control(&mut f.subgroup_size_control, &mut f.compute_full_subgroups);
                    found.size_control = true;
                }
                _ => {}
            }
            node = (*node).p_next;
        }
    }
    found
}

/// The text naming what `ops` lacks of [`REQUIRED_SUBGROUP_OPS`] in compute shaders; `None` if nothing.
pub(crate) fn missing_subgroup_ops(
    ops: vk::SubgroupFeatureFlags,
    stages: vk::ShaderStageFlags,
) -> Option<String> {
    if !stages.contains(vk::ShaderStageFlags::COMPUTE) {
        return Some("subgroup operations in compute shaders".into());
    }
    let lacking = REQUIRED_SUBGROUP_OPS & !ops;
    (!lacking.is_empty()).then(|| format!("subgroup operations {lacking:?} in compute shaders"))
}

/// "1.2.255" for a packed API version.
pub(crate) fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}
