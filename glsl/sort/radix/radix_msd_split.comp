#version 460
// radix_msd_split.comp (vksort::radix::msd, pass 2 of 3): splits each tile's keys (and values) by their most
// significant differing digit, stably, from the caller's buffers into the scratch arrays, tile by tile: tile t's
// keys stay in its own range [t x TILE, t x TILE + TILE) of the scratch, sorted there on the split digit. One
// workgroup per tile; no workgroup waits for another, and no memory needs zeroing.
//   1. The smallest and largest transformed key over bits [lo, hi) come from the differ pass's per-tile words
//      (tables[4t ..]; one read per tile), or, for a sort of one tile (one_tile: no differ pass; this pass then
//      records n in the control block), from the tile's own keys. The keys are biased by the smallest
//      (msd_range.glsl); h is the bit length of max - min, and the split digit is bits [shift, h) of the biased
//      key, shift = max(lo, h - DIGIT_BITS).
//   2. The workgroup ranks its tile on the split digit (radix_rank.glsl) and writes each key to its tile-local
//      place, and writes where each digit's run starts in the tile: tables[4 x stride + d x stride + t] (digit
//      d's row of the run table, one word per tile; stride: tiles of the capacity), and adds each digit's count
//      to the counts row, tables[(4 + RADIX) x stride + d] (zeroed by the differ pass; a sort of one tile
//      writes it, and zeroes the bucket pass's control words after it), from which the bucket pass's helpers
//      find the buckets too large for one workgroup.
// Workgroup 0 also writes meta[CTRL_MSD] = shift + 1 (0: nothing to sort, n <= 1 or all keys equal on [lo, hi))
// and the bias to meta[CTRL_MSD_BIAS ..] (low, high word).
// The bucket pass gathers each bucket's runs from all tiles, in tile order.
// @variant ballot
// @variant partitioned PARTITIONED=1
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint KPT = 4;
layout(constant_id = 3) const uint DIGIT_BITS = 8;
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;
layout(constant_id = 12) const uint BALLOT_WORDS = 4;   // see radix_rank.glsl

const uint RADIX = 1u << DIGIT_BITS;
const uint TILE = WG_SIZE * KPT;

SIDE(0, 1, readonly, keys, vals);
SIDE(2, 3, writeonly, alt_keys, alt_vals);
BUFFER(4, readonly, count);
BUFFER(5, writeonly, meta);
BUFFER(6, , tables);

layout(push_constant) uniform Push {
    uint n_host;
    uint use_count;    // 1: n = min(count[count_word], capacity)
    uint count_word;
    uint capacity;
    uint lo;
    uint hi;
    uint key_kind;
    uint flags;        // bit 0: descending
    uint stride;       // tiles of the capacity: the run table's row length
    uint one_tile;     // 1: a single tile (no differ pass): the tile's own range, and this pass records n
} pc;
// The counts row of the tables: each digit's keys over all tiles (zeroed by the differ pass; one tile: written).
#define COUNTS_ROW ((4u + RADIX) * pc.stride)

shared uint smem[MAX_SUBGROUPS * RADIX];
shared uint s_tot[RADIX];
shared uint s_lstart[RADIX];
const uint MATCH_OR = 0u;
const uint MATCH_BASE = 0u;

#include "radix_rank.glsl"
#include "key_differ.glsl"
#include "msd_range.glsl"

// This tile's keys and values (per invocation; the phases are inlined, so these stay in registers).
uint w0[KPT], w1[KPT], v0[KPT], v1[KPT];

// The count to sort (the GPU-side count clamped to the capacity), recorded in the control block by the
// one-tile form.
uint read_count(uint t) {
    uint raw = pc.use_count != 0u ? count[pc.count_word] : pc.n_host;
    uint n = min(raw, pc.capacity);
    if (pc.one_tile != 0u && t == 0u && gl_LocalInvocationID.x == 0u) CTRL_RECORD_COUNT(meta, n, raw, pc.capacity)
    return n;
}

// Loads the tile's keys and values; indices past n read key n - 1 again.
void load_tile(uint first, uint n) {
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint i = min(first + item_pos(j), n - 1u);
        w0[j] = keys[i * KEY_WORDS];
        w1[j] = KEY_WORDS == 2u ? keys[i * KEY_WORDS + 1u] : 0u;
        v0[j] = VAL_WORDS >= 1u ? vals[i * VAL_WORDS] : 0u;
        v1[j] = VAL_WORDS == 2u ? vals[i * VAL_WORDS + 1u] : 0u;
    }
}

// The keys' range on [lo, hi): (min, max) of this tile's keys (one tile), or of every tile's in the range table.
uvec4 key_range(uint tiles, bool desc) {
    uvec2 rm = range_mask(pc.lo, pc.hi);
    uvec2 mn = uvec2(~0u), mx = uvec2(0u);
    if (pc.one_tile != 0u) {
        [[unroll]] for (uint j = 0u; j < KPT; j++) {   // indices past n read key n - 1 again: no change
            uvec2 x = key_transform(uvec2(w0[j], w1[j]), pc.key_kind, desc) & rm;
            mn = min64(mn, x);
            mx = max64(mx, x);
        }
    } else {
        for (uint i = gl_LocalInvocationID.x; i < tiles; i += WG_SIZE) {
            mn = min64(mn, uvec2(tables[4u * i], tables[4u * i + 1u]));
            mx = max64(mx, uvec2(tables[4u * i + 2u], tables[4u * i + 3u]));
        }
    }
    wg_min_max(mn, mx);
    return uvec4(mn, mx);
}

// Ranks the tile's keys on the split digit (bits [shift, shift + bits) of the key minus the bias mn; padding past
// n ranks last) and writes them to their places in the tile's range, and the tile's run starts and counts to
// the tables.
void rank_and_place(uint t, uint n, uint first, bool desc, uvec2 mn, uint shift, uint bits) {
    uint lid = gl_LocalInvocationID.x;
    uint mask = (1u << bits) - 1u;
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uvec2 biased = sub64(key_transform(uvec2(w0[j], w1[j]), pc.key_kind, desc), mn);
        g_digit[j] = first + item_pos(j) < n ? key_digit(biased, shift, mask) : mask;
    }
    rank_digits(bits);
    uint m = min(TILE, n - first);   // the tile's keys (the padding ranks last, in digit `mask`)
    for (uint d = lid; d < RADIX; d += WG_SIZE) {
        tables[4u * pc.stride + d * pc.stride + t] = s_lstart[d];
        uint c = min(s_lstart[d] + s_tot[d], m) - min(s_lstart[d], m);
        if (pc.one_tile != 0u) {
            tables[COUNTS_ROW + d] = c;
            // The bucket pass's cooperative-helper control words of bucket d (the differ pass's job otherwise).
            for (uint w = 0u; w < 4u; w++) tables[COUNTS_ROW + RADIX + 4u * d + w] = 0u;
        } else if (c != 0u) {
            atomicAdd(tables[COUNTS_ROW + d], c);
        }
    }
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        if (first + item_pos(j) < n) {
            uint d = g_digit[j];
            uint to = first + s_lstart[d] + smem[gl_SubgroupID * RADIX + d] + g_sub[j];
            alt_keys[to * KEY_WORDS] = w0[j];
            if (KEY_WORDS == 2u) alt_keys[to * KEY_WORDS + 1u] = w1[j];
            if (VAL_WORDS >= 1u) alt_vals[to * VAL_WORDS] = v0[j];
            if (VAL_WORDS == 2u) alt_vals[to * VAL_WORDS + 1u] = v1[j];
        }
    }
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint t = flat_group_id();
    uint n = read_count(t);
    if (n <= 1u) {
        if (t == 0u && lid == 0u) meta[CTRL_MSD] = 0u;
        return;
    }
    uint tiles = div_ceil(n, TILE);
    if (t >= tiles) return;
    bool desc = (pc.flags & 1u) != 0u;
    uint first = t * TILE;
    load_tile(first, n);   // first: its latency hides behind the range
    uvec4 r = key_range(tiles, desc);
    uvec2 mn = r.xy;
    uvec2 span = sub64(r.zw, mn);
    if (span == uvec2(0u)) {
        // All keys are equal on [lo, hi): they are sorted as they stand.
        if (t == 0u && lid == 0u) meta[CTRL_MSD] = 0u;
        return;
    }
    // The split digit: the highest DIGIT_BITS bits of the span (at least bit lo).
    uint h = span.y != 0u ? 33u + uint(findMSB(span.y)) : 1u + uint(findMSB(span.x));
    uint shift = max(pc.lo, h >= DIGIT_BITS ? h - DIGIT_BITS : 0u);
    if (t == 0u && lid == 0u) {
        meta[CTRL_MSD] = shift + 1u;
        meta[CTRL_MSD_BIAS] = mn.x;
        meta[CTRL_MSD_BIAS + 1u] = mn.y;
    }
    rank_and_place(t, n, first, desc, mn, shift, h - shift);
}
