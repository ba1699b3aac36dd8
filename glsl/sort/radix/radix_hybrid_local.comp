#version 460
// radix_hybrid_local.comp (vksort::radix::hybrid::local): one workgroup per group of the hybrid sort (the keys
// that share their top bits, found by radix_hybrid_bounds.comp: starts[g] .. starts[g + 1]) sorts the group
// stably on the bits below them, [lo, CTRL_HYBRID), into the same range of the caller's buffers. The MSD passes
// left the keys (and values) on side CTRL_FINAL_SEL (0 the caller's buffers, 1 the scratch). A group of at most
// TILE keys is read once into registers, sorted there (radix_local.glsl: only places where its keys differ)
// and written once; a larger group (skewed keys) is sorted by this workgroup alone through global memory
// (radix_range.glsl), between its range in the two sides. Groups with nothing to sort that already lie in the
// caller's buffers are left alone. Peers are matched by ballots (match-any was 1.7x slower here on an H200).
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

SIDE(0, 1, coherent, keys, vals);
SIDE(2, 3, coherent, alt_keys, alt_vals);
BUFFER(4, readonly, meta);
BUFFER(5, readonly, starts);

layout(push_constant) uniform Push {
    uint lo;
    uint key_kind;
    uint flags;   // bit 0: descending
} pc;

shared uint smem[SMEM_WORDS];
shared uint s_tot[RADIX];
shared uint s_lstart[RADIX];
shared uint s_run[RADIX];
const uint MATCH_OR = 0u;   // ballot peers (radix_rank.glsl)
const uint MATCH_BASE = 0u;
// Places in registers ranked with rank2's packed 16-bit [digit][subgroup] counters and one scan (radix_local.glsl
// LOCAL_RANK2; the group tile is below 2^16 keys). The fallback through global memory keeps rank_digits().
#define RANK_CUB 1
#define LOCAL_RANK2 1
const uint RANK2 = 2u;

#include "radix_rank.glsl"
#include "radix_local.glsl"

// Sides: the caller's buffers, the scratch arrays.
const uint CALLER = 0u;
const uint ALT = 1u;

uvec2 get_key(uint side, uint i) {
    if (side == ALT) return uvec2(alt_keys[i * KEY_WORDS], KEY_WORDS == 2u ? alt_keys[i * KEY_WORDS + 1u] : 0u);
    return uvec2(keys[i * KEY_WORDS], KEY_WORDS == 2u ? keys[i * KEY_WORDS + 1u] : 0u);
}
void put_key(uint side, uint i, uvec2 k) {
    if (side == ALT) {
        alt_keys[i * KEY_WORDS] = k.x;
        if (KEY_WORDS == 2u) alt_keys[i * KEY_WORDS + 1u] = k.y;
    } else {
        keys[i * KEY_WORDS] = k.x;
        if (KEY_WORDS == 2u) keys[i * KEY_WORDS + 1u] = k.y;
    }
}
uvec2 get_vals(uint side, uint i) {
    uvec2 v = uvec2(0u);
    if (VAL_WORDS >= 1u) v.x = side == ALT ? alt_vals[i * VAL_WORDS] : vals[i * VAL_WORDS];
    if (VAL_WORDS == 2u) v.y = side == ALT ? alt_vals[i * VAL_WORDS + 1u] : vals[i * VAL_WORDS + 1u];
    return v;
}
void put_vals(uint side, uint i, uvec2 v) {
    if (VAL_WORDS == 0u) return;
    if (side == ALT) {
        alt_vals[i * VAL_WORDS] = v.x;
        if (VAL_WORDS == 2u) alt_vals[i * VAL_WORDS + 1u] = v.y;
    } else {
        vals[i * VAL_WORDS] = v.x;
        if (VAL_WORDS == 2u) vals[i * VAL_WORDS + 1u] = v.y;
    }
}

#include "radix_range.glsl"

void main() {
    uint n = meta[CTRL_N];
    uint g = flat_group_id();
    uint start = min(starts[g], n);
    uint end = min(starts[g + 1u], n);
    if (end <= start) return;
    uint cnt = end - start;
    uint side = meta[CTRL_FINAL_SEL] == 1u ? ALT : CALLER;
    uint hi = meta[CTRL_HYBRID];   // the group's bits start here
    bool desc = (pc.flags & 1u) != 0u;
    bool sort = cnt > 1u && hi > pc.lo;
    if (!sort && side == CALLER) return;
    if (cnt > TILE) {
        sort_range(side, side == CALLER ? ALT : CALLER, start, cnt, pc.lo, sort ? hi : pc.lo, pc.key_kind, desc);
        return;
    }
    range_load(side, start, cnt);
    if (sort) local_sort(cnt, pc.lo, hi, pc.key_kind, desc, local_differ(cnt, pc.key_kind, desc));
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        if (item_pos(j) < cnt) store_item(CALLER, j, start + item_pos(j));
    }
}
