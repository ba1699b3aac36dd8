// merge_split.glsl: the merge-path co-ranks of a merge pass's tiles, found in global memory by one subgroup (the
// partition pass, and the merge passes that find their own). Include after merge_side.glsl.

// The co-ranks of diagonals k0 <= k1 of the pair at s (runs A = [s, s + la) and B = [s + la, s + la + lb) on side
// `src`): for each, the number of A's keys among the pair's first k outputs, i.e. the smallest i with
// B[k - i - 1] < A[i] (B goes first only when strictly smaller: stable). Called by a whole subgroup; the result is
// uniform in it. Both searches run together, each round probing gl_SubgroupSize evenly spaced points of each
// range [lo, hi) (a ballot counts those before the path, which are a prefix) and keeping the gap after the last
// probe still before the path: ceil(log_(subgroup size)(w)) + 1 rounds of two probes per lane, the loads of both
// issued together. The second co-rank lies within [first, first + k1 - k0], which narrows its range each round.
uvec2 split_pair(uint src, uint s, uint la, uint lb, uint k0, uint k1) {
    uvec2 lo = uvec2(k0 > lb ? k0 - lb : 0u, k1 > lb ? k1 - lb : 0u);
    uvec2 hi = uvec2(min(k0, la), min(k1, la));
    uint lane = gl_SubgroupInvocationID;
    uint span = k1 - k0;
    for (uint round = 0u; round < 32u && (lo.x < hi.x || lo.y < hi.y); round++) {
        uvec2 step = uvec2(div_ceil(hi.x - lo.x, gl_SubgroupSize), div_ceil(hi.y - lo.y, gl_SubgroupSize));
        uvec2 i = lo + lane * step;
        bool in0 = i.x < hi.x;
        bool in1 = i.y < hi.y;
        // All four loads issued together, none in a branch: a lane past its range reads a clamped position
        // (inside the pair where possible, never past `last`) and ignores it.
        // The side is chosen once around all four (no use of a loaded key inside a branch).
        uint last = s + la + lb - 1u;
        uint pa0 = min(s + i.x, last);
        uint pb0 = min(s + la + k0 - min(i.x, k0 - 1u) - 1u, last);
        uint pa1 = min(s + i.y, last);
        uint pb1 = min(s + la + k1 - min(i.y, k1 - 1u) - 1u, last);
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
        uint c0 = subgroupBallotBitCount(subgroupBallot(before0));
        uint c1 = subgroupBallotBitCount(subgroupBallot(before1));
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
