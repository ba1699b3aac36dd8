//! The instance [`Context::new`] creates: the validation layer on request (with synchronization validation),
//! `VK_EXT_debug_utils` where present, and a messenger that keeps the validation errors.

use super::owned::{checkpoint, CreationStep, OwnedInstance, VALIDATION_ERRORS};
#[cfg(doc)]
use super::Context;
use crate::error::{Error, Result, VkContext};
use ash::vk;
use std::ffi::{c_char, CStr};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// The `VkApplicationInfo::apiVersion` of the instances vksort creates.
pub(super) const INSTANCE_API_VERSION: u32 = vk::API_VERSION_1_3;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Kept validation messages (errors only).
#[derive(Default)]
pub(crate) struct ValidationLog {
    pub(crate) errors: Mutex<Vec<String>>,
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

/// Whether the instance has `VK_EXT_debug_utils`; fails where validation is asked for without the layer.
fn debug_utils_support(entry: &ash::Entry, validation: bool) -> Result<bool> {
    // SAFETY: plain enumeration calls on a loaded entry.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }
        .vk("vkEnumerateInstanceLayerProperties")?;
    let has_layer = layers
        .iter()
        .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
    if validation && !has_layer {
        return Err(Error::Unsupported {
            device: "instance".into(),
            what: "validation requested but VK_LAYER_KHRONOS_validation is not installed".into(),
        });
    }
    let exts = unsafe { entry.enumerate_instance_extension_properties(None) }
        .vk("vkEnumerateInstanceExtensionProperties")?;
    Ok(exts.iter().any(|e| {
        e.extension_name_as_c_str()
            .is_ok_and(|n| n == ash::ext::debug_utils::NAME)
    }))
}

/// The messenger that hands errors and warnings to [`validation_callback`] with `log` as its user data.
fn messenger_info(log: &Arc<ValidationLog>) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
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
        .user_data(Arc::as_ptr(log) as *mut std::ffi::c_void)
}

/// Creates vksort's instance (and, with validation, its messenger reporting to `log`, which must outlive the
/// returned guard). Returns the guard and whether `VK_EXT_debug_utils` is enabled.
pub(super) fn create_instance(
    entry: &ash::Entry,
    validation: bool,
    log: &Arc<ValidationLog>,
) -> Result<(OwnedInstance, bool)> {
    let debug_utils = debug_utils_support(entry, validation)?;
    let mut inst_exts: Vec<*const c_char> = Vec::new();
    if debug_utils {
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
        .api_version(INSTANCE_API_VERSION);
    let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut vfeatures = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
    let mut messenger = messenger_info(log);
    let mut info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layer_ptrs)
        .enabled_extension_names(&inst_exts);
    if validation {
        info = info.push_next(&mut vfeatures);
        if debug_utils {
            info = info.push_next(&mut messenger);
        }
    }
    // SAFETY: every pointer in `info` outlives the call.
    let instance = unsafe { entry.create_instance(&info, None) }.vk("vkCreateInstance")?;
    let mut owned = OwnedInstance::new(entry, instance);
    checkpoint(CreationStep::Instance)?;
    if validation && debug_utils {
        let du = ash::ext::debug_utils::Instance::new(entry, &owned.instance);
        let create_info = messenger_info(log);
        // SAFETY: the messenger's user data (the log) outlives it, as the caller promises.
        owned.messenger = unsafe { du.create_debug_utils_messenger(&create_info, None) }
            .vk("vkCreateDebugUtilsMessengerEXT")?;
    }
    checkpoint(CreationStep::Messenger)?;
    Ok((owned, debug_utils))
}
