//! What vksort needs from a device, and what it can use: the one public description a renderer reads to create
//! the device it hands to [`super::Context::adopt`].
//!
//! Contract:
//! - [`DeviceRequirements::query`] fails with [`Error::Unsupported`] naming everything the physical device lacks
//!   of what vksort requires (Vulkan 1.2, `VK_KHR_push_descriptor`, a queue family with compute, the subgroup
//!   operations of its kernels in compute shaders); otherwise it holds the extensions and features to enable:
//!   the required ones and, of the optional ones vksort uses, those the device supports.
//! - [`DeviceRequirements::enable`] adds all of it to the renderer's `vk::DeviceCreateInfo`, merging into the
//!   feature structs the renderer already chained (Vulkan forbids two of a kind in one chain); the `merge_*`
//!   helpers do the same for a renderer that fills its own structs.
//! - [`super::AdoptInfo::new`] takes the requirements the device was created with, so the features vksort may
//!   use are never restated by hand; [`super::Context::adopt`] checks what it can of them on the device.
//! - Diagnostics-only extensions (pipeline statistics, shader clocks, residency probes) are not listed: only
//!   [`super::Context::new`] enables them, on request.

use crate::error::{Error, Result, VkContext};
use ash::vk;
use std::ffi::{c_char, CStr};

/// The subgroup operations vksort's kernels use in compute shaders (scan, reduce and compaction: basic, vote,
/// arithmetic, ballot; the sorts also shuffle). Required by [`DeviceRequirements::query`] and checked by
/// [`super::Context::adopt`] and [`super::Context::new`].
pub const REQUIRED_SUBGROUP_OPS: vk::SubgroupFeatureFlags = vk::SubgroupFeatureFlags::from_raw(
    vk::SubgroupFeatureFlags::BASIC.as_raw()
        | vk::SubgroupFeatureFlags::VOTE.as_raw()
        | vk::SubgroupFeatureFlags::ARITHMETIC.as_raw()
        | vk::SubgroupFeatureFlags::BALLOT.as_raw()
        | vk::SubgroupFeatureFlags::SHUFFLE.as_raw(),
);

/// The lowest Vulkan API version vksort runs on.
pub const MIN_API_VERSION: u32 = vk::API_VERSION_1_2;

/// The optional features vksort uses, as enabled on (or supported by) a device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OptionalFeatures {
    /// `shaderInt64` and `shaderSubgroupExtendedTypes` (64-bit scans and reduces).
    pub(crate) int64: bool,
    /// `subgroupSizeControl` and `computeFullSubgroups` (Vulkan 1.3, or `VK_EXT_subgroup_size_control` before).
    pub(crate) subgroup_size_control: bool,
    /// `VK_NV_shader_subgroup_partitioned` (match-any).
    pub(crate) subgroup_partitioned: bool,
    /// `bufferDeviceAddress` (sorts larger than one storage-buffer binding).
    pub(crate) buffer_device_address: bool,
}

impl OptionalFeatures {
    /// What `pd` supports of the optional features (nothing enabled; never fails: a failed query supports none).
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

/// What vksort needs from a device and what it will use of it: the extensions to enable, the features to chain
/// into the renderer's `vk::DeviceCreateInfo`, and a queue family with compute.
///
/// A renderer creates its device in a few lines:
///
/// ```text
/// let mut reqs = unsafe { DeviceRequirements::query(&instance, pd) }?;    // Err: the device can't run vksort
/// let family = reqs.compute_queue_family();                                // or the renderer's own, with COMPUTE
/// let info = vk::DeviceCreateInfo::default()
///     .queue_create_infos(&queues)
///     .enabled_extension_names(&my_extensions)                             // kept, vksort's added
///     .push_next(&mut my_vulkan12_features);                               // merged into, not duplicated
/// let info = unsafe { reqs.enable(info) };
/// let device = unsafe { instance.create_device(pd, &info, None) }?;
/// let ctx = unsafe { Context::adopt(AdoptInfo::new(entry, instance, pd, device, family, queue, &reqs)) }?;
/// ```
///
/// The structs are for a device created through an instance of API version 1.3 or later where the device has
/// 1.3 (vksort chains `VkPhysicalDeviceVulkan13Features` there); before 1.3 it chains
/// `VK_EXT_subgroup_size_control`'s feature struct where the device has the extension.
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

// SAFETY: the raw pointers (the structs' `pNext`, `extension_ptrs`) are written by `enable` only and read by
// nothing but the create info `enable` returns, under its `'a` borrow; `enable` resets them first. Outside that
// borrow they are never dereferenced, so sharing or moving the value across threads is sound.
unsafe impl Send for DeviceRequirements {}
unsafe impl Sync for DeviceRequirements {}

impl DeviceRequirements {
    /// What vksort needs and can use on `physical_device`. Fails with [`Error::Unsupported`] naming everything
    /// it lacks of what vksort requires: Vulkan 1.2 ([`MIN_API_VERSION`]), `VK_KHR_push_descriptor`, a queue
    /// family with compute, and the subgroup operations [`REQUIRED_SUBGROUP_OPS`] in compute shaders; with
    /// [`Error::Vulkan`] when a query fails.
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

    /// The first queue family with compute. Any family with compute will do for [`super::AdoptInfo`]; a
    /// renderer usually passes its own graphics-and-compute family.
    pub fn compute_queue_family(&self) -> u32 {
        self.compute_queue_family
    }

    /// The device extensions to enable: `VK_KHR_push_descriptor` (required), and where the device has them
    /// `VK_EXT_subgroup_size_control` (before Vulkan 1.3) and `VK_NV_shader_subgroup_partitioned`.
    pub fn extensions(&self) -> &[&'static CStr] {
        &self.extensions
    }

    /// [`Self::extensions`] as the pointers `vk::DeviceCreateInfo::enabled_extension_names` takes (they point to
    /// `'static` strings).
    pub fn extension_names(&self) -> Vec<*const c_char> {
        self.extensions.iter().map(|e| e.as_ptr()).collect()
    }

    /// The core features to enable: `shaderInt64` where supported (with `shaderSubgroupExtendedTypes`: 64-bit
    /// scans and reduces).
    pub fn features(&self) -> &vk::PhysicalDeviceFeatures {
        &self.features
    }

    /// The Vulkan 1.2 features to enable: `shaderSubgroupExtendedTypes` (with `shaderInt64`) and
    /// `bufferDeviceAddress`, where supported.
    pub fn features12(&self) -> &vk::PhysicalDeviceVulkan12Features<'static> {
        &self.features12
    }

    /// The Vulkan 1.3 features to enable (on a 1.3 device): `subgroupSizeControl` with `computeFullSubgroups`,
    /// where supported.
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

    /// Whether `bufferDeviceAddress` is among the features to enable. Sorts of arrays larger than one
    /// storage-buffer binding need it (and then buffers with `SHADER_DEVICE_ADDRESS` usage).
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

    /// Sets vksort's Vulkan 1.2 features in the renderer's own `features12` (OR), for a renderer that chains
    /// its own `VkPhysicalDeviceVulkan12Features` (Vulkan allows one per chain).
    pub fn merge_features12(&self, features12: &mut vk::PhysicalDeviceVulkan12Features<'_>) {
        let f = &self.features12;
        features12.shader_subgroup_extended_types |= f.shader_subgroup_extended_types;
        features12.buffer_device_address |= f.buffer_device_address;
    }

    /// Sets vksort's Vulkan 1.3 features in the renderer's own `features13` (OR). Before Vulkan 1.3 (where
    /// the struct must not be chained) vksort's subgroup size control goes into
    /// [`Self::merge_subgroup_size_control`]'s struct instead.
    pub fn merge_features13(&self, features13: &mut vk::PhysicalDeviceVulkan13Features<'_>) {
        let f = &self.features13;
        features13.subgroup_size_control |= f.subgroup_size_control;
        features13.compute_full_subgroups |= f.compute_full_subgroups;
    }

    /// Sets vksort's subgroup size control (either version's) in the renderer's own
    /// `VkPhysicalDeviceSubgroupSizeControlFeatures` (OR), for a renderer that chains that struct rather than
    /// `VkPhysicalDeviceVulkan13Features`.
    pub fn merge_subgroup_size_control(
        &self,
        features: &mut vk::PhysicalDeviceSubgroupSizeControlFeatures<'_>,
    ) {
        if self.optional.subgroup_size_control {
            features.subgroup_size_control = vk::TRUE;
            features.compute_full_subgroups = vk::TRUE;
        }
    }

    /// Adds what vksort needs to the renderer's device create info and returns it:
    /// - extensions: the renderer's (kept) and vksort's not among them;
    /// - core features: into a chained `VkPhysicalDeviceFeatures2` if there is one, else into a copy of
    ///   `pEnabledFeatures` (kept in `self`) or, without one, `self`'s;
    /// - Vulkan 1.2 features: into the chained `VkPhysicalDeviceVulkan12Features` if there is one, else `self`'s
    ///   is chained;
    /// - subgroup size control: into the chained `VkPhysicalDeviceVulkan13Features` or
    ///   `VkPhysicalDeviceSubgroupSizeControlFeatures` if there is one, else `self`'s struct for the device's
    ///   version is chained.
    ///
    /// A chain that enables Vulkan 1.2 features through their separate structs
    /// (`VkPhysicalDeviceBufferDeviceAddressFeatures`, ...) instead of `VkPhysicalDeviceVulkan12Features` is not
    /// merged (Vulkan forbids both kinds in one chain): such a renderer sets vksort's bits with the `merge_*`
    /// helpers and the extensions of [`Self::extension_names`] itself. Calling `enable` again (with a fresh
    /// create info) is allowed: `self`'s structs are unlinked first.
    ///
    /// # Safety
    /// Every pointer `info` holds (extension names, `pEnabledFeatures`, the `pNext` chain) is valid for `'a`,
    /// as ash's builder methods make them; the structs of the chain were pushed as `&'a mut` (vksort writes
    /// into them).
    pub unsafe fn enable<'a>(
        &'a mut self,
        mut info: vk::DeviceCreateInfo<'a>,
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

        // Extensions: the renderer's, then vksort's missing ones.
        extension_ptrs.clear();
        if info.enabled_extension_count > 0 && !info.pp_enabled_extension_names.is_null() {
            // SAFETY: the caller's promise: `count` valid, NUL-terminated names.
            let theirs = unsafe {
                std::slice::from_raw_parts(
                    info.pp_enabled_extension_names,
                    info.enabled_extension_count as usize,
                )
            };
            extension_ptrs.extend_from_slice(theirs);
        }
        for e in extensions.iter() {
            // SAFETY: as above.
            let present = extension_ptrs
                .iter()
                .any(|&p| !p.is_null() && unsafe { CStr::from_ptr(p) } == *e);
            if !present {
                extension_ptrs.push(e.as_ptr());
            }
        }
        info = info.enabled_extension_names(extension_ptrs);

        // The chain: merge into the renderer's structs where present.
        let (mut has12, mut has13, mut has_ssc, mut has_f2) = (false, false, false, false);
        let mut node = info.p_next as *mut vk::BaseOutStructure<'a>;
        while !node.is_null() {
            // SAFETY: the caller's promise: each node is a live struct of the type its `sType` names, pushed as
            // `&'a mut`.
            unsafe {
                match (*node).s_type {
                    vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 => {
                        let f = &mut *(node as *mut vk::PhysicalDeviceFeatures2<'a>);
                        if optional.int64 {
                            f.features.shader_int64 = vk::TRUE;
                        }
                        has_f2 = true;
                    }
                    vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => {
                        let f = &mut *(node as *mut vk::PhysicalDeviceVulkan12Features<'a>);
                        f.shader_subgroup_extended_types |=
                            features12.shader_subgroup_extended_types;
                        f.buffer_device_address |= features12.buffer_device_address;
                        has12 = true;
                    }
                    vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => {
                        let f = &mut *(node as *mut vk::PhysicalDeviceVulkan13Features<'a>);
                        if optional.subgroup_size_control {
                            f.subgroup_size_control = vk::TRUE;
                            f.compute_full_subgroups = vk::TRUE;
                        }
                        has13 = true;
                    }
                    vk::StructureType::PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES => {
                        let f =
                            &mut *(node as *mut vk::PhysicalDeviceSubgroupSizeControlFeatures<'a>);
                        if optional.subgroup_size_control {
                            f.subgroup_size_control = vk::TRUE;
                            f.compute_full_subgroups = vk::TRUE;
                        }
                        has_ssc = true;
                    }
                    _ => {}
                }
                node = (*node).p_next;
            }
        }
        if !has_f2 {
            if !info.p_enabled_features.is_null() {
                // SAFETY: the caller's promise.
                *features = unsafe { *info.p_enabled_features };
                if optional.int64 {
                    features.shader_int64 = vk::TRUE;
                }
            }
            info = info.enabled_features(features);
        }
        if !has12 {
            info = info.push_next(features12);
        }
        if optional.subgroup_size_control && !has13 && !has_ssc {
            if *api_version >= vk::API_VERSION_1_3 {
                info = info.push_next(features13);
            } else {
                info = info.push_next(size_control_ext);
            }
        }
        info
    }
}

/// The text naming the subgroup operations of [`REQUIRED_SUBGROUP_OPS`] that `ops` lacks (or all of them when
/// compute shaders have none); `None` when nothing is missing.
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
