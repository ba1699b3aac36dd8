#version 460
// quicksort_bounds.comp (vksort::quicksort::bounds): the masked key range of the whole input, and the first
// step. Workgroup g reads block g (WG_SIZE x KPT keys of the caller's buffer; n from the control block, blocks at
// or beyond n do nothing) and records its masked min and max; the last workgroup (a ticket, no waiting) reduces
// the records and plans the whole input as one sequence (quicksort.glsl plan_seq): nothing when all keys are
// equal, a phase-two job, or sequence 0 of round 0 with its pivot. It writes round 0's indirect arguments and
// the local pass's.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

#include "bitonic.glsl"

BUFFER(0, coherent, keys0);
BUFFER(1, , vals0);
BUFFER(2, coherent, keys1);
BUFFER(3, , vals1);
BUFFER(4, coherent, meta);

#include "wg_scan.glsl"
#include "quicksort.glsl"

shared bool s_last;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint lid = gl_LocalInvocationID.x;
    uint n = ITEM_N(pc);
    uint blocks = div_ceil(n, B_TILE);
    uint g = flat_group_id();
    if (g >= blocks) return;
    uint base = g * B_TILE;
    uint m = min(B_TILE, n - base);
    mm_reset();
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) mm_add(0u, key_order(load_key(0u, base + p)) & g_mask);
    }
    wg_minmax();
    if (lid == 0u) {
        put_rec(g, 0u, g_mm[0]);
        put_rec(g, 1u, g_mm[1]);
    }
    memoryBarrierBuffer();
    barrier();
    uint gs = qs_global();
    if (lid == 0u) s_last = atomicAdd(meta[gs + RS_TICKET], 1u) == blocks - 1u;
    barrier();
    if (!s_last) return;
    memoryBarrierBuffer();
    mm_reset();
    for (uint j = lid; j < blocks; j += WG_SIZE) {
        uvec4 lo = get_rec(j, 0u);
        uvec4 hi = get_rec(j, 1u);
        if (key_lt(lo, g_mm[0])) g_mm[0] = lo;
        if (key_lt(g_mm[1], hi)) g_mm[1] = hi;
    }
    wg_minmax();
    uvec4 mn = g_mm[0];
    uvec4 mx = g_mm[1];
    plan_seq(0u, n, 0u, mn, mx, 0xFFFFFFFFu, pc.pivot_mode, 0u);
    memoryBarrierBuffer();
    barrier();
    if (lid == 0u) {
        if (pc.rounds > 0u) qs_grid(min(meta[pc.rs_off + RS_BLOCKS], pc.bmax), pc.rs_off + RS_ARGS);
        qs_grid(min(meta[gs + RS_BLOCKS], pc.qmax), gs + RS_ARGS);
    }
    keep_bindings(n);
}
