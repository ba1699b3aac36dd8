//! Input distributions of the CLI's `--random` and of the benchmark: the GPU-quicksort paper's test inputs
//! (uniform, gaussian, bucket, sorted, zero, staggered, duplicates) plus reverse order and CUB's entropy axis.
//!
//! Every distribution is defined on the order key of the element type (see [`super::data`]): "uniform" means
//! every order key equally likely, which for integers is every value and for floats every bit pattern (as CUB's
//! benchmark, NaNs included); "sorted" is ascending in the order a radix sort gives. Generation is
//! counter-based (element `i` depends only on the seed and `i`) and spread over the host's cores, so the same
//! `(distribution, n, seed)` gives the same array on every machine.

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
}

impl Dist {
    /// The distributions the benchmark knows, for `--dists all`.
    pub const ALL: [Dist; 9] = [
        Dist::Uniform,
        Dist::Gaussian,
        Dist::Bucket,
        Dist::Sorted,
        Dist::Reverse,
        Dist::Zero,
        Dist::Staggered,
        Dist::FewUnique,
        Dist::Entropy(3),
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
            return Column::from_raw_bits(ty, &vec![0; n]);
        }
        Column::from_order_keys(ty, &self.order_keys(ty.bits(), n, seed))
    }

    /// Generates `n` order keys of `bits` bits (32 or 64). (`Zero` gives order key 0 here, the smallest key;
    /// [`Dist::generate`] gives the value 0.)
    pub fn order_keys(self, bits: u32, n: usize, seed: u64) -> Vec<u64> {
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let range = mask as u128 + 1;
        // the sub-range `j` of `parts` equal parts of the key range, and a uniform key within it
        let in_part = move |j: u64, parts: u64, r: u64| -> u64 {
            let width = (range / parts as u128) as u64;
            let lo = (range * j as u128 / parts as u128) as u64;
            lo.wrapping_add(if width == 0 { 0 } else { r % width }) & mask
        };
        let p = {
            let mut p = 128u64;
            while p > 2 && p * p > n as u64 {
                p /= 2;
            }
            p
        };
        let block = (n as u64).div_ceil(p).max(1);
        let run = block.div_ceil(p).max(1);
        let uniques: Vec<u64> = (0..16).map(|k| hash(seed ^ 0x5eed, k) & mask).collect();
        let mut out = par_generate(n, |i| {
            let i = i as u64;
            let h = |k: u64| hash(seed.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)), i);
            match self {
                Dist::Uniform | Dist::Sorted | Dist::Reverse => h(0) & mask,
                Dist::Gaussian => {
                    let s: u128 = (0..4).map(|k| (h(k) & mask) as u128).sum();
                    (s / 4) as u64
                }
                Dist::Bucket => {
                    let j = ((i % block) / run).min(p - 1);
                    in_part(j, p, h(0))
                }
                Dist::Zero => 0,
                Dist::Staggered => {
                    let b = (i / block).min(p - 1);
                    let j = if b < p / 2 {
                        2 * b + 1
                    } else {
                        2 * (b - p / 2)
                    };
                    in_part(j, p, h(0))
                }
                Dist::FewUnique => uniques[(h(0) % 16) as usize],
                Dist::Entropy(k) => (0..k.max(1) as u64).fold(mask, |acc, j| acc & h(j)),
            }
        });
        match self {
            Dist::Sorted => out.sort_unstable(),
            Dist::Reverse => out.sort_unstable_by(|a, b| b.cmp(a)),
            _ => {}
        }
        out
    }
}

/// Generates `n` values of `f(i)` on all host cores.
fn par_generate(n: usize, f: impl Fn(usize) -> u64 + Sync) -> Vec<u64> {
    let mut out = vec![0u64; n];
    let threads = std::thread::available_parallelism()
        .map(|t| t.get())
        .unwrap_or(1)
        .min(16);
    if n < 1 << 16 || threads == 1 {
        out.iter_mut().enumerate().for_each(|(i, x)| *x = f(i));
        return out;
    }
    let chunk = n.div_ceil(threads);
    std::thread::scope(|s| {
        for (c, part) in out.chunks_mut(chunk).enumerate() {
            let f = &f;
            s.spawn(move || {
                for (j, x) in part.iter_mut().enumerate() {
                    *x = f(c * chunk + j);
                }
            });
        }
    });
    out
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
            other => match other.strip_prefix("entropy-").map(str::parse::<u32>) {
                Some(Ok(k)) if (1..=32).contains(&k) => Dist::Entropy(k),
                _ => {
                    return Err(format!(
                        "unknown distribution `{s}` (uniform, gaussian, bucket, sorted, reverse, zero, \
                         staggered, few-unique, entropy-K with K in 1..=32)"
                    ))
                }
            },
        })
    }
}
