#version 460
// radix_msd_split.comp (vksort::radix::msd, pass 1 of 2): splits the keys (and values) into buckets by their
// most significant differing digit, from the caller's buffers into the scratch arrays, stably. One workgroup
// per tile of TILE keys; no workgroup waits for another. Each workgroup
//   1. reads every key once for the AND and OR of the transformed keys (over bits [lo, hi)): the highest bit h
//      where two keys differ; the split digit is bits [shift, h) with shift = max(lo, h - DIGIT_BITS);
//   2. reads every key again and counts the split digits of the keys before its tile and of the rest: the
//      global start of each digit, and where this tile's keys of each digit go;
//   3. ranks its own tile on the split digit (radix_rank.glsl) and writes each key to its place.
// Steps 1-2 read n keys per workgroup (n x tiles in all), which is why the policy's `msd_max` keeps this sort to
// small n. Workgroup 0 also writes the bucket table for the bucket pass: meta[CTRL_MSD] = shift + 1 (0: nothing
// to sort, n <= 1 or all keys equal on [lo, hi)), meta[table_off + d] = bucket d's first key, d in 0..RADIX, and
// meta[table_off + RADIX] = n. With a GPU-side count it records n and the overflow flag in the control block.
// @variant ballot
// @variant partitioned PARTITIONED=1
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint KPT = 4;
layout(constant_id = 3) const uint DIGIT_BITS = 8;
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;
layout(constant_id = 6) const uint BALLOT_WORDS = 4;   // see radix_rank.glsl

const uint RADIX = 1u << DIGIT_BITS;
const uint TILE = WG_SIZE * KPT;
// Keys each invocation loads per round of the two sweeps over all keys (RadixPolicy::msd_split_sweep).
layout(constant_id = 7) const uint SWEEP = 8;
const uint ROUND = WG_SIZE * SWEEP;
// Timing experiments only (results are wrong when non-zero; RadixPolicy::debug_mode bits 3 and 4): bit 0 skips the
// first sweep (the split digit is the top of the bit range), bit 1 the counting of the second.
layout(constant_id = 8) const uint DEBUG_MODE = 0;

layout(set = 0, binding = 0, std430) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1, std430) readonly buffer Vals { uint vals[]; };
layout(set = 0, binding = 2, std430) writeonly buffer AltKeys { uint alt_keys[]; };
layout(set = 0, binding = 3, std430) writeonly buffer AltVals { uint alt_vals[]; };
layout(set = 0, binding = 4, std430) readonly buffer Count { uint count[]; };
layout(set = 0, binding = 5, std430) buffer Meta { uint meta[]; };

layout(push_constant) uniform Push {
    uint n_host;
    uint use_count;    // 1: n = min(count[count_word], capacity)
    uint count_word;
    uint capacity;
    uint lo;
    uint hi;
    uint key_kind;
    uint flags;        // bit 0: descending
    uint table_off;    // meta word of the bucket table
} pc;

shared uint smem[MAX_SUBGROUPS * RADIX];
shared uint s_tot[RADIX];
shared uint s_lstart[RADIX];
shared uint s_before[RADIX];   // split digits of the keys before this tile, then this tile's first destination
shared uint s_rest[RADIX];     // split digits of this tile's keys and those after it
const uint MATCH_OR = 0u;
const uint MATCH_BASE = 0u;

#include "radix_rank.glsl"
#include "key_differ.glsl"

// Key index first + off, wrapped around at n (first, off < n).
uint wrap(uint first, uint off, uint n) {
    uint i = first + off;
    return i >= n ? i - n : i;
}

uvec2 load_key(uint i) {
    return uvec2(keys[i * KEY_WORDS], KEY_WORDS == 2u ? keys[i * KEY_WORDS + 1u] : 0u);
}

// Offset (from the tile's first key) of this invocation's key u in round r of a sweep over all keys.
uint sweep_off(uint r, uint u) { return r * ROUND + u * WG_SIZE + gl_LocalInvocationID.x; }

// This invocation's keys of sweep round r: key first + offset, wrapped around at n; offsets past n read the key
// at offset n - 1 again.
void load_round(uint first, uint r, uint n, out uvec2 k[SWEEP]) {
    [[unroll]] for (uint u = 0u; u < SWEEP; u++) k[u] = load_key(wrap(first, min(sweep_off(r, u), n - 1u), n));
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = pc.n_host;
    uint t = flat_group_id();
    if (pc.use_count != 0u) {
        uint raw = count[pc.count_word];
        n = min(raw, pc.capacity);
        if (t == 0u && lid == 0u) {
            meta[CTRL_N] = n;
            meta[CTRL_RAW_COUNT] = raw;
            meta[CTRL_OVERFLOW] = raw > pc.capacity ? 1u : 0u;
        }
    }
    if (n <= 1u) {
        if (t == 0u && lid == 0u) meta[CTRL_MSD] = 0u;
        return;
    }
    if (t >= div_ceil(n, TILE)) return;
    bool desc = (pc.flags & 1u) != 0u;

    // 1. Where do the keys differ? Both sweeps read all n keys from this tile's first key on, wrapping around at
    // n, so that the workgroups do not all read the same keys at the same time.
    uint first = t * TILE;
    uint rounds = div_ceil(n, ROUND);
    uvec2 a = uvec2(~0u), o = uvec2(0u);
    for (uint r = 0u; r < ((DEBUG_MODE & 1u) != 0u ? 0u : rounds); r++) {
        uvec2 k[SWEEP];
        load_round(first, r, n, k);   // repeated keys past n change no AND or OR
        [[unroll]] for (uint u = 0u; u < SWEEP; u++) {
            uvec2 x = key_transform(k[u], pc.key_kind, desc);
            a &= x;
            o |= x;
        }
    }
    for (uint d = lid; d < RADIX; d += WG_SIZE) {
        s_before[d] = 0u;
        s_rest[d] = 0u;
    }
    if ((DEBUG_MODE & 1u) != 0u) o = ~a;
    uvec2 differ = wg_differ(a, o) & range_mask(pc.lo, pc.hi);   // its barriers also cover the zeroing
    if (differ == uvec2(0u)) {
        // All keys are equal on [lo, hi): they are sorted as they stand.
        if (t == 0u && lid == 0u) meta[CTRL_MSD] = 0u;
        return;
    }
    uint h = differ.y != 0u ? 33u + uint(findMSB(differ.y)) : 1u + uint(findMSB(differ.x));
    uint shift = max(pc.lo, h >= DIGIT_BITS ? h - DIGIT_BITS : 0u);
    uint bits = h - shift;
    uint mask = (1u << bits) - 1u;

    // 2. Count the split digits before this tile and from it on (offsets below n - first are this tile's keys
    // and those after it).
    for (uint r = 0u; r < ((DEBUG_MODE & 2u) != 0u ? 0u : rounds); r++) {
        uvec2 k[SWEEP];
        load_round(first, r, n, k);
        [[unroll]] for (uint u = 0u; u < SWEEP; u++) {
            uint off = sweep_off(r, u);
            if (off < n) {
                uint d = key_digit(key_transform(k[u], pc.key_kind, desc), shift, mask);
                if (off >= n - first) {
                    atomicAdd(s_before[d], 1u);
                } else {
                    atomicAdd(s_rest[d], 1u);
                }
            }
        }
    }
    barrier();
    for (uint d = lid; d < RADIX; d += WG_SIZE) s_tot[d] = s_before[d] + s_rest[d];
    barrier();
    scan_digit_totals();   // s_lstart: each digit's first key (ends with a barrier)
    for (uint d = lid; d < RADIX; d += WG_SIZE) {
        if (t == 0u) meta[pc.table_off + d] = s_lstart[d];
        s_before[d] += s_lstart[d];
    }
    if (t == 0u && lid == 0u) {
        meta[pc.table_off + RADIX] = n;
        meta[CTRL_MSD] = shift + 1u;
    }

    // 3. Rank this tile's keys on the split digit and write them to their places.
    uint w0[KPT], w1[KPT], v0[KPT], v1[KPT];
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint i = first + item_pos(j);
        w0[j] = 0u;
        w1[j] = 0u;
        v0[j] = 0u;
        v1[j] = 0u;
        g_digit[j] = mask;   // padding past n ranks last
        if (i < n) {
            uvec2 k = load_key(i);
            w0[j] = k.x;
            w1[j] = k.y;
            if (VAL_WORDS >= 1u) v0[j] = vals[i * VAL_WORDS];
            if (VAL_WORDS == 2u) v1[j] = vals[i * VAL_WORDS + 1u];
            g_digit[j] = key_digit(key_transform(k, pc.key_kind, desc), shift, mask);
        }
    }
    barrier();   // s_lstart and s_tot are read above; rank_digits rewrites them
    rank_digits(bits);
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        if (first + item_pos(j) < n) {
            uint d = g_digit[j];
            uint to = s_before[d] + smem[gl_SubgroupID * RADIX + d] + g_sub[j];
            alt_keys[to * KEY_WORDS] = w0[j];
            if (KEY_WORDS == 2u) alt_keys[to * KEY_WORDS + 1u] = w1[j];
            if (VAL_WORDS >= 1u) alt_vals[to * VAL_WORDS] = v0[j];
            if (VAL_WORDS == 2u) alt_vals[to * VAL_WORDS + 1u] = v1[j];
        }
    }
}
