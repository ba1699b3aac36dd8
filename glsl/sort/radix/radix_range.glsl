// radix_range.glsl: one workgroup sorts a range of keys (and values) that lies in global memory and may be
// larger than its tile: one digit place at a time through global memory, alternating between the range in two
// arrays ("sides"). Used by the MSD sort's bucket pass (a helper's share of a large bucket) and by the hybrid
// sort's group pass (a group larger than its tile).
//
// Include after radix_local.glsl. The includer defines the sides (const uint CALLER: the caller's buffers; at
// least one other), get_key(side, i) / put_key(side, i, k) (uvec2 key words) and get_vals(side, i) /
// put_vals(side, i, v) (value words; past VAL_WORDS read as 0 and not written), and shared uint s_run[RADIX]
// next to radix_local.glsl's arrays. The buffers of both sides are `coherent`: a workgroup reads back what its
// own invocations wrote in the previous place.

// Stores of this workgroup become visible to its loads after this: a release fence, the barrier, and an
// acquire fence after it (barrier() alone orders shared memory only, so without the second fence a compiler may
// move the next loads of buffer memory above the barrier).
void sync_buffers() {
    memoryBarrierBuffer();
    barrier();
    memoryBarrierBuffer();
}

// Items [0, m) of the registers from elements [at, at + m) of one side (padding: zeros).
void range_load(uint side, uint at, uint m) {
    local_clear();
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint i = item_pos(j);
        if (i < m) {
            uvec2 k = get_key(side, at + i);
            uvec2 v = get_vals(side, at + i);
            g_w0[j] = k.x;
            g_w1[j] = k.y;
            g_v0[j] = v.x;
            g_v1[j] = v.y;
        }
    }
}

// Item j (valid) to element i of one side.
void store_item(uint side, uint j, uint i) {
    put_key(side, i, uvec2(g_w0[j], g_w1[j]));
    put_vals(side, i, uvec2(g_v0[j], g_v1[j]));
}

// Keys (and values) [start, start + cnt) of side `src`: sorted stably on bits [lo, hi) of their transformed
// keys into the same range of the caller's buffers by this workgroup alone. Per place where the keys differ: a
// histogram of the range, then its chunks of TILE keys in order, each ranked in shared memory and written to
// the place's running digit offsets, from one side's range to the other's (`src` and `tmp`, one of them
// CALLER); a final copy when the result lies on the side that is not the caller's. Each invocation runs
// about places x (cnt / WG_SIZE + cnt / TILE x ~100) loop iterations in all: lavapipe stops an invocation's
// loops after 65535 iterations counted together (measured: ranges of ~120,000 u32 keys at 128 x 16 failed), so
// the callers bound the ranges there (the MSD helpers' shares; RadixPolicy::hybrid_max).
void sort_range(uint src, uint tmp, uint start, uint cnt, uint lo, uint hi, uint kind, bool desc) {
    uint lid = gl_LocalInvocationID.x;
    uvec2 a = uvec2(~0u), o = uvec2(0u);
    for (uint i = lid; i < cnt; i += WG_SIZE) {
        uvec2 t = key_transform(get_key(src, start + i), kind, desc);
        a &= t;
        o |= t;
    }
    uvec2 differ = wg_differ(a, o);
    uint cur = src, oth = tmp;
    for (uint shift = lo; shift < hi; shift += DIGIT_BITS) {
        uint bits = min(DIGIT_BITS, hi - shift);
        uint mask = (1u << bits) - 1u;
        if (key_digit(differ, shift, mask) == 0u) continue;
        for (uint d = lid; d < RADIX; d += WG_SIZE) s_run[d] = 0u;
        barrier();
        for (uint i = lid; i < cnt; i += WG_SIZE) {
            atomicAdd(s_run[key_digit(key_transform(get_key(cur, start + i), kind, desc), shift, mask)], 1u);
        }
        barrier();
        for (uint d = lid; d < RADIX; d += WG_SIZE) s_tot[d] = s_run[d];
        barrier();
        scan_digit_totals();
        for (uint d = lid; d < RADIX; d += WG_SIZE) s_run[d] = s_lstart[d];
        barrier();
        for (uint base = 0u; base < cnt; base += TILE) {
            uint m = min(TILE, cnt - base);
            range_load(cur, start + base, m);
            [[unroll]] for (uint j = 0u; j < KPT; j++) {
                g_digit[j] = item_pos(j) < m
                    ? key_digit(key_transform(uvec2(g_w0[j], g_w1[j]), kind, desc), shift, mask)
                    : mask;
            }
            rank_digits(bits);
            [[unroll]] for (uint j = 0u; j < KPT; j++) {
                if (item_pos(j) < m) {
                    uint d = g_digit[j];
                    store_item(oth, j, start + s_run[d] + smem[gl_SubgroupID * RADIX + d] + g_sub[j]);
                }
            }
            barrier();
            for (uint d = lid; d < RADIX; d += WG_SIZE) s_run[d] += s_tot[d];
            barrier();
        }
        sync_buffers();
        uint t = cur;
        cur = oth;
        oth = t;
    }
    if (cur != CALLER) {
        for (uint i = lid; i < cnt; i += WG_SIZE) {
            put_key(CALLER, start + i, get_key(cur, start + i));
            put_vals(CALLER, start + i, get_vals(cur, start + i));
        }
    }
}
