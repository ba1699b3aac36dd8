#version 460
// bitonic_global.comp (vksort::bitonic::global): one step of stride j (at least a tile) of merge stage k over
// the whole array, in place: comparator (lo, hi) with hi = lo ^ (k - 1) for the stage's first step (j == k / 2),
// lo + j for the others; the smaller key goes to lo. Comparators with hi >= n do nothing (positions >= n are
// virtual +infinity, see bitonic.glsl), so no padding exists. Each invocation runs PAIRS comparators, spread
// over the grid so that neighbouring invocations touch neighbouring keys; a pair is written only when it swaps.
// Nothing to do when n <= k / 2.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 4;   // comparators per invocation

layout(set = 0, binding = 0, std430) buffer Keys { uint keys[]; };
layout(set = 0, binding = 1, std430) buffer Vals { uint vals[]; };
layout(set = 0, binding = 2, std430) readonly buffer Meta { uint meta[]; };

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint k;
    uint j;
    uint log_j;
    uint pairs;   // comparators of the step (below n's bound)
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (n <= pc.k / 2u) return;
    uint first = flat_group_id() * WG_SIZE * KPT + gl_LocalInvocationID.x;
    bool flip = pc.j == pc.k / 2u;
    [[unroll]] for (uint r = 0u; r < KPT; r++) {
        uint q = first + r * WG_SIZE;
        if (q >= pc.pairs) break;
        uint lo = ((q >> pc.log_j) << (pc.log_j + 1u)) | (q & (pc.j - 1u));
        uint hi = flip ? (lo ^ (pc.k - 1u)) : (lo + pc.j);
        if (hi >= n) continue;
        uvec4 a = KEY_AT(keys, lo);
        uvec4 b = KEY_AT(keys, hi);
        if (key_lt(key_order(b), key_order(a))) {
            SET_KEY(keys, lo, b);
            SET_KEY(keys, hi, a);
            if (VAL_WORDS > 0u) {
                uvec2 va = VAL_AT(vals, lo);
                uvec2 vb = VAL_AT(vals, hi);
                SET_VAL(vals, lo, vb);
                SET_VAL(vals, hi, va);
            }
        }
    }
}
