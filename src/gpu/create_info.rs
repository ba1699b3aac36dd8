//! vksort's extensions and features added to a renderer's `VkDeviceCreateInfo`
//! ([`super::DeviceRequirements::enable`]): its extension names kept, the feature structs of its `pNext`
//! chain written into where present.

use super::requirements::OptionalFeatures;
use ash::vk;
use std::ffi::{c_char, CStr};

/// `info`'s extensions (kept) and those of `extensions` not among them, through `ptrs`.
///
/// # Safety
/// `info`'s extension names are `enabled_extension_count` valid, NUL-terminated strings.
pub(super) unsafe fn add_extensions<'a>(
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
pub(super) struct Chained {
    pub features2: bool,
    pub vulkan12: bool,
    pub vulkan13: bool,
    pub size_control: bool,
}

/// Sets vksort's features in the structs of the chain from `node` that hold them (OR).
///
/// # Safety
/// Each node is a live struct of the type its `sType` names, pushed as `&'a mut`.
pub(super) unsafe fn merge_into_chain(
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
