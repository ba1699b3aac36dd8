//! The particle scene, host side: the particle record, the deterministic initial state, the simulation's
//! constants and the camera of each frame.
//!
//! Contract: everything here is a pure function of its arguments (a seed, a frame number, a resolution), so that
//! the renderer (`renderer.rs`) and the image test's CPU reference (`tests/particles.rs`) build the same scene.
//! The GPU passes take these values as uploaded data and push constants; the matrices are column-major, as GLSL
//! reads them, for Vulkan's clip space (y down, depth 0..1) with a right-handed view that looks down -z.

use bytemuck::{Pod, Zeroable};

/// One particle, as the shaders' `Particle` (std430, 32 bytes; `shaders/particle.glsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct Particle {
    /// World position.
    pub pos: [f32; 3],
    /// Half the side of the particle's quad, world units.
    pub size: f32,
    /// World velocity.
    pub vel: [f32; 3],
    /// RGBA8 (red in the low byte), as GLSL's `unpackUnorm4x8` reads it.
    pub color: u32,
}

/// The simulation's constants: a softened central mass, one semi-implicit Euler step per frame.
#[derive(Clone, Copy, Debug)]
pub struct Sim {
    /// Seconds per step.
    pub dt: f32,
    /// Gravitational parameter of the central mass.
    pub gm: f32,
    /// Softening length squared (keeps the force finite at the centre).
    pub eps2: f32,
}

pub const SIM: Sim = Sim {
    dt: 1.0 / 60.0,
    gm: 40.0,
    eps2: 0.25,
};

/// The particles' default half-size for `n` particles: shrinks as 1/sqrt(n) so that the covered area (the
/// fragment work) stays about the same at any count.
pub fn default_size(n: u32) -> f32 {
    (0.15 * (1e4 / n.max(1) as f32).sqrt()).clamp(0.002, 0.6)
}

/// SplitMix64: a deterministic generator without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` particles in a thick disc of radius 10 around the origin, on near-circular orbits, each with a colour
/// (hue by angle and radius, shifted by half a turn below the mid-plane; alpha 0.55..0.95) and a half-size of
/// `size` times 0.6..1.4. Deterministic in `seed`.
pub fn initial_particles(n: u32, size: f32, seed: u64) -> Vec<Particle> {
    let mut rng = Rng(seed ^ 0x005e_ed0f_9a11_c1e5);
    (0..n)
        .map(|_| {
            let r = 1.0 + 9.0 * rng.next().sqrt();
            let theta = rng.next() * std::f32::consts::TAU;
            let bell = rng.next() + rng.next() + rng.next() - 1.5;
            let y = bell * 0.8 * (1.2 - r / 10.0);
            let pos = [r * theta.cos(), y, r * theta.sin()];
            // The circular speed at radius r around the softened mass, counter-clockwise seen from +y.
            let r2 = r * r + SIM.eps2;
            let speed = (SIM.gm * r * r / (r2 * r2.sqrt())).sqrt();
            let vel = [-speed * theta.sin(), 0.0, speed * theta.cos()];
            // A spiral of hues, complementary above and below the disc's mid-plane: seen from above, the upper
            // half covers the lower one only when drawn back to front.
            let half = if y < 0.0 { 0.5 } else { 0.0 };
            let hue = (theta / std::f32::consts::TAU + r / 12.0 + half).fract();
            let [cr, cg, cb] = hue_rgb(hue);
            let alpha = 0.55 + 0.4 * rng.next();
            let size = size * (0.6 + 0.8 * rng.next());
            Particle {
                pos,
                size,
                vel,
                color: pack_rgba8([cr, cg, cb, alpha]),
            }
        })
        .collect()
}

/// A saturated colour of hue `h` (0..1).
fn hue_rgb(h: f32) -> [f32; 3] {
    let k = |n: f32| {
        let x = (n + h * 6.0) % 6.0;
        1.0 - (x.min(4.0 - x).clamp(0.0, 1.0))
    };
    [k(5.0), k(3.0), k(1.0)].map(|c| 0.15 + 0.85 * c)
}

fn pack_rgba8(c: [f32; 4]) -> u32 {
    c.iter()
        .enumerate()
        .map(|(i, &v)| ((v.clamp(0.0, 1.0) * 255.0).round() as u32) << (8 * i))
        .sum()
}

/// A column-major 4x4 matrix (`m[column][row]`), as GLSL's `mat4`.
pub type Mat4 = [[f32; 4]; 4];

/// `a * b`.
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut m = [[0.0f32; 4]; 4];
    for (c, col) in m.iter_mut().enumerate() {
        for (r, v) in col.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    m
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalize(a: [f32; 3]) -> [f32; 3] {
    let l = dot(a, a).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// The camera of one frame: an orbit around the origin.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub view: Mat4,
    pub view_proj: Mat4,
    /// Camera right and up in world space (the billboards' axes).
    pub right: [f32; 3],
    pub up: [f32; 3],
    /// tan of half the horizontal and vertical field of view.
    pub tan_half: [f32; 2],
    pub near: f32,
    pub far: f32,
}

impl Camera {
    /// The camera of frame `frame` (0-based) for a `width` x `height` image: 60 degrees vertical field of view,
    /// 13 units from the origin (the disc overflows the picture: the cull has work), 0.45 rad above the disc,
    /// turning 0.004 rad per frame.
    pub fn at_frame(frame: u32, width: u32, height: u32) -> Camera {
        let (near, far) = (0.1f32, 100.0f32);
        let aspect = width as f32 / height as f32;
        let tan_y = (30.0f32).to_radians().tan();
        let azimuth = 0.6 + frame as f32 * 0.004;
        let elevation = 0.45f32;
        let dist = 13.0f32;
        let eye = [
            dist * elevation.cos() * azimuth.cos(),
            dist * elevation.sin(),
            dist * elevation.cos() * azimuth.sin(),
        ];
        let f = normalize(sub([0.0; 3], eye));
        let right = normalize(cross(f, [0.0, 1.0, 0.0]));
        let up = cross(right, f);
        let view = [
            [right[0], up[0], -f[0], 0.0],
            [right[1], up[1], -f[1], 0.0],
            [right[2], up[2], -f[2], 0.0],
            [-dot(right, eye), -dot(up, eye), dot(f, eye), 1.0],
        ];
        let fy = 1.0 / tan_y;
        // Vulkan clip space: y down (so world up is screen up, the -fy), depth 0 at near and 1 at far.
        let proj = [
            [fy / aspect, 0.0, 0.0, 0.0],
            [0.0, -fy, 0.0, 0.0],
            [0.0, 0.0, far / (near - far), -1.0],
            [0.0, 0.0, near * far / (near - far), 0.0],
        ];
        Camera {
            view,
            view_proj: mul(&proj, &view),
            right,
            up,
            tan_half: [tan_y * aspect, tan_y],
            near,
            far,
        }
    }
}
