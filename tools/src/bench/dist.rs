//! Input distributions of the CLI's `--random` and of the benchmark: the GPU-quicksort paper's test inputs
//! (Cederman & Tsigas: uniform, gaussian, bucket, sorted, zero, staggered, duplicates, and a visibility-ordering
//! workload) plus reverse order and CUB's entropy axis.
//!
//! Every distribution but `visibility` is defined on the order key of the element type (see [`super::data`]):
//! "uniform" means every order key equally likely, which for integers is every value and for floats every bit
//! pattern (as CUB's benchmark, NaNs included); "sorted" is ascending in the order vksort's sorts give. Keys of
//! 32, 64 and 128 bits follow the same definitions on their own widths. Generation is counter-based (element
//! `i` depends only on the seed and `i`) and spread over the host's cores, so the same `(distribution, n, seed)`
//! gives the same array on every machine. `scripts/anchors/cub_merge_bench.cu` ports the 32-bit forms to CUDA
//! so that CUB sorts the same inputs.
//!
//! # The visibility-ordering workload
//! The view depths of a particle system seen from a camera, the keys a renderer sorts to draw transparent
//! particles back to front ([`view_depth`]). The scene, fixed by the seed: 16 emitters, each a centre uniform in
//! the cube [-1, 1]^3 and a radius uniform in [0.05, 0.3]; particle `i` is, with probability 1/8, uniform in the
//! cube (background), else near emitter `(h >> 3) mod 16` (h a hash of the particle's index): the centre plus the
//! radius times an offset per axis of four uniforms in [0, 1) summed, less 2 (a bell of standard deviation
//! 0.58). The camera sits at [`CAMERA_EYE`] looking at the origin; a particle's key is its depth along the view
//! direction, dot(p - eye, forward): positive, between about 0.7 and 6.4, the particles in index (emission)
//! order, not in depth order. f32 and f64 keys are the depth itself; integer keys quantize it like a depth
//! buffer: t = (depth - (|eye| - 3)) / 6 clamped to [0, 1], as t (2^32 - 1) for 32-bit keys and t 2^64 for
//! 64-bit keys (their order keys); 128-bit keys put the 64-bit depth in the high half and the particle index
//! in the low half (unique keys: depth, then particle).

use super::data::{Column, ElemType};
use std::fmt;
use std::str::FromStr;

/// An input distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dist {
    /// Every order key equally likely.
    Uniform,
    /// The mean of four uniform keys (a bell shape around the middle of the key range).
    Gaussian,
    /// The array in p blocks; within each block, p runs of n/p^2 keys, run j uniform in the j-th of p equal
    /// sub-ranges of the key range (p = 128, fewer for small n).
    Bucket,
    /// Uniform, then sorted ascending.
    Sorted,
    /// Uniform, then sorted descending.
    Reverse,
    /// All elements zero.
    Zero,
    /// The array in p blocks; block i < p/2 is uniform in sub-range 2i+1, block i >= p/2 in sub-range
    /// 2(i - p/2) of the key range cut into p parts.
    Staggered,
    /// 16 distinct random keys, each element one of them at random.
    FewUnique,
    /// The bitwise AND of K uniform words (K = 1 is uniform; each bit is 1 with probability 2^-K).
    Entropy(u32),
    /// View depths of a particle cloud seen from a camera (see the module docs).
    Visibility,
}

/// Where the visibility workload's camera sits (it looks at the origin).
pub const CAMERA_EYE: [f64; 3] = [2.0, 1.5, -2.5];

impl Dist {
    /// The distributions the benchmark knows, for `--dists all` (entropy-1 is uniform).
    pub const ALL: [Dist; 12] = [
        Dist::Uniform,
        Dist::Gaussian,
        Dist::Bucket,
        Dist::Sorted,
        Dist::Reverse,
        Dist::Zero,
        Dist::Staggered,
        Dist::FewUnique,
        Dist::Entropy(2),
        Dist::Entropy(3),
        Dist::Entropy(4),
        Dist::Visibility,
    ];

    /// The distributions of the GPU-quicksort paper's experiments (Cederman & Tsigas), in its order.
    pub const PAPER: [Dist; 7] = [
        Dist::Uniform,
        Dist::Gaussian,
        Dist::Bucket,
        Dist::Sorted,
        Dist::Zero,
        Dist::Staggered,
        Dist::Visibility,
    ];

    /// Shannon entropy of one key bit, in bits (1.0 for uniform; CUB's `entropy0.544` is `entropy-3`).
    pub fn bit_entropy(self) -> Option<f64> {
        match self {
            Dist::Uniform => Some(1.0),
            Dist::Entropy(k) => {
                let p = 0.5f64.powi(k as i32);
                if p <= 0.0 || p >= 1.0 {
                    return Some(0.0);
                }
                Some(-(p * p.log2() + (1.0 - p) * (1.0 - p).log2()))
            }
            _ => None,
        }
    }

    /// Generates `n` elements of type `ty`.
    pub fn generate(self, ty: ElemType, n: usize, seed: u64) -> Column {
        if self == Dist::Zero {
            return Column::from_fn(ty, n, |_| 0);
        }
        let key = self.key_fn(ty, n, seed);
        let mut col = Column::from_fn(ty, n, |i| ty.from_order_key(key(i)));
        match self {
            Dist::Sorted => col.sort_by_order_key(false),
            Dist::Reverse => col.sort_by_order_key(true),
            _ => {}
        }
        col
    }

    /// Generates `n` order keys of `bits` bits (32, 64 or 128), unsorted for `Sorted` and `Reverse` (which sort
    /// them after). (`Zero` gives order key 0 here, the smallest key; [`Dist::generate`] gives the value 0.)
    pub fn order_keys(self, bits: u32, n: usize, seed: u64) -> Vec<u128> {
        let ty = match bits {
            32 => ElemType::U32,
            64 => ElemType::U64,
            _ => ElemType::U128,
        };
        let key = self.key_fn(ty, n, seed);
        super::data::par_generate(n, key)
    }

    /// The order key of element `i` of an array of `n` keys of type `ty`.
    fn key_fn(self, ty: ElemType, n: usize, seed: u64) -> impl Fn(usize) -> u128 + Sync {
        let bits = ty.bits();
        let mask = ty.mask();
        // p blocks (bucket, staggered), a power of two
        let p = {
            let mut p = 128u64;
            while p > 2 && p * p > n as u64 {
                p /= 2;
            }
            p
        };
        let block = (n as u64).div_ceil(p).max(1);
        let run = block.div_ceil(p).max(1);
        // a uniform key within sub-range `j` of `p` equal parts of the key range
        let in_part = move |j: u64, r: u128| -> u128 {
            let shift = bits - p.trailing_zeros();
            ((j as u128) << shift) | (r & ((1u128 << shift) - 1))
        };
        // uniform key words: 64-bit hashes, two for 128-bit keys
        let word = move |k: u64, i: u64| -> u128 {
            let h = |k: u64| hash(seed.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)), i);
            let lo = h(k) as u128;
            if bits > 64 {
                lo | (h(k + 1000) as u128) << 64
            } else {
                lo
            }
        };
        let uniques: Vec<u128> = (0..16)
            .map(|k| {
                (hash(seed ^ 0x5eed, k) as u128 | (hash(seed ^ 0x5eed, k + 16) as u128) << 64)
                    & mask
            })
            .collect();
        let scene = Scene::new(seed);
        move |i: usize| -> u128 {
            let i = i as u64;
            match self {
                Dist::Uniform | Dist::Sorted | Dist::Reverse => word(0, i) & mask,
                Dist::Gaussian => {
                    // the mean of four keys, without overflow: sum(x / 4) + sum(x mod 4) / 4
                    let (mut q, mut r) = (0u128, 0u128);
                    for k in 0..4 {
                        let x = word(k, i) & mask;
                        q += x >> 2;
                        r += x & 3;
                    }
                    q + (r >> 2)
                }
                Dist::Bucket => {
                    let j = ((i % block) / run).min(p - 1);
                    in_part(j, word(0, i))
                }
                Dist::Zero => 0,
                Dist::Staggered => {
                    let b = (i / block).min(p - 1);
                    let j = if b < p / 2 {
                        2 * b + 1
                    } else {
                        2 * (b - p / 2)
                    };
                    in_part(j, word(0, i))
                }
                Dist::FewUnique => uniques[(word(0, i) % 16) as usize],
                Dist::Entropy(k) => (0..k.max(1) as u64).fold(mask, |acc, j| acc & word(j, i)),
                Dist::Visibility => scene.key(ty, i),
            }
        }
    }
}

/// The visibility workload's scene (see the module docs).
#[derive(Clone, Copy, Debug)]
struct Scene {
    seed: u64,
    centres: [[f64; 3]; 16],
    radii: [f64; 16],
}

/// A uniform double in [0, 1) from the high 53 bits of a hash.
fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Seed offset of the scene's emitters.
const SCENE: u64 = 0x7669_7369_6269_6c65;

impl Scene {
    fn new(seed: u64) -> Self {
        let mut centres = [[0.0; 3]; 16];
        let mut radii = [0.0; 16];
        for k in 0..16 {
            for (a, c) in centres[k].iter_mut().enumerate() {
                *c = 2.0 * unit(hash(seed ^ SCENE, 3 * k as u64 + a as u64)) - 1.0;
            }
            radii[k] = 0.05 + 0.25 * unit(hash(seed ^ SCENE, 48 + k as u64));
        }
        Self {
            seed,
            centres,
            radii,
        }
    }

    /// The position of particle `i`.
    fn particle(&self, i: u64) -> [f64; 3] {
        let h = |k: u64| {
            hash(
                self.seed
                    .wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                i,
            )
        };
        let h0 = h(0);
        let mut p = [0.0; 3];
        if h0 & 7 == 0 {
            for (a, x) in p.iter_mut().enumerate() {
                *x = 2.0 * unit(h(1 + a as u64)) - 1.0;
            }
        } else {
            let k = ((h0 >> 3) % 16) as usize;
            for (a, x) in p.iter_mut().enumerate() {
                let w = h(1 + a as u64);
                let g: f64 = (0..4)
                    .map(|j| ((w >> (16 * j)) & 0xffff) as f64 / 65536.0)
                    .sum::<f64>()
                    - 2.0;
                *x = self.centres[k][a] + self.radii[k] * g;
            }
        }
        p
    }

    /// The order key of particle `i`'s depth as a key of type `ty`.
    fn key(&self, ty: ElemType, i: u64) -> u128 {
        let d = view_depth_of(self.particle(i));
        match ty {
            ElemType::F32 => ty.order_key((d as f32).to_bits() as u128),
            ElemType::F64 => ty.order_key(d.to_bits() as u128),
            _ => {
                let near = norm(CAMERA_EYE) - 3.0;
                let t = ((d - near) / 6.0).clamp(0.0, 1.0);
                match ty.bits() {
                    32 => (t * u32::MAX as f64) as u32 as u128,
                    64 => (t * 18_446_744_073_709_551_616.0) as u64 as u128,
                    _ => ((t * 18_446_744_073_709_551_616.0) as u64 as u128) << 64 | i as u128,
                }
            }
        }
    }
}

fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// The depth of point `p` seen from [`CAMERA_EYE`] looking at the origin: dot(p - eye, forward).
fn view_depth_of(p: [f64; 3]) -> f64 {
    let e = CAMERA_EYE;
    let len = norm(e);
    (0..3).map(|a| (p[a] - e[a]) * (-e[a] / len)).sum()
}

/// The view depth of particle `i` of the visibility workload with `seed` (see the module docs).
pub fn view_depth(seed: u64, i: u64) -> f64 {
    view_depth_of(Scene::new(seed).particle(i))
}

/// A 64-bit mix of (seed, index) (SplitMix64's finalizer over a Weyl step).
pub fn hash(seed: u64, i: u64) -> u64 {
    let mut z = seed
        .wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .wrapping_add(0x6a09_e667_f3bc_c909);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dist::Uniform => f.write_str("uniform"),
            Dist::Gaussian => f.write_str("gaussian"),
            Dist::Bucket => f.write_str("bucket"),
            Dist::Sorted => f.write_str("sorted"),
            Dist::Reverse => f.write_str("reverse"),
            Dist::Zero => f.write_str("zero"),
            Dist::Staggered => f.write_str("staggered"),
            Dist::FewUnique => f.write_str("few-unique"),
            Dist::Entropy(k) => write!(f, "entropy-{k}"),
            Dist::Visibility => f.write_str("visibility"),
        }
    }
}

impl FromStr for Dist {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().to_ascii_lowercase();
        Ok(match s.as_str() {
            "uniform" => Dist::Uniform,
            "gaussian" => Dist::Gaussian,
            "bucket" => Dist::Bucket,
            "sorted" => Dist::Sorted,
            "reverse" => Dist::Reverse,
            "zero" => Dist::Zero,
            "staggered" => Dist::Staggered,
            "few-unique" | "fewunique" | "duplicates" => Dist::FewUnique,
            "visibility" | "depth" => Dist::Visibility,
            other => match other.strip_prefix("entropy-").map(str::parse::<u32>) {
                Some(Ok(k)) if (1..=32).contains(&k) => Dist::Entropy(k),
                _ => {
                    return Err(format!(
                        "unknown distribution `{s}` (uniform, gaussian, bucket, sorted, reverse, zero, \
                         staggered, few-unique, entropy-K with K in 1..=32, visibility)"
                    ))
                }
            },
        })
    }
}
