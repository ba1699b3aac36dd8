#version 460
// merge_network.comp (vksort::merge::merge, MergeKernel::Network): merge pass `pass` of the merge sort with a
// bitonic merge network instead of merge_merge.comp's serial merge; the same tiles, co-ranks (merge_partition's
// array, or with FUSED_SPLIT found by every subgroup: merge_split.glsl), sides and contract. A ascending, then
// +infinity padding (tag 0xffffffff, after every real item), then B reversed form a bitonic sequence of
// WG_SIZE x KPT items in shared memory; tags are positions in A ++ B, so ties keep A first and each run's order;
// the half-cleaner steps of bitonic.glsl (strides tile / 2 .. 1) sort it. Values are gathered once, from each
// output key's source position, when the tile is written. Nothing to do when the pass is not needed
// (pass >= P(n)).
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 4;
// 1: the workgroup finds its co-ranks itself (the partition binding is then unused).
layout(constant_id = 20) const uint FUSED_SPLIT = 0;

#include "bitonic.glsl"
#include "merge_side.glsl"
#include "merge_split.glsl"

layout(set = 0, binding = 4, std430) readonly buffer Meta { uint meta[]; };
layout(set = 0, binding = 5, std430) readonly buffer Part { uint part[]; };

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;
    uint pass;
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint passes = merge_passes(n, pc.block_tile);
    if (pc.pass >= passes) return;
    uint t = flat_group_id();
    uint d0 = t * B_TILE;
    if (d0 >= n) return;
    uint src = (passes ^ pc.pass) & 1u;
    uint w = pc.block_tile << pc.pass;
    uint s = d0 / (2u * w) * (2u * w);
    uint la = min(w, n - s);
    uint lb = min(w, n - s - la);
    uint d1 = min(d0 + B_TILE, n);
    uint k0 = d0 - s;
    uint k1 = d1 - s;
    uint i0;
    uint i1;
    if (FUSED_SPLIT != 0u) {
        uvec2 r = split_pair(src, s, la, lb, k0, k1, gl_SubgroupSize);
        i0 = r.x;
        i1 = r.y;
    } else {
        i0 = part[t];
        i1 = k1 == la + lb ? la : part[t + 1u];
    }
    uint a0 = s + i0;                  // the A slice: na keys from a0
    uint na = i1 - i0;
    uint b0 = s + la + (k0 - i0);      // the B slice: nb keys from b0
    uint m = d1 - d0;
    uint nb = m - na;
    uint lid = gl_LocalInvocationID.x;

    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        Item x;
        uint q;
        if (p < na) {
            q = p;
            x.k = key_order(side_key(src, a0 + p));
        } else if (p < m) {
            q = B_TILE - 1u - (p - na);
            x.k = key_order(side_key(src, b0 + p - na));
        } else {
            q = p - nb;
            x.k = uvec4(0xffffffffu);
        }
        x.t = p < m ? p : 0xffffffffu;
        smem_put(q, x);
    }
    barrier();
    smem_to_regs(lid);
    bitonic_merge_steps(lid, WG_SIZE, B_TILE);
    barrier();
    regs_to_smem(lid);
    barrier();

    // Coalesced store: key from shared memory, value gathered from the output key's source position.
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) {
            Item x = smem_get(p);
            uint from = x.t < na ? a0 + x.t : b0 + (x.t - na);
            uvec2 v = VAL_WORDS > 0u ? side_val(src, from) : uvec2(0u);
            side_set(src ^ 1u, d0 + p, key_unorder(x.k), v);
        }
    }
}
