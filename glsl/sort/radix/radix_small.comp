#version 460
// radix_small.comp (vksort::radix::small): the whole sort in one workgroup for n <= WG_SIZE * KPT. Keys (and
// values) are read once into registers, every digit place is ranked (radix_rank.glsl) and exchanged through
// shared memory, and the result is written once. n is the host's (push constant) or read from the count
// buffer and clamped to the capacity (then n and the overflow flag are recorded in the control block).
// Digit places where every key has the same digit (found from the AND and OR of all transformed keys) are
// skipped.
// @variant ballot
// @variant partitioned PARTITIONED=1
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 3) const uint DIGIT_BITS = 8;
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;
layout(constant_id = 12) const uint BALLOT_WORDS = 4;   // see radix_rank.glsl

const uint RADIX = 1u << DIGIT_BITS;
const uint TILE = WG_SIZE * KPT;
const uint HIST_WORDS = MAX_SUBGROUPS * RADIX;
const uint SMEM_WORDS = TILE > HIST_WORDS ? TILE : HIST_WORDS;

SIDE(0, 1, , keys, vals);
BUFFER(2, readonly, count);
BUFFER(3, , meta);

layout(push_constant) uniform Push {
    uint n_host;
    uint use_count;    // 1: n = min(count[count_word], capacity)
    uint count_word;
    uint capacity;
    uint lo;
    uint hi;
    uint key_kind;
    uint flags;        // bit 0: descending
} pc;

shared uint smem[SMEM_WORDS];
shared uint s_tot[RADIX];
shared uint s_lstart[RADIX];
const uint MATCH_OR = 0u;   // ballot or match-any peers (radix_rank.glsl)
const uint MATCH_BASE = 0u;

#include "radix_rank.glsl"

#include "radix_local.glsl"

void main() {
    uint n = pc.n_host;
    if (pc.use_count != 0u) {
        uint raw = count[pc.count_word];
        n = min(raw, pc.capacity);
        if (gl_LocalInvocationID.x == 0u) {
            meta[CTRL_N] = n;
            meta[CTRL_RAW_COUNT] = raw;
            meta[CTRL_OVERFLOW] = raw > pc.capacity ? 1u : 0u;
        }
    }
    n = min(n, TILE);
    if (n <= 1u) return;
    bool desc = (pc.flags & 1u) != 0u;
    local_clear();
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint i = item_pos(j);
        if (i < n) {
            g_w0[j] = keys[i * KEY_WORDS];
            if (KEY_WORDS == 2u) g_w1[j] = keys[i * KEY_WORDS + 1u];
            if (VAL_WORDS >= 1u) g_v0[j] = vals[i * VAL_WORDS];
            if (VAL_WORDS == 2u) g_v1[j] = vals[i * VAL_WORDS + 1u];
        }
    }
    // Places over only bits where all keys agree are skipped.
    local_sort(n, pc.lo, pc.hi, pc.key_kind, desc, local_differ(n, pc.key_kind, desc));
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint i = item_pos(j);
        if (i < n) {
            keys[i * KEY_WORDS] = g_w0[j];
            if (KEY_WORDS == 2u) keys[i * KEY_WORDS + 1u] = g_w1[j];
            if (VAL_WORDS >= 1u) vals[i * VAL_WORDS] = g_v0[j];
            if (VAL_WORDS == 2u) vals[i * VAL_WORDS + 1u] = g_v1[j];
        }
    }
}
