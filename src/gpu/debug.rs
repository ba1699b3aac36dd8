//! VK_EXT_debug_utils: object names and labels, so a capture reads like the code (`vksort::scan::reduce`).

use ash::vk;

pub(crate) struct DebugUtils {
    device_fns: ash::ext::debug_utils::Device,
}

impl DebugUtils {
    pub(crate) fn new(instance: &ash::Instance, device: &ash::Device) -> Self {
        Self {
            device_fns: ash::ext::debug_utils::Device::new(instance, device),
        }
    }

    /// Names `handle`. Errors are ignored: names are a debugging aid, never a reason to fail.
    pub(crate) fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        let name = super::Context::cstring(name);
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: the handle belongs to this device; the name outlives the call.
        let _ = unsafe { self.device_fns.set_debug_utils_object_name(&info) };
    }

    /// Opens a label region in `cmd`.
    pub(crate) fn begin_label(&self, cmd: vk::CommandBuffer, label: &str) {
        let name = super::Context::cstring(label);
        let info = vk::DebugUtilsLabelEXT::default()
            .label_name(&name)
            .color([0.2, 0.6, 0.9, 1.0]);
        // SAFETY: `cmd` is in the recording state (caller's contract).
        unsafe { self.device_fns.cmd_begin_debug_utils_label(cmd, &info) };
    }

    /// Closes the innermost label region in `cmd`.
    pub(crate) fn end_label(&self, cmd: vk::CommandBuffer) {
        // SAFETY: matched with a begin_label on the same command buffer.
        unsafe { self.device_fns.cmd_end_debug_utils_label(cmd) };
    }
}
