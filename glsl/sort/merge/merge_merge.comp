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
// 1: the workgroup finds its co-ranks itself (the partition binding is then unused).
layout(constant_id = 20) const uint FUSED_SPLIT = 0;
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
    uint d0 = t * TILE;
    if (d0 >= n) return;
    uint src = (passes ^ pc.pass) & 1u;
    uint w = pc.block_tile << pc.pass;
    uint s = d0 / (2u * w) * (2u * w);
    uint la = min(w, n - s);
    uint lb = min(w, n - s - la);
    uint d1 = min(d0 + TILE, n);
    uint k0 = d0 - s;
    uint k1 = d1 - s;
    uint i0;
    uint i1;
    if (FUSED_SPLIT != 0u && KO_SPLIT) {
        i0 = split_guess(k0, la, lb);
        i1 = split_guess(k1, la, lb);
    } else if (FUSED_SPLIT != 0u) {
        uvec2 r = split_pair(src, s, la, lb, k0, k1, gl_SubgroupSize);
        i0 = r.x;
        i1 = r.y;
    } else {
        i0 = part[t];
        i1 = k1 == la + lb ? la : part[t + 1u];
    }
    if (KO_ORDER) {
        // (x | 2^31 is above every co-rank: the minimum is the guess, yet depends on the split found)
        i0 = min(split_guess(k0, la, lb), i0 | 0x80000000u);
        i1 = min(split_guess(k1, la, lb), i1 | 0x80000000u);
    }
    uint a0 = s + i0;                  // the A slice: na keys from a0
    uint na = i1 - i0;
    uint b0 = s + la + (k0 - i0);      // the B slice: nb keys from b0
    uint m = d1 - d0;
    uint nb = m - na;
    uint lid = gl_LocalInvocationID.x;

    // Tile position p < na holds A[i0 + p], na <= p < m holds B[k0 - i0 + p - na]. Striped, coalesced loads, all
    // issued before any is used (no load in a branch: positions >= m read key n - 1 and are never used).
    uvec4 k[KPT];
    if (src != 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            k[a] = KEY_AT(keys1, min(p < na ? a0 + p : b0 + (p - na), n - 1u));
        }
    } else {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            k[a] = KEY_AT(keys0, min(p < na ? a0 + p : b0 + (p - na), n - 1u));
        }
    }
    [[unroll]] for (uint a = 0u; a < KPT; a++) skey_put(a * WG_SIZE + lid, key_order(k[a]));
    barrier();

    uint d = min(lid * KPT, m);
    uint i = KO_SEARCH ? split_guess(d, na, nb) : path_search(0u, na, na, nb, d);
    uint from[KPT];
    if (KO_MERGE) {
        // Timing only: the invocation's KPT staged keys as they lie (blocked: conflict-free like the merge's
        // reads), the search's result folded into the first so that the search stays.
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            from[a] = lid * KPT + a;
            k[a] = skey_get(from[a]);
        }
        if (!KO_SEARCH) k[0].x ^= i;
    } else {
        uint j = na + d - i;               // B's keys sit at tile positions na .. m - 1
        uvec4 ka = skey_get(min(i, TILE - 1u));
        uvec4 kb = skey_get(min(j, TILE - 1u));
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            bool take_b = j < m && (i >= na || mkey_lt(kb, ka));
            uint f = take_b ? j : i;
            k[a] = take_b ? kb : ka;
            from[a] = f;
            if (take_b) {
                j++;
            } else {
                i++;
            }
            // One shared read for the side that moved (clamped: a key read past its run's end is never used).
            uvec4 next = skey_get(min(f + 1u, TILE - 1u));
            kb = take_b ? next : kb;
            ka = take_b ? ka : next;
        }
    }
    barrier();
    [[unroll]] for (uint a = 0u; a < KPT; a++) skey_put(lid * KPT + a, k[a]);
    barrier();
    uint dst = src ^ 1u;
    if (dst != 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < m) SET_KEY(keys1, d0 + p, key_unorder(skey_get(p)));
        }
    } else {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < m) SET_KEY(keys0, d0 + p, key_unorder(skey_get(p)));
        }
    }
    if (VAL_WORDS > 0u) {
        // The source positions, staged the same way (plane 0 is free once every key was read); the values
        // gathered unconditionally (positions >= m repeat position m - 1), then stored.
        barrier();
        [[unroll]] for (uint a = 0u; a < KPT; a++) s_keys[swz(lid * KPT + a)] = from[a];
        barrier();
        uvec2 v[KPT];
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint f = s_keys[swz(min(a * WG_SIZE + lid, m - 1u))];
            uint g = f < na ? a0 + f : b0 + (f - na);
            v[a] = dst != 0u ? VAL_AT(vals0, g) : VAL_AT(vals1, g);
        }
        if (dst != 0u) {
            [[unroll]] for (uint a = 0u; a < KPT; a++) {
                uint p = a * WG_SIZE + lid;
                if (p < m) SET_VAL(vals1, d0 + p, v[a]);
            }
        } else {
            [[unroll]] for (uint a = 0u; a < KPT; a++) {
                uint p = a * WG_SIZE + lid;
                if (p < m) SET_VAL(vals0, d0 + p, v[a]);
            }
        }
    }
}
