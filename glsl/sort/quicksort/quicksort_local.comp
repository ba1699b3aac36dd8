#version 460
// quicksort_local.comp (vksort::quicksort::local): phase two. One workgroup per job, alone: the jobs phase one
// queued (indirect dispatch; the queue in the bookkeeping, quicksort.glsl), or (direct != 0) the whole input as
// one job in one workgroup. A job is a sequence [start, start + len) on a side; the sorted keys and values land
// on side 0 (the caller's buffers) at the same positions.
//
// - copy jobs (all keys equal on side 1): copied to side 0;
// - sort jobs: an explicit stack of sequences (shared memory). A sequence of at most a tile (WG_SIZE x KPT keys)
//   is sorted by the bitonic network in shared memory (bitonic.glsl) and written to side 0. A longer one is
//   partitioned three ways (<, =, > the median of its first, middle and last key) into the other side: a count
//   pass, then a scatter pass that stages each chunk class by class (stable) and writes three runs; the "="
//   run is final (copied to side 0 if it landed on side 1). Its two other parts are pushed, the larger first,
//   so the smaller is sorted next and the stack stays below log2(len / tile) + 1 entries.
// - the fallback (as introsort): a sequence deeper than depth_limit partitions (u32 max: 2 ceil(log2(len /
//   tile)) + 2 for the job), or met after SOFT_ITERS iterations or with a full stack, is sorted by a bitonic
//   network over global memory in this workgroup: tiles sorted in shared memory, then per merge stage the
//   strides of at least a tile as global steps (comparators over side 0, workgroup barriers between steps) and
//   the shorter ones in shared memory. So every job ends within a bounded number of iterations (median-of-three
//   killers, sorted runs, few distinct keys).
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

#include "bitonic.glsl"

// Coherent: invocations read what others of the workgroup wrote (after a barrier) between partition levels.
SIDE(0, 1, coherent, keys0, vals0);
SIDE(2, 3, coherent, keys1, vals1);
BUFFER(4, coherent, meta);

#include "wg_scan.glsl"
#include "quicksort.glsl"

const uint STACK = 64u;
const uint SOFT_ITERS = 60000u;   // after it, every sequence popped is finished at once (loops stay < 65535)

shared uint s_st[STACK];
shared uint s_ln[STACK];
shared uint s_sd[STACK];
shared uint s_dp[STACK];
shared uint s_top;
shared uint s_sum[2];

// bitonic.glsl's bitonic_sort (merge false) or bitonic_merge_steps (merge true) over the workgroup's tile, as one
// loop (the shader compiler inlines every call; one copy of the network keeps the pipeline quick to build).
void tile_network(uint lid, uint n, bool merge) {
    if (!merge) reg_sort(lid, n);
    uint k0 = merge ? 2u * B_TILE : 2u * KPT;
    uint k1 = merge ? k0 : B_TILE;
    for (uint k = k0; k <= k1; k <<= 1u) {
        for (uint j = min(k, B_TILE) / 2u; j >= KPT; j >>= 1u) cross_step(k, j, !merge && j == k / 2u, lid, n);
        reg_merge_steps(lid, n);
    }
}

// Sorts [start, start + len) (len <= B_TILE) from `side` into side 0: merge_k == 0 runs the whole network;
// merge_k > 0 only the strides below the tile of merge stage merge_k (the global bitonic fallback).
void tile_pass(uint start, uint len, uint side, uint merge_k) {
    uint lid = gl_LocalInvocationID.x;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < len) {
            Item x;
            x.k = key_order(load_key(side, start + p));
            x.t = p;
            smem_put(p, x);
        }
    }
    barrier();
    smem_to_regs(lid);
    tile_network(lid, len, merge_k != 0u);
    barrier();
    regs_to_smem(lid);
    barrier();
    uvec2 v[KPT];
    if (VAL_WORDS > 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < len) v[a] = load_val(side, start + smem_get(p).t);
        }
        memoryBarrierBuffer();
        barrier();
    }
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = a * WG_SIZE + lid;
        if (p < len) {
            store_key(0u, start + p, key_unorder(smem_get(p).k));
            if (VAL_WORDS > 0u) store_val(0u, start + p, v[a]);
        }
    }
    barrier();
}

// Makes this workgroup's buffer writes visible to its other invocations' later reads: a release fence before the
// barrier and an acquire fence after it (barrier() orders shared memory only, so without the second fence the
// compiler may move a buffer load above the barrier).
void sync_global() {
    memoryBarrierBuffer();
    barrier();
    memoryBarrierBuffer();
}

// The bitonic network over [start, start + len) from `side` into side 0, in this workgroup: the tiles sorted
// (a sequence of at most a tile is only that), then per merge stage k = 2 tiles .. the next power of two of len
// the strides of at least a tile as global steps and the shorter ones in each tile. Positions >= len are
// virtual +infinity (bitonic.glsl), so nothing is padded. (The one call of tile_pass: the shader compiler
// inlines every call.)
void global_bitonic(uint start, uint len, uint side) {
    uint lid = gl_LocalInvocationID.x;
    uint tiles = div_ceil(len, B_TILE);
    uint log_tile = findMSB(B_TILE);
    uint log_top = max(findMSB(max(len, 2u) - 1u) + 1u, log_tile);   // the network spans the next power of two
    for (uint lk = log_tile; lk <= log_top; lk++) {
        uint k = 1u << lk;
        // The global steps of stage k (none at the first, which sorts the tiles).
        for (uint lj1 = lk; lj1 > log_tile; lj1--) {
            uint lj = lj1 - 1u;
            uint j = 1u << lj;
            uint pairs = (len >> (lj + 1u)) * j + min(len & (2u * j - 1u), j);
            bool flip = lj == lk - 1u;
            for (uint q = lid; q < pairs; q += WG_SIZE) {
                uint lo = ((q >> lj) << (lj + 1u)) | (q & (j - 1u));
                uint hi = flip ? (lo ^ (k - 1u)) : (lo + j);
                if (hi >= len) continue;
                uvec4 ka = load_key(0u, start + lo);
                uvec4 kb = load_key(0u, start + hi);
                if (key_lt(key_order(kb), key_order(ka))) {
                    store_key(0u, start + lo, kb);
                    store_key(0u, start + hi, ka);
                    if (VAL_WORDS > 0u) {
                        uvec2 va = load_val(0u, start + lo);
                        uvec2 vb = load_val(0u, start + hi);
                        store_val(0u, start + lo, vb);
                        store_val(0u, start + hi, va);
                    }
                }
            }
            sync_global();
        }
        bool first = lk == log_tile;
        for (uint t = 0u; t < tiles; t++) {
            tile_pass(start + t * B_TILE, min(B_TILE, len - t * B_TILE), first ? side : 0u, first ? 0u : k);
        }
        sync_global();
    }
}

// Copies [start, start + len) from side 1 to side 0.
void copy_up(uint start, uint len) {
    for (uint i = gl_LocalInvocationID.x; i < len; i += WG_SIZE) {
        store_key(0u, start + i, load_key(1u, start + i));
        store_val(0u, start + i, load_val(1u, start + i));
    }
}

uvec4 median3(uvec4 a, uvec4 b, uvec4 c) {
    if (key_lt(b, a)) {
        uvec4 t = a;
        a = b;
        b = t;
    }
    // a <= b
    if (key_lt(c, b)) b = key_lt(c, a) ? a : c;
    return b;
}

// Counts the keys of [start, start + len) on `side` (chunks of a tile) below and equal to the pivot: (lt, eq),
// for the whole workgroup.
uvec2 count3(uint start, uint len, uint side, uvec4 pivot, uint chunks) {
    uint lid = gl_LocalInvocationID.x;
    uint clt = 0u;
    uint ceq = 0u;
    for (uint ch = 0u; ch < chunks; ch++) {
        uint base = start + ch * B_TILE;
        uint m = min(B_TILE, len - ch * B_TILE);
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            if (p < m) {
                uvec4 q = key_order(load_key(side, base + p)) & g_mask;
                if (key_lt(q, pivot)) {
                    clt++;
                } else if (key_eq(q, pivot)) {
                    ceq++;
                }
            }
        }
    }
    if (lid == 0u) {
        s_sum[0] = 0u;
        s_sum[1] = 0u;
    }
    barrier();
    uint slt = subgroupAdd(clt);
    uint seq = subgroupAdd(ceq);
    if (gl_SubgroupInvocationID == 0u) {
        atomicAdd(s_sum[0], slt);
        atomicAdd(s_sum[1], seq);
    }
    barrier();
    return uvec2(s_sum[0], s_sum[1]);
}

// Scatters [start, start + len) from `side` into the other side as three runs: "<" at start, "=" at start + lt,
// ">" at start + lt + eq, each in input order (chunk by chunk, staged class by class: stable).
void scatter3(uint start, uint len, uint side, uvec4 pivot, uint chunks, uint lt, uint eq) {
    uint lid = gl_LocalInvocationID.x;
    uint dst = side ^ 1u;
    uint rl = 0u;
    uint re = 0u;
    uint rg = 0u;
    for (uint ch = 0u; ch < chunks; ch++) {
        uint base = start + ch * B_TILE;
        uint m = min(B_TILE, len - ch * B_TILE);
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = a * WG_SIZE + lid;
            g_cls[a] = 3u;
            g_r[a].k = uvec4(0u);
            g_r[a].t = p;
            if (p < m) {
                uvec4 k = key_order(load_key(side, base + p));
                g_r[a].k = k;
                uvec4 q = k & g_mask;
                g_cls[a] = key_lt(q, pivot) ? 0u : key_eq(q, pivot) ? 1u : 2u;
            }
        }
        uvec3 c = stage_chunk(m);
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint i = a * WG_SIZE + lid;
            if (i < m) {
                Item x = smem_get(i);
                uint d = i < c.x ? start + rl + i
                       : i < c.x + c.y ? start + lt + re + (i - c.x)
                                       : start + lt + eq + rg + (i - c.x - c.y);
                store_key(dst, d, key_unorder(x.k));
                if (VAL_WORDS > 0u) store_val(dst, d, load_val(side, base + x.t));
            }
        }
        rl += c.x;
        re += c.y;
        rg += c.z;
        barrier();
    }
}

// Pushes the "<" part [start, start + lt) and the ">" part [start + lt + eq, start + lt + eq + gt) (on side dst,
// at depth + 1; empty ones skipped), the larger first: the smaller one is popped next.
void push_parts(uint start, uint lt, uint eq, uint gt, uint dst, uint depth) {
    if (gl_LocalInvocationID.x == 0u) {
        uint top = s_top;
        uint gs = start + lt + eq;
        bool lt_first = lt >= gt;
        for (uint h = 0u; h < 2u; h++) {
            bool is_lt = (h == 0u) == lt_first;
            uint s = is_lt ? start : gs;
            uint l = is_lt ? lt : gt;
            if (l > 0u) {
                s_st[top] = s;
                s_ln[top] = l;
                s_sd[top] = dst;
                s_dp[top] = depth + 1u;
                top++;
            }
        }
        s_top = top;
    }
    barrier();
}

// Partitions [start, start + len) on `side` three ways around the median of three into the other side: count,
// scatter, the "=" run made final on side 0, then the "<" and ">" parts pushed.
void partition3(uint start, uint len, uint side, uint depth) {
    uvec4 pivot = median3(key_order(load_key(side, start)) & g_mask,
                          key_order(load_key(side, start + len / 2u)) & g_mask,
                          key_order(load_key(side, start + len - 1u)) & g_mask);
    uint chunks = div_ceil(len, B_TILE);
    uvec2 counts = count3(start, len, side, pivot, chunks);
    uint lt = counts.x;
    uint eq = counts.y;
    uint gt = len - lt - eq;
    uint dst = side ^ 1u;
    scatter3(start, len, side, pivot, chunks, lt, eq);
    sync_global();
    if (dst == 1u && eq > 0u) {
        copy_up(start + lt, eq);
        sync_global();
    }
    push_parts(start, lt, eq, gt, dst, depth);
}

void sort_job(uint start, uint len, uint side) {
    uint lid = gl_LocalInvocationID.x;
    uint limit = pc.depth_limit;
    if (limit == 0xFFFFFFFFu) limit = 2u * (findMSB(max(div_ceil(len, B_TILE), 2u) - 1u) + 1u) + 2u;
    if (lid == 0u) {
        s_top = 1u;
        s_st[0] = start;
        s_ln[0] = len;
        s_sd[0] = side;
        s_dp[0] = 0u;
    }
    barrier();
    for (uint it = 0u; it < SOFT_ITERS + STACK + 1u; it++) {
        uint top = s_top;
        if (top == 0u) break;
        uint es = s_st[top - 1u];
        uint el = s_ln[top - 1u];
        uint ed = s_sd[top - 1u];
        uint ep = s_dp[top - 1u];
        barrier();
        if (lid == 0u) s_top = top - 1u;
        barrier();
        if (el <= B_TILE || ep >= limit || it >= SOFT_ITERS || top + 1u > STACK) {
            global_bitonic(es, el, ed);
        } else {
            partition3(es, el, ed, ep);
        }
        sync_global();
    }
}

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint start = 0u;
    uint len;
    uint flags = 0u;
    if (pc.direct != 0u) {
        if (flat_group_id() != 0u) return;
        len = ITEM_N(pc);
    } else {
        uint gs = qs_global();
        uint q = flat_group_id();
        if (q >= min(meta[gs + RS_BLOCKS], pc.qmax)) return;
        uint jb = pc.queue_off + q * JOB_WORDS;
        start = meta[jb];
        len = meta[jb + 1u];
        flags = meta[jb + 2u];
    }
    uint side = flags & JOB_SIDE;
    keep_bindings(len);
    if (len == 0u || (len == 1u && side == 0u)) return;
    if ((flags & JOB_COPY) != 0u) {
        copy_up(start, len);
        return;
    }
    sort_job(start, len, side);
}
