#version 460
// quicksort_partition.comp (vksort::quicksort::partition): one phase-one round r, dispatched indirectly with the
// grid round r - 1 (or the bounds pass) wrote. Workgroup g partitions block g - first of its sequence (block map,
// sequence table of parity r & 1; blocks of WG_SIZE x KPT keys) from side r & 1 into side (r & 1) ^ 1 around
// the sequence's pivot: keys <= pivot (< pivot when the sequence is strict) to the left, the others to the right.
// It counts and scatters in one pass: the block is staged class by class in shared memory, one fetch-and-add on
// the sequence's left pointer and one on its right pointer reserve its two runs, and each run is written
// contiguously (values gathered from the block by tag). Each workgroup also records the masked min and max of
// its left and right keys.
//
// The last workgroup of a sequence (a ticket on SEQ_DONE, taken after its writes and a memory barrier; no
// workgroup waits for another) reduces its sequence's records to the exact key range of both children and
// plans them (quicksort.glsl plan_seq): done, phase-two jobs, or sequences of round r + 1 (pivot: midpoint of
// the range or a sample's median). The last workgroup of the round (a ticket on RS_TICKET) writes the
// indirect arguments of round r + 1 and of the local pass.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

#include "bitonic.glsl"

// Keys are coherent: the planner samples the keys other workgroups of this dispatch wrote.
layout(set = 0, binding = 0, std430) coherent buffer Keys0 { uint keys0[]; };
layout(set = 0, binding = 1, std430) buffer Vals0 { uint vals0[]; };
layout(set = 0, binding = 2, std430) coherent buffer Keys1 { uint keys1[]; };
layout(set = 0, binding = 3, std430) buffer Vals1 { uint vals1[]; };
layout(set = 0, binding = 4, std430) coherent buffer Meta { uint meta[]; };

#include "wg_scan.glsl"
#include "quicksort.glsl"

shared uint s_off[2];
shared bool s_last;

// The last workgroup of sequence `sb`: its children's key ranges from the block records, then their plans.
void finish_sequence(uint sb, uint start, uint len, uint nb, uint b0, uint side, uint r) {
    uint left = meta[sb + SEQ_LEFT];
    uint mode = (meta[sb + SEQ_FLAGS] >> 1u) & 1u;
    mm_reset();
    for (uint j = gl_LocalInvocationID.x; j < nb; j += WG_SIZE) {
        [[unroll]] for (uint q = 0u; q < 4u; q += 2u) {
            uvec4 lo = get_rec(b0 + j, q);
            uvec4 hi = get_rec(b0 + j, q + 1u);
            if (key_lt(lo, g_mm[q])) g_mm[q] = lo;
            if (key_lt(g_mm[q + 1u], hi)) g_mm[q + 1u] = hi;
        }
    }
    wg_minmax();
    uvec4 mm[4] = g_mm;
    [[dont_unroll]] for (uint h = 0u; h < 2u; h++) {
        plan_seq(h == 0u ? start : start + left, h == 0u ? left : len - left, side, mm[2u * h], mm[2u * h + 1u],
                 len, mode, r + 1u);
    }
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint lid = gl_LocalInvocationID.x;
    uint r = pc.rnd;
    uint rs = pc.rs_off + r * RS_WORDS;
    uint total = min(meta[rs + RS_BLOCKS], pc.bmax);
    uint g = flat_group_id();
    if (g >= total) return;
    uint par = r & 1u;
    uint src = par;
    uint dst = par ^ 1u;
    uint seq = meta[pc.bmap_off + par * pc.bmax + g];
    uint sb = pc.seq_off + (par * pc.smax + seq) * SEQ_WORDS;
    uint start = meta[sb + SEQ_START];
    uint len = meta[sb + SEQ_LEN];
    bool strict = (meta[sb + SEQ_FLAGS] & 1u) != 0u;
    uint nb = meta[sb + SEQ_BLOCKS];
    uint b0 = meta[sb + SEQ_FIRST];
    uvec4 pivot = uvec4(meta[sb + SEQ_PIVOT], meta[sb + SEQ_PIVOT + 1u], meta[sb + SEQ_PIVOT + 2u],
                        meta[sb + SEQ_PIVOT + 3u]);
    uint bbase = start + (g - b0) * B_TILE;
    uint m = min(B_TILE, start + len - bbase);

    mm_reset();
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        g_cls[a] = 3u;
        g_r[a].k = uvec4(0u);
        g_r[a].t = p;
        if (p < m) {
            uvec4 k = key_order(load_key(src, bbase + p));
            g_r[a].k = k;
            uvec4 q = k & g_mask;
            bool left = strict ? key_lt(q, pivot) : !key_lt(pivot, q);
            g_cls[a] = left ? 0u : 2u;
            mm_add(left ? 0u : 2u, q);
        }
    }
    uvec3 c = stage_chunk(m);
    if (lid == 0u) {
        s_off[0] = atomicAdd(meta[sb + SEQ_LEFT], c.x);
        s_off[1] = atomicAdd(meta[sb + SEQ_RIGHT], c.z);
    }
    barrier();
    uint lo = start + s_off[0];
    uint hi = start + len - s_off[1] - c.z;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint i = a * WG_SIZE + lid;
        if (i < m) {
            Item x = smem_get(i);
            uint d = i < c.x ? lo + i : hi + (i - c.x);
            store_key(dst, d, key_unorder(x.k));
            if (VAL_WORDS > 0u) store_val(dst, d, load_val(src, bbase + x.t));
        }
    }
    wg_minmax();
    if (lid == 0u) {
        [[unroll]] for (uint q = 0u; q < 4u; q++) put_rec(g, q, g_mm[q]);
    }

    memoryBarrierBuffer();
    barrier();
    if (lid == 0u) s_last = atomicAdd(meta[sb + SEQ_DONE], 1u) == nb - 1u;
    barrier();
    if (s_last) {
        memoryBarrierBuffer();
        finish_sequence(sb, start, len, nb, b0, dst, r);
    }

    memoryBarrierBuffer();
    barrier();
    if (lid == 0u) s_last = atomicAdd(meta[rs + RS_TICKET], 1u) == total - 1u;
    barrier();
    if (s_last && lid == 0u) {
        memoryBarrierBuffer();
        if (r + 1u < pc.rounds) {
            uint rn = pc.rs_off + (r + 1u) * RS_WORDS;
            qs_grid(min(meta[rn + RS_BLOCKS], pc.bmax), rn + RS_ARGS);
        }
        uint gs = qs_global();
        qs_grid(min(meta[gs + RS_BLOCKS], pc.qmax), gs + RS_ARGS);
    }
}
