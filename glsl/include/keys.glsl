// keys.glsl: order-preserving bit transforms of sort keys (the Rust twin is src/sort/types.rs, `transform`).
//
// A key is a uvec2 (x = low word, y = high word; 32-bit keys use x only). key_transform() maps it to an
// unsigned integer whose order is the key type's order:
//   0 u32, 3 u64: identity
//   1 i32, 4 i64: flip the sign bit
//   2 f32, 5 f64: IEEE 754 totalOrder: negative -> flip all bits, positive -> set the sign bit
//                 (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN)
// Descending order inverts every bit of the transformed key, so equal keys keep their input order (stable).
// Bit ranges [lo, hi) apply to the transformed (and, for descending, inverted) bits, as in CUB.
// Keys are moved untransformed; the transform only decides digits, so no inverse transform is ever needed.

const uint KEY_KIND_U32 = 0u;
const uint KEY_KIND_I32 = 1u;
const uint KEY_KIND_F32 = 2u;
const uint KEY_KIND_U64 = 3u;
const uint KEY_KIND_I64 = 4u;
const uint KEY_KIND_F64 = 5u;

uvec2 key_transform(uvec2 k, uint kind, bool descending) {
    uvec2 t = k;
    if (kind == KEY_KIND_I32) {
        t.x ^= 0x80000000u;
    } else if (kind == KEY_KIND_F32) {
        t.x = (t.x & 0x80000000u) != 0u ? ~t.x : (t.x | 0x80000000u);
    } else if (kind == KEY_KIND_I64) {
        t.y ^= 0x80000000u;
    } else if (kind == KEY_KIND_F64) {
        if ((t.y & 0x80000000u) != 0u) {
            t = ~t;
        } else {
            t.y |= 0x80000000u;
        }
    }
    if (descending) t = ~t;
    return t;
}

// Bits [shift, shift + width) of a transformed key, `mask` = (1 << width) - 1, width <= 32 - (shift % 32)
// is not required: digits may straddle the two words.
uint key_digit(uvec2 t, uint shift, uint mask) {
    uint v;
    if (shift >= 32u) {
        v = t.y >> (shift - 32u);
    } else if (shift == 0u) {
        v = t.x;
    } else {
        v = (t.x >> shift) | (t.y << (32u - shift));
    }
    return v & mask;
}

// Bits [lo, hi) of a 64-bit word pair.
uvec2 range_mask(uint lo, uint hi) {
    uvec2 below_hi = uvec2(hi >= 32u ? ~0u : (1u << hi) - 1u, hi >= 64u ? ~0u : (hi > 32u ? (1u << (hi - 32u)) - 1u : 0u));
    uvec2 below_lo = uvec2(lo >= 32u ? ~0u : (1u << lo) - 1u, lo > 32u ? (1u << (lo - 32u)) - 1u : 0u);
    return below_hi & ~below_lo;
}
