#version 460
// merge_partition.comp (vksort::merge::partition): the split points of merge pass `pass` (sorted runs of
// w = block_tile << pass keys on side S0 ^ (pass & 1), merged in pairs). One invocation per output tile t
// (tiles of merge_tile keys; merge_tile divides 2w, so no tile straddles two pairs): at the tile's start
// d = t * merge_tile, in the pair that starts at s = floor(d / 2w) * 2w, the merge-path co-rank i: the first
// k = d - s outputs of the pair's stable merge are A[0, i) and B[0, k - i) (A = the pair's first run, B the
// second; ties take from A). Written to part[t]. Nothing to do when the pass is not needed (pass >= P(n)).
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"
#define MERGE_KEYS_ONLY
#include "merge_side.glsl"

layout(set = 0, binding = 2, std430) readonly buffer Meta { uint meta[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Part { uint part[]; };

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;
    uint merge_tile;
    uint pass;
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint passes = merge_passes(n, pc.block_tile);
    if (pc.pass >= passes) return;
    uint t = flat_group_id() * WG_SIZE + gl_LocalInvocationID.x;
    uint tiles = div_ceil(n, pc.merge_tile);
    if (t >= tiles) return;
    uint side = (passes ^ pc.pass) & 1u;
    uint w = pc.block_tile << pc.pass;
    uint d = min(t * pc.merge_tile, n);
    uint s = d / (2u * w) * (2u * w);
    uint la = min(w, n - s);
    uint lb = min(w, n - s - la);
    uint k = d - s;
    uint lo = k > lb ? k - lb : 0u;
    uint hi = min(k, la);
    // The smallest i with B[k - i - 1] < A[i]: B's key goes first only when strictly smaller. At most 32 steps.
    while (lo < hi) {
        uint mid = (lo + hi) >> 1u;
        uvec4 a = key_order(side_key(side, s + mid));
        uvec4 b = key_order(side_key(side, s + la + k - mid - 1u));
        if (key_lt(b, a)) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    part[t] = lo;
}
