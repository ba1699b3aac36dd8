// lookback.glsl: decoupled look-back (single-pass chained scan) shared by scan_lookback.comp and
// compact.comp. Include after common.glsl (and after the shader's input declarations). Define before:
//   LB_T        the value type (uint, or uint64_t with the int64 extensions enabled)
//   LB_WORDS    status words per tile: 2 for a 32-bit LB_T, 4 for a 64-bit one
//   LB_BINDING  the binding of the scratch buffer
// and after including: LB_T lb_fallback_aggregate(uint tile), the aggregate of tile `tile` from the input,
// called uniformly by one subgroup's lanes (it may use subgroup operations), returned in every lane.
// LB_SINGLE (optional, a uniform bool expression): the dispatch is one workgroup over one tile, which takes
// tile 0 and a prefix of 0 without touching the scratch (which the host then need not clear).
// LB_RESET (optional, a uniform bool expression): the run leaves the scratch as it found it, all zero. The
// workgroup that finishes last (word 2 counts them) zeroes the header and the status words of every tile
// claimed, so a status buffer that starts zeroed needs no clear before the next run (a barrier
// between runs orders them).
// Scratch (zero at the start: cleared by the host, or left so by the last LB_RESET run): word 0 the tile
// counter (tiles are claimed in start order), word 1 the fallback counter, word 2 the finished workgroups
// (LB_RESET), then LB_WORDS status words per tile from word 4. The status protocol (split 16-bit words
// with a flag each, relaxed atomics), the bounded spin with its fallback, the in-place rule and the emulation
// knobs are described in docs/architecture.md, "The decoupled look-back protocol".

#ifndef LB_SINGLE
#define LB_SINGLE false
#endif
#ifndef LB_RESET
#define LB_RESET false
#endif

layout(constant_id = 6) const uint SPIN_LIMIT = 1024;
layout(constant_id = 7) const uint STALL_EVERY = 0;
layout(constant_id = 4) const uint STALL_MODE = 0;
layout(constant_id = 5) const uint LB_FENCE = 1;   // fence between a fallback reduction and the re-read

#define LB_INVALID 0u
#define LB_AGGREGATE 1u
#define LB_INCLUSIVE 2u

layout(set = 0, binding = LB_BINDING, std430) buffer LbScratch {
    uint lb_counter;
    uint lb_fallbacks;
    uint lb_done;
    uint lb_sink;
    uint lb_status[];
};

shared uint lb_sh_tile;
shared LB_T lb_sh_prefix;
shared bool lb_sh_last;

LB_T lb_fallback_aggregate(uint tile);

// Claims the next tile for this workgroup. Every invocation must call it once.
uint lb_claim_tile() {
    if (LB_SINGLE) return 0u;
    if (gl_LocalInvocationIndex == 0u) lb_sh_tile = atomicAdd(lb_counter, 1u);
    barrier();
    return lb_sh_tile;
}

void lb_publish(uint tile, uint flag, LB_T value) {
    [[unroll]] for (uint w = 0u; w < LB_WORDS; w++) {
        uint piece = uint(value >> (16u * w)) & 0xffffu;
        atomicStore(lb_status[tile * LB_WORDS + w], (flag << 16) | piece, gl_ScopeDevice,
                    gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    }
}

// The flag of tile `tile` (LB_INVALID when unpublished or caught between two publications) and its value.
uint lb_read(uint tile, out LB_T value) {
    uint flag = 0xffffu;
    value = LB_T(0);
    [[unroll]] for (uint w = 0u; w < LB_WORDS; w++) {
        uint word = atomicLoad(lb_status[tile * LB_WORDS + w], gl_ScopeDevice, gl_StorageSemanticsBuffer,
                               gl_SemanticsRelaxed);
        uint f = word >> 16;
        flag = (w == 0u || f == flag) ? f : LB_INVALID;
        value |= LB_T(word & 0xffffu) << (16u * w);
    }
    return flag;
}

bool lb_stalled(uint tile) {
    return STALL_EVERY != 0u && tile % STALL_EVERY == 1u % STALL_EVERY;
}

void lb_clear_lane(inout uvec4 mask, uint lane) {
    mask[lane >> 5] &= ~(1u << (lane & 31u));
}

// The exclusive prefix of tile `tile` (> 0): called by all lanes of one subgroup, returns it in every lane.
// Lane i inspects predecessor base - i, so a window of gl_SubgroupSize predecessors is read at once.
LB_T lb_lookback(uint tile) {
    uint lane = gl_SubgroupInvocationID;
    LB_T prefix = LB_T(0);
    int base = int(tile) - 1;
    while (base >= 0) {
        int p = base - int(lane);
        LB_T value = LB_T(0);
        uint flag = LB_INCLUSIVE;   // before tile 0: an inclusive prefix of 0
        uvec4 missing = uvec4(0u);
        for (uint spins = 0u;; spins++) {
            if (p >= 0) flag = lb_read(uint(p), value);
            uvec4 incl = subgroupBallot(flag == LB_INCLUSIVE);
            uint k = subgroupBallotFindLSB(incl);   // some lane is inclusive unless the window is all in range
            bool any_incl = incl != uvec4(0u);
            missing = subgroupBallot(flag == LB_INVALID && (!any_incl || lane <= k));
            if (missing == uvec4(0u) || spins >= SPIN_LIMIT) break;
        }
        // Fallback: reduce every still-missing predecessor here (at most gl_SubgroupSize of them).
        for (uint f = 0u; f < gl_SubgroupSize && missing != uvec4(0u); f++) {
            uint j = subgroupBallotFindLSB(missing);
            uint stuck = uint(base - int(j));
            LB_T agg = lb_fallback_aggregate(stuck);
            if (LB_FENCE != 0u) memoryBarrierBuffer();
            LB_T published;
            uint pf = lb_read(stuck, published);
            if (lane == j) {
                flag = pf != LB_INVALID ? pf : LB_AGGREGATE;
                value = pf != LB_INVALID ? published : agg;
            }
            if (lane == 0u) atomicAdd(lb_fallbacks, 1u);
            lb_clear_lane(missing, j);
        }
        uvec4 incl = subgroupBallot(flag == LB_INCLUSIVE);
        bool any_incl = incl != uvec4(0u);
        uint k = any_incl ? subgroupBallotFindLSB(incl) : gl_SubgroupSize - 1u;
        prefix += subgroupAdd(lane <= k ? value : LB_T(0));
        if (any_incl) break;
        base -= int(gl_SubgroupSize);
    }
    return prefix;
}

// Spins for a while (stall emulation). Called uniformly by all lanes of subgroup 0: no lane runs a long
// loop alone, so the subgroup stays converged (a lone lane spinning while its subgroup went on to a
// workgroup barrier is a pattern some drivers mishandle).
void lb_stall_delay() {
    uint rounds = min(SPIN_LIMIT * 4u + 64u, 60000u);
    uint sink = 0u;
    for (uint i = 0u; i < rounds; i++) {
        sink += atomicLoad(lb_sink, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    }
    sink = subgroupMax(sink);
    if (sink == 0xdeadbeefu && gl_SubgroupInvocationID == 0u) lb_sink = sink;   // keeps the loop
}

// The workgroups that claim a tile: those dispatched (an indirect dispatch may launch fewer), at most
// pc.groups (the includer's push block names it), in the first z layer only.
uint lb_participants() {
    return min(gl_NumWorkGroups.x * gl_NumWorkGroups.y, pc.groups);
}

// A workgroup outside lb_participants(), which the includer returns from before lb_claim_tile(): past
// pc.groups, or above the first z layer (which a caller's indirect arguments could launch).
bool lb_idle() {
    return flat_group_id() >= pc.groups || gl_WorkGroupID.z != 0u;
}

// LB_RESET: counts this workgroup as finished with the status; the last one to finish zeroes the status words
// of every claimed tile and the header. Called in uniform control flow after the look-back's last barrier.
// The fences run in every invocation (lavapipe mishandles fences and acquire / release atomics in divergent
// control flow, see lookback.glsl's protocol notes); the count itself is a relaxed atomic of one invocation.
void lb_finish() {
    memoryBarrierBuffer();   // this workgroup's status loads and stores before its count
    if (gl_LocalInvocationIndex == 0u) lb_sh_last = atomicAdd(lb_done, 1u) + 1u == lb_participants();
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
    if (!lb_sh_last) return;
    memoryBarrierBuffer();   // every other workgroup's count (and so its status accesses) before the zeroes
    uint words = lb_participants() * LB_WORDS;
    for (uint i = gl_LocalInvocationIndex; i < words; i += WG_SIZE) lb_status[i] = 0u;
    if (gl_LocalInvocationIndex == 0u) {
        lb_counter = 0u;
        lb_fallbacks = 0u;
        lb_done = 0u;
    }
}

// Publishes this tile's aggregate, looks back (subgroup 0), publishes the inclusive prefix and returns the
// tile's exclusive prefix in every invocation. Every invocation must call it (it contains a barrier). Output
// writes after it are ordered after the publications where that matters (LB_INPLACE: device memory barrier in
// every invocation + control barrier, in uniform control flow); out of place nobody reads the output during
// the dispatch, so only the control barrier (which hands lb_sh_prefix over) remains.
LB_T lb_tile_prefix(uint tile, LB_T aggregate) {
    if (LB_SINGLE) {
        // No other tile: the barrier still hands the includer's shared memory over, as below.
        if (gl_LocalInvocationIndex == 0u) lb_sh_prefix = LB_T(0);
        barrier();
        return LB_T(0);
    }
    bool stalled = lb_stalled(tile);
    if (gl_SubgroupID == 0u) {
        // Lane 0 of subgroup 0 makes every publication of this tile, so the stores of a status word are
        // ordered (aggregate before inclusive prefix). Divergence stays short: one lane, a few stores.
        if (gl_SubgroupInvocationID == 0u && !stalled) {
            lb_publish(tile, tile == 0u ? LB_INCLUSIVE : LB_AGGREGATE, aggregate);
        }
        LB_T prefix = tile == 0u ? LB_T(0) : lb_lookback(tile);
        bool publish_inclusive = tile != 0u && (!stalled || STALL_MODE == 1u);
        if (stalled && STALL_MODE == 1u) lb_stall_delay();   // uniform in the subgroup
        if (gl_SubgroupInvocationID == 0u) {
            if (publish_inclusive) lb_publish(tile, LB_INCLUSIVE, prefix + aggregate);
            lb_sh_prefix = prefix;
        }
    }
#ifdef LB_INPLACE
    memoryBarrierBuffer();   // in place: publications before output writes (see the protocol above)
#endif
    barrier();
    if (LB_RESET) lb_finish();
    return lb_sh_prefix;
}
