//! Adoption as a renderer does it, and creation's error paths.
//!
//! - An engine creates its instance and device with ash and [`DeviceRequirements`], adopts it through
//!   [`AdoptInfo::new`], sorts pairs through vksort's host form, and destroys its device and instance after:
//!   no validation error on the way (the engine's own messenger collects them when `VKSORT_VALIDATION=1`).
//! - A device created without `VK_KHR_push_descriptor` is refused by [`Context::adopt`] with
//!   [`Error::Unsupported`] naming the extension, not a panic at recording.
//! - Creation failing after each step ([`fail_creation_after`], diagnostics) returns the typed error and leaves
//!   nothing behind: vksort's live instance and device counts return to where they were, no validation error
//!   (a leaked child object is one at vkDestroyDevice / vkDestroyInstance), and an adopted device stays usable.
//!
//! The tests share the GPU and the process-wide counters: each holds `LOCK`.

use ash::vk;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex};
use vksort::gpu::context::{fail_creation_after, live_objects, CreationStep};
use vksort::gpu::{AdoptInfo, DeviceRequirements};
use vksort::{Context, ContextOptions, Error};

static LOCK: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn validation() -> bool {
    std::env::var("VKSORT_VALIDATION").is_ok_and(|v| v == "1")
}

/// The engine's messenger: keeps validation errors.
unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) && !data.is_null() {
        // SAFETY: the layer passes valid callback data; `user` is the engine's log, alive while the messenger is.
        let msg = unsafe {
            let d = &*data;
            if d.p_message.is_null() {
                String::from("(no message)")
            } else {
                CStr::from_ptr(d.p_message).to_string_lossy().into_owned()
            }
        };
        eprintln!("[engine validation] {msg}");
        let log = unsafe { &*(user as *const Mutex<Vec<String>>) };
        log.lock().unwrap().push(msg);
    }
    vk::FALSE
}

/// A renderer's instance (validation as `VKSORT_VALIDATION` says) and its first physical device that vksort can
/// use.
struct Engine {
    entry: ash::Entry,
    instance: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    log: Arc<Mutex<Vec<String>>>,
    pd: vk::PhysicalDevice,
}

impl Engine {
    fn new() -> Engine {
        // SAFETY (test): plain Vulkan set-up; `destroy` tears it down.
        unsafe {
            let entry = ash::Entry::load().unwrap();
            let validation = validation();
            let layers: Vec<*const c_char> = if validation {
                vec![c"VK_LAYER_KHRONOS_validation".as_ptr()]
            } else {
                vec![]
            };
            let exts: Vec<*const c_char> = if validation {
                vec![ash::ext::debug_utils::NAME.as_ptr()]
            } else {
                vec![]
            };
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default()
                        .application_info(&app)
                        .enabled_layer_names(&layers)
                        .enabled_extension_names(&exts),
                    None,
                )
                .unwrap();
            let log = Arc::new(Mutex::new(Vec::new()));
            let messenger = validation.then(|| {
                let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
                let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                    .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
                    .message_type(
                        vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                            | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL,
                    )
                    .pfn_user_callback(Some(on_message))
                    .user_data(Arc::as_ptr(&log) as *mut c_void);
                let m = du.create_debug_utils_messenger(&info, None).unwrap();
                (du, m)
            });
            let pd = instance
                .enumerate_physical_devices()
                .unwrap()
                .into_iter()
                .find(|&pd| DeviceRequirements::query(&instance, pd).is_ok())
                .expect("a device vksort can use");
            Engine {
                entry,
                instance,
                messenger,
                log,
                pd,
            }
        }
    }

    /// A device with one queue of vksort's compute family: with `reqs` enabled (added to the engine's own
    /// create info, which enables `samplerAnisotropy` where supported and chains its own Vulkan 1.2 features),
    /// or with no extension at all.
    fn device(&self, reqs: Option<&mut DeviceRequirements>, family: u32) -> ash::Device {
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        // SAFETY (test): the engine's live instance and physical device.
        let supported = unsafe { self.instance.get_physical_device_features(self.pd) };
        let features = vk::PhysicalDeviceFeatures::default()
            .sampler_anisotropy(supported.sampler_anisotropy == vk::TRUE);
        let mut own12 = vk::PhysicalDeviceVulkan12Features::default();
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&features)
            .push_next(&mut own12);
        // SAFETY (test): built with ash's builders from locals alive through create_device.
        unsafe {
            let info = match reqs {
                Some(r) => r.enable(info),
                None => info,
            };
            self.instance.create_device(self.pd, &info, None).unwrap()
        }
    }

    fn take_errors(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }

    fn destroy(self) {
        // SAFETY (test): everything created from the instance is gone; the messenger goes first.
        unsafe {
            if let Some((du, m)) = &self.messenger {
                du.destroy_debug_utils_messenger(*m, None);
            }
            self.instance.destroy_instance(None);
        }
        let errors = self.take_errors();
        assert!(
            errors.is_empty(),
            "validation errors:\n{}",
            errors.join("\n")
        );
    }
}

/// The happy path, as `examples/renderer.rs`: requirements, enable, adopt, sort, drop, destroy.
#[test]
fn adopted_device_sorts_pairs() {
    let _guard = lock();
    let engine = Engine::new();
    // SAFETY (test): the engine's live instance and a physical device enumerated from it.
    let mut reqs = unsafe { DeviceRequirements::query(&engine.instance, engine.pd) }.unwrap();
    assert!(reqs.extensions().contains(&ash::khr::push_descriptor::NAME));
    assert!(reqs.api_version() >= vk::API_VERSION_1_2);
    let family = reqs.compute_queue_family();
    let device = engine.device(Some(&mut reqs), family);
    // SAFETY (test): queue 0 of the family the device was created with.
    let queue = unsafe { device.get_device_queue(family, 0) };
    // SAFETY (test): the engine's live handles, the device created with `reqs` (and the instance with
    // VK_EXT_debug_utils under validation); all outlive `ctx`, and the queue is used on this thread only.
    let ctx = unsafe {
        Context::adopt(
            AdoptInfo::new(
                &engine.entry,
                &engine.instance,
                engine.pd,
                &device,
                family,
                queue,
                &reqs,
            )
            .with_debug_utils(validation()),
        )
    }
    .unwrap();
    assert_eq!(ctx.caps().int64, reqs.int64());
    assert_eq!(
        ctx.caps().subgroup_size_control,
        reqs.subgroup_size_control()
    );
    assert_eq!(
        ctx.caps().buffer_device_address,
        reqs.buffer_device_address()
    );
    let mut keys: Vec<u32> = (0..50_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut vals: Vec<u32> = (0..keys.len() as u32).collect();
    let original = keys.clone();
    vksort::sort::sort_pairs(&ctx, &mut keys, &mut vals).unwrap();
    let mut expected = original.clone();
    expected.sort_unstable();
    assert_eq!(keys, expected);
    assert!(vals
        .iter()
        .zip(&keys)
        .all(|(&v, &k)| original[v as usize] == k));
    drop(ctx);
    // SAFETY (test): vksort's context is gone; the device is idle.
    unsafe { device.destroy_device(None) };
    engine.destroy();
}

/// Adopting a device created without VK_KHR_push_descriptor is a typed error naming it, not a panic.
#[test]
fn adopt_without_push_descriptor_is_unsupported() {
    let _guard = lock();
    let engine = Engine::new();
    // SAFETY (test): as above.
    let reqs = unsafe { DeviceRequirements::query(&engine.instance, engine.pd) }.unwrap();
    let family = reqs.compute_queue_family();
    let device = engine.device(None, family);
    // SAFETY (test): as above.
    let queue = unsafe { device.get_device_queue(family, 0) };
    let before = live_objects();
    // SAFETY (test): live handles of one another; the device lacks what `reqs` lists, which adopt must find.
    let result = unsafe {
        Context::adopt(AdoptInfo::new(
            &engine.entry,
            &engine.instance,
            engine.pd,
            &device,
            family,
            queue,
            &reqs,
        ))
    };
    match result {
        Err(e @ Error::Unsupported { .. }) => {
            assert!(e.to_string().contains("VK_KHR_push_descriptor"), "{e}")
        }
        Err(e) => panic!("expected Error::Unsupported, got {e}"),
        Ok(_) => panic!("adopt accepted a device without VK_KHR_push_descriptor"),
    }
    assert_eq!(live_objects().instances, before.instances);
    assert_eq!(live_objects().devices, before.devices);
    // SAFETY (test): vksort created nothing on it.
    unsafe { device.destroy_device(None) };
    engine.destroy();
}

/// `Context::new` failing after each of its steps: the error comes back typed and vksort's instance, messenger,
/// device and child objects are all destroyed (counts back, no validation error at their destruction).
#[test]
fn new_destroys_everything_on_failure() {
    let _guard = lock();
    let options = ContextOptions::from_env();
    for step in [
        CreationStep::Instance,
        CreationStep::Messenger,
        CreationStep::Device,
        CreationStep::Allocator,
        CreationStep::PipelineCache,
        CreationStep::CommandPool,
    ] {
        let before = live_objects();
        fail_creation_after(Some(step));
        let result = Context::new(options.clone());
        fail_creation_after(None);
        match result {
            Err(Error::Vulkan { call, result }) => {
                assert!(call.contains("fault injected"), "{step:?}: {call}");
                assert_eq!(result, vk::Result::ERROR_INITIALIZATION_FAILED);
            }
            Err(e) => panic!("{step:?}: unexpected error {e}"),
            Ok(_) => panic!("{step:?}: creation did not fail"),
        }
        let after = live_objects();
        assert_eq!(
            after.instances, before.instances,
            "{step:?}: instance leaked"
        );
        assert_eq!(after.devices, before.devices, "{step:?}: device leaked");
        assert_eq!(
            after.validation_errors, before.validation_errors,
            "{step:?}: validation errors while tearing down"
        );
    }
    // And a whole context, made and dropped, leaves nothing either.
    let before = live_objects();
    let ctx = Context::new(options).unwrap();
    assert_eq!(live_objects().instances, before.instances + 1);
    assert_eq!(live_objects().devices, before.devices + 1);
    drop(ctx);
    let after = live_objects();
    assert_eq!(
        (after.instances, after.devices),
        (before.instances, before.devices)
    );
    assert_eq!(after.validation_errors, before.validation_errors);
}

/// `Context::adopt` failing after each of its steps destroys its own objects only: the engine's device stays
/// usable (adopted again, it sorts), and destroying it reports no leaked child object.
#[test]
fn adopt_destroys_its_own_objects_on_failure() {
    let _guard = lock();
    let engine = Engine::new();
    // SAFETY (test): as above.
    let mut reqs = unsafe { DeviceRequirements::query(&engine.instance, engine.pd) }.unwrap();
    let family = reqs.compute_queue_family();
    let device = engine.device(Some(&mut reqs), family);
    // SAFETY (test): as above.
    let queue = unsafe { device.get_device_queue(family, 0) };
    let info = || {
        AdoptInfo::new(
            &engine.entry,
            &engine.instance,
            engine.pd,
            &device,
            family,
            queue,
            &reqs,
        )
    };
    for step in [
        CreationStep::Allocator,
        CreationStep::PipelineCache,
        CreationStep::CommandPool,
    ] {
        fail_creation_after(Some(step));
        // SAFETY (test): the engine's live handles, the device created with `reqs`.
        let result = unsafe { Context::adopt(info()) };
        fail_creation_after(None);
        match result {
            Err(Error::Vulkan { call, .. }) => assert!(call.contains("fault injected"), "{call}"),
            Err(e) => panic!("{step:?}: unexpected error {e}"),
            Ok(_) => panic!("{step:?}: adoption did not fail"),
        }
    }
    // SAFETY (test): as above.
    let ctx = unsafe { Context::adopt(info()) }.unwrap();
    let mut keys = vec![5u32, 3, 9, 1, 7];
    vksort::sort::sort(&ctx, &mut keys).unwrap();
    assert_eq!(keys, [1, 3, 5, 7, 9]);
    drop(ctx);
    // Validation reports any pipeline cache, command pool or memory vksort left on the device here.
    // SAFETY (test): vksort's contexts are gone; the device is idle.
    unsafe { device.destroy_device(None) };
    engine.destroy();
}
