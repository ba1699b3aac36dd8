#version 460
// radix_upfront.comp (vksort::radix::upfront): reads the keys once and adds the digit histogram of every digit
// place to meta[hist_off + place * RADIX + digit] (zeroed before). G = min(ceil(n / (WG_SIZE * KPT)),
// max_groups) workgroups; workgroup g covers chunks g, g + G, ... of WG_SIZE * KPT keys, so the global atomics
// stay few (G x places x RADIX). n comes from the control block. Portions (arrays larger than one binding): the
// pass runs once per portion of `portion_len` keys; the keys binding holds the portion from key `first` on.
//
// Variant vec4 (VEC4=1; policy upfront_vec4): the keys are read as 16-byte vectors through a third binding (the
// same keys viewed as uvec4[], bound from a 16-byte aligned offset, its range rounded down to 16 bytes): chunk
// c's vector v = k * WG_SIZE + lid holds keys 4v/KEY_WORDS.. of the chunk; vectors that reach past n (the tail)
// are read key by key through binding 0. The host uses it only when KPT x KEY_WORDS is a multiple of 4.
//
// plan_fused (sorts of one portion): each workgroup takes a ticket (CTRL_UPFRONT_DONE) after adding its
// histograms; the last one runs the plan (radix_plan.glsl), so no separate plan pass follows. No workgroup waits
// for another.
// @variant scalar VEC4=0
// @variant vec4 VEC4=1
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 3) const uint DIGIT_BITS = 8;
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint PLACES = 4;
layout(constant_id = 6) const uint HIST_COPIES = 1;  // shared histogram copies (subgroup s adds to copy s % HIST_COPIES)

const uint RADIX = 1u << DIGIT_BITS;

BUFFER(0, readonly, keys);
// coherent: with plan_fused, the last workgroup reads the histograms the others added (at L2, not a stale L1).
BUFFER(1, coherent, meta);
#if VEC4
BUFFER_OF(uvec4, 2, readonly, keys4);
#endif

layout(push_constant) uniform Push {
    uint lo;        // first bit of the sorted range
    uint hi;        // end of the sorted range
    uint key_kind;
    uint flags;     // bit 0: descending
    uint hist_off;
    uint max_groups;
    uint first;        // index of the portion's first key (the binding's first key)
    uint portion_len;  // keys per portion
    // 1: the last workgroup to finish runs the plan (radix_plan.glsl; sorts of one portion), with:
    uint plan_fused;
    uint tile;
    uint max_x;
    uint copy_chunk;
    uint portion_tiles;
    uint copy_len;
    uint hybrid;    // the hybrid sort's MSD places and group bits (radix_plan.glsl); 0 for the LSD sorts
} pc;

#include "wg_scan.glsl"
#include "radix_plan.glsl"

shared uint s_hist[HIST_COPIES * PLACES * RADIX];

void count_key(uvec2 key, uint hbase, bool desc) {
    uvec2 t = key_transform(key, pc.key_kind, desc);
    for (uint p = 0u; p < PLACES; p++) {
        uint shift = pc.lo + p * DIGIT_BITS;
        uint bits = min(DIGIT_BITS, pc.hi - shift);
        atomicAdd(s_hist[hbase + p * RADIX + key_digit(t, shift, (1u << bits) - 1u)], 1u);
    }
}

#if !VEC4
void load_chunk(uint c, uint n, out uint w0[KPT], out uint w1[KPT]) {
    uint base = c * WG_SIZE * KPT;
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        uint idx = base + k * WG_SIZE + gl_LocalInvocationID.x;
        idx = idx < n ? idx : base;
        w0[k] = keys[idx * KEY_WORDS];
        w1[k] = KEY_WORDS == 2u ? keys[idx * KEY_WORDS + 1u] : 0u;
    }
}
#endif

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint total = meta[CTRL_N];
    uint n = total > pc.first ? min(total - pc.first, pc.portion_len) : 0u;   // this portion's keys
    uint chunks = div_ceil(n, WG_SIZE * KPT);
    uint groups = min(chunks, pc.max_groups);
    uint g = flat_group_id();
    if (g >= groups) return;
    for (uint i = lid; i < HIST_COPIES * PLACES * RADIX; i += WG_SIZE) s_hist[i] = 0u;
    barrier();
    uint hbase = (gl_SubgroupID % HIST_COPIES) * PLACES * RADIX;
    bool desc = (pc.flags & 1u) != 0u;
#if VEC4
    const uint KPV = 4u / KEY_WORDS;   // keys per vector
    for (uint c = g; c < chunks; c += groups) {
        uint base = c * WG_SIZE * KPT;
        [[unroll]] for (uint k = 0u; k < KPT / KPV; k++) {
            uint v = k * WG_SIZE + lid;
            uint first = base + v * KPV;
            if (first + KPV <= n) {
                uvec4 q = keys4[first * KEY_WORDS / 4u];
                [[unroll]] for (uint e = 0u; e < KPV; e++) {
                    uvec2 key = KEY_WORDS == 2u ? uvec2(q[2u * e], q[2u * e + 1u]) : uvec2(q[e], 0u);
                    count_key(key, hbase, desc);
                }
            } else {
                for (uint e = 0u; e < KPV; e++) {
                    uint idx = first + e;
                    if (idx < n) {
                        count_key(uvec2(keys[idx * KEY_WORDS], KEY_WORDS == 2u ? keys[idx * KEY_WORDS + 1u] : 0u), hbase, desc);
                    }
                }
            }
        }
    }
#else
    // All of a chunk's loads are issued before any key is counted (a load after a shared atomic would wait for
    // it), and the next chunk's loads before this chunk's counting (their latency hides behind the atomics);
    // indices past n read the chunk's first key and are not counted.
    uint w0[KPT];
    uint w1[KPT];
    load_chunk(g, n, w0, w1);
    for (uint c = g; c < chunks; c += groups) {
        uint base = c * WG_SIZE * KPT;
        uint k0[KPT];
        uint k1[KPT];
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            k0[k] = w0[k];
            k1[k] = w1[k];
        }
        if (c + groups < chunks) load_chunk(c + groups, n, w0, w1);
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            if (base + k * WG_SIZE + lid < n) count_key(uvec2(k0[k], k1[k]), hbase, desc);
        }
    }
#endif
    barrier();
    if ((pc.flags & 2u) != 0u) return;   // timing experiments only (RadixPolicy::debug_mode bit 6)
    for (uint i = lid; i < PLACES * RADIX; i += WG_SIZE) {
        uint c = 0u;
        for (uint h = 0u; h < HIST_COPIES; h++) c += s_hist[h * PLACES * RADIX + i];
        if (c != 0u) atomicAdd(meta[pc.hist_off + i], c);
    }
    // The last of the `groups` workgroups to get here plans.
    if (pc.plan_fused == 0u || !last_to_count(groups)) return;
    radix_plan(PLACES, pc.tile, pc.max_x, pc.hist_off, pc.copy_chunk, pc.portion_tiles, pc.copy_len, pc.lo, pc.hi,
               pc.hybrid);
}
