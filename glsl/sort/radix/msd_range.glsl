// msd_range.glsl: the MSD sort's key range (radix_msd_differ / _split / _buckets). Include after common.glsl
// and keys.glsl.
//
// The MSD sort works on biased keys: k' = key_transform(k) - bias, where bias is the smallest transformed key
// masked to the sorted bits [lo, hi). The bias has no bit outside [lo, hi) and no key's bits [lo, hi) are
// below it, so the subtraction borrows nothing across lo or hi: k' keeps the key's order and equalities on
// [lo, hi), bits [lo, hi) of k' run from 0 to (max - min), and the split digit (the DIGIT_BITS bits ending at
// the highest bit of max - min) spreads keys whose high bits barely vary (f32 depths in 0.4..6.4 share
// sign and most exponent bits: 3-5 buckets by their highest differing bits, ~100 by their range). A bias of 0
// (the smallest key has no bit in [lo, hi)) gives the plain highest-differing-bit digit.

shared uint s_rng[4];   // wg_min_max: min low, min high, max low, max high

bool lt64(uvec2 a, uvec2 b) {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

uvec2 min64(uvec2 a, uvec2 b) {
    return lt64(b, a) ? b : a;
}

uvec2 max64(uvec2 a, uvec2 b) {
    return lt64(a, b) ? b : a;
}

uvec2 sub64(uvec2 a, uvec2 b) {
    uint borrow;
    uint x = usubBorrow(a.x, b.x, borrow);
    return uvec2(x, a.y - b.y - borrow);
}

// Min and max (64-bit, unsigned) over the workgroup, in place: every invocation calls it (uniform control
// flow) and gets the result.
void wg_min_max(inout uvec2 mn, inout uvec2 mx) {
    if (gl_LocalInvocationID.x == 0u) {
        s_rng[0] = ~0u;
        s_rng[1] = ~0u;
        s_rng[2] = 0u;
        s_rng[3] = 0u;
    }
    barrier();
    uint min_hi = subgroupMin(mn.y);
    uint max_hi = subgroupMax(mx.y);
    if (subgroupElect()) {
        atomicMin(s_rng[1], min_hi);
        atomicMax(s_rng[3], max_hi);
    }
    barrier();
    min_hi = s_rng[1];
    max_hi = s_rng[3];
    uint min_lo = subgroupMin(mn.y == min_hi ? mn.x : ~0u);
    uint max_lo = subgroupMax(mx.y == max_hi ? mx.x : 0u);
    if (subgroupElect()) {
        atomicMin(s_rng[0], min_lo);
        atomicMax(s_rng[2], max_lo);
    }
    barrier();
    mn = uvec2(s_rng[0], min_hi);
    mx = uvec2(s_rng[2], max_hi);
    barrier();
}
