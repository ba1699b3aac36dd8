#version 460
// merge_block.comp (vksort::merge::block): the merge sort's first pass. One workgroup per tile of
// TILE = WG_SIZE x KPT keys: it loads the tile from the caller's keys (side 0) into shared memory (coalesced),
// each invocation takes KPT consecutive keys into registers and sorts them there (odd-even transposition: only
// neighbours are compared and only a strictly smaller key moves down, so equal keys keep their order), then
// log2(WG_SIZE) rounds merge sorted runs of KPT, 2 KPT, ... keys in pairs through shared memory: each
// invocation finds where its diagonal crosses the pair's merge path (a binary search) and merges its KPT
// outputs serially into registers (ties from the first run: stable). The tile leaves through shared memory
// (coalesced) to side S0 = P(n) & 1 (merge_side.glsl): in place when n needs an even number of merge passes (a
// sort of one tile is this one pass), to the scratch's alternate copy when odd.
//
// Positions >= n of a short last tile hold the all-ones key (padding): no key is greater after the mask, and
// the padding comes after every real key in tile order, so the stable rounds leave the m real keys first; they
// are never read from or written to memory. With values, every key carries its tile position (a 16-bit tag,
// two per shared word: KPT >= 2) through the rounds, and each value is gathered once, from the position its
// tag names; in place, all of a tile's values are read before any is written.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 16;
// 16-bit tags with values, two per word (TILE / 2 words after the key planes).
const uint TAG_WORDS = WG_SIZE * KPT / 2u * ((VAL_WORDS + 1u) / 2u);

#include "merge_side.glsl"
#include "merge_tile.glsl"

BUFFER(4, , meta);
BUFFER(5, readonly, count);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;   // the policy's tile (the merge passes' unit): decides P(n) and so the side written
    uint count_word;   // use_count: the count's word in binding `count`
} pc;

// With values, every key carries its tag through the rounds.
const bool TAGS = VAL_WORDS > 0u;

// Loads tile [base, base + m) of side 0 into shared memory (striped, coalesced; KEY_MAX past m), then each
// invocation's KPT consecutive keys into g_k, tagged with their positions. No load sits in a branch: a
// position past the tile's end reads its last key, then takes the padding instead.
void load_tile(uint base, uint m) {
    uint lid = gl_LocalInvocationID.x;
    [[unroll]] for (uint a = 0u; a < KPT; a++) g_k[a] = KEY_AT(keys0, base + min(a * WG_SIZE + lid, m - 1u));
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        skey_put(p, p < m ? key_order(g_k[a]) : KEY_MAX);
    }
    barrier();
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        g_k[a] = skey_get(lid * KPT + a);
        g_tag[a] = lid * KPT + a;
    }
}

// Sorts g_k (with its tags) by odd-even transposition (KPT rounds; each round's comparators are disjoint).
// Register indices depend only on the inner loops' counters. Keys only: fully unrolled. With tags, a loop of
// pairs of rounds: fully unrolled, the compiler's schedule of the network wanted more registers than the
// residency its shared memory allows and spilled (docs/tuning.md).
void sort_registers() {
#define OET_ROUND(PARITY)                                          \
    [[unroll]] for (uint a = PARITY; a + 1u < KPT; a += 2u) {      \
        bool sw = mkey_lt(g_k[a + 1u], g_k[a]);                    \
        uvec4 lo = sw ? g_k[a + 1u] : g_k[a];                      \
        uvec4 hi = sw ? g_k[a] : g_k[a + 1u];                      \
        g_k[a] = lo;                                               \
        g_k[a + 1u] = hi;                                          \
        if (TAGS) {                                                \
            uint tl = sw ? g_tag[a + 1u] : g_tag[a];               \
            uint th = sw ? g_tag[a] : g_tag[a + 1u];               \
            g_tag[a] = tl;                                         \
            g_tag[a + 1u] = th;                                    \
        }                                                          \
    }
    if (TAGS) {
        [[dont_unroll]] for (uint r = 0u; r < KPT; r += 2u) {
            OET_ROUND(0u)
            OET_ROUND(1u)
        }
    } else {
        [[unroll]] for (uint r = 0u; r < KPT; r += 2u) {
            OET_ROUND(0u)
            OET_ROUND(1u)
        }
    }
}

// Merge rounds: runs of s keys (s = KPT, 2 KPT, ..., TILE / 2) merged in pairs through shared memory, 2s / KPT
// invocations per pair, each merging the KPT outputs from its diagonal on.
void merge_rounds() {
    uint lid = gl_LocalInvocationID.x;
    for (uint s = KPT; s < TILE; s <<= 1u) {
        stage_blocked(TAGS);
        uint pa = (lid * KPT) & ~(2u * s - 1u);   // the pair's first run A = [pa, pa + s), B = [pa + s, pa + 2s)
        uint pb = pa + s;
        uint d = (lid * KPT) & (2u * s - 1u);     // this invocation's diagonal within the pair
        uint i = path_search(pa, s, pb, s, d);
        merge_keys(pa + i, pb, pb + (d - i), pb + s, TAGS);
    }
}

// The sorted tile out through shared memory to [base, base + m) of `side`: coalesced stores of keys and of
// values, gathered by tag (every value read before any is written: the pass may write in place).
void store_tile(uint base, uint m, uint side) {
    uint lid = gl_LocalInvocationID.x;
    stage_blocked(TAGS);
    uvec2 v[KPT];
    [[unroll]] for (uint a = 0u; a < KPT; a++) v[a] = uvec2(0u);
    if (TAGS) {
        // Unconditional gathers (positions past the end read the tile's last position's value, never stored).
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            v[a] = VAL_AT(vals0, base + stag_get(min(a * WG_SIZE + lid, m - 1u)));
        }
        memoryBarrierBuffer();
        barrier();
    }
    if (side != 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < m) {
                SET_KEY(keys1, base + p, key_unorder(skey_get(p)));
                SET_VAL(vals1, base + p, v[a]);
            }
        }
    } else {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < m) {
                SET_KEY(keys0, base + p, key_unorder(skey_get(p)));
                SET_VAL(vals0, base + p, v[a]);
            }
        }
    }
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    // The first pass reads a GPU-side count itself (no sort_count pass before it): one dependent dispatch less.
    uint n = pc.n_host;
    if (pc.use_count != 0u) {
        uint raw = count[pc.count_word];
        n = min(raw, pc.capacity);
        if (flat_group_id() == 0u && gl_LocalInvocationIndex == 0u) CTRL_RECORD_COUNT(meta, n, raw, pc.capacity)
    }
    uint base = flat_group_id() * TILE;
    if (base >= n) return;
    uint side = merge_passes(n, pc.block_tile) & 1u;
    uint m = min(n - base, TILE);
    load_tile(base, m);
    sort_registers();
    merge_rounds();
    store_tile(base, m, side);
}
