//! Key types and their order-preserving transforms: the Rust twin of `glsl/include/keys.glsl`, and the CPU
//! reference sort the tests compare against.
//!
//! A key's transformed bits order like the key: unsigned keys unchanged, signed keys with the sign bit flipped,
//! floats in IEEE 754 totalOrder (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN; negative -> all bits
//! flipped, positive -> sign bit set). Descending order inverts every transformed bit (equal keys keep their
//! input order). A bit range `[lo, hi)` selects bits of the transformed key, as CUB's begin_bit/end_bit do.

use crate::sort::{KeyType, Order};

/// The transformed (order-preserving) bits of a key given as raw bits (32-bit keys in the low word).
pub fn transform(kind: KeyType, raw: u64, order: Order) -> u64 {
    let t = match kind {
        KeyType::U32 => raw & 0xffff_ffff,
        KeyType::I32 => (raw ^ 0x8000_0000) & 0xffff_ffff,
        KeyType::F32 => {
            let x = raw as u32;
            (if x & 0x8000_0000 != 0 {
                !x
            } else {
                x | 0x8000_0000
            }) as u64
        }
        KeyType::U64 => raw,
        KeyType::I64 => raw ^ (1u64 << 63),
        KeyType::F64 => {
            if raw & (1u64 << 63) != 0 {
                !raw
            } else {
                raw | (1u64 << 63)
            }
        }
    };
    let t = match order {
        Order::Ascending => t,
        Order::Descending => !t,
    };
    if kind.bytes() == 4 {
        t & 0xffff_ffff
    } else {
        t
    }
}

/// The part of a transformed key the sort orders by: bits `[lo, hi)`.
pub fn sort_bits(kind: KeyType, raw: u64, order: Order, lo: u32, hi: u32) -> u64 {
    let t = transform(kind, raw, order) >> lo;
    let w = hi - lo;
    if w >= 64 {
        t
    } else {
        t & ((1u64 << w) - 1)
    }
}

/// A stable sort permutation of keys given as raw bits: `perm[i]` is the input index of output element i.
pub fn reference_permutation(
    kind: KeyType,
    raw: &[u64],
    order: Order,
    bits: Option<(u32, u32)>,
) -> Vec<usize> {
    let (lo, hi) = bits.unwrap_or((0, kind.bits()));
    let k: Vec<u64> = raw
        .iter()
        .map(|&r| sort_bits(kind, r, order, lo, hi))
        .collect();
    let mut perm: Vec<usize> = (0..raw.len()).collect();
    perm.sort_by_key(|&i| k[i]);
    perm
}
