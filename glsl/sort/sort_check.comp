#version 460
// sort_check.comp: pass `vksort::sort::check` (src/sort/check.rs): checks a sort's output where it lies, so that
// a large result need not travel to the host. Not part of any sort.
//
// Per element i of the output (keys of KEY_WORDS words, values of VAL_WORDS words):
// - order: the element before it must not order after it (the key type's order, restricted to the bit mask,
//   ascending or descending); the smallest such i goes to result[0] (atomicMin; all ones when none);
// - stability (pc.stable, with values): where the two keys are equal, the earlier value must be smaller, read as
//   an unsigned integer (values are the input indices); the smallest such i goes to result[1];
// - fingerprint: a 64-bit hash of the element's raw words (key words, then value words), summed over all
//   elements (mod 2^64) as four 16-bit chunk sums per workgroup, result[4 + 4 g ...]; the host adds them up and
//   compares with the same sum over the input (`fingerprint` in check.rs is this hash's Rust twin), so an
//   output that is not a permutation of the input pairs shows up without reading it back.
// result[0..1] must hold all ones before the pass (the host fills them).
//
// Layout: workgroup g covers elements [g * WG_SIZE * ITEMS, ...), invocation t its elements t, t + WG_SIZE, ...
// (coalesced); the predecessor of the tile's first element is read from the tile before. WG_SIZE * ITEMS is at
// most 65536, so a workgroup's chunk sums stay below 2^32.
#include "common.glsl"

layout(constant_id = 2) const uint ITEMS = 16;
layout(constant_id = 4) const uint KEY_WORDS = 1;  // 1, 2 or 4
layout(constant_id = 5) const uint VAL_WORDS = 0;  // 0, 1 or 2

SIDE(0, 1, readonly, keys, vals);
BUFFER(2, , result);

layout(push_constant) uniform Push {
    uvec4 mask;       // bits of the transformed key that take part in the order, per word (low word first)
    uint n;
    uint kind;        // keys.glsl KEY_KIND_* (0-5), 6: u128 (unsigned)
    uint descending;
    uint stable;
    uint groups;
} pc;

shared uint s_sum[4];

// The hash's mixer (a 32-bit finaliser with good avalanche: every input bit flips each output bit with
// probability close to 1/2).
uint mix32(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

uvec4 load_key(uint i) {
    uvec4 k = uvec4(0u);
    [[unroll]] for (uint w = 0u; w < KEY_WORDS; w++) k[w] = keys[i * KEY_WORDS + w];
    return k;
}

uvec2 load_val(uint i) {
    uvec2 v = uvec2(0u);
    [[unroll]] for (uint w = 0u; w < VAL_WORDS; w++) v[w] = vals[i * VAL_WORDS + w];
    return v;
}

// The key's bits in an unsigned order (keys.glsl's transform, up to four words), masked.
uvec4 order_bits(uvec4 k) {
    uint top = KEY_WORDS - 1u;
    if (pc.kind == 1u || pc.kind == 4u) {
        k[top] ^= 0x80000000u;
    } else if (pc.kind == 2u || pc.kind == 5u) {
        if ((k[top] & 0x80000000u) != 0u) {
            k = ~k;
        } else {
            k[top] |= 0x80000000u;
        }
    }
    return k & pc.mask;
}

// -1, 0 or 1 as a is below, equal to or above b (highest word first).
int compare(uvec4 a, uvec4 b) {
    [[unroll]] for (int w = int(KEY_WORDS) - 1; w >= 0; w--) {
        if (a[w] != b[w]) return a[w] < b[w] ? -1 : 1;
    }
    return 0;
}

void main() {
    uint g = flat_group_id();
    if (g >= pc.groups) return;
    uint lid = gl_LocalInvocationID.x;
    if (lid == 0u) {
        s_sum[0] = 0u;
        s_sum[1] = 0u;
        s_sum[2] = 0u;
        s_sum[3] = 0u;
    }
    uint base = g * WG_SIZE * ITEMS;
    uvec4 sums = uvec4(0u);
    uint bad_order = 0xffffffffu;
    uint bad_stable = 0xffffffffu;
    for (uint j = 0u; j < ITEMS; j++) {
        uint i = base + j * WG_SIZE + lid;
        if (i >= pc.n) break;
        uvec4 k = load_key(i);
        uvec2 v = load_val(i);
        // the hash: two chains over the words, then entangled
        uint a = 0x6a09e667u;
        uint b = 0xbb67ae85u;
        [[unroll]] for (uint w = 0u; w < KEY_WORDS; w++) {
            a = mix32(a ^ k[w]);
            b = mix32((b ^ k[w]) * 0x9e3779b1u + 0x632be5abu);
        }
        [[unroll]] for (uint w = 0u; w < VAL_WORDS; w++) {
            a = mix32(a ^ v[w]);
            b = mix32((b ^ v[w]) * 0x9e3779b1u + 0x632be5abu);
        }
        a = mix32(a + KEY_WORDS + VAL_WORDS);
        b = mix32(b ^ a);
        sums += uvec4(a & 0xffffu, a >> 16, b & 0xffffu, b >> 16);
        if (i > 0u) {
            int c = compare(order_bits(load_key(i - 1u)), order_bits(k));
            if (pc.descending != 0u) c = -c;
            if (c > 0) {
                bad_order = min(bad_order, i);
            } else if (c == 0 && VAL_WORDS > 0u && pc.stable != 0u) {
                uvec2 p = load_val(i - 1u);
                bool rising = VAL_WORDS == 2u ? (p.y < v.y || (p.y == v.y && p.x < v.x)) : p.x < v.x;
                if (!rising) bad_stable = min(bad_stable, i);
            }
        }
    }
    bad_order = subgroupMin(bad_order);
    bad_stable = subgroupMin(bad_stable);
    sums = subgroupAdd(sums);
    barrier();
    if (subgroupElect()) {
        if (bad_order != 0xffffffffu) atomicMin(result[0], bad_order);
        if (bad_stable != 0xffffffffu) atomicMin(result[1], bad_stable);
        atomicAdd(s_sum[0], sums.x);
        atomicAdd(s_sum[1], sums.y);
        atomicAdd(s_sum[2], sums.z);
        atomicAdd(s_sum[3], sums.w);
    }
    barrier();
    if (lid < 4u) result[4u + 4u * g + lid] = s_sum[lid];
}
