#version 460
// split_histogram.comp (vksort::split::histogram): step 1 of a pass of the blocked form (after Satish et al.):
// tile t (WG_SIZE x KPT keys) counts the digits of its keys (shared-memory counters) and writes count d to
// hist[d * T + t], T = the tiles of n: digit-major, so that one exclusive scan of the RADIX x T counters gives
// every (digit, tile) its first output position. Reads k bytes per key and writes 4 x RADIX per tile.
// Dispatched indirectly: 0 workgroups when the pass does not run.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 3) const uint DIGIT_BITS = 4;

BUFFER(0, readonly, keys);
BUFFER(1, writeonly, hist);
BUFFER(2, readonly, meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint pass;
} pc;

#include "split_common.glsl"

const uint TILE = WG_SIZE * KPT;
const uint RADIX = 1u << DIGIT_BITS;

shared uint s_count[RADIX];

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (pc.pass >= meta[CTRL_PASSES]) return;
    uint tiles = div_ceil(n, TILE);
    uint tile = flat_group_id();
    if (tile >= tiles) return;
    uint lid = gl_LocalInvocationID.x;
    for (uint d = lid; d < RADIX; d += WG_SIZE) s_count[d] = 0u;
    barrier();
    Digit g = digit_of_pass(pc.pass, DIGIT_BITS);
    uint base = tile * TILE;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint i = base + a * WG_SIZE + lid;
        if (i < n) atomicAdd(s_count[digit_of(g, key_order(KEY_AT(keys, i)))], 1u);
    }
    barrier();
    for (uint d = lid; d < RADIX; d += WG_SIZE) hist[d * tiles + tile] = s_count[d];
}
