#version 460
// scan_blelloch_tile.comp: the work-efficient (Blelloch) scan of one tile of TILE = WG_SIZE * ITEMS
// elements in shared memory: up-sweep (reduce) then down-sweep, with bank-conflict-free padding
// (one pad slot every 2^LOG_BANKS slots; LOG_BANKS comes from the policy, derived from the subgroup size).
// Writes the tile's scan to dst (exclusive, or inclusive = exclusive + input) and its total to sums[tile].
// Reads n elements, writes n + one per tile. src may alias dst (a tile reads its elements before writing).
// @variant u32
// @variant u64 ELEM_U64=1
#include "common.glsl"
#include "scan_elem.glsl"

layout(constant_id = 2) const uint ITEMS = 8;      // elements per invocation (power of two)
layout(constant_id = 3) const uint INCLUSIVE = 0;
layout(constant_id = 4) const uint LOG_BANKS = 5;  // shared-memory banks = 2^LOG_BANKS

BUFFER_OF(ELEM_T, 0, readonly, src);
BUFFER_OF(ELEM_T, 1, writeonly, dst);
BUFFER_OF(ELEM_T, 2, writeonly, sums);
layout(push_constant) uniform Push {
    uint n;
    uint groups;  // tiles
} pc;

const uint TILE = WG_SIZE * ITEMS;
shared ELEM_T sh[TILE + (TILE >> LOG_BANKS) + 1u];

uint pad(uint i) {
    return i + (i >> LOG_BANKS);
}

void main() {
    uint g = flat_group_id();
    if (g >= pc.groups) return;
    uint t = gl_LocalInvocationID.x;
    uint base = g * TILE;
    ELEM_T vals[ITEMS];
    [[unroll]] for (uint k = 0u; k < ITEMS; k++) {
        uint i = k * WG_SIZE + t;
        vals[k] = base + i < pc.n ? src[base + i] : ELEM_T(0);
        sh[pad(i)] = vals[k];
    }
    // Up-sweep: after the level with distance `offset`, node offset*(2m+2)-1 holds the sum of its subtree.
    uint offset = 1u;
    for (uint d = TILE >> 1; d > 0u; d >>= 1) {
        barrier();
        for (uint m = t; m < d; m += WG_SIZE) {
            uint ai = offset * (2u * m + 1u) - 1u;
            uint bi = offset * (2u * m + 2u) - 1u;
            sh[pad(bi)] += sh[pad(ai)];
        }
        offset <<= 1;
    }
    barrier();
    if (t == 0u) {
        sums[g] = sh[pad(TILE - 1u)];
        sh[pad(TILE - 1u)] = ELEM_T(0);
    }
    // Down-sweep: each node passes its value to its left child and value + left sum to its right child.
    for (uint d = 1u; d < TILE; d <<= 1) {
        offset >>= 1;
        barrier();
        for (uint m = t; m < d; m += WG_SIZE) {
            uint ai = offset * (2u * m + 1u) - 1u;
            uint bi = offset * (2u * m + 2u) - 1u;
            ELEM_T left = sh[pad(ai)];
            sh[pad(ai)] = sh[pad(bi)];
            sh[pad(bi)] += left;
        }
    }
    barrier();
    [[unroll]] for (uint k = 0u; k < ITEMS; k++) {
        uint i = k * WG_SIZE + t;
        if (base + i < pc.n) dst[base + i] = sh[pad(i)] + (INCLUSIVE != 0u ? vals[k] : ELEM_T(0));
    }
}
