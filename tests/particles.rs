//! The particle renderer's picture (`examples/particles`, its `renderer.rs` and `scene.rs` reused here): a small
//! scene rendered on the GPU with vksort's back-to-front sort matches a CPU reference image within a small
//! tolerance, and the same frame drawn unsorted (in the cull's order) does not: order matters in the picture.
//! The tolerance is for f32 rounding in the simulation and the rasterizer only: the frame's sort output itself
//! is read back and must be exactly back to front, no particle out of order or repeated.
//!
//! The reference is generated here, not stored: the same initial particles and cameras (`scene.rs`), the
//! simulation's steps in f32, the cull's frustum test, a stable sort by view depth (descending), and each
//! particle's quad rasterized at pixel centres with the fragment shader's soft disc, blended "over" in f32 and
//! rounded to half floats after each blend as the `R16G16B16A16_SFLOAT` target stores it. Quads are parallel to
//! the image plane, so each covers an axis-aligned rectangle whose border has alpha 0 (rasterization rules at
//! the edges change nothing). The images are compared after the renderer's conversion to 8 bits; the visible
//! count the GPU's cull found (read back once, after the frames) must match the reference's.
//!
//! The renderer makes its own instance and device, so the test holds `common::lock()`; with
//! `VKSORT_VALIDATION=1` it runs under the validation layer and fails on any validation error. The images are
//! written under the target's test directory for inspection.

#[path = "../examples/particles/renderer.rs"]
#[allow(dead_code)]
mod renderer;
#[path = "../examples/particles/scene.rs"]
#[allow(dead_code)]
mod scene;

mod common;

use renderer::{Image, Options, Renderer};
use scene::{Camera, Mat4, Particle};
use std::path::Path;

const N: u32 = 3000;
const WIDTH: u32 = 160;
const HEIGHT: u32 = 120;
const FRAMES: u32 = 3;
const SIZE: f32 = 0.5;

/// Renders the scene on the GPU: the last frame and the GPU's visible count. Sorted, the last frame's sort
/// output is checked exactly: depths non-increasing (back to front), each index a distinct particle.
fn render(sort: bool) -> (Image, u32) {
    let mut opts = Options::new(N, WIDTH, HEIGHT);
    opts.size = SIZE;
    opts.sort = sort;
    let mut r = Renderer::new(&opts).expect("renderer");
    let stats = r.render(FRAMES, |_| {}).expect("frames");
    assert_eq!(stats.frames.len(), FRAMES as usize);
    let out = r.read_image().expect("read back");
    if sort {
        let (keys, indices) = r.read_sorted().expect("read back the sort");
        assert_eq!(keys.len() as u32, out.1, "sorted count vs the draw's count");
        let depth = |k: u32| f32::from_bits(k);
        let misordered = keys
            .windows(2)
            .filter(|w| depth(w[0]).total_cmp(&depth(w[1])).is_lt())
            .count();
        assert_eq!(
            misordered, 0,
            "{misordered} particles out of back-to-front order"
        );
        let mut seen = vec![false; N as usize];
        for &i in &indices {
            assert!(
                (i as usize) < seen.len() && !seen[i as usize],
                "index {i} out of range or repeated"
            );
            seen[i as usize] = true;
        }
    }
    let errors = r.take_validation_errors();
    assert!(
        errors.is_empty(),
        "validation errors:\n{}",
        errors.join("\n")
    );
    if sort {
        println!(
            "sorted with {:?} on {}; GPU frame times (ms): {:?}",
            r.sort_algorithm(),
            r.device_name(),
            stats
                .frames
                .iter()
                .map(|t| (t.total() / 1e6 * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>()
        );
    }
    out
}

fn transform(m: &Mat4, v: [f32; 4]) -> [f32; 4] {
    let mut out = [0.0f32; 4];
    for (r, o) in out.iter_mut().enumerate() {
        *o = (0..4).map(|c| m[c][r] * v[c]).sum();
    }
    out
}

/// f32 rounded to the nearest half float (ties to even), as the colour target stores each blend's result.
fn to_half(x: f32) -> f32 {
    let a = x.abs();
    if a < 2f32.powi(-14) {
        // Subnormal halves: multiples of 2^-24.
        return (x * 2f32.powi(24)).round_ties_even() / 2f32.powi(24);
    }
    let bits = x.to_bits();
    let keep = 13; // f32 has 23 mantissa bits, f16 10
    let lsb = (bits >> keep) & 1;
    let rounded = (bits + (1 << (keep - 1)) - 1 + lsb) & !((1 << keep) - 1);
    f32::from_bits(rounded)
}

/// The CPU reference of the last frame (see the module docs): the picture and the visible count.
fn reference(sort: bool) -> (Vec<[f32; 4]>, u32) {
    let mut ps: Vec<Particle> = scene::initial_particles(N, SIZE, 1);
    let sim = scene::SIM;
    for _ in 0..FRAMES {
        for p in &mut ps {
            let [x, y, z] = p.pos;
            let r2 = x * x + y * y + z * z + sim.eps2;
            let inv = 1.0 / r2.sqrt();
            let k = -sim.gm * inv * inv * inv;
            for i in 0..3 {
                p.vel[i] += p.pos[i] * k * sim.dt;
                p.pos[i] += p.vel[i] * sim.dt;
            }
        }
    }
    let cam = Camera::at_frame(FRAMES - 1, WIDTH, HEIGHT);
    // The cull (shaders/cull.comp).
    let norm = |t: f32| {
        let l = (1.0 + t * t).sqrt();
        (1.0 / l, t / l)
    };
    let (nx, ny) = (norm(cam.tan_half[0]), norm(cam.tan_half[1]));
    let mut visible: Vec<(f32, usize)> = ps
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let c = transform(&cam.view, [p.pos[0], p.pos[1], p.pos[2], 1.0]);
            let depth = -c[2];
            let r = p.size * std::f32::consts::SQRT_2;
            let inside = depth > cam.near
                && depth < cam.far
                && nx.0 * c[0] - nx.1 * c[2] >= -r
                && -nx.0 * c[0] - nx.1 * c[2] >= -r
                && ny.0 * c[1] - ny.1 * c[2] >= -r
                && -ny.0 * c[1] - ny.1 * c[2] >= -r;
            inside.then_some((depth, i))
        })
        .collect();
    if sort {
        // Back to front, stable.
        visible.sort_by(|a, b| b.0.total_cmp(&a.0));
    }
    let mut img = vec![renderer::CLEAR; (WIDTH * HEIGHT) as usize];
    for &(_, i) in &visible {
        let p = &ps[i];
        // The four corners in framebuffer coordinates, as the vertex shader and the viewport place them.
        let corner = |cx: f32, cy: f32| {
            let w = [0, 1, 2].map(|k| p.pos[k] + (cam.right[k] * cx + cam.up[k] * cy) * p.size);
            let c = transform(&cam.view_proj, [w[0], w[1], w[2], 1.0]);
            [
                (c[0] / c[3] + 1.0) * 0.5 * WIDTH as f32,
                (c[1] / c[3] + 1.0) * 0.5 * HEIGHT as f32,
            ]
        };
        let (lo, hi) = (corner(-1.0, -1.0), corner(1.0, 1.0));
        let (x0, x1) = (lo[0].min(hi[0]), lo[0].max(hi[0]));
        let (y0, y1) = (lo[1].min(hi[1]), lo[1].max(hi[1]));
        let color = p.color.to_le_bytes().map(|b| b as f32 / 255.0);
        let px0 = (x0 - 0.5).ceil().max(0.0) as u32;
        let py0 = (y0 - 0.5).ceil().max(0.0) as u32;
        for py in py0..HEIGHT {
            let cy = py as f32 + 0.5;
            if cy >= y1 {
                break;
            }
            for px in px0..WIDTH {
                let cx = px as f32 + 0.5;
                if cx >= x1 {
                    break;
                }
                // The corner coordinates interpolated linearly (all corners share one w).
                let u = -1.0 + 2.0 * (cx - lo[0]) / (hi[0] - lo[0]);
                let v = -1.0 + 2.0 * (cy - lo[1]) / (hi[1] - lo[1]);
                let a = color[3] * (1.0 - (u * u + v * v)).max(0.0);
                let d = &mut img[(py * WIDTH + px) as usize];
                for k in 0..3 {
                    d[k] = to_half(color[k] * a + d[k] * (1.0 - a));
                }
                d[3] = to_half(a + d[3] * (1.0 - a));
            }
        }
    }
    (img, visible.len() as u32)
}

fn to_u8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// (mean absolute difference per RGB channel, in 8-bit steps; share of pixels whose largest difference is over
/// 4 steps).
fn compare(a: &[[f32; 4]], b: &[[f32; 4]]) -> (f64, f64) {
    let mut sum = 0u64;
    let mut bad = 0usize;
    for (p, q) in a.iter().zip(b) {
        let d = (0..3)
            .map(|k| (to_u8(p[k]) as i32 - to_u8(q[k]) as i32).unsigned_abs())
            .collect::<Vec<_>>();
        sum += d.iter().map(|&x| x as u64).sum::<u64>();
        bad += usize::from(d.iter().any(|&x| x > 4));
    }
    (
        sum as f64 / (3 * a.len()) as f64,
        bad as f64 / a.len() as f64,
    )
}

fn save(name: &str, pixels: &[[f32; 4]]) {
    // Best effort: the test binary may run on another machine (the GPU machine) where the build's target
    // folder does not exist.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let _ = std::fs::create_dir_all(dir);
    let path = dir.join(format!("particles-{name}.png"));
    let Ok(file) = std::fs::File::create(&path) else {
        eprintln!("(could not write {})", path.display());
        return;
    };
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), WIDTH, HEIGHT);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let data: Vec<u8> = pixels
        .iter()
        .flat_map(|p| [to_u8(p[0]), to_u8(p[1]), to_u8(p[2])])
        .collect();
    enc.write_header().unwrap().write_image_data(&data).unwrap();
    println!("wrote {}", path.display());
}

#[test]
fn sorted_frame_matches_the_cpu_reference_and_unsorted_differs() {
    let _gpu = common::lock();
    let (sorted, gpu_visible) = render(true);
    let (unsorted, _) = render(false);
    let (want, cpu_visible) = reference(true);
    save("gpu-sorted", &sorted.pixels);
    save("gpu-unsorted", &unsorted.pixels);
    save("cpu-reference", &want);
    assert!(
        gpu_visible.abs_diff(cpu_visible) <= 2,
        "the GPU's cull kept {gpu_visible} particles, the reference {cpu_visible}"
    );
    assert!(
        cpu_visible > N / 2,
        "the scene shows only {cpu_visible} particles"
    );
    let (mean, bad) = compare(&sorted.pixels, &want);
    let (mean_u, bad_u) = compare(&unsorted.pixels, &want);
    println!(
        "visible {gpu_visible} (reference {cpu_visible}); sorted vs reference: mean {mean:.3} steps, {:.2}% of \
         pixels off by more than 4; unsorted vs reference: mean {mean_u:.3} steps, {:.2}%",
        bad * 100.0,
        bad_u * 100.0
    );
    assert!(
        mean < 0.25 && bad < 0.002,
        "the sorted frame does not match the reference: mean {mean:.3} steps, {:.2}% of pixels off",
        bad * 100.0
    );
    assert!(
        mean_u > 10.0 * mean.max(0.1) && bad_u > 0.05,
        "the unsorted frame does not differ visibly: mean {mean_u:.3} steps, {:.2}% of pixels off",
        bad_u * 100.0
    );
}
