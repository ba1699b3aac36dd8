#version 460
// merge_merge.comp (vksort::merge::merge, MergeKernel::Serial): merge pass `pass` of the merge sort. Sorted runs
// of w = block_tile << pass keys on side S0 ^ (pass & 1) (merge_side.glsl) are merged in pairs (A = a pair's first
// run, B its second, either shorter at the end of the array) into the other side. One workgroup per output tile
// of TILE = WG_SIZE x KPT keys: whatever the data, each merges exactly one tile, from the A slice [i0, i1) and
// the B slice [k0 - i0, k1 - i1) of its pair (k0, k1: the tile's bounds within the pair; i0, i1 their merge-path
// co-ranks, from merge_partition's array, the end of the pair's A taking the last tile's end, or with
// FUSED_SPLIT found by every subgroup itself: merge_split.glsl, no shared memory and no barrier).
//
// The two slices are loaded into shared memory (A then B, striped: coalesced, every load issued before the first
// store); invocation lid finds where diagonal lid x KPT of the tile crosses the merge path (a binary search in
// shared memory) and merges its KPT keys serially into registers (one shared read per key); the merged keys
// leave through shared memory to coalesced stores. Values never enter shared memory: each output key's source
// position (0 .. TILE - 1 in A ++ B) is staged through shared memory after the keys, and its value gathered from
// there. Stable: ties take from A, and each run is in input order. Nothing to do when the pass is not needed
// (pass >= P(n)).
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 16;
const uint TAG_WORDS = 0u;
// Timing experiments only (MergeDebug::debug_mode; the result is WRONG when non-zero, 0 compiles to the plain
// kernel). Every load, the staging and every store stay: bit 0 skips the serial merge (each invocation still
// searches its diagonal, folds the result into its first key, and takes its KPT keys and source positions from
// the staged tile as they lie); bit 1 also skips the diagonal search; bit 2 the split-point search of fused
// splits (split_guess; the partition pass has its own bit 2); bit 3 the diagonal search, keeping the merge.
// With bits 0, 1 or 3 the passes' runs are not sorted after the first, so split points found on them need not
// partition a pair (nor be monotone, from the partition pass: slices out of bounds): the tiles then take
// split_guess's (balanced, as uniform keys give), the found ones kept as a dependency only.
layout(constant_id = 9) const uint DEBUG_MODE = 0;
#define KO_MERGE ((DEBUG_MODE & 3u) != 0u)
#define KO_SEARCH ((DEBUG_MODE & 10u) != 0u)
#define KO_SPLIT ((DEBUG_MODE & 4u) != 0u)
#define KO_ORDER ((DEBUG_MODE & 11u) != 0u)

#include "merge_side.glsl"
#include "merge_tile.glsl"
#include "merge_split.glsl"
#include "merge_pass.glsl"

// The co-ranks of the tile's bounds (merge_pass.glsl), or in the debug modes split_guess's.
uvec2 tile_coranks(MergeTile g, uint t) {
    uvec2 i;
    if (FUSED_SPLIT != 0u && KO_SPLIT) {
        i = uvec2(split_guess(g.k0, g.la, g.lb), split_guess(g.k1, g.la, g.lb));
    } else {
        i = pass_coranks(g, t);
    }
    if (KO_ORDER) {
        // (x | 2^31 is above every co-rank: the minimum is the guess, yet depends on the split found)
        i = uvec2(min(split_guess(g.k0, g.la, g.lb), i.x | 0x80000000u),
                  min(split_guess(g.k1, g.la, g.lb), i.y | 0x80000000u));
    }
    return i;
}

// The slices into shared memory at tile positions p < na (A[i0 + p]) and na <= p < m (B[k0 - i0 + p - na]).
// Striped, coalesced loads, all issued before any is used (no load in a branch: positions >= m read key n - 1
// and are never used).
void load_slices(MergeTile g) {
    uint lid = gl_LocalInvocationID.x;
    if (g.src != 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            g_k[a] = KEY_AT(keys1, min(p < g.na ? g.a0 + p : g.b0 + (p - g.na), g.n - 1u));
        }
    } else {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            g_k[a] = KEY_AT(keys0, min(p < g.na ? g.a0 + p : g.b0 + (p - g.na), g.n - 1u));
        }
    }
    [[unroll]] for (uint a = 0u; a < KPT; a++) skey_put(a * WG_SIZE + lid, key_order(g_k[a]));
    barrier();
}

// The invocation's KPT outputs into g_k (sources in g_from): where its diagonal lid x KPT crosses the merge path,
// then the serial merge from there.
void merge_diagonal(MergeTile g) {
    uint lid = gl_LocalInvocationID.x;
    uint d = min(lid * KPT, g.m);
    uint i = KO_SEARCH ? split_guess(d, g.na, g.nb) : path_search(0u, g.na, g.na, g.nb, d);
    if (KO_MERGE) {
        // Timing only: the invocation's KPT staged keys as they lie (blocked: conflict-free like the merge's
        // reads), the search's result folded into the first so that the search stays.
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            g_from[a] = lid * KPT + a;
            g_k[a] = skey_get(g_from[a]);
        }
        if (!KO_SEARCH) g_k[0].x ^= i;
    } else {
        merge_keys(i, g.na, g.na + d - i, g.m, false);   // B's keys sit at tile positions na .. m - 1
    }
}

// The merged keys out through shared memory: coalesced stores to [d0, d0 + m) of side src ^ 1.
void store_keys(MergeTile g) {
    uint lid = gl_LocalInvocationID.x;
    stage_blocked(false);
    uint dst = g.src ^ 1u;
    if (dst != 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < g.m) SET_KEY(keys1, g.d0 + p, key_unorder(skey_get(p)));
        }
    } else {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < g.m) SET_KEY(keys0, g.d0 + p, key_unorder(skey_get(p)));
        }
    }
}

// The values: the source positions staged like the keys (plane 0 is free once every key was read), the values
// gathered unconditionally (positions >= m repeat position m - 1), then stored.
void store_values(MergeTile g) {
    uint lid = gl_LocalInvocationID.x;
    uint dst = g.src ^ 1u;
    barrier();
    [[unroll]] for (uint a = 0u; a < KPT; a++) s_keys[swz(lid * KPT + a)] = g_from[a];
    barrier();
    uvec2 v[KPT];
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint f = s_keys[swz(min(a * WG_SIZE + lid, g.m - 1u))];
        uint h = f < g.na ? g.a0 + f : g.b0 + (f - g.na);
        v[a] = dst != 0u ? VAL_AT(vals0, h) : VAL_AT(vals1, h);
    }
    if (dst != 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < g.m) SET_VAL(vals1, g.d0 + p, v[a]);
        }
    } else {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < g.m) SET_VAL(vals0, g.d0 + p, v[a]);
        }
    }
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint passes = merge_passes(n, pc.block_tile);
    if (pc.pass >= passes) return;
    uint t = flat_group_id();
    if (t * TILE >= n) return;
    MergeTile g = merge_pair(t, TILE, n, passes, pc.pass, pc.block_tile);
    g = merge_slices(g, tile_coranks(g, t));
    load_slices(g);
    merge_diagonal(g);
    store_keys(g);
    if (VAL_WORDS > 0u) store_values(g);
}
