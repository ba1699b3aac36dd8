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
//! Each capture is read by `vksort_tools::capture::summarize` (`scripts/rdc-summary.py` with RenderDoc's Python
//! module, `/usr/bin/python3`), which replays it on the local device (lavapipe here) and lists its regions and
//! resources. The tests skip, saying why, only where RenderDoc (`librenderdoc`, `python3-renderdoc`) is not
//! installed (`./dev` installs it; the GPU machine has none). Named `capture` so that its executable and the
//! library's `tests/renderdoc.rs` (one renderer frame) keep apart in scripts/gpu-prepare.sh's `test-<name>`.
mod support;
use support::bin;

#[path = "../../tests/common/skip.rs"]
mod skip;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use vksort::gpu::{Buffer, Profiler};
use vksort::sort::{KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, ContextOptions};
use vksort_tools::capture::{summarize, RenderDoc, Summary, LAYER_ENV};

/// RenderDoc captures must not overlap; the context is shared.
static LOCK: Mutex<()> = Mutex::new(());

/// RenderDoc, loaded before any Vulkan instance of this process; None where it is not installed, after a
/// visible skip note for the calling test ([`skip::skip`]: a failure when `VKSORT_REQUIRE` names `renderdoc`).
fn renderdoc() -> Option<&'static RenderDoc> {
    static RD: OnceLock<Result<RenderDoc, String>> = OnceLock::new();
    let rd = RD.get_or_init(|| {
        let rd = RenderDoc::load().map_err(|e| format!("{e:#}"))?;
        vksort_tools::capture::python_module().map_err(|e| format!("{e:#}"))?;
        Ok(rd)
    });
    match rd {
        Ok(rd) => Some(rd),
        Err(e) => {
            skip::skip("renderdoc", e);
            None
        }
    }
}

/// The context, created after RenderDoc was loaded (so that its layer hooks the instance).
fn ctx() -> Arc<Context> {
    static CTX: OnceLock<Arc<Context>> = OnceLock::new();
    CTX.get_or_init(|| Context::new(ContextOptions::from_env()).expect("Vulkan context"))
        .clone()
}

fn tmp(name: &str) -> PathBuf {
    support::tmp_dir("capture", name)
}

/// Every buffer, pipeline, layout and shader module carries the name it was given (vksort's:
/// `vksort::<shader>`, `::layout`, `::set_layout`, `::module`).
fn assert_named(s: &Summary, what: &str) {
    for r in &s.resources {
        if ["Buffer", "PipelineState", "ShaderBinding", "Shader"].contains(&r.kind.as_str()) {
            assert!(
                r.named,
                "{what}: {} `{}` has no name of its own",
                r.kind, r.name
            );
        }
    }
}

fn summary(rdc: &Path) -> Summary {
    let s = summarize(rdc).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(s.driver, "Vulkan");
    s
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
    // Every algorithm of this build (Auto stands for one of them).
    for algo in SortAlgorithm::ALL
        .into_iter()
        .filter(|&a| a != SortAlgorithm::Auto)
    {
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
        let req = sorter.storage_requirements(n).unwrap();
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
        let s = summary(&rdc);
        assert_eq!(
            s.child_labels(&[]),
            ["renderdoc_test::frame"],
            "{algo:?}: regions at the top:\n{}",
            s.dump()
        );
        assert_eq!(
            s.child_labels(&["renderdoc_test::frame"]),
            ["vksort::sort"],
            "{algo:?}: regions in the frame:\n{}",
            s.dump()
        );
        // The passes: the innermost regions (a scan inside a sort labels its own region around its passes).
        let passes = s.leaves(&["renderdoc_test::frame", "vksort::sort"]);
        assert_eq!(
            passes.iter().map(|r| r.label()).collect::<Vec<_>>(),
            labels,
            "{algo:?}: the capture's passes (left) are not the profiler's (right):\n{}",
            s.dump()
        );
        for r in &passes {
            assert!(
                r.commands() > 0,
                "{algo:?}: region {} holds no command",
                r.label()
            );
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
        assert_named(&s, &format!("{algo:?}"));
        assert!(
            s.resources
                .iter()
                .any(|r| r.kind == "PipelineState" && r.name.starts_with("vksort::")),
            "{algo:?}: no vksort pipeline: {:?}",
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
        let out = Command::new(bin())
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
        let s = summary(&rdc);
        // The run's submission, the operation's scope (`vksort::sort`, `vksort::scan`, `vksort::compact`), its
        // passes.
        let scope = format!("vksort::{cmd}");
        let parent = ["vksort::capture", scope.as_str()];
        let regions = s.children(&parent);
        for label in &printed {
            assert!(
                regions.iter().any(|r| r.commands() > 0
                    && (r.label() == *label || r.label().starts_with(&format!("{label}::")))),
                "vksort {cmd}: pass {label} is not a region under {parent:?} in the capture:\n{}",
                s.dump()
            );
        }
        assert_named(&s, &format!("vksort {cmd}"));
        assert!(
            s.has_named("Buffer", "vksort::cli::input_keys"),
            "vksort {cmd}: {:?}",
            s.resources
        );
        println!("vksort {cmd} --capture: {printed:?} found under {parent:?}");
    }
}
