#version 460
// bitonic_tile.comp (vksort::bitonic::tile, vksort::bitonic::merge): one workgroup per tile of WG_SIZE x KPT
// items, in place on the caller's keys and values. merge_k == 0: sorts each tile (every stage up to the tile;
// a sort that fits one tile is this one dispatch). merge_k > tile: the strides below the tile of merge stage
// merge_k, whose longer strides bitonic_global ran before (nothing to do when n <= merge_k / 2: the stage has
// no comparator below n). Positions >= n are never read or written.
//
// The tile goes global -> shared (striped, coalesced) -> registers (blocked) -> network (bitonic.glsl) ->
// shared -> global. Items are tagged (TAGGED) only when values travel: a value is then read once, from the
// tile position its item's tag names, and all of a tile's values are read before any is written.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

#include "bitonic.glsl"

SIDE(0, 1, , keys, vals);
BUFFER(2, readonly, meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint merge_k;
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (pc.merge_k != 0u && n <= pc.merge_k / 2u) return;
    uint base = flat_group_id() * B_TILE;
    if (base >= n) return;
    uint m = min(n - base, B_TILE);
    uint lid = gl_LocalInvocationID.x;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) {
            Item x;
            x.k = key_order(KEY_AT(keys, base + p));
            x.t = p;
            smem_put(p, x);
        }
    }
    barrier();
    smem_to_regs(lid);
    if (pc.merge_k == 0u) {
        bitonic_sort(lid, WG_SIZE, m);
    } else {
        bitonic_merge_steps(lid, WG_SIZE, m);
    }
    barrier();
    regs_to_smem(lid);
    barrier();
    uvec2 v[KPT];
    if (VAL_WORDS > 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < m) v[a] = VAL_AT(vals, base + smem_get(p).t);
        }
        memoryBarrierBuffer();
        barrier();
    }
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) {
            SET_KEY(keys, base + p, key_unorder(smem_get(p).k));
            SET_VAL(vals, base + p, v[a]);
        }
    }
}
