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
BUFFER(0, coherent, keys0);
BUFFER(1, , vals0);
BUFFER(2, coherent, keys1);
BUFFER(3, , vals1);
BUFFER(4, coherent, meta);

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

// Block g of round r as its phases see it: [base, base + m) of the sequence [start, start + len) whose
// bookkeeping is at meta[sb..] (nb blocks from b0), read from side src and partitioned around pivot into side dst.
struct Block {
    uint src;
    uint dst;
    uint sb;
    uint start;
    uint len;
    bool strict;
    uint nb;
    uint b0;
    uvec4 pivot;
    uint base;
    uint m;
};

Block block_of(uint g, uint r) {
    Block b;
    uint par = r & 1u;
    b.src = par;
    b.dst = par ^ 1u;
    uint seq = meta[pc.bmap_off + par * pc.bmax + g];
    b.sb = pc.seq_off + (par * pc.smax + seq) * SEQ_WORDS;
    b.start = meta[b.sb + SEQ_START];
    b.len = meta[b.sb + SEQ_LEN];
    b.strict = (meta[b.sb + SEQ_FLAGS] & 1u) != 0u;
    b.nb = meta[b.sb + SEQ_BLOCKS];
    b.b0 = meta[b.sb + SEQ_FIRST];
    b.pivot = uvec4(meta[b.sb + SEQ_PIVOT], meta[b.sb + SEQ_PIVOT + 1u], meta[b.sb + SEQ_PIVOT + 2u],
                    meta[b.sb + SEQ_PIVOT + 3u]);
    b.base = b.start + (g - b.b0) * B_TILE;
    b.m = min(B_TILE, b.start + b.len - b.base);
    return b;
}

// Loads the block into g_r (tags: positions), classed left (0) or right (2) of the pivot, into the min/max
// records (mm_reset before).
void load_block(Block b) {
    uint lid = gl_LocalInvocationID.x;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        g_cls[a] = 3u;
        g_r[a].k = uvec4(0u);
        g_r[a].t = p;
        if (p < b.m) {
            uvec4 k = key_order(load_key(b.src, b.base + p));
            g_r[a].k = k;
            uvec4 q = k & g_mask;
            bool left = b.strict ? key_lt(q, b.pivot) : !key_lt(b.pivot, q);
            g_cls[a] = left ? 0u : 2u;
            mm_add(left ? 0u : 2u, q);
        }
    }
}

// Stages the block class by class, reserves its left and right runs in the sequence (one fetch-and-add each) and
// writes them contiguously to side dst, values gathered by tag.
void scatter_block(Block b) {
    uint lid = gl_LocalInvocationID.x;
    uvec3 c = stage_chunk(b.m);
    if (lid == 0u) {
        s_off[0] = atomicAdd(meta[b.sb + SEQ_LEFT], c.x);
        s_off[1] = atomicAdd(meta[b.sb + SEQ_RIGHT], c.z);
    }
    barrier();
    uint lo = b.start + s_off[0];
    uint hi = b.start + b.len - s_off[1] - c.z;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint i = a * WG_SIZE + lid;
        if (i < b.m) {
            Item x = smem_get(i);
            uint d = i < c.x ? lo + i : hi + (i - c.x);
            store_key(b.dst, d, key_unorder(x.k));
            if (VAL_WORDS > 0u) store_val(b.dst, d, load_val(b.src, b.base + x.t));
        }
    }
}

// Whether this workgroup is the last of `count` to arrive at the ticket meta[at] (after its writes and a release
// fence). Every invocation must call it; the answer is uniform.
bool last_arrival(uint at, uint count) {
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationID.x == 0u) s_last = atomicAdd(meta[at], 1u) == count - 1u;
    barrier();
    return s_last;
}

// The indirect grids of round r + 1 (if recorded) and of the local pass, by the round's last workgroup.
void write_grids(uint r) {
    memoryBarrierBuffer();
    if (r + 1u < pc.rounds) {
        uint rn = pc.rs_off + (r + 1u) * RS_WORDS;
        qs_grid(min(meta[rn + RS_BLOCKS], pc.bmax), rn + RS_ARGS);
    }
    uint gs = qs_global();
    qs_grid(min(meta[gs + RS_BLOCKS], pc.qmax), gs + RS_ARGS);
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint r = pc.rnd;
    uint rs = pc.rs_off + r * RS_WORDS;
    uint total = min(meta[rs + RS_BLOCKS], pc.bmax);
    uint g = flat_group_id();
    if (g >= total) return;
    Block b = block_of(g, r);
    mm_reset();
    load_block(b);
    scatter_block(b);
    wg_minmax();
    if (gl_LocalInvocationID.x == 0u) {
        [[unroll]] for (uint q = 0u; q < 4u; q++) put_rec(g, q, g_mm[q]);
    }
    if (last_arrival(b.sb + SEQ_DONE, b.nb)) {
        memoryBarrierBuffer();
        finish_sequence(b.sb, b.start, b.len, b.nb, b.b0, b.dst, r);
    }
    bool last_of_round = last_arrival(rs + RS_TICKET, total);
    if (last_of_round && gl_LocalInvocationID.x == 0u) write_grids(r);
}
