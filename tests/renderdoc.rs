//! One frame of the particle renderer (`examples/particles`) captured with RenderDoc and opened the way the
//! RenderDoc GUI opens it: the frame is one labelled region holding the renderer's passes and vksort's sort in
//! order (`particles::simulate`, `particles::cull`, `vksort::sort` > `vksort::radix::...`, `particles::draw`),
//! each with its dispatches or its draw, and every object of the renderer and of vksort carries its name.
//!
//! This process loads RenderDoc's in-application API (`tools/src/capture.rs`, included by path, as the example
//! does) before the renderer creates its instance, renders two frames and captures the third
//! (`StartFrameCapture` / `EndFrameCapture` around its submission); `capture::summarize` replays the capture
//! through RenderDoc's Python module. Skipped, saying why, only where RenderDoc (`librenderdoc`,
//! `python3-renderdoc`) is not installed (`./dev` installs it).
//!
//! With `VKSORT_VALIDATION=1` the validation layer runs under RenderDoc's (`capture::RenderDoc::load` un-mutes
//! its messages) and any error fails the test, but one: while capturing, RenderDoc itself calls
//! `vkInvalidateMappedMemoryRanges` on its own read-back memory with sizes that are not multiples of
//! `nonCoherentAtomSize` (VUID-VkMappedMemoryRange-size-01390; neither the renderer nor vksort calls that
//! function). `tests/particles.rs` validates the same renderer without RenderDoc.

#[path = "../tools/src/capture.rs"]
#[allow(dead_code)]
mod capture;
#[path = "../examples/particles/renderer.rs"]
#[allow(dead_code)]
mod renderer;
#[path = "../examples/particles/scene.rs"]
#[allow(dead_code)]
mod scene;

mod common;

use renderer::{Options, Renderer};
use std::path::Path;

/// RenderDoc's own call under capture (see the module docs).
const RENDERDOC_OWN: &str = "VUID-VkMappedMemoryRange-size-01390";

#[test]
fn a_renderer_frame_is_labelled_and_named_in_a_capture() {
    let _gpu = common::lock();
    let rd = match capture::RenderDoc::load().and_then(|rd| capture::python_module().map(|_| rd)) {
        Ok(rd) => rd,
        Err(e) => return common::skip("renderdoc", &format!("{e:#}")),
    };
    let mut opts = Options::new(3000, 96, 64);
    opts.size = 0.5;
    // Onesweep, whatever the device's policy would pick for this size: its passes are known.
    opts.algorithm = vksort::sort::SortAlgorithm::Onesweep;
    let mut r = Renderer::new(&opts).expect("renderer");
    r.render(2, |_| {}).expect("frames");
    let rdc = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("particles-frame-{}.rdc", std::process::id()));
    let ctx = r.context().clone();
    rd.capture(&ctx, &rdc, "particles test frame", || r.render(1, |_| {}))
        .expect("capture");
    let algorithm = r.sort_algorithm();
    let errors: Vec<String> = r
        .take_validation_errors()
        .into_iter()
        .filter(|e| !e.contains(RENDERDOC_OWN))
        .collect();
    drop(ctx);
    drop(r);
    assert!(
        errors.is_empty(),
        "validation errors:\n{}",
        errors.join("\n")
    );

    let s = capture::summarize(&rdc).expect("summary");
    println!("{} ({algorithm:?}):\n{}", rdc.display(), s.dump());
    assert_eq!(s.driver, "Vulkan");
    assert_eq!(s.child_labels(&[]), ["particles::frame"], "{}", s.dump());
    let frame = ["particles::frame"];
    assert_eq!(
        s.child_labels(&frame),
        [
            "particles::simulate",
            "particles::cull",
            "vksort::sort",
            "particles::draw"
        ],
        "{}",
        s.dump()
    );
    let pass = |label: &str| {
        s.children(&frame)
            .into_iter()
            .find(|r| r.label() == label)
            .unwrap()
    };
    assert_eq!(pass("particles::simulate").dispatches, 1);
    assert_eq!(pass("particles::cull").dispatches, 1);
    assert_eq!(pass("particles::draw").draws, 1);
    // vksort's passes inside its scope, each with its dispatch, named as in the code (`vksort::radix::...`).
    let sort = s.children(&["particles::frame", "vksort::sort"]);
    assert!(!sort.is_empty(), "{}", s.dump());
    for p in &sort {
        assert!(
            p.label().starts_with("vksort::radix::") && p.dispatches >= 1,
            "{}: {}",
            p.label(),
            s.dump()
        );
    }
    assert_eq!(algorithm, Some(vksort::sort::SortAlgorithm::Onesweep));
    let labels: Vec<&str> = sort.iter().map(|p| p.label()).collect();
    // Per place, or (GPUs up to the policy's `fused_max` keys) the upfront pass and the places in one dispatch.
    let per_place = [
        "vksort::radix::setup",
        "vksort::radix::upfront",
        "vksort::radix::onesweep::place0",
        "vksort::radix::onesweep::place1",
        "vksort::radix::onesweep::place2",
        "vksort::radix::onesweep::place3",
    ];
    let fused = ["vksort::radix::setup", "vksort::radix::onesweep::fused"];
    assert!(
        labels == per_place || labels == fused,
        "{labels:?}: {}",
        s.dump()
    );
    // Every object the renderer and vksort made carries its name (RenderDoc keeps no names for command buffers,
    // and the renderer leaves the instance-level objects unnamed: see renderer.rs).
    for r in &s.resources {
        let instance_level = r.kind == "Device" && !r.name.starts_with("particles::");
        if r.kind != "CommandBuffer" && !instance_level {
            assert!(r.named, "{} `{}` has no name of its own", r.kind, r.name);
        }
    }
    for name in [
        "particles::particles",
        "particles::depth_keys",
        "particles::sorted_indices",
        "particles::draw_args",
        "particles::sort_scratch",
    ] {
        assert!(s.has_named("Buffer", name), "no buffer {name}");
    }
    assert!(s.has_named("Texture", "particles::color"));
    for p in ["particles::simulate", "particles::cull", "particles::draw"] {
        assert!(s.has_named("PipelineState", p), "no pipeline {p}");
    }
    let _ = std::fs::remove_file(&rdc);
}
