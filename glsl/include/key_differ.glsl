// key_differ.glsl: where a workgroup's keys differ, and bit-range masks. Include after common.glsl (used by
// radix_local.glsl, radix_msd_split.comp and radix_msd_buckets.comp).

shared uint s_and[2];
shared uint s_or[2];

// AND and OR of (a, o) over the workgroup (every invocation calls it and gets the result): the bits where
// all the keys that went into them agree are those where AND == OR.
uvec2 wg_differ(uvec2 a, uvec2 o) {
    if (gl_LocalInvocationID.x == 0u) {
        s_and[0] = ~0u;
        s_and[1] = ~0u;
        s_or[0] = 0u;
        s_or[1] = 0u;
    }
    barrier();
    a = subgroupAnd(a);
    o = subgroupOr(o);
    if (subgroupElect()) {
        atomicAnd(s_and[0], a.x);
        atomicAnd(s_and[1], a.y);
        atomicOr(s_or[0], o.x);
        atomicOr(s_or[1], o.y);
    }
    barrier();
    uvec2 d = uvec2(s_and[0] ^ s_or[0], s_and[1] ^ s_or[1]);
    barrier();
    return d;
}

// Bits [lo, hi) of a 64-bit word pair.
uvec2 range_mask(uint lo, uint hi) {
    uvec2 below_hi = uvec2(hi >= 32u ? ~0u : (1u << hi) - 1u, hi >= 64u ? ~0u : (hi > 32u ? (1u << (hi - 32u)) - 1u : 0u));
    uvec2 below_lo = uvec2(lo >= 32u ? ~0u : (1u << lo) - 1u, lo > 32u ? (1u << (lo - 32u)) - 1u : 0u);
    return below_hi & ~below_lo;
}
