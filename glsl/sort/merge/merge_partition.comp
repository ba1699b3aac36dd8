#version 460
// merge_partition.comp (vksort::merge::partition): the split points of merge pass `pass` (sorted runs of
// w = block_tile << pass keys on side S0 ^ (pass & 1), merged in pairs). One subgroup per output tile t (tiles of
// merge_tile keys; merge_tile divides 2w, so no tile straddles two pairs; `group_tiles` tiles per workgroup): at
// the tile's start d = t * merge_tile, in the pair that starts at s = floor(d / 2w) * 2w, the merge-path co-rank
// i: the first k = d - s outputs of the pair's stable merge are A[0, i) and B[0, k - i) (A = the pair's first
// run, B the second; ties take from A), found by a k-ary search of gl_SubgroupSize probes per round
// (merge_split.glsl: ceil(log_(subgroup size)(w)) + 1 dependent rounds). Written to part[t]. Nothing to do when
// the pass is not needed (pass >= P(n)).
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"
#define MERGE_KEYS_ONLY
#include "merge_side.glsl"
#include "merge_split.glsl"

layout(set = 0, binding = 2, std430) readonly buffer Meta { uint meta[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Part { uint part[]; };

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;
    uint merge_tile;
    uint pass;
    uint group_tiles;   // tiles per workgroup (its invocations / the largest subgroup size)
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint passes = merge_passes(n, pc.block_tile);
    if (pc.pass >= passes) return;
    uint tiles = div_ceil(n, pc.merge_tile);
    uint side = (passes ^ pc.pass) & 1u;
    uint w = pc.block_tile << pc.pass;
    uint first = flat_group_id() * pc.group_tiles;
    // Uniform in each subgroup: a subgroup smaller than the largest size takes several tiles.
    for (uint t = first + gl_SubgroupID; t < min(first + pc.group_tiles, tiles); t += gl_NumSubgroups) {
        uint d = t * pc.merge_tile;
        uint s = d / (2u * w) * (2u * w);
        uint la = min(w, n - s);
        uint lb = min(w, n - s - la);
        uint k = d - s;
        uint i = split_pair(side, s, la, lb, k, k).x;
        if (subgroupElect()) part[t] = i;
    }
}
