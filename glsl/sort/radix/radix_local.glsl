// radix_local.glsl: one workgroup sorts a tile of keys (and values) held in its registers, in place, one digit
// place at a time (rank with radix_rank.glsl, exchange through shared memory). Used by the one-workgroup sort
// (radix_small.comp) and by the MSD sort's bucket pass (radix_msd_buckets.comp).
//
// Include after radix_rank.glsl. The includer defines spec constants KPT, DIGIT_BITS, KEY_WORDS (1 or 2),
// VAL_WORDS (0..2), const RADIX and TILE (WG_SIZE * KPT), and shared uint smem[] of at least
// max(TILE, MAX_SUBGROUPS * RADIX) words, s_tot[RADIX], s_lstart[RADIX]. With LOCAL_RANK2 defined (and RANK_CUB
// with a RANK2 of 1 or 2 for radix_rank.glsl) each place is ranked with rank2's scanned counters instead of
// rank_digits() (smem must then hold R2_WORDS too).
//
// Item j of an invocation sits at tile position item_pos(j) (radix_rank.glsl). Items at positions >= n are
// padding: they carry the largest digit of every place, so they stay at the end.

#include "key_differ.glsl"

uint g_w0[KPT];   // key low words
uint g_w1[KPT];   // key high words (64-bit keys)
uint g_v0[KPT];   // value words
uint g_v1[KPT];
uint g_pos[KPT];  // destination of each item in the current exchange

// Clears this invocation's items (padding holds zeros).
void local_clear() {
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        g_w0[j] = 0u;
        g_w1[j] = 0u;
        g_v0[j] = 0u;
        g_v1[j] = 0u;
    }
}

void exchange_w0() {
    [[unroll]] for (uint j = 0u; j < KPT; j++) smem[g_pos[j]] = g_w0[j];
    barrier();
    [[unroll]] for (uint j = 0u; j < KPT; j++) g_w0[j] = smem[item_pos(j)];
    barrier();
}
void exchange_w1() {
    [[unroll]] for (uint j = 0u; j < KPT; j++) smem[g_pos[j]] = g_w1[j];
    barrier();
    [[unroll]] for (uint j = 0u; j < KPT; j++) g_w1[j] = smem[item_pos(j)];
    barrier();
}
void exchange_v0() {
    [[unroll]] for (uint j = 0u; j < KPT; j++) smem[g_pos[j]] = g_v0[j];
    barrier();
    [[unroll]] for (uint j = 0u; j < KPT; j++) g_v0[j] = smem[item_pos(j)];
    barrier();
}
void exchange_v1() {
    [[unroll]] for (uint j = 0u; j < KPT; j++) smem[g_pos[j]] = g_v1[j];
    barrier();
    [[unroll]] for (uint j = 0u; j < KPT; j++) g_v1[j] = smem[item_pos(j)];
    barrier();
}

// The bits where the transformed keys of items [0, n) differ.
uvec2 local_differ(uint n, uint kind, bool desc) {
    uvec2 a = uvec2(~0u), o = uvec2(0u);
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        if (item_pos(j) < n) {
            uvec2 t = key_transform(uvec2(g_w0[j], g_w1[j]), kind, desc);
            a &= t;
            o |= t;
        }
    }
    return wg_differ(a, o);
}

// Sorts items [0, n) stably on bits [lo, hi) of their transformed keys, in places of DIGIT_BITS from lo;
// places where `differ` (local_differ()) has no bit are skipped.
void local_sort(uint n, uint lo, uint hi, uint kind, bool desc, uvec2 differ) {
    for (uint shift = lo; shift < hi; shift += DIGIT_BITS) {
        uint bits = min(DIGIT_BITS, hi - shift);
        uint mask = (1u << bits) - 1u;
        if (key_digit(differ, shift, mask) == 0u) continue;
        [[unroll]] for (uint j = 0u; j < KPT; j++) {
            g_digit[j] = item_pos(j) < n
                ? key_digit(key_transform(uvec2(g_w0[j], g_w1[j]), kind, desc), shift, mask)
                : mask;
        }
#ifdef LOCAL_RANK2
        // CUB-style counters (radix_rank.glsl rank2_*): one workgroup scan over [digit][subgroup] counters
        // gives each subgroup's first position of each digit; no per-digit loop over subgroups.
        rank2_clear();
        barrier();
        rank2_count(bits);
        rank2_scan();
        [[unroll]] for (uint j = 0u; j < KPT; j++) g_pos[j] = r2_value(g_digit[j], gl_SubgroupID) + g_sub[j];
#else
        rank_digits(bits);
        [[unroll]] for (uint j = 0u; j < KPT; j++) {
            uint d = g_digit[j];
            g_pos[j] = s_lstart[d] + smem[gl_SubgroupID * RADIX + d] + g_sub[j];
        }
#endif
        barrier();
        exchange_w0();
        if (KEY_WORDS == 2u) exchange_w1();
        if (VAL_WORDS >= 1u) exchange_v0();
        if (VAL_WORDS == 2u) exchange_v1();
    }
}
