#version 460
// merge_merge.comp (vksort::merge::merge): merge pass `pass` of the merge sort. Sorted runs of
// w = block_tile << pass keys on side S0 ^ (pass & 1) (merge_side.glsl) are merged in pairs (A = a pair's first
// run, B its second, either shorter at the end of the array) into the other side. One workgroup per output tile
// of WG_SIZE x KPT keys: whatever the data, each merges exactly one tile, from the A slice [i0, i1) and the B
// slice [k0 - i0, k1 - i1) that merge_partition found (k0, k1: the tile's bounds within its pair; the tile's
// end co-rank is the partition of the next tile, or all of A at the end of the pair). With FUSED_SPLIT the
// workgroup finds both co-ranks itself instead (no partition pass): one subgroup per diagonal runs a k-ary
// search of the merge path, gl_SubgroupSize probes per round (a ballot counts those before the path), so a
// run of w keys takes ceil(log_(subgroup size)(w)) + 1 rounds of one probe per lane. Stable: ties take from A,
// and each run is in input order. Values are gathered once, from the source position of each output key, when
// the tile is written. Nothing to do when the pass is not needed (pass >= P(n)).
//
// SERIAL: the two slices are loaded into shared memory (A then B); invocation lid finds where diagonal
// lid x KPT of the tile crosses the merge path (a binary search in shared memory) and merges its KPT keys
// serially into registers; then through shared memory to a coalesced store.
// NETWORK: A ascending, then +infinity padding (tag 0xffffffff, after every real item), then B reversed form a
// bitonic sequence of WG_SIZE x KPT items in shared memory; tags are positions in A ++ B, so ties keep A first
// and each run's order; the half-cleaner steps of bitonic.glsl (strides tile / 2 .. 1) sort it.
// @variant serial NETWORK=0
// @variant network NETWORK=1
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;
// 1: the workgroup finds its co-ranks itself (the partition binding is then unused).
layout(constant_id = 20) const uint FUSED_SPLIT = 0;

#include "bitonic.glsl"
#include "merge_side.glsl"

layout(set = 0, binding = 4, std430) readonly buffer Meta { uint meta[]; };
layout(set = 0, binding = 5, std430) readonly buffer Part { uint part[]; };

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint block_tile;
    uint pass;
} pc;

// The transformed key at shared position p (SERIAL keeps keys without tags until the store).
uvec4 smem_key(uint p) {
    uint q = spad(p);
    uvec4 k = uvec4(s_items[q], 0u, 0u, 0u);
    if (KEY_WORDS >= 2u) k.y = s_items[S_STRIDE + q];
    if (KEY_WORDS == 4u) {
        k.z = s_items[2u * S_STRIDE + q];
        k.w = s_items[3u * S_STRIDE + q];
    }
    return k;
}

shared uint s_split[2];

// The merge-path co-rank at diagonal k of the pair at s (runs A = [s, s + la), B = [s + la, s + la + lb) on side
// `src`): the smallest i with B[k - i - 1] < A[i] (B goes first only when strictly smaller). Called by a whole
// subgroup; the result is uniform in it. Each round probes gl_SubgroupSize evenly spaced points of [lo, hi) and
// keeps the gap after the last probe that is still before the path; at most 32 rounds.
uint split_subgroup(uint src, uint s, uint la, uint lb, uint k) {
    uint lo = k > lb ? k - lb : 0u;
    uint hi = min(k, la);
    uint lane = gl_SubgroupInvocationID;
    for (uint round = 0u; round < 32u && lo < hi; round++) {
        uint step = div_ceil(hi - lo, gl_SubgroupSize);
        uint i = lo + lane * step;
        bool before = false;   // the probe is before the path: B[k - i - 1] >= A[i]
        if (i < hi) {
            uvec4 a = key_order(side_key(src, s + i));
            uvec4 b = key_order(side_key(src, s + la + k - i - 1u));
            before = !key_lt(b, a);
        }
        uint c = subgroupBallotBitCount(subgroupBallot(before));
        if (c == 0u) {
            hi = lo;
        } else {
            uint last = lo + (c - 1u) * step;   // the last probe before the path
            hi = min(hi, last + step);          // the next probe (or hi) is on or after it
            lo = last + 1u;
        }
    }
    return lo;
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint passes = merge_passes(n, pc.block_tile);
    if (pc.pass >= passes) return;
    uint t = flat_group_id();
    uint d0 = t * B_TILE;
    if (d0 >= n) return;
    uint src = (passes ^ pc.pass) & 1u;
    uint w = pc.block_tile << pc.pass;
    uint s = d0 / (2u * w) * (2u * w);
    uint la = min(w, n - s);
    uint lb = min(w, n - s - la);
    uint d1 = min(d0 + B_TILE, n);
    uint k0 = d0 - s;
    uint k1 = d1 - s;
    uint i0;
    uint i1;
    if (FUSED_SPLIT != 0u) {
        for (uint which = gl_SubgroupID; which < 2u; which += gl_NumSubgroups) {
            uint r = split_subgroup(src, s, la, lb, which == 0u ? k0 : k1);
            if (subgroupElect()) s_split[which] = r;
        }
        barrier();
        i0 = s_split[0];
        i1 = s_split[1];
    } else {
        i0 = part[t];
        i1 = k1 == la + lb ? la : part[t + 1u];
    }
    uint a0 = s + i0;                  // the A slice: na keys from a0
    uint na = i1 - i0;
    uint b0 = s + la + (k0 - i0);      // the B slice: nb keys from b0
    uint m = d1 - d0;
    uint nb = m - na;
    uint lid = gl_LocalInvocationID.x;

#if NETWORK
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        Item x;
        uint q;
        if (p < na) {
            q = p;
            x.k = key_order(side_key(src, a0 + p));
        } else if (p < m) {
            q = B_TILE - 1u - (p - na);
            x.k = key_order(side_key(src, b0 + p - na));
        } else {
            q = p - nb;
            x.k = uvec4(0xffffffffu);
        }
        x.t = p < m ? p : 0xffffffffu;
        smem_put(q, x);
    }
    barrier();
    smem_to_regs(lid);
    bitonic_merge_steps(lid, WG_SIZE, B_TILE);
    barrier();
    regs_to_smem(lid);
    barrier();
#else
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) {
            Item x;
            x.k = key_order(p < na ? side_key(src, a0 + p) : side_key(src, b0 + p - na));
            x.t = 0u;
            smem_put(p, x);
        }
    }
    barrier();
    // Where diagonal d crosses the merge path: the smallest i with B[d - i - 1] < A[i] (B goes first only when
    // strictly smaller). At most log2(tile) + 1 steps.
    uint d = min(lid * KPT, m);
    uint lo = d > nb ? d - nb : 0u;
    uint hi = min(d, na);
    while (lo < hi) {
        uint mid = (lo + hi) >> 1u;
        if (key_lt(smem_key(na + d - mid - 1u), smem_key(mid))) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    uint i = lo;
    uint j = d - lo;
    uvec4 ka = i < na ? smem_key(i) : uvec4(0u);
    uvec4 kb = j < nb ? smem_key(na + j) : uvec4(0u);
    Item o[KPT];
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        bool take_b = j < nb && (i >= na || key_lt(kb, ka));
        if (take_b) {
            o[a].k = kb;
            o[a].t = na + j;
            j++;
            if (j < nb) kb = smem_key(na + j);
        } else {
            o[a].k = ka;
            o[a].t = i;
            i++;
            if (i < na) ka = smem_key(i);
        }
    }
    barrier();
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = lid * KPT + a;
        if (p < m) smem_put(p, o[a]);
    }
    barrier();
#endif

    // Coalesced store: key from shared memory, value gathered from the output key's source position.
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < m) {
            Item x = smem_get(p);
            uint from = x.t < na ? a0 + x.t : b0 + (x.t - na);
            uvec2 v = VAL_WORDS > 0u ? side_val(src, from) : uvec2(0u);
            side_set(src ^ 1u, d0 + p, key_unorder(x.k), v);
        }
    }
}
