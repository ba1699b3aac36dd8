#version 460
// merge_partition.comp (vksort::merge::partition): the split points of merge pass `pass` (sorted runs of
// w = block_tile << pass keys on side S0 ^ (pass & 1), merged in pairs). One cluster of `lanes` consecutive
// invocations per output tile t (tiles of merge_tile keys; merge_tile divides 2w, so no tile straddles two pairs):
// at the tile's start d = t * merge_tile, in the pair that starts at s = floor(d / 2w) * 2w, the merge-path
// co-rank i: the first k = d - s outputs of the pair's stable merge are A[0, i) and B[0, k - i) (A = the pair's
// first run, B the second; ties take from A), found by a k-ary search of `lanes` probes per round
// (merge_split.glsl: ceil(log_lanes(w)) + 1 dependent rounds). Written to part[t]. Nothing to do when the pass is
// not needed (pass >= P(n)).
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"
#define MERGE_KEYS_ONLY
#include "merge_side.glsl"
#include "merge_split.glsl"

// Timing experiments only (MergeDebug::debug_mode; 0 otherwise): bit 2 writes a split found by no search
// (split_guess), so that only the pass's dispatch and its stores remain. The other bits are the merge pass's.
layout(constant_id = 9) const uint DEBUG_MODE = 0;

BUFFER(2, readonly, meta);
BUFFER(3, writeonly, part);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;
    uint merge_tile;
    uint pass;
    uint lanes;   // invocations per tile (a power of two, at least 2, dividing the smallest subgroup size)
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint passes = merge_passes(n, pc.block_tile);
    if (pc.pass >= passes) return;
    uint tiles = div_ceil(n, pc.merge_tile);
    uint side = (passes ^ pc.pass) & 1u;
    uint w = pc.block_tile << pc.pass;
    // Every invocation takes part in the search's subgroup operations; a cluster past the last tile searches an
    // empty range.
    uint t = flat_group_id() * (WG_SIZE / pc.lanes) + gl_LocalInvocationID.x / pc.lanes;
    uint d = min(t, tiles - 1u) * pc.merge_tile;
    uint s = d / (2u * w) * (2u * w);
    uint la = min(w, n - s);
    uint lb = min(w, n - s - la);
    uint k = t < tiles ? d - s : 0u;
    uint i = (DEBUG_MODE & 4u) != 0u ? split_guess(k, la, lb)
                                     : split_pair(side, s, la, lb, k, k, pc.lanes).x;
    if (t < tiles && (gl_LocalInvocationID.x & (pc.lanes - 1u)) == 0u) part[t] = i;
}
