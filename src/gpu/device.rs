//! The device [`Context::new`] creates (the best one or the one [`ContextOptions::device`] names, with
//! vksort's requirements and the diagnostics extensions asked for), and the checks of an adopted device.

use super::instance::INSTANCE_API_VERSION;
use super::owned::OwnedDevice;
use super::requirements::{
    missing_subgroup_ops, version_string, DeviceRequirements, MIN_API_VERSION,
};
use super::{AdoptInfo, Context, ContextOptions, DeviceCaps};
use crate::error::{Error, Result, VkContext};
use ash::vk;
use std::ffi::{c_char, CStr};

/// Whether the device command `name` loads (NULL for commands of extensions not enabled).
///
/// # Safety
/// `device` is a live device created from a physical device of the live `instance`.
unsafe fn device_fn_loads(instance: &ash::Instance, device: &ash::Device, name: &CStr) -> bool {
    // SAFETY: the caller's promise; `name` is NUL-terminated.
    unsafe { instance.get_device_proc_addr(device.handle(), name.as_ptr()) }.is_some()
}

/// A physical device with Vulkan 1.2 and a compute queue family, at `index` in enumeration order.
#[derive(Clone)]
struct Candidate {
    index: usize,
    physical: vk::PhysicalDevice,
    family: u32,
    caps: DeviceCaps,
}

fn candidates(instance: &ash::Instance) -> Result<Vec<Candidate>> {
    // SAFETY: plain enumeration on a valid instance.
    let physicals =
        unsafe { instance.enumerate_physical_devices() }.vk("vkEnumeratePhysicalDevices")?;
    let mut out = Vec::new();
    for (index, &physical) in physicals.iter().enumerate() {
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let Some(family) = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        else {
            continue;
        };
        let caps = DeviceCaps::query(instance, physical, family as u32);
        if caps.api_version >= vk::API_VERSION_1_2 {
            out.push(Candidate {
                index,
                physical,
                family: family as u32,
                caps,
            });
        }
    }
    if out.is_empty() {
        return Err(Error::NoDevice(
            "no Vulkan 1.2 device with a compute queue".into(),
        ));
    }
    Ok(out)
}

/// The candidate `selection` names (an index or a name substring), or the best by device type.
fn choose(candidates: &[Candidate], selection: Option<&str>) -> Result<Candidate> {
    let rank = |t: vk::PhysicalDeviceType| match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    };
    let Some(sel) = selection else {
        let best = candidates
            .iter()
            .min_by_key(|c| (rank(c.caps.device_type), c.index));
        return Ok(best.unwrap().clone());
    };
    let by_index = sel.parse::<usize>().ok();
    let found = candidates.iter().find(|c| {
        Some(c.index) == by_index || c.caps.name.to_lowercase().contains(&sel.to_lowercase())
    });
    found.cloned().ok_or_else(|| {
        let names: Vec<String> = candidates
            .iter()
            .map(|c| format!("{}: {}", c.index, c.caps.name))
            .collect();
        Error::NoDevice(format!(
            "no device matches `{sel}`; devices: {}",
            names.join(", ")
        ))
    })
}

/// Creates the device `options` ask for: its physical device, guard, compute family and capabilities.
pub(super) fn create_device(
    instance: &ash::Instance,
    options: &ContextOptions,
) -> Result<(vk::PhysicalDevice, OwnedDevice, u32, DeviceCaps)> {
    let chosen = choose(&candidates(instance)?, options.device.as_deref())?;
    let (pd, family, mut caps) = (chosen.physical, chosen.family, chosen.caps);
    // SAFETY: `instance` is live and `pd` was enumerated from it.
    let mut reqs = unsafe { DeviceRequirements::query(instance, INSTANCE_API_VERSION, pd) }?;
    caps.set_features(reqs.optional());
    let diagnostics = enable_diagnostics(instance, pd, options, &mut caps)?;
    let device = create_logical(instance, pd, family, &caps, &mut reqs, &diagnostics)?;
    Ok((pd, OwnedDevice::new(device), family, caps))
}

/// Sets the diagnostics flags of `caps` to what `options` ask for and the device has; returns their extensions.
fn enable_diagnostics(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    options: &ContextOptions,
    caps: &mut DeviceCaps,
) -> Result<Vec<&'static CStr>> {
    // SAFETY: plain query on a valid physical device.
    let all = unsafe { instance.enumerate_device_extension_properties(pd) }
        .vk("vkEnumerateDeviceExtensionProperties")?;
    let has = |n: &CStr| {
        all.iter()
            .any(|e| e.extension_name_as_c_str().is_ok_and(|x| x == n))
    };
    caps.pipeline_statistics =
        options.pipeline_statistics && has(ash::khr::pipeline_executable_properties::NAME);
    if options.shader_clock && has(ash::khr::shader_clock::NAME) {
        caps.shader_clock = clock_support(instance, pd);
    }
    caps.sm_builtins = caps.shader_clock && has(ash::nv::shader_sm_builtins::NAME);
    if options.residency_probes {
        let (explicit_layout, cooperative_matrix) = residency_support(instance, pd);
        caps.explicit_layout =
            has(ash::khr::workgroup_memory_explicit_layout::NAME) && explicit_layout;
        caps.cooperative_matrix = has(ash::nv::cooperative_matrix::NAME) && cooperative_matrix;
    }
    let wanted = [
        (
            caps.pipeline_statistics,
            ash::khr::pipeline_executable_properties::NAME,
        ),
        (caps.shader_clock, ash::khr::shader_clock::NAME),
        (caps.sm_builtins, ash::nv::shader_sm_builtins::NAME),
        (
            caps.explicit_layout,
            ash::khr::workgroup_memory_explicit_layout::NAME,
        ),
        (caps.cooperative_matrix, ash::nv::cooperative_matrix::NAME),
    ];
    Ok(wanted
        .iter()
        .filter(|(on, _)| *on)
        .map(|&(_, n)| n)
        .collect())
}

fn clock_support(instance: &ash::Instance, pd: vk::PhysicalDevice) -> bool {
    let mut f = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f);
    // SAFETY: the chain is valid for the call.
    unsafe { instance.get_physical_device_features2(pd, &mut f2) };
    f.shader_subgroup_clock == vk::TRUE && f.shader_device_clock == vk::TRUE
}

/// The residency probes' features on `pd`: (explicit layout, cooperative matrix with its 1.2 features).
fn residency_support(instance: &ash::Instance, pd: vk::PhysicalDevice) -> (bool, bool) {
    let mut wel = vk::PhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR::default();
    let mut coop = vk::PhysicalDeviceCooperativeMatrixFeaturesNV::default();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut wel)
        .push_next(&mut coop)
        .push_next(&mut f12);
    // SAFETY: the chain is valid for the call (unknown structs are ignored).
    unsafe { instance.get_physical_device_features2(pd, &mut f2) };
    let on = |b: vk::Bool32| b == vk::TRUE;
    (
        on(wel.workgroup_memory_explicit_layout),
        on(coop.cooperative_matrix)
            && on(f12.shader_float16)
            && on(f12.vulkan_memory_model)
            && on(f12.vulkan_memory_model_device_scope),
    )
}

fn create_logical(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    family: u32,
    caps: &DeviceCaps,
    reqs: &mut DeviceRequirements,
    diagnostics: &[&'static CStr],
) -> Result<ash::Device> {
    let mut epe = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(caps.pipeline_statistics);
    let mut clock = vk::PhysicalDeviceShaderClockFeaturesKHR::default()
        .shader_subgroup_clock(caps.shader_clock)
        .shader_device_clock(caps.shader_clock);
    let mut smb = vk::PhysicalDeviceShaderSMBuiltinsFeaturesNV::default()
        .shader_sm_builtins(caps.sm_builtins);
    // Cooperative-matrix shaders declare the memory model; with it on, every kernel needs its device scope.
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
    let ext_ptrs: Vec<*const c_char> = diagnostics.iter().map(|n| n.as_ptr()).collect();
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
    unsafe { instance.create_device(pd, &info, None) }.vk("vkCreateDevice")
}

/// [`Context::adopt`]'s checks: every missing item named in one [`Error::Unsupported`].
///
/// # Safety
/// `info`'s handles are live and of one another ([`Context::adopt`]'s promise).
pub(super) unsafe fn check_adopted(info: &AdoptInfo, caps: &DeviceCaps) -> Result<()> {
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
    // SAFETY: the caller's promise.
    if !info.push_descriptor
        || !unsafe { device_fn_loads(&info.instance, &info.device, c"vkCmdPushDescriptorSetKHR") }
    {
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

/// Whether the renderer claims `VK_EXT_debug_utils` and its commands load (else ash's stubs would panic).
///
/// # Safety
/// `info`'s handles are live and of one another ([`Context::adopt`]'s promise).
pub(super) unsafe fn adopted_debug_utils(info: &AdoptInfo) -> bool {
    info.debug_utils
        && [
            c"vkSetDebugUtilsObjectNameEXT",
            c"vkCmdBeginDebugUtilsLabelEXT",
            c"vkCmdEndDebugUtilsLabelEXT",
        ]
        .iter()
        // SAFETY: the caller's promise.
        .all(|n| unsafe { device_fn_loads(&info.instance, &info.device, n) })
}

impl Context {
    /// The device extensions vksort enables on `physical` ([`DeviceRequirements::query`]'s
    /// [`DeviceRequirements::extensions`]; `instance_api_version` as there).
    ///
    /// # Safety
    /// `instance` is live (not destroyed), created with `instance_api_version`, and `physical` was enumerated
    /// from it.
    pub unsafe fn device_extensions(
        instance: &ash::Instance,
        instance_api_version: u32,
        physical: vk::PhysicalDevice,
    ) -> Result<Vec<&'static CStr>> {
        // SAFETY: the caller's promise.
        unsafe { DeviceRequirements::query(instance, instance_api_version, physical) }
            .map(|r| r.extensions().to_vec())
    }
}
