//! Guards of what context creation makes: each destroys its object on drop unless released into the
//! [`Context`]. Also live-object counts and creation fault injection, for leak tests (`diagnostics`).

#[cfg(doc)]
use super::Context;
#[cfg(feature = "diagnostics")]
use crate::error::Error;
use crate::error::Result;
use ash::vk;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The steps of [`Context::new`] (all) and [`Context::adopt`] (from `Allocator`), in order.
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

/// Diagnostics: the next creation on this thread that reaches `step` fails right after it, once, with
/// [`Error::Vulkan`] (`ERROR_INITIALIZATION_FAILED`) as a real failure there would; `None` clears it.
#[cfg(feature = "diagnostics")]
pub fn fail_creation_after(step: Option<CreationStep>) {
    FAIL_AFTER.with(|f| f.set(step));
}

/// The fault-injection point after `step`: `Ok` unless [`fail_creation_after`] asked for `step`.
pub(super) fn checkpoint(step: CreationStep) -> Result<()> {
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

static LIVE_INSTANCES: AtomicUsize = AtomicUsize::new(0);
static LIVE_DEVICES: AtomicUsize = AtomicUsize::new(0);
/// Validation errors any vksort messenger received, process-wide.
pub(super) static VALIDATION_ERRORS: AtomicUsize = AtomicUsize::new(0);

/// Diagnostics: process-wide counts of what vksort created.
#[cfg(feature = "diagnostics")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveObjects {
    /// Instances created by [`Context::new`] and not destroyed yet.
    pub instances: usize,
    /// Devices created by [`Context::new`] and not destroyed yet.
    pub devices: usize,
    /// Validation errors received by vksort's messengers so far (never goes down).
    pub validation_errors: usize,
}

/// Diagnostics: the counts now. A failed creation leaves `instances` and `devices` where they were.
#[cfg(feature = "diagnostics")]
pub fn live_objects() -> LiveObjects {
    LiveObjects {
        instances: LIVE_INSTANCES.load(Ordering::SeqCst),
        devices: LIVE_DEVICES.load(Ordering::SeqCst),
        validation_errors: VALIDATION_ERRORS.load(Ordering::SeqCst),
    }
}

/// An instance vksort created, with its debug messenger.
pub(super) struct OwnedInstance {
    entry: ash::Entry,
    pub(super) instance: ash::Instance,
    pub(super) messenger: vk::DebugUtilsMessengerEXT,
    armed: bool,
}

impl OwnedInstance {
    pub(super) fn new(entry: &ash::Entry, instance: ash::Instance) -> Self {
        LIVE_INSTANCES.fetch_add(1, Ordering::SeqCst);
        Self {
            entry: entry.clone(),
            instance,
            messenger: vk::DebugUtilsMessengerEXT::null(),
            armed: true,
        }
    }

    pub(super) fn release(mut self) -> (ash::Instance, vk::DebugUtilsMessengerEXT) {
        self.armed = false;
        (self.instance.clone(), self.messenger)
    }
}

impl Drop for OwnedInstance {
    fn drop(&mut self) {
        if self.armed {
            // SAFETY: vksort created both, and the device guard dropped before this one.
            unsafe { destroy_instance(&self.entry, &self.instance, self.messenger) };
        }
    }
}

/// Destroys an instance vksort created, and its messenger if not null.
///
/// # Safety
/// vksort created both, nothing created from them is left, and neither is used afterwards.
pub(super) unsafe fn destroy_instance(
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

/// A device vksort created.
pub(super) struct OwnedDevice {
    pub(super) device: ash::Device,
    armed: bool,
}

impl OwnedDevice {
    pub(super) fn new(device: ash::Device) -> Self {
        LIVE_DEVICES.fetch_add(1, Ordering::SeqCst);
        Self {
            device,
            armed: true,
        }
    }

    pub(super) fn release(mut self) -> ash::Device {
        self.armed = false;
        self.device.clone()
    }
}

impl Drop for OwnedDevice {
    fn drop(&mut self) {
        if self.armed {
            // SAFETY: vksort created the device, its children's guards dropped first, nothing was submitted.
            unsafe { destroy_device(&self.device) };
        }
    }
}

/// Destroys a device vksort created.
///
/// # Safety
/// vksort created `device`, nothing of it is left or pending, and it is not used afterwards.
pub(super) unsafe fn destroy_device(device: &ash::Device) {
    // SAFETY: the caller's promise.
    unsafe { device.destroy_device(None) };
    LIVE_DEVICES.fetch_sub(1, Ordering::SeqCst);
}

/// What [`Context::new`] created globally: the device drops (is destroyed) before the instance.
pub(super) struct Owner {
    pub(super) device: OwnedDevice,
    pub(super) instance: OwnedInstance,
}

/// An object vksort created on a device (pipeline cache, command pool).
pub(super) struct DeviceChild<H: vk::Handle + Copy> {
    device: ash::Device,
    handle: H,
    destroy: fn(&ash::Device, H),
    armed: bool,
}

impl<H: vk::Handle + Copy> DeviceChild<H> {
    pub(super) fn new(device: &ash::Device, handle: H, destroy: fn(&ash::Device, H)) -> Self {
        Self {
            device: device.clone(),
            handle,
            destroy,
            armed: true,
        }
    }

    pub(super) fn release(mut self) -> H {
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
