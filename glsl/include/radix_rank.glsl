// radix_rank.glsl: stable local ranking of a tile of digits (warp-level multisplit), for any subgroup size.
//
// Include after common.glsl, with these defined by the includer:
//   spec constants KPT (items per invocation), RADIX (1 << DIGIT_BITS)
//   shared uint smem[]  (at least MAX_SUBGROUPS * RADIX words), shared uint s_tot[RADIX], s_lstart[RADIX]
//   PARTITIONED defined to use GL_NV_shader_subgroup_partitioned (match-any) instead of ballot matching.
//
// Item layout (subgroup-blocked): item j of an invocation is tile position
//   item_pos(j) = SubgroupID * KPT * SubgroupSize + j * SubgroupSize + SubgroupInvocationID,
// so ranking items in (j, lane) order within a subgroup, and subgroups in order, is stable.
//
// rank_digits(): per-subgroup digit histograms in smem (subgroup s owns smem[s*RADIX .. +RADIX)); each item
// gets its rank among equal digits before it in its subgroup. Then the histograms are turned into exclusive
// prefixes over subgroups (smem) and tile totals (s_tot), and s_lstart gets the exclusive scan of s_tot over
// digits. The tile position of item j is s_lstart[d] + smem[SubgroupID*RADIX + d] + sub[j].

#extension GL_KHR_shader_subgroup_shuffle : require
#ifdef PARTITIONED
#extension GL_NV_shader_subgroup_partitioned : require
#endif

#include "wg_scan.glsl"
DEFINE_WG_SCAN(uint, rdig)

// Per-item digits (input) and ranks within the subgroup (output) of rank_digits(): module-scope arrays, or,
// with RANK_LOCAL defined, the caller's local arrays passed as arguments (function-local arrays are the
// safer bet for register allocation: some compilers treat module-scope (Private) arrays as memory).
#ifdef RANK_LOCAL
#define RANK_PARAMS , in uint g_digit[KPT], out uint g_sub[KPT]
#else
#define RANK_PARAMS
uint g_digit[KPT];
uint g_sub[KPT];
#endif

uint item_pos(uint j) {
    return gl_SubgroupID * KPT * gl_SubgroupSize + j * gl_SubgroupSize + gl_SubgroupInvocationID;
}

uint popcount4(uvec4 m) {
    return bitCount(m.x) + bitCount(m.y) + bitCount(m.z) + bitCount(m.w);
}

uint lsb4(uvec4 m) {
    if (m.x != 0u) return uint(findLSB(m.x));
    if (m.y != 0u) return 32u + uint(findLSB(m.y));
    if (m.z != 0u) return 64u + uint(findLSB(m.z));
    return 96u + uint(findLSB(m.w));
}

uvec4 match_digit(uint d, uint bits) {
#ifdef PARTITIONED
    return subgroupPartitionNV(d);
#else
    uvec4 peers = subgroupBallot(true);
    for (uint b = 0u; b < bits; b++) {
        bool set = ((d >> b) & 1u) != 0u;
        uvec4 bb = subgroupBallot(set);
        peers &= set ? bb : ~bb;
    }
    return peers;
#endif
}

// Exclusive scan of s_tot over digits into s_lstart (every invocation calls it).
void scan_digit_totals() {
    const uint DPT = (RADIX + WG_SIZE - 1u) / WG_SIZE;
    uint d0 = gl_LocalInvocationID.x * DPT;
    uint sum = 0u;
    for (uint k = 0u; k < DPT; k++) {
        uint d = d0 + k;
        if (d < RADIX) sum += s_tot[d];
    }
    uint total;
    uint ex = rdig_exclusive_add(sum, total);
    for (uint k = 0u; k < DPT; k++) {
        uint d = d0 + k;
        if (d < RADIX) {
            s_lstart[d] = ex;
            ex += s_tot[d];
        }
    }
    barrier();
}

// g_digit[j] < RADIX for every item (out-of-range items carry the pass's largest digit, so they rank last).
void rank_digits(uint bits RANK_PARAMS) {
    uint lid = gl_LocalInvocationID.x;
    for (uint i = lid; i < gl_NumSubgroups * RADIX; i += WG_SIZE) smem[i] = 0u;
    barrier();
    uint base = gl_SubgroupID * RADIX;
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint d = g_digit[j];
        // Fast path: a subgroup whose items all share one digit needs no matching.
#ifdef RANK_DEBUG_NO_MATCH
        // Timing experiments only (wrong, unstable ranks): no matching, every item its own group.
        uvec4 peers = RANK_DEBUG_NO_MATCH ? (gl_SubgroupEqMask)
                                          : (subgroupAllEqual(d) ? subgroupBallot(true) : match_digit(d, bits));
#else
        uvec4 peers = subgroupAllEqual(d) ? subgroupBallot(true) : match_digit(d, bits);
#endif
        uint leader = lsb4(peers);
        uint cnt = popcount4(peers);
        uint below = popcount4(peers & gl_SubgroupLtMask);
        uint old = 0u;
        if (gl_SubgroupInvocationID == leader) old = atomicAdd(smem[base + d], cnt);
        old = subgroupShuffle(old, leader);
        g_sub[j] = old + below;
    }
    barrier();
    for (uint d = lid; d < RADIX; d += WG_SIZE) {
        uint run = 0u;
        for (uint s = 0u; s < gl_NumSubgroups; s++) {
            uint c = smem[s * RADIX + d];
            smem[s * RADIX + d] = run;
            run += c;
        }
        s_tot[d] = run;
    }
    barrier();
    scan_digit_totals();
}
