// merge_split.glsl: the merge-path co-ranks of a merge pass's tiles, found in global memory by a cluster of lanes of
// a subgroup (the partition pass), or a whole subgroup (the merge passes that find their own). Include after
// merge_side.glsl.

// Tile t of a merge pass, of `tile` keys: its output [d0, d1) (m keys) on side src ^ 1 lies in the pair at s
// (runs A = [s, s + la) and B = [s + la, s + la + lb) on side src) at [k0, k1); with its co-ranks, it merges the
// A slice [a0, a0 + na) and the B slice [b0, b0 + nb).
struct MergeTile {
    uint n;
    uint src;
    uint s;
    uint la;
    uint lb;
    uint d0;
    uint d1;
    uint k0;
    uint k1;
    uint m;
    uint a0;
    uint na;
    uint b0;
    uint nb;
};

// The pair and bounds of tile t (t x tile < n) of merge pass `pass` of `passes`, with runs of block_tile << pass.
MergeTile merge_pair(uint t, uint tile, uint n, uint passes, uint pass, uint block_tile) {
    MergeTile g;
    g.n = n;
    g.d0 = t * tile;
    g.src = (passes ^ pass) & 1u;
    uint w = block_tile << pass;
    g.s = g.d0 / (2u * w) * (2u * w);
    g.la = min(w, n - g.s);
    g.lb = min(w, n - g.s - g.la);
    g.d1 = min(g.d0 + tile, n);
    g.k0 = g.d0 - g.s;
    g.k1 = g.d1 - g.s;
    return g;
}

// The tile's slices, from the co-ranks i of k0 and k1.
MergeTile merge_slices(MergeTile g, uvec2 i) {
    g.a0 = g.s + i.x;
    g.na = i.y - i.x;
    g.b0 = g.s + g.la + (g.k0 - i.x);
    g.m = g.d1 - g.d0;
    g.nb = g.m - g.na;
    return g;
}

// How many of the cluster's lanes [base, base + lanes) hold `pred` (lanes: the whole subgroup, or at most 32).
uint cluster_count(bool pred, uint lanes, uint base) {
    uvec4 b = subgroupBallot(pred);
    if (lanes >= gl_SubgroupSize) return subgroupBallotBitCount(b);
    uint mask = lanes >= 32u ? 0xffffffffu : ((1u << lanes) - 1u);
    return bitCount((b[base >> 5u] >> (base & 31u)) & mask);
}

// The co-ranks of diagonals k0 <= k1 of the pair at s (runs A = [s, s + la) and B = [s + la, s + la + lb) on side
// `src`): for each, the number of A's keys among the pair's first k outputs, i.e. the smallest i with
// B[k - i - 1] < A[i] (B goes first only when strictly smaller: stable). Called by the whole subgroup, in clusters
// of `lanes` consecutive lanes (a power of two, at least 2, dividing the subgroup size; the whole subgroup, or at
// most 32), each cluster with its own pair and diagonals; the result is uniform in each cluster. Both searches
// run together, each round probing `lanes` evenly spaced points of each range [lo, hi) (a ballot counts those
// before the path, which are a prefix) and keeping the gap after the last probe still before the path:
// ceil(log_lanes(w)) + 1 rounds of two probes per lane, the loads of both issued together. More lanes, fewer
// dependent rounds; fewer lanes, fewer 32-byte sectors read per search (each probe its own sector). The second
// co-rank lies within [first, first + k1 - k0], which narrows its range each round.
uvec2 split_pair(uint src, uint s, uint la, uint lb, uint k0, uint k1, uint lanes) {
    uvec2 lo = uvec2(k0 > lb ? k0 - lb : 0u, k1 > lb ? k1 - lb : 0u);
    uvec2 hi = uvec2(min(k0, la), min(k1, la));
    uint lane = gl_SubgroupInvocationID & (lanes - 1u);
    uint base = gl_SubgroupInvocationID - lane;
    uint span = k1 - k0;
    // The loop runs while any cluster of the subgroup searches (its ballots need the whole subgroup).
    for (uint round = 0u; round < 64u && subgroupAny(lo.x < hi.x || lo.y < hi.y); round++) {
        uvec2 step = uvec2(div_ceil(hi.x - lo.x, lanes), div_ceil(hi.y - lo.y, lanes));
        uvec2 i = lo + lane * step;
        bool in0 = i.x < hi.x;
        bool in1 = i.y < hi.y;
        // All four loads issued together, none in a branch: a lane past its range reads a clamped position
        // (inside the pair where possible, never past its end) and ignores it.
        // The side is chosen once around all four (no use of a loaded key inside a branch).
        uint end = s + la + lb - 1u;
        uint pa0 = min(s + i.x, end);
        uint pb0 = min(s + la + k0 - min(i.x, k0 - 1u) - 1u, end);
        uint pa1 = min(s + i.y, end);
        uint pb1 = min(s + la + k1 - min(i.y, k1 - 1u) - 1u, end);
        uvec4 a0, b0, a1, b1;
        if (src != 0u) {
            a0 = KEY_AT(keys1, pa0);
            b0 = KEY_AT(keys1, pb0);
            a1 = KEY_AT(keys1, pa1);
            b1 = KEY_AT(keys1, pb1);
        } else {
            a0 = KEY_AT(keys0, pa0);
            b0 = KEY_AT(keys0, pb0);
            a1 = KEY_AT(keys0, pa1);
            b1 = KEY_AT(keys0, pb1);
        }
        // Before the path: B[k - i - 1] >= A[i].
        bool before0 = in0 && !mkey_lt(key_order(b0), key_order(a0));
        bool before1 = in1 && !mkey_lt(key_order(b1), key_order(a1));
        uint c0 = cluster_count(before0, lanes, base);
        uint c1 = cluster_count(before1, lanes, base);
        if (lo.x < hi.x) {
            if (c0 == 0u) {
                hi.x = lo.x;
            } else {
                uint last = lo.x + (c0 - 1u) * step.x;   // the last probe before the path
                hi.x = min(hi.x, last + step.x);          // the next probe (or hi) is on or after it
                lo.x = last + 1u;
            }
        }
        if (lo.y < hi.y) {
            if (c1 == 0u) {
                hi.y = lo.y;
            } else {
                uint last = lo.y + (c1 - 1u) * step.y;
                hi.y = min(hi.y, last + step.y);
                lo.y = last + 1u;
            }
        }
        // co-rank(k0) <= co-rank(k1) <= co-rank(k0) + (k1 - k0)
        lo.y = max(lo.y, lo.x);
        hi.y = max(lo.y, min(hi.y, hi.x + span));
    }
    return lo;
}

// Timing experiments only (DEBUG_MODE bit 2 of the partition and merge passes, bits 1 and 3 of the merge pass's
// diagonal search): a valid merge-path split of diagonal k of runs of la and lb keys, found by no search: the
// co-rank k / 2 clamped to [max(0, k - lb), min(k, la)] (non-decreasing in k by at most one per step, so the
// tiles' slices stay in bounds and add up).
uint split_guess(uint k, uint la, uint lb) {
    return clamp(k >> 1u, k > lb ? k - lb : 0u, min(k, la));
}
