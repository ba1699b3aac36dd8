// merge_side.glsl: what the merge sort's passes share (src/sort/merge/mod.rs has the contract). Include after
// items.glsl.
//
// The sort ping-pongs between two sides: side 0 the caller's keys and values, side 1 the alternate copies in
// the scratch. The block pass writes side S0 and merge pass p reads side S0 ^ (p & 1) and writes the other, so
// that with P(n) merge passes the last one writes side 0 (S0 = P(n) & 1) and no final copy is needed. P(n)
// depends on the count, so every pass computes it from n (a GPU-side count is only known on the GPU); passes
// p >= P(n) do nothing.
//
// Bindings 0..3 of the block and merge passes: side 0 keys and values, side 1 keys and values; of a pass that
// defines MERGE_KEYS_ONLY (the partition), 0..1: side 0 keys, side 1 keys. Reads and writes choose the side by
// a branch that is uniform in the dispatch.

#ifdef MERGE_KEYS_ONLY
BUFFER(0, readonly, keys0);
BUFFER(1, readonly, keys1);
#else
SIDE(0, 1, , keys0, vals0);
SIDE(2, 3, , keys1, vals1);
#endif

// 0: the sort orders by every bit of the key (no bit range), so comparisons skip the mask.
layout(constant_id = 21) const uint MASKED = 1;

// a < b on the transformed keys (masked with a bit range).
bool mkey_lt(uvec4 a, uvec4 b) {
    return MASKED != 0u ? key_lt(a, b) : key_lt_words(a, b);
}

// Merge passes of a sort of n keys with tiles of `block_tile` keys: ceil(log2(ceil(n / block_tile))).
uint merge_passes(uint n, uint block_tile) {
    uint tiles = n / block_tile + ((n % block_tile) != 0u ? 1u : 0u);
    return tiles <= 1u ? 0u : uint(findMSB(tiles - 1u)) + 1u;
}

uvec4 side_key(uint side, uint i) {
    if (side != 0u) return KEY_AT(keys1, i);
    return KEY_AT(keys0, i);
}

#ifndef MERGE_KEYS_ONLY
uvec2 side_val(uint side, uint i) {
    if (side != 0u) return VAL_AT(vals1, i);
    return VAL_AT(vals0, i);
}

void side_set(uint side, uint i, uvec4 key, uvec2 val) {
    if (side != 0u) {
        SET_KEY(keys1, i, key);
        SET_VAL(vals1, i, val);
    } else {
        SET_KEY(keys0, i, key);
        SET_VAL(vals0, i, val);
    }
}
#endif
