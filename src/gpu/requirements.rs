//! What vksort needs from a device and can use of it: the description a renderer creates its device from for
//! [`super::Context::adopt`] (docs/recording.md shows it). Diagnostics-only extensions are not listed: only
//! [`super::Context::new`] enables them, on request.

use super::create_info::{add_extensions, merge_into_chain};
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
    /// What `pd` supports of the optional features (a failed query supports none), through the structs of
    /// `api` (the lower of the instance's and the device's versions: a 1.2 instance reads no 1.3 struct).
    ///
    /// # Safety
    /// `instance` is live, created with at least Vulkan 1.2, and `pd` was enumerated from it.
    pub(crate) unsafe fn supported(
        instance: &ash::Instance,
        pd: vk::PhysicalDevice,
        api: Option<u32>,
    ) -> Self {
        // SAFETY: the caller's promise; plain queries with valid output chains.
        let device_api = unsafe { instance.get_physical_device_properties(pd) }.api_version;
        let api = api.map_or(device_api, |a| a.min(device_api));
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

/// The device extensions and features vksort needs and uses: before the device exists, what to enable on it;
/// for [`super::AdoptInfo::new`], what the renderer DID enable (vksort plans within that and what the hardware
/// supports, and cannot read it back from a `VkDevice`). docs/recording.md shows the adopt flow.
///
/// - [`Self::query`]: everything vksort can use on one physical device (what it supports of
///   [`Self::recommended`], plus `VK_NV_shader_subgroup_partitioned` where present); [`Self::enable`] adds it
///   to the renderer's `VkDeviceCreateInfo`.
/// - [`Self::minimum`]: what every device must have enabled (`VK_KHR_push_descriptor`, no optional feature);
///   [`Self::recommended`]: all of vksort's optional features as well.
/// - [`Self::from_create_info`], or [`Self::minimum`] with the `with_*` setters: what an existing device was
///   created with.
///
/// Without an optional feature vksort plans without it where it can and refuses at creation (`Sorter::new`,
/// `Scanner::new`, ...) with [`Error::Unsupported`] naming the feature where it cannot:
///
/// | feature | without it |
/// |---|---|
/// | `shaderInt64` + `shaderSubgroupExtendedTypes` | 64-bit scans and reductions refused; sorts of any key run |
/// | `subgroupSizeControl` + `computeFullSubgroups` | kernels run with the driver's subgroup size |
/// | `bufferDeviceAddress` | sorts larger than one storage-buffer binding refused ([`Error::TooLarge`]) |
/// | `VK_NV_shader_subgroup_partitioned` | radix ranks with ballots instead of match-any |
#[derive(Clone, Debug)]
pub struct DeviceRequirements {
    device_name: String,
    api_version: u32,
    instance_api_version: Option<u32>,
    compute_queue_family: u32,
    push_descriptor: bool,
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
    /// The least a device must have enabled for vksort: `VK_KHR_push_descriptor` on a Vulkan 1.2 device (with a
    /// 1.2 instance), and no optional feature. Every family runs on it except 64-bit scans and reductions
    /// (refused at creation, naming `shaderInt64`) and sorts beyond one storage-buffer binding.
    pub fn minimum() -> Self {
        Self::template(MIN_API_VERSION, OptionalFeatures::default())
    }

    /// Everything vksort uses on a Vulkan 1.3 device: [`Self::minimum`] with `shaderInt64`,
    /// `shaderSubgroupExtendedTypes`, `bufferDeviceAddress` ([`Self::features12`]), `subgroupSizeControl` and
    /// `computeFullSubgroups` ([`Self::features13`]). Enable only what the device supports (else
    /// `vkCreateDevice` fails): [`Self::query`] gives this for a particular device, through
    /// `VK_EXT_subgroup_size_control` before Vulkan 1.3.
    pub fn recommended() -> Self {
        let all = OptionalFeatures {
            int64: true,
            subgroup_size_control: true,
            subgroup_partitioned: false,
            buffer_device_address: true,
        };
        Self::template(vk::API_VERSION_1_3, all)
    }

    fn template(api_version: u32, optional: OptionalFeatures) -> Self {
        let mut r = Self {
            device_name: String::new(),
            api_version,
            instance_api_version: None,
            compute_queue_family: 0,
            push_descriptor: true,
            optional,
            extensions: Vec::new(),
            extension_ptrs: Vec::new(),
            features: vk::PhysicalDeviceFeatures::default(),
            features12: vk::PhysicalDeviceVulkan12Features::default(),
            features13: vk::PhysicalDeviceVulkan13Features::default(),
            size_control_ext: vk::PhysicalDeviceSubgroupSizeControlFeatures::default(),
        };
        r.derive();
        r
    }

    /// Sets the extension list and feature structs from the flags.
    fn derive(&mut self) {
        let o = self.optional;
        let ext = o.subgroup_size_control && self.api_version < vk::API_VERSION_1_3;
        let core13 = o.subgroup_size_control && !ext;
        self.extensions.clear();
        if self.push_descriptor {
            self.extensions.push(ash::khr::push_descriptor::NAME);
        }
        if ext {
            self.extensions.push(ash::ext::subgroup_size_control::NAME);
        }
        if o.subgroup_partitioned {
            self.extensions
                .push(ash::nv::shader_subgroup_partitioned::NAME);
        }
        self.features = vk::PhysicalDeviceFeatures::default().shader_int64(o.int64);
        self.features12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_subgroup_extended_types(o.int64)
            .buffer_device_address(o.buffer_device_address);
        self.features13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(core13)
            .compute_full_subgroups(core13);
        self.size_control_ext = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
            .subgroup_size_control(ext)
            .compute_full_subgroups(ext);
    }

    /// What vksort needs and can use on `physical_device`: [`Error::Unsupported`] names everything it lacks
    /// (an instance of Vulkan 1.2, a Vulkan 1.2 device, `VK_KHR_push_descriptor`, a compute queue family,
    /// [`REQUIRED_SUBGROUP_OPS`]). `instance_api_version` is the `VkApplicationInfo::apiVersion` the instance
    /// was created with (ash's default, 0, is Vulkan 1.0): below 1.2 nothing else is queried, since the queries
    /// need Vulkan 1.1 commands.
    ///
    /// # Safety
    /// `instance` is a live instance (not destroyed), created with `instance_api_version`, and
    /// `physical_device` was enumerated from it.
    pub unsafe fn query(
        instance: &ash::Instance,
        instance_api_version: u32,
        physical_device: vk::PhysicalDevice,
    ) -> Result<Self> {
        let pd = physical_device;
        // SAFETY: the caller's promise; a Vulkan 1.0 query.
        let props = unsafe { instance.get_physical_device_properties(pd) };
        let device_name = props
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        check_instance_version(&device_name, instance_api_version)?;
        let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sub);
        // SAFETY: the caller's promise; a 1.1 query on an instance of at least 1.2 (checked).
        unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
        let exts = unsafe { instance.enumerate_device_extension_properties(pd) }
            .vk("vkEnumerateDeviceExtensionProperties")?;
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
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
        // The version of the feature structs: the lower of the instance's and the device's.
        let api_version = props
            .api_version
            .min(instance_api_version.max(MIN_API_VERSION));
        // SAFETY: the caller's promise.
        let optional = unsafe { OptionalFeatures::supported(instance, pd, Some(api_version)) };
        let mut r = Self::template(api_version, optional);
        r.device_name = device_name;
        r.instance_api_version = Some(instance_api_version);
        r.compute_queue_family = compute_queue_family.unwrap_or(0) as u32;
        Ok(r)
    }

    /// What a device was created with, read from the `VkDeviceCreateInfo` the renderer passed to
    /// `vkCreateDevice`: its extension names, `pEnabledFeatures` and the feature structs of its `pNext` chain
    /// (`VkPhysicalDeviceFeatures2`, `Vulkan12Features`, `Vulkan13Features`, and the separate
    /// subgroup-extended-types, buffer-device-address and subgroup-size-control structs). A feature counts
    /// where each of its bits is on (`shaderInt64` with `shaderSubgroupExtendedTypes`, `subgroupSizeControl`
    /// with `computeFullSubgroups`). [`Self::api_version`] is 1.3 where the chain holds a
    /// `VkPhysicalDeviceVulkan13Features`, else 1.2; no device name; queue family 0.
    ///
    /// # Safety
    /// `info` is the create info the device was created with, or one equal to it, and every pointer it holds
    /// (extension names, `pEnabledFeatures`, the `pNext` chain, each struct of the type its `sType` names) is
    /// valid for reads.
    pub unsafe fn from_create_info(info: &vk::DeviceCreateInfo<'_>) -> Self {
        let mut names: &[*const c_char] = &[];
        if info.enabled_extension_count > 0 && !info.pp_enabled_extension_names.is_null() {
            // SAFETY: the caller's promise.
            names = unsafe {
                std::slice::from_raw_parts(
                    info.pp_enabled_extension_names,
                    info.enabled_extension_count as usize,
                )
            };
        }
        // SAFETY: the caller's promise (NUL-terminated names).
        let has = |n: &CStr| {
            names
                .iter()
                .any(|&p| !p.is_null() && unsafe { CStr::from_ptr(p) } == n)
        };
        let on = |b: vk::Bool32| b == vk::TRUE;
        let (mut int64, mut ext_types, mut bda, mut ssc, mut v13) =
            (false, false, false, false, false);
        if !info.p_enabled_features.is_null() {
            // SAFETY: the caller's promise.
            int64 |= on(unsafe { &*info.p_enabled_features }.shader_int64);
        }
        let mut node = info.p_next as *const vk::BaseInStructure<'_>;
        while !node.is_null() {
            // SAFETY: the caller's promise: each node is a live struct of the type its `sType` names.
            unsafe {
                match (*node).s_type {
                    vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 => {
                        let f = &*(node as *const vk::PhysicalDeviceFeatures2<'_>);
                        int64 |= on(f.features.shader_int64);
                    }
                    vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => {
                        let f = &*(node as *const vk::PhysicalDeviceVulkan12Features<'_>);
                        ext_types |= on(f.shader_subgroup_extended_types);
                        bda |= on(f.buffer_device_address);
                    }
                    vk::StructureType::PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES => {
                        let f = &*(node
                            as *const vk::PhysicalDeviceShaderSubgroupExtendedTypesFeatures<'_>);
                        ext_types |= on(f.shader_subgroup_extended_types);
                    }
                    vk::StructureType::PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES => {
                        let f =
                            &*(node as *const vk::PhysicalDeviceBufferDeviceAddressFeatures<'_>);
                        bda |= on(f.buffer_device_address);
                    }
                    vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => {
                        let f = &*(node as *const vk::PhysicalDeviceVulkan13Features<'_>);
                        ssc |= on(f.subgroup_size_control) && on(f.compute_full_subgroups);
                        v13 = true;
                    }
                    vk::StructureType::PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES => {
                        let f =
                            &*(node as *const vk::PhysicalDeviceSubgroupSizeControlFeatures<'_>);
                        ssc |= on(f.subgroup_size_control) && on(f.compute_full_subgroups);
                    }
                    _ => {}
                }
                node = (*node).p_next;
            }
        }
        let api = if v13 {
            vk::API_VERSION_1_3
        } else {
            MIN_API_VERSION
        };
        let mut r = Self::template(
            api,
            OptionalFeatures {
                int64: int64 && ext_types,
                subgroup_size_control: ssc,
                subgroup_partitioned: has(ash::nv::shader_subgroup_partitioned::NAME),
                buffer_device_address: bda,
            },
        );
        r.push_descriptor = has(ash::khr::push_descriptor::NAME);
        r.derive();
        r
    }

    /// Says whether `shaderInt64` and `shaderSubgroupExtendedTypes` are enabled (64-bit scans and reductions).
    pub fn with_int64(mut self, enabled: bool) -> Self {
        self.optional.int64 = enabled;
        self.derive();
        self
    }

    /// Says whether `subgroupSizeControl` and `computeFullSubgroups` are enabled (pipelines require vksort's
    /// subgroup size; without them the driver picks).
    pub fn with_subgroup_size_control(mut self, enabled: bool) -> Self {
        self.optional.subgroup_size_control = enabled;
        self.derive();
        self
    }

    /// Says whether `bufferDeviceAddress` is enabled (sorts larger than one storage-buffer binding).
    pub fn with_buffer_device_address(mut self, enabled: bool) -> Self {
        self.optional.buffer_device_address = enabled;
        self.derive();
        self
    }

    /// Says whether `VK_NV_shader_subgroup_partitioned` is enabled (match-any ranking in the radix sorts).
    pub fn with_subgroup_partitioned(mut self, enabled: bool) -> Self {
        self.optional.subgroup_partitioned = enabled;
        self.derive();
        self
    }

    /// Says which `VkApplicationInfo::apiVersion` the instance was created with: [`super::Context::adopt`]
    /// then refuses an instance below Vulkan 1.2 before any query ([`Self::query`] sets it).
    pub fn with_instance_api_version(mut self, api_version: u32) -> Self {
        self.instance_api_version = Some(api_version);
        self
    }

    /// The device's name (`VkPhysicalDeviceProperties::deviceName`; empty unless from [`Self::query`]).
    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// The Vulkan version the feature structs are for: from [`Self::query`] the lower of the device's and the
    /// instance's (at least 1.2); 1.2 for [`Self::minimum`], 1.3 for [`Self::recommended`].
    pub fn api_version(&self) -> u32 {
        self.api_version
    }

    /// The instance's API version, where [`Self::query`] or [`Self::with_instance_api_version`] said it.
    pub fn instance_api_version(&self) -> Option<u32> {
        self.instance_api_version
    }

    /// The first queue family with compute (any family with compute will do for [`super::AdoptInfo`]; 0
    /// unless from [`Self::query`]).
    pub fn compute_queue_family(&self) -> u32 {
        self.compute_queue_family
    }

    /// The device extensions to enable (or enabled): `VK_KHR_push_descriptor`, `VK_EXT_subgroup_size_control`
    /// for subgroup size control before Vulkan 1.3, `VK_NV_shader_subgroup_partitioned` where listed.
    pub fn extensions(&self) -> &[&'static CStr] {
        &self.extensions
    }

    /// [`Self::extensions`] as the pointers `enabled_extension_names` takes (to `'static` strings).
    pub fn extension_names(&self) -> Vec<*const c_char> {
        self.extensions.iter().map(|e| e.as_ptr()).collect()
    }

    /// The core features to enable (`shaderInt64` with [`Self::int64`]).
    pub fn features(&self) -> &vk::PhysicalDeviceFeatures {
        &self.features
    }

    /// The Vulkan 1.2 features to enable (`shaderSubgroupExtendedTypes`, `bufferDeviceAddress`).
    pub fn features12(&self) -> &vk::PhysicalDeviceVulkan12Features<'static> {
        &self.features12
    }

    /// The Vulkan 1.3 features to enable (`subgroupSizeControl`, `computeFullSubgroups`; off before 1.3, where
    /// [`Self::subgroup_size_control_features`] holds them).
    pub fn features13(&self) -> &vk::PhysicalDeviceVulkan13Features<'static> {
        &self.features13
    }

    /// The `VK_EXT_subgroup_size_control` features to enable before Vulkan 1.3 (off from 1.3 on).
    pub fn subgroup_size_control_features(
        &self,
    ) -> &vk::PhysicalDeviceSubgroupSizeControlFeatures<'static> {
        &self.size_control_ext
    }

    /// Whether `VK_KHR_push_descriptor` is among the extensions (always, except from
    /// [`Self::from_create_info`] of a device without it, which [`super::Context::adopt`] refuses).
    pub fn push_descriptor(&self) -> bool {
        self.push_descriptor
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

/// [`Error::Unsupported`] for an instance below Vulkan 1.2, naming its version and where it is set.
pub(crate) fn check_instance_version(device: &str, instance_api_version: u32) -> Result<()> {
    if instance_api_version >= MIN_API_VERSION {
        return Ok(());
    }
    let v = instance_api_version.max(vk::API_VERSION_1_0);
    Err(Error::Unsupported {
        device: device.to_string(),
        what: format!(
            "the instance was created with Vulkan {}.{}; vksort needs 1.2 (create the instance with \
             VkApplicationInfo::apiVersion at least VK_API_VERSION_1_2; ash's default, 0, is 1.0)",
            vk::api_version_major(v),
            vk::api_version_minor(v)
        ),
    })
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
