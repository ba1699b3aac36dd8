#version 460
// radix_hybrid_bounds.comp (vksort::radix::hybrid::bounds): after the hybrid sort's MSD passes (Onesweep over
// its top digit places) the keys are sorted on their top bits, so each group (the keys that share the bits
// [shift, shift + gb) of their transformed key, from control words CTRL_HYBRID and CTRL_HYBRID + 1, written by
// the plan) is one contiguous range. This pass finds the ranges: for every key i whose group g differs from key
// i - 1's g' (or i = 0, with g' = -1) it writes i to starts[g' + 1 .. g] (the groups from g' + 1 to g - 1 are
// empty and start there too); the last key writes n to starts[g + 1 .. 2^groups_log2]. Every entry of the
// table (2^groups_log2 + 1 words) is written exactly once, with no atomics and nothing zeroed before. Reads
// the keys from the side the MSD passes left them on (CTRL_FINAL_SEL: 0 the caller's, 1 the scratch's).
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 4) const uint KEY_WORDS = 1;

BUFFER(0, readonly, keys);
BUFFER(1, readonly, alt_keys);
BUFFER(2, readonly, meta);
BUFFER(3, writeonly, starts);

layout(push_constant) uniform Push {
    uint key_kind;
    uint flags;         // bit 0: descending
    uint groups_log2;   // the table holds 2^groups_log2 + 1 entries
} pc;

uint group_of(bool alt, uint i, uint shift, uint mask, bool desc) {
    uvec2 k = alt ? uvec2(alt_keys[i * KEY_WORDS], KEY_WORDS == 2u ? alt_keys[i * KEY_WORDS + 1u] : 0u)
                  : uvec2(keys[i * KEY_WORDS], KEY_WORDS == 2u ? keys[i * KEY_WORDS + 1u] : 0u);
    return key_digit(key_transform(k, pc.key_kind, desc), shift, mask);
}

// starts[a .. b) = v, in loops of at most 256 iterations (lavapipe ends loops after 65535).
void fill(uint a, uint b, uint v) {
    for (uint x0 = a; x0 < b; x0 += 256u) {
        uint e = min(b, x0 + 256u);
        for (uint x = x0; x < e; x++) starts[x] = v;
    }
}

void main() {
    uint n = meta[CTRL_N];
    bool alt = meta[CTRL_FINAL_SEL] == 1u;
    uint shift = meta[CTRL_HYBRID];
    uint gb = meta[CTRL_HYBRID + 1u];
    uint mask = gb == 0u ? 0u : (0xFFFFFFFFu >> (32u - gb));
    bool desc = (pc.flags & 1u) != 0u;
    uint base = flat_group_id() * WG_SIZE * KPT + gl_LocalInvocationID.x;
    for (uint j = 0u; j < KPT; j++) {
        uint i = base + j * WG_SIZE;
        if (i >= n) break;
        uint g = group_of(alt, i, shift, mask, desc);
        uint a = i == 0u ? 0u : group_of(alt, i - 1u, shift, mask, desc) + 1u;
        fill(a, g + 1u, i);
        if (i == n - 1u) fill(g + 1u, (1u << pc.groups_log2) + 1u, n);
    }
}
