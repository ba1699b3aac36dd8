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

#include "bitonic.glsl"
#include "merge_side.glsl"
#include "merge_split.glsl"
#include "merge_pass.glsl"

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint passes = merge_passes(n, pc.block_tile);
    if (pc.pass >= passes) return;
    uint t = flat_group_id();
    if (t * B_TILE >= n) return;
    MergeTile g = merge_pair(t, B_TILE, n, passes, pc.pass, pc.block_tile);
    g = merge_slices(g, pass_coranks(g, t));
    uint lid = gl_LocalInvocationID.x;

    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        Item x;
        uint q;
        if (p < g.na) {
            q = p;
            x.k = key_order(side_key(g.src, g.a0 + p));
        } else if (p < g.m) {
            q = B_TILE - 1u - (p - g.na);
            x.k = key_order(side_key(g.src, g.b0 + p - g.na));
        } else {
            q = p - g.nb;
            x.k = uvec4(0xffffffffu);
        }
        x.t = p < g.m ? p : 0xffffffffu;
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
        if (p < g.m) {
            Item x = smem_get(p);
            uint from = x.t < g.na ? g.a0 + x.t : g.b0 + (x.t - g.na);
            uvec2 v = VAL_WORDS > 0u ? side_val(g.src, from) : uvec2(0u);
            side_set(g.src ^ 1u, g.d0 + p, key_unorder(x.k), v);
        }
    }
}
