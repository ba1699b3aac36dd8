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
//! Where no C compiler or Vulkan header is installed (a bare GPU machine), the C build is skipped with a message.

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

/// A message the test harness does not capture.
fn note(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

#[test]
fn header_is_current() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/vksort.h"));
    let committed =
        std::fs::read_to_string(repo().join("capi/include/vksort.h")).unwrap_or_default();
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

/// The libraries a Rust static library needs from the system (as `--print native-static-libs` lists them on
/// Linux).
const NATIVE_LIBS: &[&str] = &[
    "-lvulkan",
    "-lgcc_s",
    "-lutil",
    "-lrt",
    "-lpthread",
    "-lm",
    "-ldl",
    "-lc",
];

#[test]
fn c_example_sorts() {
    let Some(cc) = compiler("CC", "cc", "c") else {
        // The GPU machine has no compiler: scripts/gpu-prepare.sh builds the example here and the run points
        // VKSORT_C_EXAMPLE at it.
        if let Ok(exe) = std::env::var("VKSORT_C_EXAMPLE") {
            run_c_example(Path::new(&exe));
            return;
        }
        note("c_api: skipped: no C compiler with vulkan/vulkan.h (install gcc and libvulkan-dev)");
        return;
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

    // C99, linked against the static library.
    run(Command::new(&cc)
        .arg("-std=c99")
        .args(warn)
        .arg("-I")
        .arg(&include)
        .arg(&src)
        .arg(&lib)
        .args(NATIVE_LIBS)
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
            .args(NATIVE_LIBS)
            .arg("-o")
            .arg(out_dir.join("sort_cpp")));
    } else {
        note("c_api: C++ build skipped: no C++ compiler");
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
            note("c_api: skipped: no Vulkan loader");
            return;
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

/// `VksortContextCreateInfo::pEnabled`: a device created with vksort's extensions but none of its optional
/// features, told so, is planned within them: a small sorter is made, a sorter beyond one storage-buffer binding
/// (which needs bufferDeviceAddress) is refused at `vksortCreateSorter` naming the feature.
#[test]
fn enabled_features_are_what_the_caller_says() {
    // SAFETY (test): plain Vulkan set-up, everything destroyed at the end.
    unsafe {
        let Ok(entry) = ash::Entry::load() else {
            note("c_api: skipped: no Vulkan loader");
            return;
        };
        let app = ash::vk::ApplicationInfo::default().api_version(ash::vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &ash::vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap();
        let gipa = Some(entry.static_fn().get_instance_proc_addr);
        let mut req = std::mem::MaybeUninit::<VksortDeviceRequirements>::zeroed();
        let pd = instance
            .enumerate_physical_devices()
            .unwrap()
            .into_iter()
            .find(|&pd| {
                vksortGetDeviceRequirements(
                    gipa,
                    instance.handle(),
                    app.api_version,
                    pd,
                    req.as_mut_ptr(),
                ) == VksortResult::VKSORT_SUCCESS
            })
            .expect("a device vksort can use");
        // Only the extensions that need no feature struct: push descriptors (and match-any where listed).
        let mut enabled = req.assume_init();
        let keep: Vec<*const std::ffi::c_char> = enabled.extensionNames
            [..enabled.extensionCount as usize]
            .iter()
            .copied()
            .filter(|&p| std::ffi::CStr::from_ptr(p) != ash::ext::subgroup_size_control::NAME)
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
        let family = enabled.computeQueueFamily;
        let prio = [1.0f32];
        let queues = [ash::vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let device = instance
            .create_device(
                pd,
                &ash::vk::DeviceCreateInfo::default()
                    .queue_create_infos(&queues)
                    .enabled_extension_names(&keep),
                None,
            )
            .unwrap();
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
