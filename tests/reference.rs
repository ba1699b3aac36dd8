//! The CPU reference every GPU sort is checked against (`reference_permutation`, `cpu_sort_reference`), checked
//! itself against std without the library's key transform (`transform`/`sort_bits`, the twin of `keys.glsl`, so
//! a shared mistake would pass every GPU test). CPU only: no Vulkan.
//!
//! Full keys: the stable order of `f32::total_cmp` / `f64::total_cmp` (IEEE 754 totalOrder: NaNs by sign and
//! payload, -0.0 < +0.0) and of `Ord` for the integers, `std::cmp::Reverse` of it for descending (equal keys
//! keep their input order in both orders).
//!
//! Bit ranges `[lo, hi)` select bits of the key's order-preserving unsigned form, written here from std rather
//! than from the library: unsigned keys as they are; signed keys offset by 2^(b-1) in wider arithmetic
//! (`x - MIN`); floats through the integer std's `total_cmp` compares (`x ^ ((x >> (b-1)) as unsigned >> 1)` as a
//! signed integer), then offset like a signed key. That form is itself checked against `total_cmp`/`Ord` below.
//! Descending with a range is the `Reverse` of the selected bits (stable).
mod common;
use common::Rng;
use std::cmp::{Ordering, Reverse};
use vksort::sort::types::{cpu_sort_reference, reference_permutation};
use vksort::sort::{KeyType, Order};

/// The key's order-preserving unsigned form, independent of `vksort::sort::types::transform` (see the module
/// comment), as a u128 (narrower keys in the low bits).
fn order_form(key: KeyType, raw: u128) -> u128 {
    match key {
        KeyType::U32 => raw as u32 as u128,
        KeyType::U64 => raw as u64 as u128,
        KeyType::U128 => raw,
        KeyType::I32 => (raw as u32 as i32 as i64 - i32::MIN as i64) as u128,
        KeyType::I64 => (raw as u64 as i64 as i128 - i64::MIN as i128) as u128,
        KeyType::F32 => {
            let x = raw as u32 as i32;
            let t = x ^ (((x >> 31) as u32) >> 1) as i32;
            (t as i64 - i32::MIN as i64) as u128
        }
        KeyType::F64 => {
            let x = raw as u64 as i64;
            let t = x ^ (((x >> 63) as u64) >> 1) as i64;
            (t as i128 - i64::MIN as i128) as u128
        }
    }
}

/// std's order of two raw keys: `total_cmp` for floats, `Ord` for integers.
fn std_cmp(key: KeyType, a: u128, b: u128) -> Ordering {
    match key {
        KeyType::U32 => (a as u32).cmp(&(b as u32)),
        KeyType::I32 => (a as u32 as i32).cmp(&(b as u32 as i32)),
        KeyType::U64 => (a as u64).cmp(&(b as u64)),
        KeyType::I64 => (a as u64 as i64).cmp(&(b as u64 as i64)),
        KeyType::U128 => a.cmp(&b),
        KeyType::F32 => f32::from_bits(a as u32).total_cmp(&f32::from_bits(b as u32)),
        KeyType::F64 => f64::from_bits(a as u64).total_cmp(&f64::from_bits(b as u64)),
    }
}

/// A raw key ordered by std ([`std_cmp`]), so that `Reverse` applies.
#[derive(Clone, Copy, PartialEq, Eq)]
struct StdKey(KeyType, u128);

impl PartialOrd for StdKey {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for StdKey {
    fn cmp(&self, o: &Self) -> Ordering {
        std_cmp(self.0, self.1, o.1)
    }
}

/// Bits `[lo, hi)` of the order form.
fn field(key: KeyType, raw: u128, lo: u32, hi: u32) -> u128 {
    let f = order_form(key, raw) >> lo;
    if hi - lo >= 128 {
        f
    } else {
        f & ((1u128 << (hi - lo)) - 1)
    }
}

/// The expected stable permutation, from std's sort (stable) over indices.
fn expected(key: KeyType, raw: &[u128], order: Order, bits: Option<(u32, u32)>) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..raw.len()).collect();
    match (bits, order) {
        (None, Order::Ascending) => perm.sort_by_key(|&i| StdKey(key, raw[i])),
        (None, Order::Descending) => perm.sort_by_key(|&i| Reverse(StdKey(key, raw[i]))),
        (Some((lo, hi)), Order::Ascending) => perm.sort_by_key(|&i| field(key, raw[i], lo, hi)),
        (Some((lo, hi)), Order::Descending) => {
            perm.sort_by_key(|&i| Reverse(field(key, raw[i], lo, hi)))
        }
    }
    perm
}

/// Special keys of each type as raw bits: for floats NaNs of both signs (quiet and signalling, several
/// payloads), both zeros, both infinities, subnormals, the extremes and ones; for integers the extremes, zero and
/// the values around the sign boundary.
fn specials(key: KeyType) -> Vec<u128> {
    match key {
        KeyType::F32 => [
            0x7fc0_0000u32,
            0x7fc0_0001,
            0x7fff_ffff,
            0x7f80_0001,
            0x7fa0_0000,
            0xffc0_0000,
            0xffc0_0001,
            0xffff_ffff,
            0xff80_0001,
            0xffa0_0000,
            0x0000_0000,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x807f_ffff,
            f32::MIN_POSITIVE.to_bits(),
            (-f32::MIN_POSITIVE).to_bits(),
            f32::MAX.to_bits(),
            f32::MIN.to_bits(),
            1.0f32.to_bits(),
            (-1.0f32).to_bits(),
        ]
        .iter()
        .map(|&x| x as u128)
        .collect(),
        KeyType::F64 => [
            0x7ff8_0000_0000_0000u64,
            0x7ff8_0000_0000_0001,
            0x7fff_ffff_ffff_ffff,
            0x7ff0_0000_0000_0001,
            0x7ff4_0000_0000_0000,
            0xfff8_0000_0000_0000,
            0xfff8_0000_0000_0001,
            0xffff_ffff_ffff_ffff,
            0xfff0_0000_0000_0001,
            0xfff4_0000_0000_0000,
            0,
            1 << 63,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            1,
            (1 << 63) | 1,
            f64::MIN_POSITIVE.to_bits(),
            (-f64::MIN_POSITIVE).to_bits(),
            f64::MAX.to_bits(),
            f64::MIN.to_bits(),
            1.0f64.to_bits(),
            (-1.0f64).to_bits(),
        ]
        .iter()
        .map(|&x| x as u128)
        .collect(),
        KeyType::U128 => vec![
            0,
            1,
            u128::MAX,
            u128::MAX - 1,
            1 << 127,
            (1 << 127) - 1,
            1 << 64,
            u64::MAX as u128,
        ],
        _ => {
            let b = key.bits();
            let mask = (1u128 << b) - 1;
            let sign = 1u128 << (b - 1);
            vec![
                0,
                1,
                mask,
                mask - 1,
                sign,
                sign - 1,
                sign + 1,
                1 << 31,
                (1 << 31) - 1,
            ]
        }
    }
}

/// Keys of `key`: every special several times, random keys, and random keys from a few values (ties).
fn keys(key: KeyType, seed: u64) -> Vec<u128> {
    let mut r = Rng(seed);
    let mask = match key.bits() {
        128 => u128::MAX,
        b => (1u128 << b) - 1,
    };
    let draw = |r: &mut Rng| (((r.next_u64() as u128) << 64) | r.next_u64() as u128) & mask;
    let sp = specials(key);
    let few: Vec<u128> = (0..6).map(|_| draw(&mut r)).collect();
    let mut v: Vec<u128> = Vec::new();
    for _ in 0..4 {
        v.extend(&sp);
    }
    for i in 0..1500 {
        v.push(match i % 3 {
            0 => draw(&mut r),
            1 => few[(r.next_u32() % 6) as usize],
            _ => sp[(r.next_u32() as usize) % sp.len()],
        });
    }
    // Shuffle (Fisher-Yates), so that ties meet in no particular order.
    for i in (1..v.len()).rev() {
        let j = (r.next_u64() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// Bit ranges of a `b`-bit key: the full range as a range, the lowest and highest bit, ranges across word
/// boundaries, and a few drawn at random.
fn ranges(b: u32, seed: u64) -> Vec<(u32, u32)> {
    let mut v = vec![
        (0, b),
        (0, 1),
        (b - 1, b),
        (1, b - 1),
        (b / 2, b),
        (0, b / 2),
        (3, b / 2 + 5),
    ];
    if b > 32 {
        v.extend([(28, 36), (31, 33), (32, 64.min(b))]);
    }
    let mut r = Rng(seed);
    for _ in 0..4 {
        let lo = r.next_u32() % b;
        let hi = lo + 1 + r.next_u32() % (b - lo);
        v.push((lo, hi));
    }
    v
}

/// The independent order form agrees with std: ordering by it is ordering by `total_cmp` / `Ord`.
#[test]
fn order_form_agrees_with_std() {
    for key in KeyType::ALL {
        let v = keys(key, 1);
        for (i, &a) in v.iter().enumerate().step_by(7) {
            for &b in &v {
                assert_eq!(
                    order_form(key, a).cmp(&order_form(key, b)),
                    std_cmp(key, a, b),
                    "{key:?} {a:#x} {b:#x} (index {i})"
                );
            }
        }
    }
}

/// `reference_permutation` is std's stable order, for every key type, both orders, with and without bit ranges.
#[test]
fn reference_permutation_is_stds_stable_order() {
    for (k, key) in KeyType::ALL.into_iter().enumerate() {
        let raw = keys(key, 10 + k as u64);
        for order in [Order::Ascending, Order::Descending] {
            let mut bits: Vec<Option<(u32, u32)>> = vec![None];
            bits.extend(ranges(key.bits(), 20 + k as u64).into_iter().map(Some));
            for b in bits {
                let got = reference_permutation(key, &raw, order, b);
                let want = expected(key, &raw, order, b);
                if got != want {
                    let i = got.iter().zip(&want).position(|(a, b)| a != b).unwrap();
                    panic!(
                        "{key:?} {order:?} bits {b:?}: first difference at {i}: key {:#x} (index {}) where std puts {:#x} (index {})",
                        raw[got[i]], got[i], raw[want[i]], want[i]
                    );
                }
            }
            // The full range given as a range is the full key's order.
            assert_eq!(
                reference_permutation(key, &raw, order, Some((0, key.bits()))),
                expected(key, &raw, order, None),
                "{key:?} {order:?}: bits (0, {})",
                key.bits()
            );
        }
    }
}

/// `cpu_sort_reference` on typed slices (the host forms' reference) sorts keys and carries values like std.
#[test]
fn cpu_sort_reference_is_stds_stable_sort() {
    fn one<K: vksort::sort::SortKey + PartialEq + std::fmt::Debug>(
        key: KeyType,
        from: impl Fn(u128) -> K,
        seed: u64,
    ) {
        let raw = keys(key, seed);
        for order in [Order::Ascending, Order::Descending] {
            for b in [None, Some(ranges(key.bits(), seed)[6])] {
                let mut k: Vec<K> = raw.iter().map(|&x| from(x)).collect();
                let mut v: Vec<u32> = (0..raw.len() as u32).collect();
                cpu_sort_reference(&mut k, Some(&mut v), order, b);
                let want = expected(key, &raw, order, b);
                let want_k: Vec<K> = want.iter().map(|&i| from(raw[i])).collect();
                let want_v: Vec<u32> = want.iter().map(|&i| i as u32).collect();
                // Compared as bits: NaN keys are not equal to themselves.
                let bits = |s: &[K]| -> Vec<u8> { bytemuck::cast_slice(s).to_vec() };
                assert_eq!(bits(&k), bits(&want_k), "{key:?} {order:?} {b:?}: keys");
                assert_eq!(v, want_v, "{key:?} {order:?} {b:?}: values");
            }
        }
    }
    one(KeyType::U32, |x| x as u32, 31);
    one(KeyType::I32, |x| x as u32 as i32, 32);
    one(KeyType::F32, |x| f32::from_bits(x as u32), 33);
    one(KeyType::U64, |x| x as u64, 34);
    one(KeyType::I64, |x| x as u64 as i64, 35);
    one(KeyType::F64, |x| f64::from_bits(x as u64), 36);
    one(KeyType::U128, |x| x, 37);
}
