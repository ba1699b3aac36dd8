#version 460
// radix_msd_differ.comp (vksort::radix::msd, pass 1 of 3): the keys' range. One workgroup per split tile
// (TILE keys, the split pass's tile) writes the smallest and the largest of its transformed keys masked to the
// sorted bits [lo, hi) to tables[4t .. 4t + 4) (min low and high word, max low and high word); the split pass
// combines them (msd_range.glsl). Workgroup 0 records n in the
// control block (the host's count, or the GPU-side count clamped to the capacity, with the raw count and the
// overflow flag), where the bucket pass reads it, and zeroes the counts row of the tables ((4 + RADIX) x stride
// words in: the split pass adds each digit's count there) and the bucket pass's control words after it.
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint KPT = 4;
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 3) const uint DIGIT_BITS = 8;
const uint TILE = WG_SIZE * KPT;
const uint RADIX = 1u << DIGIT_BITS;

BUFFER(0, readonly, keys);
BUFFER(1, readonly, count);
BUFFER(2, writeonly, meta);
BUFFER(3, writeonly, tables);

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
    uint one_tile;     // unused here (the split pass's push constants)
} pc;

#include "key_differ.glsl"
#include "msd_range.glsl"

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint t = flat_group_id();
    uint raw = pc.use_count != 0u ? count[pc.count_word] : pc.n_host;
    uint n = min(raw, pc.capacity);
    if (t == 0u) {
        if (lid == 0u) CTRL_RECORD_COUNT(meta, n, raw, pc.capacity)
        // The counts row, then the bucket pass's cooperative-helper control words (4 per bucket).
        for (uint d = lid; d < 5u * RADIX; d += WG_SIZE) tables[(4u + RADIX) * pc.stride + d] = 0u;
    }
    if (t * TILE >= n) return;
    // Indices past n read key n - 1 again, which changes no min or max.
    uvec2 k[KPT];
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint i = min(t * TILE + j * WG_SIZE + lid, n - 1u);
        k[j] = uvec2(keys[i * KEY_WORDS], KEY_WORDS == 2u ? keys[i * KEY_WORDS + 1u] : 0u);
    }
    bool desc = (pc.flags & 1u) != 0u;
    uvec2 rm = range_mask(pc.lo, pc.hi);
    uvec2 mn = uvec2(~0u), mx = uvec2(0u);
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uvec2 x = key_transform(k[j], pc.key_kind, desc) & rm;
        mn = min64(mn, x);
        mx = max64(mx, x);
    }
    wg_min_max(mn, mx);
    if (lid == 0u) {
        tables[4u * t] = mn.x;
        tables[4u * t + 1u] = mn.y;
        tables[4u * t + 2u] = mx.x;
        tables[4u * t + 3u] = mx.y;
    }
}
