#version 460
// warpsort_splitters.comp (vksort::warpsort::splitters): WarpSort's phase 3, first pass, one workgroup. Takes a
// regular sample of `samples` = K x P items from the rows that phase 2 left in `keys` (sample i at position
// floor(i x n / samples): every row is sampled at a regular spacing), sorts it with the workgroup bitonic sort
// (bitonic.glsl, tagged with the position, so the order is (key, position): every item distinct, equal keys
// ordered as in the stable order), and writes every K-th of the sorted sample after the first as the P - 1
// splitters: the transformed key's KEY_WORDS words and the position. Nothing when n is 0.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

#include "bitonic.glsl"

BUFFER(0, readonly, keys);
BUFFER(1, readonly, meta);
BUFFER(2, writeonly, split);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint samples;       // K x P, a power of two <= WG_SIZE x KPT
    uint log_samples;
    uint oversampling;  // K
} pc;

// floor(i x n / 2^log_samples) without overflow.
uint sample_pos(uint i, uint n) {
    uint hi, lo;
    umulExtended(i, n, hi, lo);
    uint s = pc.log_samples;
    return s == 0u ? lo : ((hi << (32u - s)) | (lo >> s));
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (n == 0u) return;   // uniform
    uint lid = gl_LocalInvocationID.x;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = lid * KPT + a;
        uint s = p < pc.samples ? sample_pos(p, n) : 0u;
        g_r[a].k = p < pc.samples ? key_order(KEY_AT(keys, s)) : uvec4(0u);
        g_r[a].t = s;
    }
    bitonic_sort(lid, WG_SIZE, pc.samples);
    uint W = KEY_WORDS + 1u;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = lid * KPT + a;
        if (p < pc.samples && p > 0u && (p & (pc.oversampling - 1u)) == 0u) {
            uint o = (p / pc.oversampling - 1u) * W;
            split[o] = g_r[a].k.x;
            if (KEY_WORDS >= 2u) split[o + 1u] = g_r[a].k.y;
            if (KEY_WORDS == 4u) {
                split[o + 2u] = g_r[a].k.z;
                split[o + 3u] = g_r[a].k.w;
            }
            split[o + KEY_WORDS] = g_r[a].t;
        }
    }
}
