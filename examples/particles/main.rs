//! A particle renderer that sorts with vksort: the fullest example of embedding vksort in a Vulkan renderer.
//!
//! ```sh
//! cargo run --release --example particles -- --particles N --frames F --width W --height H --out FILE.png
//!     [--algo NAME] [--no-sort] [--size S] [--seed S] [--device INDEX|NAME] [--quiet] [--capture FILE.rdc]
//! ```
//!
//! A headless renderer (`renderer.rs`, the frame; `vulkan.rs`, its Vulkan objects; no window) with its own instance and
//! device, adopted into vksort, renders F frames of N particles (`scene.rs`: a disc of particles orbiting a central
//! mass, seen by a slowly turning camera). Each frame is ONE command buffer: simulate (compute), cull against the view
//! frustum (compute; the visible count stays on the GPU, as the indirect draw's instance count and the sort's GPU-side
//! count), sort the visible particles back to front by view depth (vksort, `Sorter::cmd_sort_indirect`), draw them as
//! alpha-blended camera-facing quads into an offscreen `R16G16B16A16_SFLOAT` image. The last frame is written to
//! FILE.png.
//!
//! Output: one line per frame (GPU time of each pass, from timestamps; `--quiet` leaves them out), then one
//! summary line of `key=value` fields, for scripts:
//!
//! ```text
//! summary particles=100000 frames=100 width=1280 height=720 algo=auto sort=onesweep visible_last=61234
//!   simulate_ms=0.021 cull_ms=0.034 sort_ms=0.412 draw_ms=0.853 frame_ms=1.320 sort_share=0.312 fps=701.4
//! ```
//! (one line). The `_ms` fields are means over the frames after the first (the first one, when it is the
//! only one); `frame_ms` is their sum, `sort_share` is `sort_ms / frame_ms`, `fps` counts frames over wall
//! time (two frames in flight, the CPU recording one while the GPU runs the other). `algo` is what was asked
//! (`--algo`, any `vksort::sort::SortAlgorithm::from_name` name, default `auto`), `sort` what it recorded
//! (`none` with `--no-sort`). `VKSORT_VALIDATION=1` runs under the validation layer (with synchronization
//! validation); any validation error makes the run fail (exit status 1). `VKSORT_DEVICE` picks the device as
//! `--device` does. `--capture FILE.rdc` captures the last frame with RenderDoc (loading librenderdoc.so before the
//! instance is created; its in-application API brackets the frame's submission): open it with
//! `qrenderdoc FILE.rdc` to see `particles::frame` > `particles::simulate`, `particles::cull`, `vksort::sort` >
//! `vksort::radix::...`, `particles::draw`, and every object by its name.

// RenderDoc's in-application API: the command line's module, shared by path (its capture-reading half serves the
// tests, not this example).
#[path = "../../tools/src/capture.rs"]
#[allow(dead_code)]
mod capture;
mod renderer;
mod scene;

use anyhow::{bail, Context as _, Result};
use renderer::{FrameTimes, Options, Renderer};
use std::path::PathBuf;
use vksort::sort::SortAlgorithm;

struct Args {
    opts: Options,
    frames: u32,
    out: PathBuf,
    algo: String,
    quiet: bool,
    capture: Option<PathBuf>,
}

const USAGE: &str = "usage: particles [--particles N] [--frames F] [--width W] [--height H] [--out FILE.png] \
                     [--algo NAME] [--no-sort] [--size S] [--seed S] [--device INDEX|NAME] [--quiet] \
                     [--capture FILE.rdc]";

/// A count: an integer, or a float form such as 1e6.
fn count(s: &str) -> Result<u32> {
    let v: f64 = s
        .parse()
        .with_context(|| format!("`{s}` is not a number"))?;
    if v < 1.0 || v > u32::MAX as f64 || v.fract() != 0.0 {
        bail!("`{s}` is not a positive integer");
    }
    Ok(v as u32)
}

fn parse() -> Result<Args> {
    let mut particles = 100_000;
    let (mut width, mut height, mut frames) = (1280, 720, 100);
    let mut out = PathBuf::from("particles.png");
    let mut algo = "auto".to_string();
    let (mut sort, mut quiet) = (true, false);
    let (mut size, mut seed, mut device, mut capture) = (None, 1u64, None, None);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .with_context(|| format!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--particles" => particles = count(&value()?)?,
            "--frames" => frames = count(&value()?)?,
            "--width" => width = count(&value()?)?,
            "--height" => height = count(&value()?)?,
            "--out" => out = value()?.into(),
            "--algo" => algo = value()?,
            "--no-sort" => sort = false,
            "--size" => size = Some(value()?.parse::<f32>().context("--size")?),
            "--seed" => seed = value()?.parse().context("--seed")?,
            "--device" => device = Some(value()?),
            "--quiet" => quiet = true,
            "--capture" => capture = Some(PathBuf::from(value()?)),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => bail!("unknown argument `{a}`\n{USAGE}"),
        }
    }
    let algorithm = SortAlgorithm::from_name(&algo).with_context(|| {
        let names: Vec<&str> = SortAlgorithm::ALL.iter().map(|a| a.name()).collect();
        format!(
            "unknown sort algorithm `{algo}` (one of {})",
            names.join(", ")
        )
    })?;
    let mut opts = Options::new(particles, width, height);
    opts.size = size.unwrap_or(opts.size);
    opts.seed = seed;
    opts.sort = sort;
    opts.algorithm = algorithm;
    if device.is_some() {
        opts.device = device;
    }
    Ok(Args {
        opts,
        frames,
        out,
        algo,
        quiet,
        capture,
    })
}

fn ms(ns: f64) -> f64 {
    ns / 1e6
}

fn main() -> Result<()> {
    let args = parse()?;
    let opts = &args.opts;
    // RenderDoc hooks only instances created after it is loaded.
    let renderdoc = match &args.capture {
        Some(_) => Some(capture::RenderDoc::load()?),
        None => None,
    };
    let mut r = Renderer::new(opts)?;
    let sort_name = r.sort_algorithm().map_or("none", |a| a.name());
    println!(
        "particles: {} particles, {}x{}, {} frames on {} (sort: {sort_name}, validation {})",
        opts.particles,
        opts.width,
        opts.height,
        args.frames,
        r.device_name(),
        opts.validation
    );
    let quiet = args.quiet;
    let print = move |t: &FrameTimes| {
        if !quiet {
            println!(
                "frame {}: simulate {:.3} ms, cull {:.3} ms, sort {:.3} ms, draw {:.3} ms, total {:.3} ms",
                t.frame,
                ms(t.simulate),
                ms(t.cull),
                ms(t.sort),
                ms(t.draw),
                ms(t.total())
            );
        }
    };
    let stats = match (&renderdoc, &args.capture) {
        (Some(rd), Some(path)) => {
            // Every frame but the last, then the last one inside the capture.
            let mut stats = r.render(args.frames - 1, print)?;
            let ctx = r.context().clone();
            let last = rd.capture(&ctx, path, "particles: one frame", || r.render(1, print))?;
            stats.frames.extend(last.frames);
            stats.wall += last.wall;
            let (a, b, c) = rd.api_version();
            println!(
                "captured the last frame into {} (RenderDoc API {a}.{b}.{c}; open it with `qrenderdoc {0}`)",
                path.display()
            );
            stats
        }
        _ => r.render(args.frames, print)?,
    };
    let (image, visible) = r.read_image()?;
    write_png(&args.out, &image)?;
    let errors = r.take_validation_errors();
    drop(r);

    // Means over the frames after the first (which includes first-use costs), or the first when alone.
    let steady: Vec<&FrameTimes> = stats
        .frames
        .iter()
        .skip(usize::from(stats.frames.len() > 1))
        .collect();
    let mean = |f: fn(&FrameTimes) -> f64| {
        steady.iter().map(|t| f(t)).sum::<f64>() / steady.len().max(1) as f64
    };
    let (sim, cull, sort, draw) = (
        mean(|t| t.simulate),
        mean(|t| t.cull),
        mean(|t| t.sort),
        mean(|t| t.draw),
    );
    let frame = sim + cull + sort + draw;
    println!(
        "summary particles={} frames={} width={} height={} algo={} sort={sort_name} visible_last={visible} \
         simulate_ms={:.4} cull_ms={:.4} sort_ms={:.4} draw_ms={:.4} frame_ms={:.4} sort_share={:.4} fps={:.2}",
        opts.particles,
        args.frames,
        opts.width,
        opts.height,
        args.algo,
        ms(sim),
        ms(cull),
        ms(sort),
        ms(draw),
        ms(frame),
        if frame > 0.0 { sort / frame } else { 0.0 },
        stats.frames.len() as f64 / stats.wall.as_secs_f64().max(1e-9)
    );
    println!("wrote {}", args.out.display());
    if !errors.is_empty() {
        bail!("{} validation errors (listed above)", errors.len());
    }
    Ok(())
}

/// Writes `image` as an 8-bit RGB PNG (linear values clamped to 0..1).
fn write_png(path: &std::path::Path, image: &renderer::Image) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), image.width, image.height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header()?;
    let data: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(|p| [p[0], p[1], p[2]])
        .map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
        .collect();
    w.write_image_data(&data)?;
    w.finish()?;
    Ok(())
}
