// radix_rank.glsl: stable local ranking of a tile of digits (warp-level multisplit), for any subgroup size.
//
// Include after common.glsl, with these defined by the includer:
//   spec constants KPT (items per invocation), RADIX (1 << DIGIT_BITS), BALLOT_WORDS (32-bit words of a
//   subgroup ballot that can be non-zero: ceil(largest subgroup size / 32), 1..4; the host derives it from the
//   device's subgroup sizes, so the mask arithmetic below folds to one word on 8..32-wide devices)
//   shared uint smem[]  (at least MAX_SUBGROUPS * RADIX words), shared uint s_tot[RADIX], s_lstart[RADIX]
//   PARTITIONED defined to use GL_NV_shader_subgroup_partitioned (match-any) instead of ballot matching.
//   const/spec constant MATCH_OR: non-zero finds peers through lane masks in shared memory (one atomicOr, one
//   read and three subgroup barriers per item instead of DIGIT_BITS + 2 votes; 2: each item's counter is
//   updated right away instead of in a batch after all items); the masks take MATCH_WORDS words of smem from
//   word MATCH_BASE (a const the includer defines: past the rank counters), so smem must hold them too.
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

#extension GL_KHR_memory_scope_semantics : require

#include "wg_scan.glsl"
DEFINE_WG_SCAN(uint, rdig)

// The lane-mask matching's subgroup syncs: an execution barrier of the subgroup that orders its shared-memory
// accesses only (subgroupBarrier() orders buffer and image memory too). RANK_SYNC_FULL (a timing knob of the
// includer) brings subgroupBarrier() back for comparison.
#ifndef RANK_SYNC_FULL
#define RANK_SYNC_FULL false
#endif
void rank_sync() {
    if (RANK_SYNC_FULL) {
        subgroupBarrier();
    } else {
        controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    }
}

// RANK_CLOCK(i): the includer's phase-clock hook (diagnostics), empty by default.
#ifndef RANK_CLOCK
#define RANK_CLOCK(i)
#endif

// Per-item digits (input) and ranks within the subgroup (output) of rank_digits(): module-scope arrays
// g_digit and g_sub, or, with RANK_LOCAL defined, ONE local array of the caller's passed as an argument
// (function-local arrays are the safer bet for register allocation: some compilers treat module-scope (Private)
// arrays as memory) that holds both, one word per item: the digit in the low 16 bits on input, the rank in the
// high 16 bits added on output (RANK_DIGIT, RANK_RANK). One register per item instead of two while ranking:
// the tile's keys in flight are bounded by registers per key.
#ifdef RANK_LOCAL
#define RANK_PARAMS , inout uint g_dr[KPT]
#define RANK_ARGS , g_dr
#define RANK_DIGIT(j) (g_dr[j] & 0xFFFFu)
#define RANK_SET(j, r) g_dr[j] = (g_dr[j] & 0xFFFFu) | ((r) << 16u)
#else
#define RANK_PARAMS
#define RANK_ARGS
uint g_digit[KPT];
uint g_sub[KPT];
#define RANK_DIGIT(j) g_digit[j]
#define RANK_SET(j, r) g_sub[j] = (r)
#endif
// The rank (or, after the caller adds its offsets, the tile position) of a RANK_LOCAL item word.
uint dr_rank(uint dr) { return dr >> 16u; }
uint dr_digit(uint dr) { return dr & 0xFFFFu; }

uint item_pos(uint j) {
    return gl_SubgroupID * KPT * gl_SubgroupSize + j * gl_SubgroupSize + gl_SubgroupInvocationID;
}

uint popcount4(uvec4 m) {
    uint c = bitCount(m.x);
    if (BALLOT_WORDS > 1u) c += bitCount(m.y);
    if (BALLOT_WORDS > 2u) c += bitCount(m.z) + bitCount(m.w);
    return c;
}

uint lsb4(uvec4 m) {
    if (BALLOT_WORDS == 1u || m.x != 0u) return uint(findLSB(m.x));
    if (m.y != 0u) return 32u + uint(findLSB(m.y));
    if (m.z != 0u) return 64u + uint(findLSB(m.z));
    return 96u + uint(findLSB(m.w));
}

// The lanes of the subgroup whose digit equals d. Ballots: one per bit of the largest digit (RADIX - 1), a
// compile-time count, so the loop unrolls and the ballots of several items interleave; bits at or above the
// pass's width are 0 in every lane and leave the mask as it is, so `bits` is not needed.
uvec4 match_digit(uint d, uint bits) {
#ifdef PARTITIONED
    return subgroupPartitionNV(d);
#else
    uvec4 peers = subgroupBallot(true);
    [[unroll]] for (uint b = 0u; (1u << b) < RADIX; b++) {
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

#ifdef RANK_CUB
// ---- rank2: CUB-style ranking (the includer defines RANK_CUB and a spec constant RANK2 (1 or 2); smem must
// hold R2_WORDS words) ----
// Counters laid out digit-major, [digit][subgroup] with a constant stride of MAX_SUBGROUPS (columns past
// gl_NumSubgroups stay 0), one padding word after every 32 (bank-conflict-free chunk scan). Each subgroup counts
// its items into its own column (peers matched as in rank_digits; the leader adds the peer count), then ONE
// workgroup exclusive scan over all counters in that order turns counter (d, s) into the tile position of
// subgroup s's first item of digit d. Digit d's tile start is counter (d, 0); its tile total is the next digit's
// start minus its own (the tile's last digit ends at TILE: items past n are counted too).
// RANK2 == 2: 16-bit counters, two per word: digit d < HALF in the low half of word (d, s), digit d + HALF in
// the high half of the same word (HALF = RADIX / 2). Scanning the words as 32-bit numbers scans both halves at
// once (a tile holds < 65536 items: no carry between halves); the high halves then lack the count of all
// low-half digits, the low half of the grand total (r2_total), added when read. Half the zeroing and scanning.
// Replaces rank_digits()'s per-digit serial loop over subgroups and its separate digit scan.
const uint R2_LANES = RANK2 == 2u ? 2u : 1u;
const uint R2_HALF = RADIX / R2_LANES;
const uint R2_MASK = RANK2 == 2u ? 0xFFFFu : 0xFFFFFFFFu;
const uint R2_COUNTERS = R2_HALF * MAX_SUBGROUPS;
const uint R2_WORDS = R2_COUNTERS + (R2_COUNTERS >> 5u) + 1u;
const uint R2_CPT = (R2_COUNTERS + WG_SIZE - 1u) / WG_SIZE;   // counter words per invocation in the scan
shared uint r2_partials[MAX_SUBGROUPS];
shared uint r2_total;   // the scan's grand total (packed)

uint r2_at(uint i) { return i + (i >> 5u); }
uint r2_index(uint d, uint s) { return r2_at((d % R2_HALF) * MAX_SUBGROUPS + s); }
uint r2_shift(uint d) { return d < R2_HALF ? 0u : 16u; }
// Counter (d, s) after rank2_scan: the tile position of subgroup s's first item of digit d.
uint r2_value(uint d, uint s) {
    uint v = (smem[r2_index(d, s)] >> r2_shift(d)) & R2_MASK;
    return d < R2_HALF ? v : v + (r2_total & 0xFFFFu);
}

// Zeroes the counters; the caller puts a barrier() between this and rank2_count().
void rank2_clear() {
    for (uint i = gl_LocalInvocationID.x; i < R2_WORDS; i += WG_SIZE) smem[i] = 0u;
}
#endif

// This subgroup's counter of digit d: (word index in smem, bit shift, mask of the count after the shift).
uvec3 rank_counter(uint d, bool cub) {
#ifdef RANK_CUB
    if (cub) return uvec3(r2_index(d, gl_SubgroupID), r2_shift(d), R2_MASK);
#endif
    return uvec3(gl_SubgroupID * RADIX + d, 0u, 0xFFFFFFFFu);
}

// Lane-mask matching (MATCH_OR != 0): the lanes of the subgroup whose digit is d. Every lane sets its bit in its
// digit's mask (the subgroup's masks start at mbase), the subgroup syncs, reads the mask, syncs again, and clears
// it (all peers store the same 0), then syncs before the next item.
uvec4 lane_mask_peers(uint d, uint mbase) {
    uint at = mbase + d * BALLOT_WORDS;
    atomicOr(smem[MATCH_BASE + at + (gl_SubgroupInvocationID >> 5u)], 1u << (gl_SubgroupInvocationID & 31u));
    rank_sync();
    uvec4 peers = uvec4(smem[MATCH_BASE + at], BALLOT_WORDS > 1u ? smem[MATCH_BASE + at + 1u] : 0u,
                        BALLOT_WORDS > 2u ? smem[MATCH_BASE + at + 2u] : 0u, BALLOT_WORDS > 3u ? smem[MATCH_BASE + at + 3u] : 0u);
    rank_sync();
    smem[MATCH_BASE + at + (gl_SubgroupInvocationID >> 5u)] = 0u;
    rank_sync();
    return peers;
}

// Ranks each item among the equal digits before it in its subgroup: its rank (RANK_SET) = the subgroup's count
// of digit d = RANK_DIGIT(j) before item j (read from, and added to, the subgroup's counter of d) + its peers in
// lower lanes. Counter of d: smem[SubgroupID * RADIX + d] (cub false), or rank2's packed counter (cub true).
// MATCH_OR 2: one item after another (lane masks, counter right away); otherwise in batches (below).
const uint RANK_BATCH = 4u;   // items whose matching and counter updates interleave (MATCH_OR 0 and 1)
void rank_items(uint bits, bool cub RANK_PARAMS) {
    const uint mbase = gl_SubgroupID * RADIX * BALLOT_WORDS;
    if (MATCH_OR != 0u) {
        // This subgroup's lane masks start at zero (each item clears the words it used).
        for (uint i = gl_SubgroupInvocationID; i < RADIX * BALLOT_WORDS; i += gl_SubgroupSize) smem[MATCH_BASE + mbase + i] = 0u;
        rank_sync();
    }
    if (MATCH_OR == 2u) {
        [[unroll]] for (uint j = 0u; j < KPT; j++) {
            // Peers through shared memory, then the counter right away (the item's chain is serial anyway): no
            // per-item arrays kept.
            uint d = RANK_DIGIT(j);
            uvec4 peers = lane_mask_peers(d, mbase);
            uvec3 c = rank_counter(d, cub);
            uint leader = lsb4(peers);
            uint old = 0u;
            if (gl_SubgroupInvocationID == leader) old = atomicAdd(smem[c.x], popcount4(peers) << c.y);
            RANK_SET(j, ((subgroupShuffle(old, leader) >> c.y) & c.z) + popcount4(peers & gl_SubgroupLtMask));
        }
        return;
    }
    // Batches of RANK_BATCH items, three steps each, so that no step waits per item: (1) the peers of every item
    // of the batch (ballots, or lane masks with MATCH_OR 1), kept packed as leader | count << 8 | below << 16
    // (subgroups of at most 128); (2) one shared atomic per item in which every lane takes part, the leader
    // adding the peer count and the others 0: no lane diverges and the atomics issue back to back (one
    // subgroup's atomics on a counter follow the item order, being successive instructions of that subgroup,
    // and the zero adds change nothing); (3) the leaders' old values are shuffled to their peers.
    [[unroll]] for (uint j0 = 0u; j0 < KPT; j0 += RANK_BATCH) {
        uint pk[RANK_BATCH];
        [[unroll]] for (uint b = 0u; b < RANK_BATCH; b++) {
            uint j = j0 + b;
            if (j >= KPT) break;
            uint d = RANK_DIGIT(j);
            uvec4 peers;
            if (MATCH_OR != 0u) {
                peers = lane_mask_peers(d, mbase);
            } else {
#ifdef RANK_DEBUG_NO_MATCH
                // Timing experiments only (wrong, unstable ranks): no matching, every item its own group.
                peers = RANK_DEBUG_NO_MATCH ? gl_SubgroupEqMask : match_digit(d, bits);
#else
                peers = match_digit(d, bits);
#endif
            }
            pk[b] = lsb4(peers) | popcount4(peers) << 8u | popcount4(peers & gl_SubgroupLtMask) << 16u;
        }
        uint old[RANK_BATCH];
        [[unroll]] for (uint b = 0u; b < RANK_BATCH; b++) {
            uint j = j0 + b;
            if (j >= KPT) break;
            uvec3 c = rank_counter(RANK_DIGIT(j), cub);
            uint add = gl_SubgroupInvocationID == (pk[b] & 0xFFu) ? ((pk[b] >> 8u) & 0xFFu) << c.y : 0u;
            old[b] = atomicAdd(smem[c.x], add) >> c.y;
        }
        uint keep = rank_counter(0u, cub).z;
        [[unroll]] for (uint b = 0u; b < RANK_BATCH; b++) {
            uint j = j0 + b;
            if (j >= KPT) break;
            RANK_SET(j, (subgroupShuffle(old[b], pk[b] & 0xFFu) & keep) + (pk[b] >> 16u));
        }
    }
}

// g_digit[j] < RADIX for every item (out-of-range items carry the pass's largest digit, so they rank last).
void rank_digits(uint bits RANK_PARAMS) {
    uint lid = gl_LocalInvocationID.x;
    for (uint i = lid; i < gl_NumSubgroups * RADIX; i += WG_SIZE) smem[i] = 0u;
    barrier();
    rank_items(bits, false RANK_ARGS);
    barrier();
    RANK_CLOCK(3);
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
    RANK_CLOCK(4);
    scan_digit_totals();
}

#ifdef RANK_CUB
// Each item's rank among equal digits before it in its subgroup (RANK_SET); counts into the subgroup's column.
// Ends with a barrier.
void rank2_count(uint bits RANK_PARAMS) {
    rank_items(bits, true RANK_ARGS);
    barrier();
}

// Exclusive scan of the counter words in place (every invocation: a contiguous chunk serially, then a
// workgroup scan of the chunk sums with one barrier). Ends with a barrier: r2_value() then gives tile positions.
void rank2_scan() {
    uint c0 = gl_LocalInvocationID.x * R2_CPT;
    uint cv[R2_CPT];
    uint sum = 0u;
    [[unroll]] for (uint k = 0u; k < R2_CPT; k++) {
        uint i = c0 + k;
        uint c = i < R2_COUNTERS ? smem[r2_at(i)] : 0u;
        cv[k] = sum;
        sum += c;
    }
    uint incl = subgroupInclusiveAdd(sum);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) r2_partials[gl_SubgroupID] = incl;
    barrier();
    uint carry = 0u;
    for (uint base = 0u; base < gl_SubgroupID; base += gl_SubgroupSize) {
        uint i = base + gl_SubgroupInvocationID;
        carry += subgroupAdd(i < gl_SubgroupID ? r2_partials[i] : 0u);
    }
    uint ex = carry + incl - sum;
    [[unroll]] for (uint k = 0u; k < R2_CPT; k++) {
        uint i = c0 + k;
        if (i < R2_COUNTERS) smem[r2_at(i)] = ex + cv[k];
    }
    if (c0 <= R2_COUNTERS - 1u && R2_COUNTERS - 1u < c0 + R2_CPT) r2_total = ex + sum;
    barrier();
}

// Digit d's start in the tile and its count (after rank2_scan, before smem is reused).
uint rank2_start(uint d) { return r2_value(d, 0u); }
uint rank2_total(uint d) {
    uint next = d + 1u < RADIX ? r2_value(d + 1u, 0u) : WG_SIZE * KPT;
    return next - r2_value(d, 0u);
}
#endif
