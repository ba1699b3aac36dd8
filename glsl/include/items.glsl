// items.glsl: the sort items of the comparison sorts (bitonic, merge, WarpSort) and the partition sorts
// (quicksort, split radix). Include after common.glsl and keys.glsl. The Rust twin is src/sort/items.rs.
//
// A key is KEY_WORDS u32 words (1, 2 or 4; lowest word first), a value VAL_WORDS words (0, 1 or 2). Keys are
// compared in their transformed order (keys.glsl: totalOrder for floats, flipped sign for signed keys,
// inverted for descending; u128 keys, kind 6, as they are), restricted to the bit range the host gives as a
// 128-bit mask over the transformed key. Items that must keep their input order among equal keys carry a tag
// (a position): comparisons then break ties by the tag, which makes any comparison network stable.
//
// Values never travel through a network: a pass tracks where each output item came from (its tag or an
// index) and gathers the value from there once, when it writes.
//
// Push constants: every pass's block starts with ITEM_PUSH (the Rust `ItemPush`):
//   n_host      the host's count (use_count == 0)
//   use_count   1: n is the GPU-side count, clamped, that the first pass left in meta[CTRL_N]
//   capacity    the count the sort was recorded for (n <= capacity)
//   key_kind    keys.glsl KEY_KIND_* or KEY_KIND_U128
//   flags       bit 0: descending
//   mask0..3    the bits of the transformed key that order it (all ones without a bit range)

#extension GL_KHR_shader_subgroup_shuffle : require

layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;
// 1: items carry a tag that breaks ties (stable sorts, and sorts that gather values by it).
layout(constant_id = 16) const uint TAGGED = 0;

const uint KEY_KIND_U128 = 6u;
#include "control.glsl"

#define ITEM_PUSH uint n_host; uint use_count; uint capacity; uint key_kind; uint flags; uint mask0; uint mask1; uint mask2; uint mask3;

struct Item {
    uvec4 k;   // transformed key (words beyond KEY_WORDS are 0)
    uint t;    // tag (TAGGED)
};

// Set once per invocation by items_init().
uvec4 g_mask;
uint g_kind;
bool g_desc;

void items_init(uint kind, uint flags, uvec4 mask) {
    g_kind = kind;
    g_desc = (flags & 1u) != 0u;
    g_mask = mask;
}

// The order-preserving form of a key's raw words.
uvec4 key_order(uvec4 raw) {
    if (g_kind == KEY_KIND_U128) return g_desc ? ~raw : raw;
    uvec2 t = key_transform(raw.xy, g_kind, g_desc);
    return uvec4(t, 0u, 0u);
}

// The raw words of a transformed key (the inverse of key_order).
uvec4 key_unorder(uvec4 t) {
    if (g_desc) t = ~t;
    if (g_kind == KEY_KIND_I32) {
        t.x ^= 0x80000000u;
    } else if (g_kind == KEY_KIND_F32) {
        t.x = (t.x & 0x80000000u) != 0u ? (t.x & 0x7fffffffu) : ~t.x;
    } else if (g_kind == KEY_KIND_I64) {
        t.y ^= 0x80000000u;
    } else if (g_kind == KEY_KIND_F64) {
        if ((t.y & 0x80000000u) != 0u) {
            t.y &= 0x7fffffffu;
        } else {
            t.xy = ~t.xy;
        }
    }
    if (KEY_WORDS == 1u) t.y = 0u;
    if (KEY_WORDS <= 2u) t.zw = uvec2(0u);
    return t;
}

// a < b on the transformed keys' KEY_WORDS words, highest word first (no mask).
bool key_lt_words(uvec4 a, uvec4 b) {
    if (KEY_WORDS == 4u) {
        if (a.w != b.w) return a.w < b.w;
        if (a.z != b.z) return a.z < b.z;
    }
    if (KEY_WORDS >= 2u) {
        if (a.y != b.y) return a.y < b.y;
    }
    return a.x < b.x;
}

// a < b on the masked transformed keys.
bool key_lt(uvec4 a, uvec4 b) {
    return key_lt_words(a & g_mask, b & g_mask);
}

bool key_eq(uvec4 a, uvec4 b) {
    uvec4 d = (a ^ b) & g_mask;
    if (KEY_WORDS == 1u) return d.x == 0u;
    if (KEY_WORDS == 2u) return (d.x | d.y) == 0u;
    return (d.x | d.y | d.z | d.w) == 0u;
}

// a before b: by key, then (TAGGED) by tag.
bool item_lt(Item a, Item b) {
    if (TAGGED != 0u) {
        if (key_eq(a.k, b.k)) return a.t < b.t;
    }
    return key_lt(a.k, b.k);
}

// The same item in lane (own ^ mask) of the subgroup.
Item item_shuffle_xor(Item x, uint mask) {
    Item y;
    y.k = uvec4(0u);
    y.k.x = subgroupShuffleXor(x.k.x, mask);
    if (KEY_WORDS >= 2u) y.k.y = subgroupShuffleXor(x.k.y, mask);
    if (KEY_WORDS == 4u) {
        y.k.z = subgroupShuffleXor(x.k.z, mask);
        y.k.w = subgroupShuffleXor(x.k.w, mask);
    }
    y.t = TAGGED != 0u ? subgroupShuffleXor(x.t, mask) : 0u;
    return y;
}

// The item a compare-exchange leaves at position `pos` whose partner position is `other_pos`, holding `mine`
// and seeing `other`: the lower position keeps the smaller item, the higher the larger. Positions >= n hold
// virtual +infinity and never move: a comparator whose higher position is >= n does nothing. Equal items stay
// where they are (both sides agree, so nothing is lost or duplicated).
Item item_cx(Item mine, Item other, uint pos, uint other_pos, uint n) {
    if (max(pos, other_pos) >= n) return mine;
    bool take = pos < other_pos ? item_lt(other, mine) : item_lt(mine, other);
    return take ? other : mine;
}

// Raw words of item i of a u32 buffer `buf` (keys: KEY_WORDS per item; values: VAL_WORDS per item).
#define KEY_AT(buf, i) uvec4(buf[(i) * KEY_WORDS], KEY_WORDS >= 2u ? buf[(i) * KEY_WORDS + 1u] : 0u, KEY_WORDS == 4u ? buf[(i) * KEY_WORDS + 2u] : 0u, KEY_WORDS == 4u ? buf[(i) * KEY_WORDS + 3u] : 0u)
#define SET_KEY(buf, i, key) { uint kb_ = (i) * KEY_WORDS; uvec4 kv_ = (key); buf[kb_] = kv_.x; if (KEY_WORDS >= 2u) buf[kb_ + 1u] = kv_.y; if (KEY_WORDS == 4u) { buf[kb_ + 2u] = kv_.z; buf[kb_ + 3u] = kv_.w; } }
#define VAL_AT(buf, i) uvec2(VAL_WORDS >= 1u ? buf[(i) * VAL_WORDS] : 0u, VAL_WORDS == 2u ? buf[(i) * VAL_WORDS + 1u] : 0u)
#define SET_VAL(buf, i, val) { if (VAL_WORDS >= 1u) { uint vb_ = (i) * VAL_WORDS; uvec2 vv_ = (val); buf[vb_] = vv_.x; if (VAL_WORDS == 2u) buf[vb_ + 1u] = vv_.y; } }

// The mask of ITEM_PUSH.
#define ITEM_MASK(pc) uvec4((pc).mask0, (pc).mask1, (pc).mask2, (pc).mask3)
// n of this sort: the host's, or the clamped GPU-side count in the control block (binding `meta`).
#define ITEM_N(pc) ((pc).use_count != 0u ? meta[CTRL_N] : (pc).n_host)
