//! The C API from C and C++:
//! - the committed `include/vksort.h` is the header cbindgen generates from `src/lib.rs` now (build.rs writes
//!   it to OUT_DIR), so the two cannot drift;
//! - `examples/c/sort.c` compiles as C99 and as C++ with `-Wall -Wextra -Werror` against that header, links
//!   against the static library, and runs: its own instance and device, u32 and f32 keys with u32 values, host
//!   and GPU-side counts, each checked against a CPU sort; with `VKSORT_VALIDATION=1` it enables the
//!   validation layer itself and fails on any validation error;
//! - every entry point rejects NULL arguments with an error code and a message, not a crash;
//! - an instance of Vulkan 1.0 is refused by name (its version) by `vksortGetDeviceRequirements` and
//!   `vksortCreateContext`; a device created with vksort's extensions but none of its features, described by
//!   `pEnabled`, adopts and refuses at `vksortCreateSorter` a sort that needs `bufferDeviceAddress`.
//!
//! Where no C compiler or Vulkan header is installed (a bare GPU machine), the C build is skipped through the
//! visible skip list (tests/common/skip.rs), as is the header check where the source tree is absent.

#[path = "../../tests/common/skip.rs"]
mod skip;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use vksort_c::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Where cargo put this test's libraries: the test runs from `<target>/<profile>/deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

#[test]
fn header_is_current() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/vksort.h"));
    // The GPU machine runs this executable away from the tree it was built in.
    let Ok(committed) = std::fs::read_to_string(repo().join("capi/include/vksort.h")) else {
        return skip::skip(
            "source-tree",
            "capi/include/vksort.h is not where the test was built",
        );
    };
    assert!(
        generated == committed,
        "capi/include/vksort.h differs from the header generated from capi/src/lib.rs: regenerate it with \
         `VKSORT_WRITE_HEADER=1 cargo build -p vksort-capi` and commit it"
    );
}

/// The system C compiler `cc` (or `$CC`), if it exists and finds vulkan/vulkan.h.
fn compiler(var: &str, default: &str, lang: &str) -> Option<String> {
    let cc = std::env::var(var).unwrap_or_else(|_| default.to_string());
    let probe = Command::new(&cc)
        .args(["-x", lang, "-E", "-o", "/dev/null", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .unwrap()
                .write_all(b"#include <vulkan/vulkan.h>\n")?;
            c.wait()
        });
    match probe {
        Ok(s) if s.success() => Some(cc),
        _ => None,
    }
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{cmd:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// The system libraries vksort.h's `Link:` comment names for the static library (`-l...` before "or"): the
/// example links with exactly those, so the documented line is the tested one.
fn documented_static_libs() -> Vec<String> {
    let header = std::fs::read_to_string(repo().join("capi/include/vksort.h")).expect("vksort.h");
    let link = header
        .lines()
        .find(|l| l.trim_start().starts_with("* Link:"))
        .expect("vksort.h has a `Link:` line");
    let static_part = link.split(" or ").next().unwrap_or(link);
    let libs: Vec<String> = static_part
        .split(|c: char| c.is_whitespace() || c == ';' || c == ')' || c == '(')
        .filter(|w| w.starts_with("-l"))
        .map(str::to_string)
        .collect();
    assert!(
        libs.iter().any(|l| l == "-lvulkan"),
        "vksort.h's link line names no -lvulkan: {link}"
    );
    libs
}

#[test]
fn c_example_sorts() {
    let Some(cc) = compiler("CC", "cc", "c") else {
        // The GPU machine has no compiler: scripts/gpu-prepare.sh builds the example here and the run points
        // VKSORT_C_EXAMPLE at it.
        if let Ok(exe) = std::env::var("VKSORT_C_EXAMPLE") {
            run_c_example(Path::new(&exe));
            return;
        }
        return skip::skip(
            "c-compiler",
            "no C compiler with vulkan/vulkan.h (install gcc and libvulkan-dev)",
        );
    };
    // `cargo test` leaves the library's static form under deps/ (a `cargo build` also copies it one level up).
    let lib = [profile_dir().join("deps"), profile_dir()]
        .iter()
        .map(|d| d.join("libvksort_c.a"))
        .find(|l| l.exists())
        .unwrap_or_else(|| profile_dir().join("libvksort_c.a"));
    assert!(
        lib.exists(),
        "{} is missing: build it with `cargo build --release -p vksort-capi`",
        lib.display()
    );
    let out_dir = std::env::temp_dir().join(format!("vksort-capi-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let src = repo().join("examples/c/sort.c");
    let include = repo().join("capi/include");
    let exe = out_dir.join("sort_c");
    let warn = ["-Wall", "-Wextra", "-Werror"];
    let libs = documented_static_libs();

    // C99, linked against the static library.
    run(Command::new(&cc)
        .arg("-std=c99")
        .args(warn)
        .arg("-I")
        .arg(&include)
        .arg(&src)
        .arg(&lib)
        .args(&libs)
        .arg("-o")
        .arg(&exe));

    // C++: the header and the example compile and link as C++ too.
    if let Some(cxx) = compiler("CXX", "c++", "c++") {
        run(Command::new(&cxx)
            .args(["-x", "c++", "-std=c++17"])
            .args(warn)
            .arg("-I")
            .arg(&include)
            .arg(&src)
            .args(["-x", "none"])
            .arg(&lib)
            .args(&libs)
            .arg("-o")
            .arg(out_dir.join("sort_cpp")));
    } else {
        skip::skip("cxx-compiler", "the C++ build: no C++ compiler");
    }

    run_c_example(&exe);
    let _ = std::fs::remove_dir_all(&out_dir);
}

/// Runs the built C example (VKSORT_VALIDATION is inherited: the program enables the layer and fails on its
/// errors): u32 and f32 keys with u32 values, host and GPU-side counts, each checked by the program.
fn run_c_example(exe: &Path) {
    let out = run(Command::new(exe).arg("100003"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert_eq!(stdout.matches(": ok").count(), 4, "{stdout}");
}

#[test]
fn null_arguments_are_errors() {
    unsafe {
        let mut sorter: *mut VksortSorter = std::ptr::null_mut();
        let r = vksortCreateSorter(std::ptr::null(), std::ptr::null(), &mut sorter);
        assert_eq!(r, VksortResult::VKSORT_ERROR_INVALID_ARGUMENT);
        let msg = std::ffi::CStr::from_ptr(vksortGetLastError()).to_string_lossy();
        assert!(msg.contains("NULL"), "{msg}");
        let r = vksortGetDeviceRequirements(
            None,
            ash::vk::Instance::null(),
            ash::vk::API_VERSION_1_3,
            ash::vk::PhysicalDevice::null(),
            std::ptr::null_mut(),
        );
        assert_eq!(r, VksortResult::VKSORT_ERROR_INVALID_ARGUMENT);
        let r = vksortCmdSort(
            std::ptr::null(),
            ash::vk::CommandBuffer::null(),
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            0,
        );
        assert_eq!(r, VksortResult::VKSORT_ERROR_INVALID_ARGUMENT);
        // A later call that succeeds clears the message.
        vksortDestroySorter(std::ptr::null_mut());
        assert_eq!(*vksortGetLastError(), 0);
        vksortDestroyContext(std::ptr::null_mut());
    }
}

/// An instance created with Vulkan 1.0 (`apiVersion` 0): `vksortGetDeviceRequirements` and `vksortCreateContext`
/// return VKSORT_ERROR_UNSUPPORTED naming the instance's version, before any Vulkan 1.1 query.
#[test]
fn instance_of_vulkan_1_0_is_named() {
    // SAFETY (test): plain Vulkan set-up, everything destroyed at the end.
    unsafe {
        let Ok(entry) = ash::Entry::load() else {
            return skip::skip("vulkan", "no Vulkan loader");
        };
        let app = ash::vk::ApplicationInfo::default(); // apiVersion 0: Vulkan 1.0
        let instance = entry
            .create_instance(
                &ash::vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap();
        let pd = instance.enumerate_physical_devices().unwrap()[0];
        let gipa = Some(entry.static_fn().get_instance_proc_addr);
        let named = || {
            let msg = std::ffi::CStr::from_ptr(vksortGetLastError()).to_string_lossy();
            assert!(
                msg.contains("created with Vulkan 1.0") && msg.contains("apiVersion"),
                "{msg}"
            );
        };
        let mut req = std::mem::MaybeUninit::<VksortDeviceRequirements>::zeroed();
        let r = vksortGetDeviceRequirements(gipa, instance.handle(), 0, pd, req.as_mut_ptr());
        assert_eq!(r, VksortResult::VKSORT_ERROR_UNSUPPORTED);
        named();
        let prio = [1.0f32];
        let queues = [ash::vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let device = instance
            .create_device(
                pd,
                &ash::vk::DeviceCreateInfo::default().queue_create_infos(&queues),
                None,
            )
            .unwrap();
        let info = VksortContextCreateInfo {
            getInstanceProcAddr: gipa,
            instance: instance.handle(),
            physicalDevice: pd,
            device: device.handle(),
            queueFamilyIndex: 0,
            queue: device.get_device_queue(0, 0),
            debugUtils: 0,
            instanceApiVersion: 0,
            pEnabled: std::ptr::null(),
        };
        let mut ctx: *mut VksortContext = std::ptr::null_mut();
        assert_eq!(
            vksortCreateContext(&info, &mut ctx),
            VksortResult::VKSORT_ERROR_UNSUPPORTED
        );
        assert!(ctx.is_null());
        named();
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}

/// The first physical device of `instance` vksort can use, with the requirements
/// `vksortGetDeviceRequirements` filled for it (`api`: the instance's API version).
///
/// # Safety
/// `instance` is live, made with `api`, and `gipa` is its loader's `vkGetInstanceProcAddr`.
unsafe fn usable_device(
    instance: &ash::Instance,
    gipa: Option<ash::vk::PFN_vkGetInstanceProcAddr>,
    api: u32,
) -> (ash::vk::PhysicalDevice, VksortDeviceRequirements) {
    let mut req = std::mem::MaybeUninit::<VksortDeviceRequirements>::zeroed();
    // SAFETY: the caller's promise; `req` is written by the successful call.
    unsafe {
        let pd = instance
            .enumerate_physical_devices()
            .unwrap()
            .into_iter()
            .find(|&pd| {
                vksortGetDeviceRequirements(gipa, instance.handle(), api, pd, req.as_mut_ptr())
                    == VksortResult::VKSORT_SUCCESS
            })
            .expect("a device vksort can use");
        (pd, req.assume_init())
    }
}

/// A device made with vksort's extensions that need no feature struct (push descriptors, and match-any where
/// listed) and none of its optional features, on `req`'s compute family; returns it with `req` narrowed to what
/// it was made with (for `VksortContextCreateInfo::pEnabled`).
///
/// # Safety
/// `instance` is live, `pd` was enumerated from it, and `req` is what `vksortGetDeviceRequirements` filled for
/// `pd` (its extension names are static strings).
unsafe fn minimum_device(
    instance: &ash::Instance,
    pd: ash::vk::PhysicalDevice,
    req: VksortDeviceRequirements,
) -> (VksortDeviceRequirements, ash::Device) {
    let mut enabled = req;
    // SAFETY: the names are `req`'s, NUL-terminated static strings (the caller's promise).
    let keep: Vec<*const std::ffi::c_char> = enabled.extensionNames
        [..enabled.extensionCount as usize]
        .iter()
        .copied()
        .filter(
            |&p| unsafe { std::ffi::CStr::from_ptr(p) } != ash::ext::subgroup_size_control::NAME,
        )
        .collect();
    enabled.extensionNames = [std::ptr::null(); VKSORT_MAX_DEVICE_EXTENSIONS];
    enabled.extensionNames[..keep.len()].copy_from_slice(&keep);
    enabled.extensionCount = keep.len() as u32;
    (
        enabled.shaderInt64,
        enabled.shaderSubgroupExtendedTypes,
        enabled.bufferDeviceAddress,
        enabled.subgroupSizeControl,
        enabled.computeFullSubgroups,
    ) = (0, 0, 0, 0, 0);
    let prio = [1.0f32];
    let queues = [ash::vk::DeviceQueueCreateInfo::default()
        .queue_family_index(enabled.computeQueueFamily)
        .queue_priorities(&prio)];
    let info = ash::vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&keep);
    // SAFETY: `info` borrows locals that outlive the call; `pd` is `instance`'s (the caller's promise).
    let device = unsafe { instance.create_device(pd, &info, None) }.unwrap();
    (enabled, device)
}

/// `VksortContextCreateInfo::pEnabled`: a device created with vksort's extensions but none of its optional
/// features, told so, is planned within them: a small sorter is made, a sorter beyond one storage-buffer binding
/// (which needs bufferDeviceAddress) is refused at `vksortCreateSorter` naming the feature.
#[test]
fn enabled_features_are_what_the_caller_says() {
    // SAFETY (test): plain Vulkan set-up, everything destroyed at the end.
    unsafe {
        let Ok(entry) = ash::Entry::load() else {
            return skip::skip("vulkan", "no Vulkan loader");
        };
        let app = ash::vk::ApplicationInfo::default().api_version(ash::vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &ash::vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap();
        let gipa = Some(entry.static_fn().get_instance_proc_addr);
        let (pd, req) = usable_device(&instance, gipa, app.api_version);
        let (enabled, device) = minimum_device(&instance, pd, req);
        let family = enabled.computeQueueFamily;
        let info = VksortContextCreateInfo {
            getInstanceProcAddr: gipa,
            instance: instance.handle(),
            physicalDevice: pd,
            device: device.handle(),
            queueFamilyIndex: family,
            queue: device.get_device_queue(family, 0),
            debugUtils: 0,
            instanceApiVersion: app.api_version,
            pEnabled: &enabled,
        };
        let mut ctx: *mut VksortContext = std::ptr::null_mut();
        assert_eq!(
            vksortCreateContext(&info, &mut ctx),
            VksortResult::VKSORT_SUCCESS
        );
        let props = instance.get_physical_device_properties(pd);
        let range = props.limits.max_storage_buffer_range as u64;
        let mut config = VksortSortConfig {
            keyType: VksortKeyType::VKSORT_KEY_U64 as u32,
            valueType: VksortValueType::VKSORT_VALUE_U64 as u32,
            order: 0,
            bitBegin: 0,
            bitEnd: 0,
            algorithm: VksortAlgorithm::VKSORT_ALGORITHM_ONESWEEP as u32,
            stable: 0,
            maxCount: 1000,
        };
        let mut sorter: *mut VksortSorter = std::ptr::null_mut();
        assert_eq!(
            vksortCreateSorter(ctx, &config, &mut sorter),
            VksortResult::VKSORT_SUCCESS
        );
        vksortDestroySorter(sorter);
        config.maxCount = range / 8 + 1;
        if config.maxCount < u32::MAX as u64 - (1 << 16) {
            let mut big: *mut VksortSorter = std::ptr::null_mut();
            assert_ne!(
                vksortCreateSorter(ctx, &config, &mut big),
                VksortResult::VKSORT_SUCCESS
            );
            assert!(big.is_null());
            let msg = std::ffi::CStr::from_ptr(vksortGetLastError()).to_string_lossy();
            assert!(msg.contains("bufferDeviceAddress"), "{msg}");
        }
        vksortDestroyContext(ctx);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}

/// The last error message of this thread.
fn last_error() -> String {
    // SAFETY: vksort's thread-local string, read before the next vksort call.
    unsafe { std::ffi::CStr::from_ptr(vksortGetLastError()) }
        .to_string_lossy()
        .into_owned()
}

/// Asserts `r` is `code` and the last error message contains each of `words`.
#[track_caller]
fn refused(what: &str, r: VksortResult, code: VksortResult, words: &[&str]) {
    let msg = last_error();
    assert_eq!(r, code, "{what}: {msg}");
    for w in words {
        assert!(
            msg.contains(w),
            "{what}: the message does not name `{w}`: {msg}"
        );
    }
}

/// Every documented error code the entry points give for bad input from safe arguments, with its message: NULL
/// pointers, unknown enum values, a bad bit range, an unstable algorithm required stable, an algorithm beyond
/// its limit, counts and capacities over `maxCount`, NULL / too small / unaligned / wrong-usage / overlapping
/// regions, values given to a keys-only sorter (and none to one with values), a feature chain without the
/// struct a feature needs. The refused sorts record nothing: the command buffer, submitted, leaves the
/// host-visible keys, values, scratch and count exactly as filled.
#[test]
fn bad_input_gives_the_documented_codes() {
    use ash::vk;
    use VksortResult::*;
    // SAFETY (test): plain Vulkan set-up, everything destroyed at the end; the regions name live buffers.
    unsafe {
        let Ok(entry) = ash::Entry::load() else {
            return skip::skip("vulkan", "no Vulkan loader");
        };
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap();
        let gipa = Some(entry.static_fn().get_instance_proc_addr);

        // vksortGetDeviceRequirements: NULL requirements.
        let pd0 = instance.enumerate_physical_devices().unwrap()[0];
        refused(
            "GetDeviceRequirements(pRequirements NULL)",
            vksortGetDeviceRequirements(
                gipa,
                instance.handle(),
                app.api_version,
                pd0,
                std::ptr::null_mut(),
            ),
            VKSORT_ERROR_INVALID_ARGUMENT,
            &["NULL"],
        );
        let (pd, req) = usable_device(&instance, gipa, app.api_version);

        // vksortMergeDeviceFeatures: NULL, a wrong sType, a chain without the struct a required feature needs.
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        refused(
            "MergeDeviceFeatures(NULL)",
            vksortMergeDeviceFeatures(std::ptr::null(), &mut f2),
            VKSORT_ERROR_INVALID_ARGUMENT,
            &["NULL"],
        );
        let mut not_f2 = vk::PhysicalDeviceFeatures2 {
            s_type: vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
            ..Default::default()
        };
        refused(
            "MergeDeviceFeatures(wrong sType)",
            vksortMergeDeviceFeatures(&req, &mut not_f2),
            VKSORT_ERROR_INVALID_ARGUMENT,
            &["sType"],
        );
        if req.shaderSubgroupExtendedTypes != 0 || req.bufferDeviceAddress != 0 {
            refused(
                "MergeDeviceFeatures(no Vulkan12Features in the chain)",
                vksortMergeDeviceFeatures(&req, &mut f2),
                VKSORT_ERROR_INVALID_ARGUMENT,
                &["chain lacks"],
            );
        }

        // vksortCreateContext: NULL.
        let mut ctx: *mut VksortContext = std::ptr::null_mut();
        refused(
            "CreateContext(NULL)",
            vksortCreateContext(std::ptr::null(), &mut ctx),
            VKSORT_ERROR_INVALID_ARGUMENT,
            &["NULL"],
        );
        assert!(ctx.is_null());

        // A device with vksort's extensions and no optional feature, described by pEnabled (as
        // `enabled_features_are_what_the_caller_says`).
        let (enabled, device) = minimum_device(&instance, pd, req);
        let family = enabled.computeQueueFamily;
        let queue = device.get_device_queue(family, 0);
        let info = VksortContextCreateInfo {
            getInstanceProcAddr: gipa,
            instance: instance.handle(),
            physicalDevice: pd,
            device: device.handle(),
            queueFamilyIndex: family,
            queue,
            debugUtils: 0,
            instanceApiVersion: app.api_version,
            pEnabled: &enabled,
        };
        assert_eq!(
            vksortCreateContext(&info, &mut ctx),
            VKSORT_SUCCESS,
            "{}",
            last_error()
        );

        // vksortCreateSorter.
        const N: u64 = 1000;
        let config = VksortSortConfig {
            keyType: VksortKeyType::VKSORT_KEY_U32 as u32,
            valueType: VksortValueType::VKSORT_VALUE_U32 as u32,
            order: VksortOrder::VKSORT_ORDER_DESCENDING as u32,
            bitBegin: 0,
            bitEnd: 0,
            algorithm: VksortAlgorithm::VKSORT_ALGORITHM_AUTO as u32,
            stable: 0,
            maxCount: N,
        };
        let mut sorter: *mut VksortSorter = std::ptr::null_mut();
        let create = |c: VksortSortConfig, what: &str, code: VksortResult, words: &[&str]| {
            let mut s: *mut VksortSorter = 1usize as *mut VksortSorter;
            refused(what, vksortCreateSorter(ctx, &c, &mut s), code, words);
            assert!(s.is_null(), "{what}: *pSorter not NULL");
        };
        refused(
            "CreateSorter(context NULL)",
            vksortCreateSorter(std::ptr::null(), &config, &mut sorter),
            VKSORT_ERROR_INVALID_ARGUMENT,
            &["NULL"],
        );
        refused(
            "CreateSorter(pConfig NULL)",
            vksortCreateSorter(ctx, std::ptr::null(), &mut sorter),
            VKSORT_ERROR_INVALID_ARGUMENT,
            &["NULL"],
        );
        refused(
            "CreateSorter(pSorter NULL)",
            vksortCreateSorter(ctx, &config, std::ptr::null_mut()),
            VKSORT_ERROR_INVALID_ARGUMENT,
            &["NULL"],
        );
        let c = config;
        let inv = VKSORT_ERROR_INVALID_ARGUMENT;
        create(
            VksortSortConfig { keyType: 7, ..c },
            "keyType 7",
            inv,
            &["keyType"],
        );
        create(
            VksortSortConfig {
                keyType: u32::MAX,
                ..c
            },
            "keyType MAX",
            inv,
            &["keyType"],
        );
        create(
            VksortSortConfig { valueType: 3, ..c },
            "valueType 3",
            inv,
            &["valueType"],
        );
        create(
            VksortSortConfig { order: 2, ..c },
            "order 2",
            inv,
            &["order"],
        );
        create(
            VksortSortConfig { algorithm: 12, ..c },
            "algorithm 12",
            inv,
            &["algorithm"],
        );
        create(
            VksortSortConfig {
                bitBegin: 0,
                bitEnd: 33,
                ..c
            },
            "bits [0, 33)",
            inv,
            &["bit range [0, 33)"],
        );
        create(
            VksortSortConfig {
                bitBegin: 8,
                bitEnd: 8,
                ..c
            },
            "bits [8, 8)",
            inv,
            &["bit range [8, 8)"],
        );
        create(
            VksortSortConfig {
                keyType: VksortKeyType::VKSORT_KEY_U64 as u32,
                bitBegin: 60,
                bitEnd: 65,
                ..c
            },
            "u64 bits [60, 65)",
            inv,
            &["bit range [60, 65)", "64"],
        );
        let uns = VKSORT_ERROR_UNSUPPORTED;
        create(
            VksortSortConfig {
                algorithm: VksortAlgorithm::VKSORT_ALGORITHM_BITONIC as u32,
                stable: 1,
                ..c
            },
            "bitonic required stable",
            uns,
            &["not stable"],
        );
        create(
            VksortSortConfig {
                algorithm: VksortAlgorithm::VKSORT_ALGORITHM_MSD as u32,
                maxCount: (1 << 20) + 1,
                ..c
            },
            "MSD over 2^20 keys",
            uns,
            &["at most", "1048577"],
        );

        let ok = |c: VksortSortConfig| {
            let mut s: *mut VksortSorter = std::ptr::null_mut();
            assert_eq!(
                vksortCreateSorter(ctx, &c, &mut s),
                VKSORT_SUCCESS,
                "{}",
                last_error()
            );
            s
        };
        let sorter = ok(config);
        let keys_only = ok(VksortSortConfig {
            valueType: 0,
            ..config
        });

        // Storage requirements and control offset.
        let mut sr = std::mem::MaybeUninit::<VksortStorageRequirements>::zeroed();
        refused(
            "GetSorterStorageRequirements(NULL sorter)",
            vksortGetSorterStorageRequirements(std::ptr::null(), N, sr.as_mut_ptr()),
            inv,
            &["NULL"],
        );
        refused(
            "GetSorterStorageRequirements(NULL pRequirements)",
            vksortGetSorterStorageRequirements(sorter, N, std::ptr::null_mut()),
            inv,
            &["NULL"],
        );
        let cap = VKSORT_ERROR_CAPACITY;
        refused(
            "GetSorterStorageRequirements(maxCount over)",
            vksortGetSorterStorageRequirements(sorter, N + 1, sr.as_mut_ptr()),
            cap,
            &["1001", "capacity 1000"],
        );
        let mut off = 0u64;
        refused(
            "GetSorterControlOffset(NULL)",
            vksortGetSorterControlOffset(sorter, N, std::ptr::null_mut()),
            inv,
            &["NULL"],
        );
        refused(
            "GetSorterControlOffset(maxCount over)",
            vksortGetSorterControlOffset(sorter, u64::MAX, &mut off),
            cap,
            &["capacity 1000"],
        );
        assert_eq!(
            vksortGetSorterStorageRequirements(sorter, N, sr.as_mut_ptr()),
            VKSORT_SUCCESS
        );
        let sr = sr.assume_init();
        assert_eq!(*vksortGetLastError(), 0, "a success clears the message");

        // Host-visible buffers filled with a pattern: keys, values, scratch, count.
        let mem_props = instance.get_physical_device_memory_properties(pd);
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::INDIRECT_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let make = |size: u64, seed: u8| {
            let b = device
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .unwrap();
            let mr = device.get_buffer_memory_requirements(b);
            let want =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let ty = (0..mem_props.memory_type_count)
                .find(|&i| {
                    mr.memory_type_bits & (1 << i) != 0
                        && mem_props.memory_types[i as usize]
                            .property_flags
                            .contains(want)
                })
                .unwrap();
            let m = device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(mr.size)
                        .memory_type_index(ty),
                    None,
                )
                .unwrap();
            device.bind_buffer_memory(b, m, 0).unwrap();
            let p = device
                .map_memory(m, 0, size, vk::MemoryMapFlags::empty())
                .unwrap() as *mut u8;
            let bytes = std::slice::from_raw_parts_mut(p, size as usize);
            for (i, x) in bytes.iter_mut().enumerate() {
                *x = (i as u8).wrapping_mul(31).wrapping_add(seed);
            }
            (b, m, bytes)
        };
        let scratch_size = sr.size.next_multiple_of(4).max(4);
        let (kb, km, kbytes) = make(N * 4, 1);
        let (vb, vm, vbytes) = make(N * 4, 2);
        let (sb, sm, sbytes) = make(scratch_size, 3);
        let (cb, cm, cbytes) = make(16, 4);
        let before: Vec<Vec<u8>> = [&kbytes, &vbytes, &sbytes, &cbytes]
            .iter()
            .map(|b| b.to_vec())
            .collect();
        let region = |buffer, offset, size| VksortBufferRegion {
            buffer,
            offset,
            size,
            usage: usage.as_raw(),
        };
        let keys = region(kb, 0, N * 4);
        let values = region(vb, 0, N * 4);
        let scratch = VksortBufferRegion {
            usage: sr.usage,
            ..region(sb, 0, scratch_size)
        };
        let count = region(cb, 0, 16);

        let pool = device
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                None,
            )
            .unwrap();
        let cmd = device
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        device
            .begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
            .unwrap();

        let sort = |s: *const VksortSorter,
                    k: &VksortBufferRegion,
                    v: Option<&VksortBufferRegion>,
                    sc: &VksortBufferRegion,
                    n: u64| {
            vksortCmdSort(
                s,
                cmd,
                k,
                v.map_or(std::ptr::null(), |v| v as *const _),
                sc,
                n,
            )
        };
        let ind = |k: &VksortBufferRegion, c: &VksortBufferRegion, capacity: u64| {
            vksortCmdSortIndirect(sorter, cmd, k, &values, &scratch, c, capacity)
        };
        let buf = VKSORT_ERROR_BUFFER;
        // NULL pointers and handles.
        refused(
            "CmdSort(sorter NULL)",
            sort(std::ptr::null(), &keys, Some(&values), &scratch, N),
            inv,
            &["NULL"],
        );
        refused(
            "CmdSort(pKeys NULL)",
            vksortCmdSort(sorter, cmd, std::ptr::null(), &values, &scratch, N),
            inv,
            &["NULL"],
        );
        refused(
            "CmdSort(pScratch NULL)",
            vksortCmdSort(sorter, cmd, &keys, &values, std::ptr::null(), N),
            inv,
            &["NULL"],
        );
        refused(
            "CmdSort(commandBuffer NULL)",
            vksortCmdSort(
                sorter,
                vk::CommandBuffer::null(),
                &keys,
                &values,
                &scratch,
                N,
            ),
            inv,
            &["commandBuffer"],
        );
        refused(
            "CmdSortIndirect(pCount NULL)",
            vksortCmdSortIndirect(sorter, cmd, &keys, &values, &scratch, std::ptr::null(), N),
            inv,
            &["NULL"],
        );
        // Counts over capacity.
        refused(
            "CmdSort(count over)",
            sort(sorter, &keys, Some(&values), &scratch, N + 1),
            cap,
            &["1001", "capacity 1000"],
        );
        refused(
            "CmdSort(count u64::MAX)",
            sort(sorter, &keys, Some(&values), &scratch, u64::MAX),
            cap,
            &["capacity 1000"],
        );
        refused(
            "CmdSortIndirect(capacity over)",
            ind(&keys, &count, N + 1),
            cap,
            &["1001", "capacity 1000"],
        );
        // Regions.
        let null_keys = VksortBufferRegion {
            buffer: vk::Buffer::null(),
            ..keys
        };
        refused(
            "CmdSort(keys VK_NULL_HANDLE)",
            sort(sorter, &null_keys, Some(&values), &scratch, N),
            buf,
            &["keys", "VK_NULL_HANDLE"],
        );
        let small_keys = VksortBufferRegion {
            size: N * 4 - 4,
            ..keys
        };
        refused(
            "CmdSort(keys too small)",
            sort(sorter, &small_keys, Some(&values), &scratch, N),
            buf,
            &["keys", "too small"],
        );
        let small_values = VksortBufferRegion { size: 4, ..values };
        refused(
            "CmdSort(values too small)",
            sort(sorter, &keys, Some(&small_values), &scratch, N),
            buf,
            &["values", "too small"],
        );
        let small_scratch = VksortBufferRegion { size: 4, ..scratch };
        refused(
            "CmdSort(scratch too small)",
            sort(sorter, &keys, Some(&values), &small_scratch, N),
            buf,
            &["scratch", "too small"],
        );
        let keys_no_storage = VksortBufferRegion {
            usage: vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
            ..keys
        };
        refused(
            "CmdSort(keys without STORAGE)",
            sort(sorter, &keys_no_storage, Some(&values), &scratch, N),
            buf,
            &["keys", "lacks usage", "STORAGE_BUFFER"],
        );
        let scratch_no_storage = VksortBufferRegion {
            usage: vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw(),
            ..scratch
        };
        refused(
            "CmdSort(scratch without STORAGE)",
            sort(sorter, &keys, Some(&values), &scratch_no_storage, N),
            buf,
            &["scratch", "lacks usage", "STORAGE_BUFFER"],
        );
        let misaligned = VksortBufferRegion {
            offset: 2,
            size: N * 4 - 4,
            ..keys
        };
        refused(
            "CmdSort(keys offset 2)",
            sort(sorter, &misaligned, Some(&values), &scratch, N / 2),
            buf,
            &["keys", "offset 2", "multiple"],
        );
        let values_in_keys = VksortBufferRegion {
            buffer: kb,
            offset: 0,
            ..values
        };
        refused(
            "CmdSort(values over the keys)",
            sort(sorter, &keys, Some(&values_in_keys), &scratch, N),
            buf,
            &["overlap", "keys", "values"],
        );
        refused(
            "CmdSortIndirect(count in the keys)",
            ind(
                &keys,
                &VksortBufferRegion {
                    buffer: kb,
                    offset: 16,
                    size: 4,
                    ..count
                },
                N,
            ),
            buf,
            &["overlap", "count"],
        );
        refused(
            "CmdSortIndirect(count offset 2)",
            ind(&keys, &VksortBufferRegion { offset: 2, ..count }, N),
            buf,
            &["count", "offset 2", "multiple of 4"],
        );
        refused(
            "CmdSortIndirect(count of 2 bytes)",
            ind(&keys, &VksortBufferRegion { size: 2, ..count }, N),
            buf,
            &["count", "too small"],
        );
        // Values present exactly when the sorter has them.
        refused(
            "CmdSort(no values)",
            sort(sorter, &keys, None, &scratch, N),
            inv,
            &["for values", "gave no value buffer"],
        );
        refused(
            "CmdSort(values to keys-only)",
            sort(keys_only, &keys, Some(&values), &scratch, N),
            inv,
            &["keys only", "gave values"],
        );

        // Nothing was recorded: the submitted command buffer leaves every buffer as filled.
        device.end_command_buffer(cmd).unwrap();
        let cmds = [cmd];
        device
            .queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                vk::Fence::null(),
            )
            .unwrap();
        device.queue_wait_idle(queue).unwrap();
        let after: Vec<Vec<u8>> = [&kbytes, &vbytes, &sbytes, &cbytes]
            .iter()
            .map(|b| b.to_vec())
            .collect();
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            assert!(b == a, "buffer {i} changed by refused sorts");
        }

        vksortDestroySorter(sorter);
        vksortDestroySorter(keys_only);
        vksortDestroyContext(ctx);
        device.destroy_command_pool(pool, None);
        for (b, m) in [(kb, km), (vb, vm), (sb, sm), (cb, cm)] {
            device.destroy_buffer(b, None);
            device.free_memory(m, None);
        }
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
