// merge_pass.glsl: what the two merge-pass kernels share (merge_merge.comp: the serial merge, merge_network.comp:
// a bitonic network): bindings 4 and 5, the push constants, and the co-ranks of a workgroup's tile. Include after
// merge_split.glsl.

// 1: the workgroup finds its co-ranks itself (the partition binding is then unused).
layout(constant_id = 20) const uint FUSED_SPLIT = 0;

BUFFER(4, readonly, meta);
BUFFER(5, readonly, part);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;
    uint pass;
} pc;

// The co-ranks of tile t's bounds k0, k1: from merge_partition's array (the end of the pair's A taking the last
// tile's end) or, with FUSED_SPLIT, found by every subgroup itself (no shared memory, no barrier).
uvec2 pass_coranks(MergeTile g, uint t) {
    uvec2 i;
    if (FUSED_SPLIT != 0u) {
        i = split_pair(g.src, g.s, g.la, g.lb, g.k0, g.k1, gl_SubgroupSize);
    } else {
        i = uvec2(part[t], g.k1 == g.la + g.lb ? g.la : part[t + 1u]);
    }
    return i;
}
