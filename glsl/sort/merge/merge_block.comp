#version 460
// merge_block.comp (vksort::merge::block): the merge sort's first pass. One workgroup per tile of WG_SIZE x KPT
// keys: it loads the tile from the caller's keys (side 0), sorts it stably with the bitonic network (items
// tagged with their tile position, so ties keep their input order), gathers each value once from the position
// its tag names, and writes the tile to side S0 = P(n) & 1 (merge_side.glsl): in place when n needs an even
// number of merge passes (a sort of one tile is this one pass), to the scratch's alternate copy when odd. In
// place, all of a tile's values are read before any is written. Positions >= n are never read or written.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

#include "bitonic.glsl"
#include "merge_side.glsl"

layout(set = 0, binding = 4, std430) readonly buffer Meta { uint meta[]; };

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;   // the policy's tile (the merge passes' unit): decides P(n) and so the side written
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint base = flat_group_id() * B_TILE;
    if (base >= n) return;
    uint side = merge_passes(n, pc.block_tile) & 1u;
    uint m = min(n - base, B_TILE);
    uint lid = gl_LocalInvocationID.x;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) {
            Item x;
            x.k = key_order(KEY_AT(keys0, base + p));
            x.t = p;
            smem_put(p, x);
        }
    }
    barrier();
    smem_to_regs(lid);
    // The network of the smallest power-of-two group of invocations that holds the tile's m keys: a short last
    // tile (or a sort of one short tile) runs only the stages it needs; the other invocations hold positions
    // >= m, whose comparators do nothing, and only take part in the barriers.
    uint group = min(WG_SIZE, 1u << uint(findMSB(max(div_ceil(m, KPT), 1u) * 2u - 1u)));
    bitonic_sort(lid, group, m);
    barrier();
    regs_to_smem(lid);
    barrier();
    uvec2 v[KPT];
    [[unroll]] for (uint a = 0u; a < KPT; a++) v[a] = uvec2(0u);
    if (VAL_WORDS > 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < m) v[a] = VAL_AT(vals0, base + smem_get(p).t);
        }
        memoryBarrierBuffer();
        barrier();
    }
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) side_set(side, base + p, key_unorder(smem_get(p).k), v[a]);
    }
}
