//! RenderDoc captures of vksort's work, opened the way the RenderDoc GUI opens them and checked: every pass is a
//! labelled region named as in the code and in vksort's profiler, inside `vksort::sort` (or the scan's or the
//! compaction's passes), and the buffers and pipelines carry their names.
//!
//! - `recorded_sorts_are_labelled_regions_of_a_capture`: this process loads RenderDoc's in-application API
//!   ([`vksort_tools::capture`]) before it creates its Vulkan context (`VKSORT_VALIDATION=1` puts the validation
//!   layer under RenderDoc's), records one GPU-count sort per algorithm with `Sorter::cmd_sort_indirect` into a
//!   submission of its own bracketed by `StartFrameCapture` / `EndFrameCapture`, and compares the capture's
//!   regions with the labels of a profiled run of the same sort.
//! - `cli_captures_sort_scan_and_compact`: `vksort sort|scan|compact --capture FILE.rdc --passes`, the passes it
//!   prints against the capture's regions.
//!
//! Each capture is read by `scripts/rdc-summary.py` (RenderDoc's Python module, `/usr/bin/python3`), which replays
//! it on the local device (lavapipe here) and prints its regions and resources as JSON. The tests skip, saying
//! why, only where RenderDoc (`librenderdoc`, `python3-renderdoc`) is not installed (`./dev` installs it; the
//! GPU machine has none).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use vksort::gpu::{Buffer, Profiler};
use vksort::sort::{KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, ContextOptions};
use vksort_tools::capture::{RenderDoc, LAYER_ENV};

/// RenderDoc captures must not overlap; the context is shared.
static LOCK: Mutex<()> = Mutex::new(());

fn python() -> &'static str {
    // Debian's python3-renderdoc is built for the system interpreter, not for another python3 on the PATH.
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// RenderDoc, loaded before any Vulkan instance of this process; None (with the reason printed) where it is not
/// installed.
fn renderdoc() -> Option<&'static RenderDoc> {
    static RD: OnceLock<Option<RenderDoc>> = OnceLock::new();
    RD.get_or_init(|| {
        let rd = match RenderDoc::load() {
            Ok(rd) => rd,
            Err(e) => {
                println!("skipped: {e:#}");
                return None;
            }
        };
        let module = Command::new(python())
            .args(["-c", "import renderdoc"])
            .env_remove(LAYER_ENV)
            .output();
        match module {
            Ok(o) if o.status.success() => Some(rd),
            Ok(o) => {
                println!(
                    "skipped: RenderDoc's Python module is missing (apt install python3-renderdoc): {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                None
            }
            Err(e) => {
                println!("skipped: cannot run {}: {e}", python());
                None
            }
        }
    })
    .as_ref()
}

/// The context, created after RenderDoc was loaded (so that its layer hooks the instance).
fn ctx() -> Arc<Context> {
    static CTX: OnceLock<Arc<Context>> = OnceLock::new();
    CTX.get_or_init(|| Context::new(ContextOptions::from_env()).expect("Vulkan context"))
        .clone()
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("renderdoc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What `scripts/rdc-summary.py` reads from a capture.
struct Summary {
    /// Each labelled region: its path of labels and the (dispatches + draws + copies + clears) inside it.
    regions: Vec<(Vec<String>, u64)>,
    /// (type, name, named by the application).
    resources: Vec<(String, String, bool)>,
}

impl Summary {
    fn read(rdc: &Path) -> Summary {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/rdc-summary.py");
        let out = Command::new(python())
            .arg(&script)
            .arg(rdc)
            // The replay makes its own instance: keep RenderDoc's capture layer out of it.
            .env_remove(LAYER_ENV)
            .output()
            .expect("run rdc-summary.py");
        assert!(
            out.status.success(),
            "rdc-summary.py {} failed: {}",
            rdc.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("rdc-summary.py JSON");
        assert_eq!(v["driver"], "Vulkan", "{v}");
        let regions = v["regions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let path = r["path"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
                    .collect();
                let work = ["dispatches", "draws", "copies", "clears"]
                    .iter()
                    .map(|k| r[k].as_u64().unwrap())
                    .sum();
                (path, work)
            })
            .collect();
        let resources = v["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["type"].as_str().unwrap().to_string(),
                    r["name"].as_str().unwrap().to_string(),
                    r["named"].as_bool().unwrap(),
                )
            })
            .collect();
        Summary { regions, resources }
    }

    /// The regions directly under the label path `parent`, in order, with their work.
    fn children(&self, parent: &[&str]) -> Vec<(String, u64)> {
        self.regions
            .iter()
            .filter(|(p, _)| {
                p.len() == parent.len() + 1 && p.iter().zip(parent).all(|(a, b)| a == b)
            })
            .map(|(p, w)| (p.last().unwrap().clone(), *w))
            .collect()
    }

    fn has_named(&self, ty: &str, name: &str) -> bool {
        self.resources
            .iter()
            .any(|(t, n, named)| t == ty && n == name && *named)
    }

    /// Every buffer, pipeline, layout and shader module carries the name it was given (vksort's:
    /// `vksort::<shader>`, `::layout`, `::set_layout`, `::module`).
    fn assert_named(&self, what: &str) {
        for (ty, name, named) in &self.resources {
            if ["Buffer", "PipelineState", "ShaderBinding", "Shader"].contains(&ty.as_str()) {
                assert!(*named, "{what}: {ty} `{name}` has no name of its own");
            }
        }
    }

    fn dump(&self) -> String {
        self.regions
            .iter()
            .map(|(p, w)| format!("  {} ({w} actions)", p.join(" > ")))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[test]
fn recorded_sorts_are_labelled_regions_of_a_capture() {
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let Some(rd) = renderdoc() else { return };
    let ctx = ctx();
    let d = tmp("recorded");
    // Validation sits under RenderDoc's layer, which mutes what passes up unless told otherwise
    // (`RenderDoc::load` does): a message sent down the chain still reaches the context's messenger.
    if ctx.validation_enabled() {
        let _ = ctx.take_validation_errors();
        let du = ash::ext::debug_utils::Instance::new(&vksort_entry(), ctx.instance());
        let msg = c"renderdoc test: a message through the layers";
        let data = ash::vk::DebugUtilsMessengerCallbackDataEXT::default().message(msg);
        // SAFETY: a live instance with VK_EXT_debug_utils (validation contexts enable it); `data` outlives the call.
        unsafe {
            du.submit_debug_utils_message(
                ash::vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                ash::vk::DebugUtilsMessageTypeFlagsEXT::GENERAL,
                &data,
            )
        };
        let got = ctx.take_validation_errors();
        assert!(
            got.iter().any(|m| m.contains("through the layers")),
            "the validation messenger no longer receives messages under RenderDoc: {got:?}"
        );
    }
    // Small enough for every algorithm (the single-workgroup sort takes 2048 keys on lavapipe).
    let n = 2000u64;
    let live = 1789u32;
    let keys_host: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 4001) as f32 * 0.5 - 600.0)
        .collect();
    let values_host: Vec<u32> = (0..n as u32).collect();
    for algo in [
        SortAlgorithm::Onesweep,
        SortAlgorithm::ReduceThenScan,
        SortAlgorithm::Small,
        SortAlgorithm::Msd,
    ] {
        let sorter = Sorter::new(
            &ctx,
            SortConfig {
                key: KeyType::F32,
                value: ValueType::U32,
                order: Order::Descending,
                algorithm: algo,
                max_n: n,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{algo:?}: {e}"));
        let keys = Buffer::from_slice(&ctx, "renderdoc_test::keys", &keys_host).unwrap();
        let values = Buffer::from_slice(&ctx, "renderdoc_test::values", &values_host).unwrap();
        let count = Buffer::from_slice(&ctx, "renderdoc_test::count", &[live]).unwrap();
        let req = sorter.storage_requirements(n);
        let scratch = Buffer::new(
            &ctx,
            "renderdoc_test::scratch",
            req.scratch_bytes,
            req.scratch_usage | ctx.default_usage(),
            vksort::gpu::MemoryLocation::GpuOnly,
        )
        .unwrap();
        let record = |rec: &mut vksort::gpu::Recorder| {
            sorter.cmd_sort_indirect(
                rec,
                keys.as_ref(),
                Some(values.as_ref()),
                scratch.as_ref(),
                count.as_ref(),
                n,
            )
        };
        // The profiler's pass labels of the same sort.
        let mut prof = Profiler::new(&ctx, 512).unwrap();
        ctx.submit_profiled("renderdoc_test::profiled", Some(&mut prof), record)
            .unwrap();
        let labels: Vec<String> = prof
            .results()
            .unwrap()
            .into_iter()
            .map(|p| p.label)
            .collect();
        assert!(!labels.is_empty(), "{algo:?}: no pass timed");
        // The captured sort: one submission of its own.
        let rdc = d.join(format!("{}.rdc", algo.name()));
        rd.capture(
            &ctx,
            &rdc,
            &format!("renderdoc test {}", algo.name()),
            || Ok(ctx.submit_timed("renderdoc_test::frame", None, record)?),
        )
        .unwrap_or_else(|e| panic!("{algo:?}: {e:#}"));
        // It sorted (the capture changes nothing): the live keys descending, the values following them.
        let sorted: Vec<f32> = keys.read_vec(live as usize).unwrap();
        assert!(
            sorted.windows(2).all(|w| w[0] >= w[1]),
            "{algo:?}: not sorted"
        );
        let s = Summary::read(&rdc);
        let frame = s.children(&[]);
        assert_eq!(
            frame.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ["renderdoc_test::frame"],
            "{algo:?}: regions at the top:\n{}",
            s.dump()
        );
        let sort = s.children(&["renderdoc_test::frame"]);
        assert_eq!(
            sort.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ["vksort::sort"],
            "{algo:?}: regions in the frame:\n{}",
            s.dump()
        );
        let passes = s.children(&["renderdoc_test::frame", "vksort::sort"]);
        assert_eq!(
            passes.iter().map(|r| r.0.clone()).collect::<Vec<_>>(),
            labels,
            "{algo:?}: the capture's passes (left) are not the profiler's (right):\n{}",
            s.dump()
        );
        for (label, work) in &passes {
            assert!(*work > 0, "{algo:?}: region {label} holds no command");
        }
        for name in [
            "renderdoc_test::keys",
            "renderdoc_test::values",
            "renderdoc_test::count",
            "renderdoc_test::scratch",
        ] {
            assert!(
                s.has_named("Buffer", name),
                "{algo:?}: no buffer named {name}: {:?}",
                s.resources
            );
        }
        s.assert_named(&format!("{algo:?}"));
        assert!(
            s.resources
                .iter()
                .any(|(t, n, _)| t == "PipelineState" && n.starts_with("vksort::radix_")),
            "{algo:?}: no vksort radix pipeline: {:?}",
            s.resources
        );
        println!(
            "{}: {} passes labelled in the capture: {}",
            algo.name(),
            passes.len(),
            labels.join(", ")
        );
    }
    if ctx.validation_enabled() {
        let errors = ctx.take_validation_errors();
        assert!(
            errors.is_empty(),
            "validation errors:\n{}",
            errors.join("\n")
        );
    }
}

/// The loader entry for the debug-utils instance functions (the context's own is crate-private).
fn vksort_entry() -> ash::Entry {
    // SAFETY: loading the system Vulkan loader, already loaded by the context.
    unsafe { ash::Entry::load() }.expect("Vulkan loader")
}

#[test]
fn cli_captures_sort_scan_and_compact() {
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if renderdoc().is_none() {
        return;
    }
    let d = tmp("cli");
    let cache = d.join("cache");
    let cases: [(&str, &[&str]); 3] = [
        (
            "sort",
            &[
                "--random", "20000", "--keys", "f32", "--values", "u32", "--algo", "onesweep",
            ],
        ),
        ("scan", &["--random", "20000"]),
        ("compact", &["--random", "20000"]),
    ];
    for (cmd, args) in cases {
        let rdc = d.join(format!("{cmd}.rdc"));
        let out = Command::new(env!("CARGO_BIN_EXE_vksort"))
            .arg(cmd)
            .args(args)
            .args(["--check", "--passes", "--capture"])
            .arg(&rdc)
            .env("VKSORT_VALIDATION", "1")
            .env("VKSORT_CACHE_DIR", &cache)
            // The child loads RenderDoc itself (and sets the layer's variable): as a user's shell would run it.
            .env_remove(LAYER_ENV)
            .output()
            .expect("run vksort");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "vksort {cmd} --capture failed: {stderr}"
        );
        assert!(!stderr.contains("[vksort validation]"), "{stderr}");
        assert!(stderr.contains("captured one run into"), "{stderr}");
        // `--passes` prints "  LABEL  TIME" per pass (summed over a label's repeats, e.g. the digit places).
        let printed: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("  vksort::"))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(!printed.is_empty(), "no passes printed: {stderr}");
        let s = Summary::read(&rdc);
        // The run's submission, the operation's scope (`vksort::sort`, `vksort::scan`, `vksort::compact`), its
        // passes.
        let scope = format!("vksort::{cmd}");
        let parent = ["vksort::capture", scope.as_str()];
        let regions = s.children(&parent);
        for label in &printed {
            assert!(
                regions
                    .iter()
                    .any(|(r, w)| *w > 0 && (r == label || r.starts_with(&format!("{label}::")))),
                "vksort {cmd}: pass {label} is not a region under {parent:?} in the capture:\n{}",
                s.dump()
            );
        }
        s.assert_named(&format!("vksort {cmd}"));
        assert!(
            s.has_named("Buffer", "vksort::bench::input_keys"),
            "vksort {cmd}: {:?}",
            s.resources
        );
        println!("vksort {cmd} --capture: {printed:?} found under {parent:?}");
    }
}
