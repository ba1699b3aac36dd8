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
//! - A device created with only [`DeviceRequirements::minimum`] (described by
//!   [`DeviceRequirements::from_create_info`]): every sort family sorts 32- and 64-bit keys, 64-bit scans and
//!   reductions are refused at creation naming `shaderInt64`, 32-bit ones and compaction run; no validation
//!   error. A device created with what `query` lists but `shaderInt64`: the same refusal (the caps are what was
//!   enabled, not what the hardware has).
//!   Beyond one storage-buffer binding, a radix sort without `bufferDeviceAddress` is refused at creation.
//! - An instance created with Vulkan 1.0 (ash's default): `query` and `adopt` name the instance's version; a 1.2
//!   instance on a newer device gets the 1.2 feature structs (the lower version), adopts and sorts.
//!
//! The tests share the GPU and the process-wide counters: each holds `LOCK`.

mod common;
use ash::vk;
use common::sorting::{check_with, gen, Case, Dist};
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex};
use vksort::gpu::context::{fail_creation_after, live_objects, CreationStep};
use vksort::gpu::{AdoptInfo, DeviceRequirements};
use vksort::reduce::ReduceOp;
use vksort::scan::{ScanAlgorithm, ScanConfig, ScanElem, Scanner};
use vksort::sort::{KeyType, Order, SortAlgorithm, Sorter, ValueType};
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
    /// The instance's `VkApplicationInfo::apiVersion`.
    api: u32,
}

/// The `VkApplicationInfo::apiVersion` of the engine's instance (and what it tells `DeviceRequirements::query`).
const API: u32 = vk::API_VERSION_1_3;

impl Engine {
    fn new() -> Engine {
        Self::with_api(API)
    }

    /// The engine with its instance created with `api` (`vk::API_VERSION_1_0` as ash's default makes it).
    fn with_api(api: u32) -> Engine {
        // SAFETY (test): plain Vulkan set-up; `destroy` tears it down.
        unsafe {
            let entry = ash::Entry::load().unwrap();
            let validation = validation();
            let layers: Vec<*const c_char> = if validation {
                vec![c"VK_LAYER_KHRONOS_validation".as_ptr()]
            } else {
                vec![]
            };
            let mut exts: Vec<*const c_char> = if validation {
                vec![ash::ext::debug_utils::NAME.as_ptr()]
            } else {
                vec![]
            };
            if api < vk::API_VERSION_1_1 {
                // VK_KHR_push_descriptor's dependency on a 1.0 instance.
                exts.push(ash::khr::get_physical_device_properties2::NAME.as_ptr());
            }
            let app = vk::ApplicationInfo::default().api_version(api);
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
            // The first device vksort can use (queried as a 1.3 instance would be: a 1.0 instance's engine
            // takes the first device, which the tests of the 1.0 instance never use beyond its properties).
            let pds = instance.enumerate_physical_devices().unwrap();
            let pd = if api >= vk::API_VERSION_1_2 {
                pds.into_iter()
                    .find(|&pd| DeviceRequirements::query(&instance, api, pd).is_ok())
                    .expect("a device vksort can use")
            } else {
                pds[0]
            };
            Engine {
                entry,
                instance,
                messenger,
                log,
                pd,
                api,
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

    /// [`Engine::device`], returning with it what its create info enabled as vksort reads it
    /// ([`DeviceRequirements::from_create_info`], told the instance's version).
    fn device_as_created(
        &self,
        reqs: &mut DeviceRequirements,
        family: u32,
    ) -> (ash::Device, DeviceRequirements) {
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let mut own12 = vk::PhysicalDeviceVulkan12Features::default();
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .push_next(&mut own12);
        // SAFETY (test): built with ash's builders from locals alive through create_device; the create info
        // read back is the one the device is created with.
        unsafe {
            let info = reqs.enable(info);
            let enabled =
                DeviceRequirements::from_create_info(&info).with_instance_api_version(self.api);
            let device = self.instance.create_device(self.pd, &info, None).unwrap();
            (device, enabled)
        }
    }

    /// Adopts `device` (created from the engine's physical device with what `enabled` lists).
    fn adopt(
        &self,
        device: &ash::Device,
        family: u32,
        enabled: &DeviceRequirements,
    ) -> vksort::Result<Arc<Context>> {
        // SAFETY (test): the engine's live handles; the device was created with `enabled` (and the instance
        // with VK_EXT_debug_utils under validation); all outlive the context, and the queue is used on this
        // thread only.
        unsafe {
            let queue = device.get_device_queue(family, 0);
            Context::adopt(
                AdoptInfo::new(
                    &self.entry,
                    &self.instance,
                    self.pd,
                    device,
                    family,
                    queue,
                    enabled,
                )
                .with_debug_utils(validation()),
            )
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
    let mut reqs = unsafe { DeviceRequirements::query(&engine.instance, API, engine.pd) }.unwrap();
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
    let reqs = unsafe { DeviceRequirements::query(&engine.instance, API, engine.pd) }.unwrap();
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
    let mut reqs = unsafe { DeviceRequirements::query(&engine.instance, API, engine.pd) }.unwrap();
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

/// Whether `e` is a refusal naming `feature` (its `Unsupported` text).
fn refuses(e: &Error, feature: &str) -> bool {
    matches!(e, Error::Unsupported { what, .. } if what.contains(feature))
}

/// Every family on an adopted context whose device lacks `shaderInt64`: sorts of 32- and 64-bit keys (with
/// 32- and 64-bit values) correct in every algorithm, 32-bit scans and reductions and compaction correct, 64-bit
/// scans (every algorithm) and reductions refused with `Unsupported` naming `shaderInt64`, at `Scanner::new`.
fn every_family_sorts_or_refuses(ctx: &Arc<Context>, engine: &Engine) {
    for alg in SortAlgorithm::ALL {
        let radix = matches!(
            alg,
            SortAlgorithm::Auto
                | SortAlgorithm::Onesweep
                | SortAlgorithm::ReduceThenScan
                | SortAlgorithm::Small
                | SortAlgorithm::Msd
                | SortAlgorithm::Hybrid
        );
        let wide = if radix { KeyType::I64 } else { KeyType::U128 };
        let cases = [
            Case {
                value: ValueType::U32,
                ..Case::new(alg, KeyType::U32)
            },
            Case {
                value: ValueType::U64,
                order: Order::Descending,
                ..Case::new(alg, KeyType::U64)
            },
            Case::new(alg, wide),
        ];
        for (i, c) in cases.into_iter().enumerate() {
            let n = 2000;
            let cfg = c.config(n);
            let sorter = match Sorter::new(ctx, cfg) {
                Ok(s) => s,
                Err(Error::AlgorithmLimit { max, .. }) => {
                    Sorter::new(ctx, c.config(max as usize)).unwrap()
                }
                Err(e) => panic!("{c:?}: Sorter::new refused on a minimum device: {e}"),
            };
            let n = n.min(sorter.config().max_n as usize);
            let raw = gen(c.key, Dist::Uniform, n, 7 + i as u64);
            check_with(ctx, &sorter, &c, &raw, None, false);
        }
        let errors = engine.take_errors();
        assert!(
            errors.is_empty(),
            "{alg:?}: validation errors:\n{}",
            errors.join("\n")
        );
    }
    let data32: Vec<u32> = (0..5000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let data64: Vec<u64> = data32.iter().map(|&x| x as u64 * 3).collect();
    for algorithm in ScanAlgorithm::ALL {
        let c32 = ScanConfig {
            algorithm,
            ..ScanConfig::default()
        };
        let got = vksort::scan::scan_u32(ctx, &data32, &c32).unwrap();
        let want: Vec<u32> = data32
            .iter()
            .scan(0u32, |acc, &x| {
                let prev = *acc;
                *acc = acc.wrapping_add(x);
                Some(prev)
            })
            .collect();
        assert_eq!(got, want, "{algorithm:?} u32 scan");
        let c64 = ScanConfig {
            elem: ScanElem::U64,
            ..c32
        };
        match Scanner::new(ctx, c64) {
            Err(e) if refuses(&e, "shaderInt64") => {}
            Err(e) => panic!("{algorithm:?}: u64 scanner: the wrong error: {e}"),
            Ok(_) => panic!("{algorithm:?}: a u64 scanner was made without shaderInt64"),
        }
        let e = vksort::scan::scan_u64(ctx, &data64, &c64).unwrap_err();
        assert!(refuses(&e, "shaderInt64"), "{algorithm:?}: {e}");
    }
    let sum: u32 = data32.iter().fold(0u32, |a, &x| a.wrapping_add(x));
    assert_eq!(
        vksort::reduce::reduce_u32(ctx, &data32, ReduceOp::Sum).unwrap(),
        sum
    );
    let e = vksort::reduce::reduce_u64(ctx, &data64, ReduceOp::Max).unwrap_err();
    assert!(refuses(&e, "shaderInt64"), "{e}");
    let kept: Vec<u32> = data32.iter().copied().filter(|&x| x != 0).collect();
    assert_eq!(
        vksort::compact::compact_u32(ctx, &data32, None).unwrap(),
        kept
    );
    let errors = engine.take_errors();
    assert!(
        errors.is_empty(),
        "validation errors:\n{}",
        errors.join("\n")
    );
}

/// What `minimum()` and `recommended()` list, and what `from_create_info` reads back of a create info that
/// `enable` filled (every optional feature of `query` round-trips).
#[test]
fn requirement_lists_and_create_info_round_trip() {
    let min = DeviceRequirements::minimum();
    assert_eq!(min.extensions(), [ash::khr::push_descriptor::NAME]);
    assert!(!min.int64() && !min.subgroup_size_control() && !min.buffer_device_address());
    assert!(!min.subgroup_partitioned() && min.push_descriptor());
    assert_eq!(min.features().shader_int64, vk::FALSE);
    assert_eq!(min.api_version(), vk::API_VERSION_1_2);
    let rec = DeviceRequirements::recommended();
    assert_eq!(rec.extensions(), [ash::khr::push_descriptor::NAME]);
    assert_eq!(rec.features().shader_int64, vk::TRUE);
    assert_eq!(rec.features12().shader_subgroup_extended_types, vk::TRUE);
    assert_eq!(rec.features12().buffer_device_address, vk::TRUE);
    assert_eq!(rec.features13().subgroup_size_control, vk::TRUE);
    assert_eq!(rec.features13().compute_full_subgroups, vk::TRUE);
    // Before 1.3 subgroup size control is the extension's.
    let ext = DeviceRequirements::minimum().with_subgroup_size_control(true);
    assert!(ext
        .extensions()
        .contains(&ash::ext::subgroup_size_control::NAME));
    assert_eq!(
        ext.subgroup_size_control_features().subgroup_size_control,
        vk::TRUE
    );
    assert_eq!(ext.features13().subgroup_size_control, vk::FALSE);

    let _guard = lock();
    let engine = Engine::new();
    // SAFETY (test): the engine's live instance (of `API`) and a physical device enumerated from it.
    let mut reqs = unsafe { DeviceRequirements::query(&engine.instance, API, engine.pd) }.unwrap();
    assert_eq!(reqs.instance_api_version(), Some(API));
    let (int64, ssc, bda, part) = (
        reqs.int64(),
        reqs.subgroup_size_control(),
        reqs.buffer_device_address(),
        reqs.subgroup_partitioned(),
    );
    let family = reqs.compute_queue_family();
    let (device, enabled) = engine.device_as_created(&mut reqs, family);
    assert_eq!(
        (
            enabled.int64(),
            enabled.subgroup_size_control(),
            enabled.buffer_device_address(),
            enabled.subgroup_partitioned(),
            enabled.push_descriptor()
        ),
        (int64, ssc, bda, part, true)
    );
    // SAFETY (test): nothing was made on it.
    unsafe { device.destroy_device(None) };
    engine.destroy();
}

/// The renderer: a device created before vksort with only the minimum features. Adopted as it is, every
/// family sorts or refuses at creation naming the feature, with no validation error.
#[test]
fn minimum_device_sorts_or_refuses_each_family() {
    let _guard = lock();
    let engine = Engine::new();
    // SAFETY (test): as above.
    let family = unsafe { DeviceRequirements::query(&engine.instance, API, engine.pd) }
        .unwrap()
        .compute_queue_family();
    let (device, enabled) = engine.device_as_created(&mut DeviceRequirements::minimum(), family);
    assert!(enabled.push_descriptor());
    assert!(
        !enabled.int64() && !enabled.subgroup_size_control() && !enabled.buffer_device_address()
    );
    let ctx = engine.adopt(&device, family, &enabled).unwrap();
    let caps = ctx.caps();
    assert!(!caps.int64 && !caps.subgroup_size_control && !caps.buffer_device_address);
    assert!(!caps.subgroup_partitioned);
    every_family_sorts_or_refuses(&ctx, &engine);
    // Without bufferDeviceAddress a radix sort beyond one storage-buffer binding is refused at creation.
    let range = caps.max_storage_buffer_range;
    let c = Case {
        value: ValueType::U64,
        ..Case::new(SortAlgorithm::Onesweep, KeyType::U64)
    };
    let beyond = ((range / 8 + 1) as usize).min(u32::MAX as usize - (1 << 16));
    if (beyond as u64) * 8 > range {
        match Sorter::new(&ctx, c.config(beyond)) {
            Err(Error::TooLarge { limit, .. }) => {
                assert!(limit.contains("bufferDeviceAddress"), "{limit}")
            }
            Err(e) => panic!("the wrong error beyond one binding: {e}"),
            Ok(_) => panic!("a sort beyond one binding was made without bufferDeviceAddress"),
        }
    }
    drop(ctx);
    // SAFETY (test): vksort's context is gone; the device is idle.
    unsafe { device.destroy_device(None) };
    engine.destroy();
}

/// The caps are what the renderer enabled, not what the hardware has: a device created with everything `query`
/// lists but `shaderInt64` (told through `with_int64(false)`, and read back from the create info) refuses 64-bit
/// scans at creation and sorts 64-bit keys, without a validation error.
#[test]
fn caps_are_what_was_enabled() {
    let _guard = lock();
    let engine = Engine::new();
    // SAFETY (test): as above.
    let reqs = unsafe { DeviceRequirements::query(&engine.instance, API, engine.pd) }.unwrap();
    let family = reqs.compute_queue_family();
    let mut without = reqs.clone().with_int64(false);
    assert_eq!(without.features().shader_int64, vk::FALSE);
    let (device, enabled) = engine.device_as_created(&mut without, family);
    assert!(!enabled.int64());
    let ctx = engine.adopt(&device, family, &enabled).unwrap();
    assert!(!ctx.caps().int64);
    assert_eq!(
        ctx.caps().buffer_device_address,
        reqs.buffer_device_address()
    );
    let c64 = ScanConfig {
        elem: ScanElem::U64,
        ..ScanConfig::default()
    };
    match Scanner::new(&ctx, c64) {
        Err(e) => assert!(refuses(&e, "shaderInt64"), "{e}"),
        Ok(_) => panic!("a u64 scanner was made on a device without shaderInt64"),
    }
    let c = Case {
        value: ValueType::U64,
        ..Case::new(SortAlgorithm::Auto, KeyType::U64)
    };
    let sorter = Sorter::new(&ctx, c.config(3000)).unwrap();
    check_with(
        &ctx,
        &sorter,
        &c,
        &gen(c.key, Dist::Uniform, 3000, 5),
        None,
        false,
    );
    // The same device described by setters on the minimum: the same caps.
    let told = DeviceRequirements::minimum()
        .with_subgroup_size_control(reqs.subgroup_size_control())
        .with_buffer_device_address(reqs.buffer_device_address())
        .with_subgroup_partitioned(reqs.subgroup_partitioned());
    let ctx2 = engine.adopt(&device, family, &told).unwrap();
    assert!(!ctx2.caps().int64);
    assert_eq!(
        ctx2.caps().subgroup_size_control,
        ctx.caps().subgroup_size_control
    );
    drop((sorter, ctx, ctx2));
    // SAFETY (test): vksort's contexts are gone; the device is idle.
    unsafe { device.destroy_device(None) };
    engine.destroy();
}

/// An instance created with Vulkan 1.0 (ash's default `ApplicationInfo`): `query` and `adopt` say so, naming
/// the instance's version and where it is set, before any Vulkan 1.1 call (no validation error either).
#[test]
fn instance_of_vulkan_1_0_is_named() {
    let _guard = lock();
    let engine = Engine::with_api(vk::API_VERSION_1_0);
    // SAFETY (test): the engine's live 1.0 instance and a physical device enumerated from it.
    let result =
        unsafe { DeviceRequirements::query(&engine.instance, vk::API_VERSION_1_0, engine.pd) };
    let named = |e: &Error| {
        let text = e.to_string();
        refuses(e, "the instance was created with Vulkan 1.0")
            && text.contains("apiVersion")
            && !text.contains("subgroup")
    };
    match result {
        Err(e) => assert!(named(&e), "{e}"),
        Ok(_) => panic!("query accepted a Vulkan 1.0 instance"),
    }
    // A device of that instance with push descriptors (no 1.2 feature struct: the instance is 1.0), adopted.
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [ash::khr::push_descriptor::NAME.as_ptr()];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts);
    // SAFETY (test): the engine's live instance and physical device; locals alive through the call.
    let device = unsafe { engine.instance.create_device(engine.pd, &info, None) }.unwrap();
    let before = live_objects();
    let told = DeviceRequirements::minimum().with_instance_api_version(vk::API_VERSION_1_0);
    match engine.adopt(&device, 0, &told) {
        Err(e) => assert!(named(&e), "{e}"),
        Ok(_) => panic!("adopt accepted a Vulkan 1.0 instance"),
    }
    assert_eq!(live_objects().devices, before.devices);
    // SAFETY (test): vksort created nothing on it.
    unsafe { device.destroy_device(None) };
    engine.destroy();
}

/// A Vulkan 1.2 instance on a newer device: `query` plans with the 1.2 structs (subgroup size control through
/// `VK_EXT_subgroup_size_control`, as the effective version is the lower one), and the device made from them
/// adopts and sorts without a validation error.
#[test]
fn instance_of_vulkan_1_2_uses_the_lower_version() {
    let _guard = lock();
    let engine = Engine::with_api(vk::API_VERSION_1_2);
    // SAFETY (test): the engine's live 1.2 instance and a physical device enumerated from it.
    let mut reqs =
        unsafe { DeviceRequirements::query(&engine.instance, vk::API_VERSION_1_2, engine.pd) }
            .unwrap();
    assert_eq!(reqs.api_version(), vk::API_VERSION_1_2);
    assert_eq!(reqs.features13().subgroup_size_control, vk::FALSE);
    let family = reqs.compute_queue_family();
    let (device, enabled) = engine.device_as_created(&mut reqs, family);
    assert_eq!(
        enabled.subgroup_size_control(),
        reqs.subgroup_size_control()
    );
    let ctx = engine.adopt(&device, family, &enabled).unwrap();
    let mut keys: Vec<u64> = (0..20_000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let mut expected = keys.clone();
    expected.sort_unstable();
    vksort::sort::sort(&ctx, &mut keys).unwrap();
    assert_eq!(keys, expected);
    drop(ctx);
    // SAFETY (test): vksort's context is gone; the device is idle.
    unsafe { device.destroy_device(None) };
    engine.destroy();
}
