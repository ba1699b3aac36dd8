#version 460
// split_scatter.comp (vksort::split::scatter): step 3 of a pass of the blocked form (after Satish et al.): tile t
// (WG_SIZE x KPT keys) sorts itself on the pass's digit by one stable 1-bit split per digit bit, in shared
// memory, then writes every key (and value) to its global position: the scanned histogram's start of (digit,
// t) plus its rank among the tile's keys of that digit. Reads k + v + 4 x RADIX bytes per tile key and
// writes k + v. Dispatched indirectly: 0 workgroups when the pass does not run.
//
// A split moves one word per key: (digit << 16) | tile index. Each invocation holds KPT consecutive words
// ("vertical" layout) and counts its zeros sequentially; one workgroup scan (subgroup scan + shared partials,
// wg_scan.glsl) of those counts gives every word its rank among the zeros (or, for a one, Z + its position -
// the zeros before it), and the words are stored to shared memory at their new positions. The raw keys stay in
// shared memory at their tile index from the load on; values are read once, when they are written. Keys at
// or beyond n (the last tile's tail) get the all-ones digit, so they stay behind every real key.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"
#include "wg_scan.glsl"

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 3) const uint DIGIT_BITS = 4;

SIDE(0, 2, readonly, keys_in, vals_in);
SIDE(1, 3, writeonly, keys_out, vals_out);
BUFFER(4, readonly, hist);
BUFFER(5, readonly, meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint pass;
} pc;

#include "split_common.glsl"

const uint TILE = WG_SIZE * KPT;
const uint RADIX = 1u << DIGIT_BITS;

shared uint s_keys[TILE * KEY_WORDS];   // word w of the key at tile index p: s_keys[w * TILE + p]
shared uint s_split[TILE + TILE / 32u]; // the split words, one padding word per 32
shared uint s_off[RADIX];               // per digit: its global start minus its first tile position

DEFINE_WG_SCAN(uint, split_wg)

uint spad(uint p) {
    return p + (p >> 5u);
}

uint digit_word(uint x) {
    return (x >> 16) & 0xffu;
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (pc.pass >= meta[CTRL_PASSES]) return;
    uint tiles = div_ceil(n, TILE);
    uint tile = flat_group_id();
    if (tile >= tiles) return;
    uint lid = gl_LocalInvocationID.x;
    uint base = tile * TILE;
    uint m = min(n - base, TILE);
    Digit g = digit_of_pass(pc.pass, DIGIT_BITS);

    // Load (striped, coalesced): raw keys to s_keys, split words to s_split.
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        uint x = ((RADIX - 1u) << 16) | p;
        if (p < m) {
            uvec4 raw = KEY_AT(keys_in, base + p);
            [[unroll]] for (uint w = 0u; w < KEY_WORDS; w++) s_keys[w * TILE + p] = raw[w];
            x = (digit_of(g, key_order(raw)) << 16) | p;
        }
        s_split[spad(p)] = x;
    }
    barrier();

    // One stable 1-bit split per digit bit, lowest first.
    uint x[KPT];
    [[unroll]] for (uint j = 0u; j < KPT; j++) x[j] = s_split[spad(lid * KPT + j)];
    for (uint b = 0u; b < g.count; b++) {
        uint zeros = 0u;
        [[unroll]] for (uint j = 0u; j < KPT; j++) zeros += ((x[j] >> (16u + b)) & 1u) ^ 1u;
        uint total;
        uint z = split_wg_exclusive_add(zeros, total);   // its barriers end every read of s_split
        [[unroll]] for (uint j = 0u; j < KPT; j++) {
            uint p = lid * KPT + j;
            uint one = (x[j] >> (16u + b)) & 1u;
            uint dst = one == 0u ? z : total + p - z;
            z += one ^ 1u;
            s_split[spad(dst)] = x[j];
        }
        barrier();
        [[unroll]] for (uint j = 0u; j < KPT; j++) x[j] = s_split[spad(lid * KPT + j)];
    }

    // Where each digit's run of this tile starts globally.
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) {
            uint d = digit_word(s_split[spad(p)]);
            if (p == 0u || digit_word(s_split[spad(p - 1u)]) != d) s_off[d] = hist[d * tiles + tile] - p;
        }
    }
    barrier();

    // Write (striped: consecutive invocations write consecutive positions of a digit's run).
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) {
            uint v = s_split[spad(p)];
            uint idx = v & 0xffffu;
            uint dst = s_off[digit_word(v)] + p;
            uvec4 raw = uvec4(0u);
            [[unroll]] for (uint w = 0u; w < KEY_WORDS; w++) raw[w] = s_keys[w * TILE + idx];
            SET_KEY(keys_out, dst, raw);
            if (VAL_WORDS > 0u) SET_VAL(vals_out, dst, VAL_AT(vals_in, base + idx));
        }
    }
}
