#version 460
// split_plan.comp (vksort::split::plan): decides on the GPU which passes run. From the ORs of split_differ it
// lists the varying bits within the bit range's mask (CTRL_BITS, lowest first; K of them), sets P = ceil(K /
// per_pass) passes, and writes the indirect arguments of every recorded pass: its tile passes get one workgroup
// per tile of n (0 for passes from P on: they do nothing), its scan one workgroup per scan tile of its length
// (n flags, or RADIX x tiles histogram counters); the final copy runs (one workgroup per copy_keys keys) only
// when P is odd (the keys then lie in the scratch side). One invocation.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

BUFFER(0, , meta);
BUFFER(1, writeonly, args);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint recorded;       // passes recorded
    uint per_pass;       // varying bits per pass (1: the per-bit form)
    uint tile_keys;      // keys per workgroup of the tile passes
    uint scan_tile;      // elements per workgroup of the scan
    uint scan_per_tile;  // scan elements per key tile (RADIX); 0: one per key (the per-bit form's flags)
    uint copy_keys;      // keys per workgroup of the final copy
    uint max_x;          // maxComputeWorkGroupCount[0]
} pc;

#include "split_common.glsl"

void set_grid(uint word, uint groups) {
    uvec3 g = indirect_grid(groups, pc.max_x);
    args[word] = g.x;
    args[word + 1u] = g.y;
    args[word + 2u] = g.z;
}

void main() {
    if (gl_LocalInvocationID.x != 0u || flat_group_id() != 0u) return;
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint k = 0u;
    for (uint w = 0u; w < KEY_WORDS; w++) {
        uint v = meta[CTRL_OR + w] & meta[CTRL_NOR + w] & g_mask[w];
        if (n < 2u) v = 0u;
        for (uint b = 0u; b < 32u; b++) {
            if ((v & (1u << b)) != 0u) {
                meta[CTRL_BITS + k] = w * 32u + b;
                k++;
            }
        }
    }
    uint passes = min(div_ceil(k, pc.per_pass), pc.recorded);
    meta[CTRL_VARYING] = k;
    meta[CTRL_PASSES] = passes;
    uint tiles = div_ceil(n, pc.tile_keys);
    uint len = pc.scan_per_tile == 0u ? n : pc.scan_per_tile * tiles;
    uint scan_groups = div_ceil(len, pc.scan_tile);
    set_grid(0u, (passes & 1u) != 0u ? div_ceil(n, pc.copy_keys) : 0u);
    for (uint i = 0u; i < pc.recorded; i++) {
        bool run = i < passes;
        set_grid(ARGS_PASS + ARGS_STRIDE * i, run ? tiles : 0u);
        set_grid(ARGS_PASS + ARGS_STRIDE * i + 4u, run ? scan_groups : 0u);
    }
}
