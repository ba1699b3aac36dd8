// merge_tile.glsl: the block and merge passes' tile in shared memory and their serial merge-path steps. Include
// after merge_side.glsl; needs KPT (keys per invocation, a power of two) and a power-of-two WG_SIZE, and, declared
// before the include, TAG_WORDS (shared words for the block pass's 16-bit tags; 0 elsewhere).
//
// Keys live in registers as uvec4 (words beyond KEY_WORDS are constant 0 and fold away once KEY_WORDS is
// specialized) in g_k (below), every index a compile-time constant after the loops over KPT unroll (those
// loops never nest a runtime index into a register array). In shared memory only the keys' KEY_WORDS
// words (planes of TILE words: word w of position p at s_keys[w * TILE + swz(p)]), no tags in the merge passes
// (a merged key's source is its position) and never values (gathered from global memory by source position).
// No padding words: within each row of 32 words, positions are XOR-swizzled by the row number, which keeps a
// subgroup's blocked (p = lid * KPT + a) and striped (p = a * WG_SIZE + lid) accesses on 32 distinct banks for
// every power-of-two KPT. A 4096-key tile of u32 keys is 16 KiB: 3 workgroups per SM on an H100, whose Vulkan
// driver gives an SM 48 KiB of shared memory in all.

const uint TILE = WG_SIZE * KPT;
shared uint s_keys[TILE * KEY_WORDS + TAG_WORDS];

// The swizzled word of position p within a plane.
uint swz(uint p) {
    return p ^ ((p >> 5u) & 31u);
}

void skey_put(uint p, uvec4 k) {
    uint q = swz(p);
    s_keys[q] = k.x;
    if (KEY_WORDS >= 2u) s_keys[TILE + q] = k.y;
    if (KEY_WORDS == 4u) {
        s_keys[2u * TILE + q] = k.z;
        s_keys[3u * TILE + q] = k.w;
    }
}

uvec4 skey_get(uint p) {
    uint q = swz(p);
    uvec4 k = uvec4(s_keys[q], 0u, 0u, 0u);
    if (KEY_WORDS >= 2u) k.y = s_keys[TILE + q];
    if (KEY_WORDS == 4u) {
        k.z = s_keys[2u * TILE + q];
        k.w = s_keys[3u * TILE + q];
    }
    return k;
}

// All-ones transformed key: after the mask, no key is greater (padding; stable merges keep real keys first).
const uvec4 KEY_MAX = uvec4(0xffffffffu);

// Where diagonal d of the merge of A = shared [a, a + na) and B = shared [b, b + nb) crosses the merge path: the
// number of A's keys among the first d outputs, i.e. the smallest i with B[d - i - 1] < A[i] (B goes first only
// when strictly smaller: stable). At most log2(min(na, nb)) + 1 steps of two shared reads.
uint path_search(uint a, uint na, uint b, uint nb, uint d) {
    uint lo = d > nb ? d - nb : 0u;
    uint hi = min(d, na);
    while (lo < hi) {
        uint mid = (lo + hi) >> 1u;
        if (mkey_lt(skey_get(b + d - mid - 1u), skey_get(a + mid))) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    return lo;
}

// The invocation's KPT keys (module scope so that the phases share them; every phase is inlined, and they stay
// registers like locals), with each key's tile position of origin (g_from: the merge pass) or its 16-bit tag
// (g_tag: the block pass with values).
uvec4 g_k[KPT];
uint g_from[KPT];
uint g_tag[KPT];

// The block pass's tags: TAG_WORDS words after the key planes, two tags a word.
const uint TAG_BASE = TILE * KEY_WORDS;

// The tags of positions p and p + 1 (p even), one word.
void stag_put2(uint p, uint t0, uint t1) {
    s_keys[TAG_BASE + swz(p >> 1u)] = t0 | (t1 << 16u);
}

uint stag_get(uint p) {
    return (s_keys[TAG_BASE + swz(p >> 1u)] >> ((p & 1u) * 16u)) & 0xffffu;
}

// g_k (with `tags`, also g_tag) into the tile, blocked (invocation lid at lid x KPT ..), between two barriers.
void stage_blocked(bool tags) {
    uint lid = gl_LocalInvocationID.x;
    barrier();
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        skey_put(lid * KPT + a, g_k[a]);
        if (tags && (a & 1u) == 0u) stag_put2(lid * KPT + a, g_tag[a], g_tag[a + 1u]);
    }
    barrier();
}

// The next KPT keys of the stable merge of the staged runs A = [i, a_end) and B = [j, b_end) (tile positions; i
// and j: where the invocation's diagonal crosses the merge path) into g_k, ties from A; g_from: their positions,
// with `tags` g_tag: their tags. One shared read a key, for the side that moved.
void merge_keys(uint i, uint a_end, uint j, uint b_end, bool tags) {
    uvec4 ka = skey_get(min(i, TILE - 1u));
    uvec4 kb = skey_get(min(j, TILE - 1u));
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        bool take_b = j < b_end && (i >= a_end || mkey_lt(kb, ka));
        uint f = take_b ? j : i;
        g_k[a] = take_b ? kb : ka;
        g_from[a] = f;
        if (tags) g_tag[a] = stag_get(f);
        if (take_b) {
            j++;
        } else {
            i++;
        }
        // Clamped: a key read past its run's end is never used.
        uvec4 next = skey_get(min(f + 1u, TILE - 1u));
        kb = take_b ? next : kb;
        ka = take_b ? ka : next;
    }
}
