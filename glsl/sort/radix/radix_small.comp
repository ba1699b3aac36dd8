#version 460
// radix_small.comp (vksort::radix::small): the sort of a few thousand keys by rank, in one dispatch.
// Every workgroup reads all n caller's keys, transformed (keys.glsl) and masked to the bit range [lo, hi), into
// shared memory, and its targets' raw keys and values into registers. Each subgroup takes TPS consecutive keys
// (its targets); lane l compares them with keys l, l + SubgroupSize, ... and counts those that come first
// (smaller, or equal and earlier: stable). The subgroup's sum is a target's place.
// In place without a copy: a workgroup writes its targets into the caller's arrays only once every workgroup
// has read them (the block's reader count is complete); else it defers, parking them in the scratch (alt_*)
// with their places, and the last workgroup to finish moves the deferred ones. That last one also zeroes the
// block's header, so the next run (ordered by a barrier: the caller's, or vksort's) finds it as this one did.
// n is the host's (push constant) or read from the count buffer and clamped to the capacity (workgroup 0 then
// records n and the overflow flag in the control block). A GPU-side count of at most FEW_MAX keys places
// FEW_TPS keys per subgroup (more, shorter workgroups: the host's grid covers both), as a host count would.
#extension GL_KHR_memory_scope_semantics : require
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint TPS = 4;          // targets per subgroup
layout(constant_id = 3) const uint MAX_KEYS = 2048;  // the capacity: keys held in shared memory
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;
layout(constant_id = 6) const uint FEW_TPS = 4;      // <= TPS
layout(constant_id = 7) const uint FEW_MAX = 0;      // 0: TPS whatever the count

const uint LOAD_BATCH = 8u;   // key loads issued before their shared stores
const uint READ_BATCH = 4u;   // shared keys read per step of the counting loop

SIDE(0, 1, , keys, vals);
SIDE(2, 3, coherent, alt_keys, alt_vals);
BUFFER(4, readonly, count);
BUFFER(5, , meta);
// The context's zeroed block: readers, finished and deferred workgroups, then the deferred targets' places
// (at their index) and, from word MAX_KEYS, the list of deferred workgroups.
layout(set = 0, binding = 6, std430) coherent buffer Block {
    uint sb_readers;
    uint sb_finished;
    uint sb_deferred;
    uint sb_pad;
    uint sb_words[];
};

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

shared uint s_lo[MAX_KEYS];
shared uint s_hi[KEY_WORDS == 2u ? MAX_KEYS : 1u];
shared uint s_flag;

// a comes before b: smaller, or equal and earlier (ia < ib).
bool before(uvec2 a, uint ia, uvec2 b, uint ib) {
    if (KEY_WORDS == 2u && a.y != b.y) return a.y < b.y;
    return a.x < b.x || (a.x == b.x && ia < ib);
}

uvec2 load_key(uint i) {
    return uvec2(keys[i * KEY_WORDS], KEY_WORDS == 2u ? keys[i * KEY_WORDS + 1u] : 0u);
}

// Every key into shared memory, LOAD_BATCH loads in flight per invocation.
void load_keys(uint n, bool desc, uvec2 range) {
    for (uint base = gl_LocalInvocationID.x; base < n; base += WG_SIZE * LOAD_BATCH) {
        uvec2 kb[LOAD_BATCH];
        [[unroll]] for (uint b = 0u; b < LOAD_BATCH; b++) kb[b] = load_key(min(base + b * WG_SIZE, n - 1u));
        [[unroll]] for (uint b = 0u; b < LOAD_BATCH; b++) {
            uint i = base + b * WG_SIZE;
            uvec2 t = key_transform(kb[b], pc.key_kind, desc) & range;
            if (i < n) {
                s_lo[i] = t.x;
                if (KEY_WORDS == 2u) s_hi[i] = t.y;
            }
        }
    }
}

// The last workgroup to finish: moves the deferred workgroups' targets to their places, zeroes the header.
void finish_last(uint n, uint placed) {
    memoryBarrierBuffer();   // every other workgroup's writes and count before these reads
    uint total = sb_deferred * placed;
    for (uint i = gl_LocalInvocationID.x; i < total; i += WG_SIZE) {
        uint ti = sb_words[MAX_KEYS + i / placed] * placed + i % placed;
        if (ti >= n) continue;
        uint p = sb_words[ti];
        for (uint w = 0u; w < KEY_WORDS; w++) keys[p * KEY_WORDS + w] = alt_keys[ti * KEY_WORDS + w];
        for (uint w = 0u; w < VAL_WORDS; w++) vals[p * VAL_WORDS + w] = alt_vals[ti * VAL_WORDS + w];
    }
    barrier();   // every read of the header above before it is zeroed
    if (gl_LocalInvocationIndex == 0u) {
        sb_readers = 0u;
        sb_finished = 0u;
        sb_deferred = 0u;
    }
}

// Ranks the targets of this workgroup, `tps` per subgroup (TPS or FEW_TPS: a constant once inlined), and
// writes them in place or defers them.
void rank(uint n, uint tps) {
    uint placed = tps * gl_NumSubgroups;
    uint group = flat_group_id();
    uint groups = (n + placed - 1u) / placed;
    if (group >= groups) return;
    bool desc = (pc.flags & 1u) != 0u;
    load_keys(n, desc, range_mask(pc.lo, pc.hi));
    uint t0 = group * placed + gl_SubgroupID * tps;
    uvec2 raw_key[TPS], raw_val[TPS];
    [[unroll]] for (uint a = 0u; a < TPS; a++) {
        if (a >= tps) break;
        uint ti = min(t0 + a, n - 1u);
        raw_key[a] = load_key(ti);
        raw_val[a] = uvec2(0u);
        for (uint w = 0u; w < VAL_WORDS; w++) raw_val[a][w] = vals[ti * VAL_WORDS + w];
    }
    memoryBarrierBuffer();   // these reads before the reader count that lets others overwrite the keys
    barrier();
    if (gl_LocalInvocationIndex == 0u) atomicAdd(sb_readers, 1u);
    uvec2 target[TPS];
    uint ahead[TPS];
    [[unroll]] for (uint a = 0u; a < TPS; a++) {
        if (a >= tps) break;
        uint ti = min(t0 + a, n - 1u);
        target[a] = uvec2(s_lo[ti], KEY_WORDS == 2u ? s_hi[ti] : 0u);
        ahead[a] = 0u;
    }
    uint j = gl_SubgroupInvocationID;
    for (; j + (READ_BATCH - 1u) * gl_SubgroupSize < n; j += READ_BATCH * gl_SubgroupSize) {
        uvec2 kq[READ_BATCH];
        [[unroll]] for (uint q = 0u; q < READ_BATCH; q++) {
            uint jq = j + q * gl_SubgroupSize;
            kq[q] = uvec2(s_lo[jq], KEY_WORDS == 2u ? s_hi[jq] : 0u);
        }
        [[unroll]] for (uint q = 0u; q < READ_BATCH; q++) {
            [[unroll]] for (uint a = 0u; a < TPS; a++) {
                if (a >= tps) break;
                ahead[a] += before(kq[q], j + q * gl_SubgroupSize, target[a], t0 + a) ? 1u : 0u;
            }
        }
    }
    for (; j < n; j += gl_SubgroupSize) {
        uvec2 kj = uvec2(s_lo[j], KEY_WORDS == 2u ? s_hi[j] : 0u);
        [[unroll]] for (uint a = 0u; a < TPS; a++) {
            if (a >= tps) break;
            ahead[a] += before(kj, j, target[a], t0 + a) ? 1u : 0u;
        }
    }
    if (gl_LocalInvocationIndex == 0u) s_flag = atomicAdd(sb_readers, 0u) == groups ? 1u : 0u;
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
    bool in_place = s_flag != 0u;
    [[unroll]] for (uint a = 0u; a < TPS; a++) {
        if (a >= tps) break;
        uint place = subgroupAdd(ahead[a]);
        uint ti = t0 + a;
        if (ti < n && gl_SubgroupInvocationID == a % gl_SubgroupSize) {
            uint at = in_place ? place : ti;
            for (uint w = 0u; w < KEY_WORDS; w++) {
                if (in_place) keys[at * KEY_WORDS + w] = raw_key[a][w];
                else alt_keys[at * KEY_WORDS + w] = raw_key[a][w];
            }
            for (uint w = 0u; w < VAL_WORDS; w++) {
                if (in_place) vals[at * VAL_WORDS + w] = raw_val[a][w];
                else alt_vals[at * VAL_WORDS + w] = raw_val[a][w];
            }
            if (!in_place) sb_words[ti] = place;
        }
    }
    if (!in_place && gl_LocalInvocationIndex == 0u) sb_words[MAX_KEYS + atomicAdd(sb_deferred, 1u)] = group;
    memoryBarrierBuffer();   // this workgroup's writes before its count
    barrier();
    if (gl_LocalInvocationIndex == 0u) s_flag = atomicAdd(sb_finished, 1u) + 1u == groups ? 1u : 0u;
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
    if (s_flag != 0u) finish_last(n, placed);
}

void main() {
    uint n = pc.n_host;
    if (pc.use_count != 0u) {
        uint raw = count[pc.count_word];
        n = min(raw, pc.capacity);
        if (flat_group_id() == 0u && gl_LocalInvocationID.x == 0u) CTRL_RECORD_COUNT(meta, n, raw, pc.capacity)
    }
    n = min(n, MAX_KEYS);
    if (n <= 1u) return;
    if (FEW_MAX != 0u && n <= FEW_MAX) rank(n, FEW_TPS);
    else rank(n, TPS);
}
