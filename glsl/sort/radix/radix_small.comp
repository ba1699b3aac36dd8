#version 460
// radix_small.comp (vksort::radix::small::{copy,rank}): the sort of a few thousand keys by rank, in two
// dispatches of the same pipeline (push flags bit 1 picks the phase).
//   copy: the caller's keys (and values) to the scratch arrays (alt_*), so that no workgroup of the rank phase
//         overwrites a key another has yet to read.
//   rank: every workgroup reads all n scratch keys, transformed (keys.glsl) and masked to the bit range [lo, hi),
//         into shared memory. Each subgroup takes TPS consecutive keys (its targets); lane l compares them with
//         keys l, l + SubgroupSize, ... and counts those that come first (smaller, or equal and earlier:
//         stable). The subgroup's sum is a target's place, where the lane that owns it writes the key and value
//         into the caller's arrays.
// n^2 comparisons over n / (TPS x subgroups) workgroups: for the sizes it takes, one wave of short workgroups, no
// digit places, no workgroup barrier but the one after the load, and no wait on another workgroup. n is the
// host's (push constant) or read from the count buffer and clamped to the capacity (the rank phase's first
// workgroup then records n and the overflow flag in the control block).
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint TPS = 4;          // targets per subgroup
layout(constant_id = 3) const uint MAX_KEYS = 2048;  // the capacity: keys held in shared memory
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;

const uint COPY_ITEMS = 4u;   // keys per invocation of the copy phase

SIDE(0, 1, , keys, vals);
SIDE(2, 3, , alt_keys, alt_vals);
BUFFER(4, readonly, count);
BUFFER(5, , meta);

layout(push_constant) uniform Push {
    uint n_host;
    uint use_count;    // 1: n = min(count[count_word], capacity)
    uint count_word;
    uint capacity;
    uint lo;
    uint hi;
    uint key_kind;
    uint flags;        // bit 0: descending; bit 1: the rank phase (else the copy)
} pc;

shared uint s_lo[MAX_KEYS];
shared uint s_hi[KEY_WORDS == 2u ? MAX_KEYS : 1u];

// a comes before b: smaller, or equal and earlier (ia < ib).
bool before(uvec2 a, uint ia, uvec2 b, uint ib) {
    if (KEY_WORDS == 2u && a.y != b.y) return a.y < b.y;
    return a.x < b.x || (a.x == b.x && ia < ib);
}

void main() {
    uint n = pc.n_host;
    bool rank = (pc.flags & 2u) != 0u;
    if (pc.use_count != 0u) {
        uint raw = count[pc.count_word];
        n = min(raw, pc.capacity);
        if (rank && flat_group_id() == 0u && gl_LocalInvocationID.x == 0u) {
            meta[CTRL_N] = n;
            meta[CTRL_RAW_COUNT] = raw;
            meta[CTRL_OVERFLOW] = raw > pc.capacity ? 1u : 0u;
        }
    }
    n = min(n, MAX_KEYS);
    if (n <= 1u) return;
    if (!rank) {
        uint base = flat_group_id() * WG_SIZE * COPY_ITEMS + gl_LocalInvocationID.x;
        [[unroll]] for (uint k = 0u; k < COPY_ITEMS; k++) {
            uint i = base + k * WG_SIZE;
            if (i < n) {
                for (uint w = 0u; w < KEY_WORDS; w++) alt_keys[i * KEY_WORDS + w] = keys[i * KEY_WORDS + w];
                for (uint w = 0u; w < VAL_WORDS; w++) alt_vals[i * VAL_WORDS + w] = vals[i * VAL_WORDS + w];
            }
        }
        return;
    }
    uint first = flat_group_id() * TPS * gl_NumSubgroups;
    if (first >= n) return;
    bool desc = (pc.flags & 1u) != 0u;
    uvec2 range = range_mask(pc.lo, pc.hi);
    for (uint i = gl_LocalInvocationID.x; i < n; i += WG_SIZE) {
        uvec2 k = uvec2(alt_keys[i * KEY_WORDS], KEY_WORDS == 2u ? alt_keys[i * KEY_WORDS + 1u] : 0u);
        uvec2 t = key_transform(k, pc.key_kind, desc) & range;
        s_lo[i] = t.x;
        if (KEY_WORDS == 2u) s_hi[i] = t.y;
    }
    barrier();
    uint t0 = first + gl_SubgroupID * TPS;
    uvec2 target[TPS];
    uint ahead[TPS];
    [[unroll]] for (uint a = 0u; a < TPS; a++) {
        uint ti = min(t0 + a, n - 1u);
        target[a] = uvec2(s_lo[ti], KEY_WORDS == 2u ? s_hi[ti] : 0u);
        ahead[a] = 0u;
    }
    for (uint j = gl_SubgroupInvocationID; j < n; j += gl_SubgroupSize) {
        uvec2 kj = uvec2(s_lo[j], KEY_WORDS == 2u ? s_hi[j] : 0u);
        [[unroll]] for (uint a = 0u; a < TPS; a++) ahead[a] += before(kj, j, target[a], t0 + a) ? 1u : 0u;
    }
    [[unroll]] for (uint a = 0u; a < TPS; a++) {
        uint place = subgroupAdd(ahead[a]);
        uint ti = t0 + a;
        if (ti < n && gl_SubgroupInvocationID == a % gl_SubgroupSize) {
            for (uint w = 0u; w < KEY_WORDS; w++) keys[place * KEY_WORDS + w] = alt_keys[ti * KEY_WORDS + w];
            for (uint w = 0u; w < VAL_WORDS; w++) vals[place * VAL_WORDS + w] = alt_vals[ti * VAL_WORDS + w];
        }
    }
}
