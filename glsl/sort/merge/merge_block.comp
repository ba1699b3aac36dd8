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

layout(set = 0, binding = 4, std430) readonly buffer Meta { uint meta[]; };

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;   // the policy's tile (the merge passes' unit): decides P(n) and so the side written
} pc;

const uint TAG_BASE = TILE * KEY_WORDS;

// The tags of positions p and p + 1 (p even), one word.
void stag_put2(uint p, uint t0, uint t1) {
    s_keys[TAG_BASE + swz(p >> 1u)] = t0 | (t1 << 16u);
}

uint stag_get(uint p) {
    return (s_keys[TAG_BASE + swz(p >> 1u)] >> ((p & 1u) * 16u)) & 0xffffu;
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint base = flat_group_id() * TILE;
    if (base >= n) return;
    uint side = merge_passes(n, pc.block_tile) & 1u;
    uint m = min(n - base, TILE);
    uint lid = gl_LocalInvocationID.x;
    bool vals = VAL_WORDS > 0u;

    // Striped, coalesced loads, all issued before any is used: no load sits in a branch (a position past the
    // tile's end reads its last key, then takes the padding instead).
    uvec4 k[KPT];
    [[unroll]] for (uint a = 0u; a < KPT; a++) k[a] = KEY_AT(keys0, base + min(a * WG_SIZE + lid, m - 1u));
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        skey_put(p, p < m ? key_order(k[a]) : KEY_MAX);
    }
    barrier();
    uint tg[KPT];
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        k[a] = skey_get(lid * KPT + a);
        tg[a] = lid * KPT + a;
    }

    // Odd-even transposition sort of the invocation's KPT keys (KPT rounds; each round's comparators are
    // disjoint). Register indices depend only on the inner loops' counters. Keys only: fully unrolled. With tags,
    // a loop of pairs of rounds: fully unrolled, the compiler's schedule of the network wanted more registers
    // than the residency its shared memory allows and spilled (H200: 128 registers and 384 bytes of local memory
    // per invocation at 16 keys, 64 and 176 at 8); looped, 115 registers and none at 16.
#define OET_ROUND(PARITY)                                          \
    [[unroll]] for (uint a = PARITY; a + 1u < KPT; a += 2u) {      \
        bool sw = mkey_lt(k[a + 1u], k[a]);                        \
        uvec4 lo = sw ? k[a + 1u] : k[a];                          \
        uvec4 hi = sw ? k[a] : k[a + 1u];                          \
        k[a] = lo;                                                 \
        k[a + 1u] = hi;                                            \
        if (vals) {                                                \
            uint tl = sw ? tg[a + 1u] : tg[a];                     \
            uint th = sw ? tg[a] : tg[a + 1u];                     \
            tg[a] = tl;                                            \
            tg[a + 1u] = th;                                       \
        }                                                          \
    }
    if (vals) {
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

    // Merge rounds: runs of s keys (s = KPT, 2 KPT, ..., TILE / 2) merged in pairs, 2s / KPT invocations per pair.
    for (uint s = KPT; s < TILE; s <<= 1u) {
        barrier();
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            skey_put(lid * KPT + a, k[a]);
            if (vals && (a & 1u) == 0u) stag_put2(lid * KPT + a, tg[a], tg[a + 1u]);
        }
        barrier();
        uint pa = (lid * KPT) & ~(2u * s - 1u);   // the pair's first run A = [pa, pa + s), B = [pa + s, pa + 2s)
        uint pb = pa + s;
        uint d = (lid * KPT) & (2u * s - 1u);     // this invocation's diagonal within the pair
        uint i = path_search(pa, s, pb, s, d);
        uint j = d - i;
        uvec4 ka = skey_get(pa + min(i, s - 1u));
        uvec4 kb = skey_get(pb + min(j, s - 1u));
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            bool take_b = j < s && (i >= s || mkey_lt(kb, ka));
            uint from = take_b ? pb + j : pa + i;
            k[a] = take_b ? kb : ka;
            if (vals) tg[a] = stag_get(from);
            if (take_b) {
                j++;
            } else {
                i++;
            }
            // One shared read for the side that moved (clamped: the value read past a run's end is never used).
            uvec4 next = skey_get(min(from + 1u, TILE - 1u));
            kb = take_b ? next : kb;
            ka = take_b ? ka : next;
        }
    }

    // Out through shared memory: coalesced stores of keys and values.
    barrier();
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        skey_put(lid * KPT + a, k[a]);
        if (vals && (a & 1u) == 0u) stag_put2(lid * KPT + a, tg[a], tg[a + 1u]);
    }
    barrier();
    uvec2 v[KPT];
    [[unroll]] for (uint a = 0u; a < KPT; a++) v[a] = uvec2(0u);
    if (vals) {
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
