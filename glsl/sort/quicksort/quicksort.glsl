// quicksort.glsl: what the passes of the GPU quicksort share (the Rust side is src/sort/quicksort/): the push
// constants, the bookkeeping in the control binding `meta`, key and value access by side (0: the caller's
// buffers, 1: the scratch's auxiliary copy), multi-word key arithmetic in the transformed order (midpoint),
// lexicographic min/max over a subgroup and a workgroup, the stable in-workgroup partition of a chunk into
// shared memory, the phase-two job queue, the indirect grids, and the planner that decides what becomes of a
// sequence after its partition.
//
// Include after common.glsl, keys.glsl, items.glsl, bitonic.glsl (KPT; s_items, g_r and the network) and
// wg_scan.glsl, once the bindings keys0, vals0, keys1, vals1 and meta exist. Declares the push block `pc`.
//
// Bookkeeping (u32 words of `meta`; the control block of src/sort/count.rs is words 0..256):
//   round state r (r < rounds) at rs_off + 8 r: RS_BLOCKS (workgroups of round r), RS_SEQS (its sequences),
//     RS_TICKET (workgroups of round r done), RS_ARGS.. (its VkDispatchIndirectCommand, written by round r - 1
//     or, for r = 0, by the bounds pass);
//   the global slot at rs_off + 8 rounds: RS_BLOCKS = phase-two jobs queued, RS_TICKET = the bounds pass's
//     tickets, RS_ARGS.. = the local pass's indirect arguments;
//   sequence tables (two, by round parity) at seq_off, SEQ_WORDS words per sequence, smax per table;
//   block maps (two, by round parity) at bmap_off, bmax words each: the sequence of each workgroup of a round;
//   block records at rec_off, 4 keys of KEY_WORDS words per workgroup of a round: min and max of its left and
//     right parts (masked transformed keys);
//   the phase-two queue at queue_off, JOB_WORDS words per job, qmax jobs.

// The push constants of the bounds, partition and local passes (the Rust `QsPush`).
layout(push_constant) uniform Push {
    ITEM_PUSH
    uint rnd;          // the phase-one round (partition)
    uint rounds;       // phase-one rounds recorded
    uint local_max;    // sequences of at most this many keys go to phase two
    uint pivot_mode;   // PIVOT_MINMAX or PIVOT_SAMPLE
    uint max_x;        // the x limit of the indirect grids
    uint smax;         // sequences per table
    uint bmax;         // workgroups per round
    uint qmax;         // phase-two jobs
    uint seq_off;
    uint bmap_off;
    uint rec_off;
    uint queue_off;
    uint rs_off;
    uint direct;       // local: 1 = the whole input is the one job
    uint depth_limit;  // local: partition levels before the fallback (u32 max: automatic)
    uint block;        // keys of a phase-one block (WG_SIZE x KPT of bounds and partition)
} pc;

const uint RS_WORDS = 8u;
const uint RS_BLOCKS = 0u;
const uint RS_SEQS = 1u;
const uint RS_TICKET = 2u;
const uint RS_ARGS = 4u;

const uint SEQ_WORDS = 16u;
const uint SEQ_START = 0u;
const uint SEQ_LEN = 1u;
const uint SEQ_FLAGS = 2u;   // bit 0: strict (left = keys < pivot; else keys <= pivot); bit 1: its pivot rule
const uint SEQ_BLOCKS = 3u;
const uint SEQ_FIRST = 4u;   // its first workgroup in the round
const uint SEQ_LEFT = 5u;    // keys placed on the left so far (fetch-and-add)
const uint SEQ_RIGHT = 6u;   // keys placed on the right so far (fetch-and-add)
const uint SEQ_DONE = 7u;    // its workgroups done
const uint SEQ_PIVOT = 8u;   // 4 words: the pivot, masked transformed key

const uint JOB_WORDS = 4u;
const uint JOB_SIDE = 1u;    // flags bit 0: the side holding the keys
const uint JOB_COPY = 2u;    // flags bit 1: the keys are all equal: copy side 1 to side 0

const uint PIVOT_MINMAX = 0u;
const uint PIVOT_SAMPLE = 1u;

// ---- keys and values by side ----

uvec4 load_key(uint side, uint i) {
    uvec4 k;
    if (side == 0u) {
        k = KEY_AT(keys0, i);
    } else {
        k = KEY_AT(keys1, i);
    }
    return k;
}

void store_key(uint side, uint i, uvec4 k) {
    if (side == 0u) {
        SET_KEY(keys0, i, k)
    } else {
        SET_KEY(keys1, i, k)
    }
}

uvec2 load_val(uint side, uint i) {
    uvec2 v = uvec2(0u);
    if (VAL_WORDS > 0u) {
        if (side == 0u) {
            v = VAL_AT(vals0, i);
        } else {
            v = VAL_AT(vals1, i);
        }
    }
    return v;
}

void store_val(uint side, uint i, uvec2 v) {
    if (VAL_WORDS > 0u) {
        if (side == 0u) {
            SET_VAL(vals0, i, v)
        } else {
            SET_VAL(vals1, i, v)
        }
    }
}

// Keeps every binding in a pass's interface (the host binds all five to every pass): touches each only for an
// n no sort has.
void keep_bindings(uint n) {
    if (n == 0xFFFFFFFFu) {
        store_key(1u, 0u, load_key(0u, 0u));
        store_key(0u, 0u, load_key(1u, 0u));
        store_val(1u, 0u, load_val(0u, 0u));
        store_val(0u, 0u, load_val(1u, 0u));
    }
}

// ---- multi-word keys (words at and beyond KEY_WORDS are 0) ----

uvec4 key_sub(uvec4 a, uvec4 b) {
    uvec4 r = uvec4(0u);
    uint borrow = 0u;
    [[unroll]] for (uint w = 0u; w < 4u; w++) {
        if (w < KEY_WORDS) {
            uint b1, b2;
            uint d = usubBorrow(a[w], b[w], b1);
            r[w] = usubBorrow(d, borrow, b2);
            borrow = b1 | b2;
        }
    }
    return r;
}

uvec4 key_add(uvec4 a, uvec4 b) {
    uvec4 r = uvec4(0u);
    uint carry = 0u;
    [[unroll]] for (uint w = 0u; w < 4u; w++) {
        if (w < KEY_WORDS) {
            uint c1, c2;
            uint s = uaddCarry(a[w], b[w], c1);
            r[w] = uaddCarry(s, carry, c2);
            carry = c1 | c2;
        }
    }
    return r;
}

uvec4 key_shr1(uvec4 a) {
    return uvec4((a.x >> 1u) | (a.y << 31u), (a.y >> 1u) | (a.z << 31u), (a.z >> 1u) | (a.w << 31u), a.w >> 1u);
}

// floor((lo + hi) / 2) of masked keys lo <= hi, masked: lo <= mid, and mid < hi when lo < hi (the masked bits
// are contiguous, so clearing the bits below the range only lowers mid to the multiple of its lowest bit).
uvec4 key_mid(uvec4 lo, uvec4 hi) {
    return key_add(lo, key_shr1(key_sub(hi, lo))) & g_mask;
}

// ---- lexicographic min and max of masked keys ----

uvec4 sg_min_key(uvec4 v) {
    uvec4 r = uvec4(0u);
    bool act = true;
    if (KEY_WORDS == 4u) {
        r.w = subgroupMin(act ? v.w : 0xFFFFFFFFu);
        act = act && v.w == r.w;
        r.z = subgroupMin(act ? v.z : 0xFFFFFFFFu);
        act = act && v.z == r.z;
    }
    if (KEY_WORDS >= 2u) {
        r.y = subgroupMin(act ? v.y : 0xFFFFFFFFu);
        act = act && v.y == r.y;
    }
    r.x = subgroupMin(act ? v.x : 0xFFFFFFFFu);
    return r;
}

uvec4 sg_max_key(uvec4 v) {
    uvec4 r = uvec4(0u);
    bool act = true;
    if (KEY_WORDS == 4u) {
        r.w = subgroupMax(act ? v.w : 0u);
        act = act && v.w == r.w;
        r.z = subgroupMax(act ? v.z : 0u);
        act = act && v.z == r.z;
    }
    if (KEY_WORDS >= 2u) {
        r.y = subgroupMax(act ? v.y : 0u);
        act = act && v.y == r.y;
    }
    r.x = subgroupMax(act ? v.x : 0u);
    return r;
}

// mm[0], mm[2]: minima (empty: g_mask); mm[1], mm[3]: maxima (empty: 0).
uvec4 g_mm[4];

void mm_reset() {
    g_mm[0] = g_mask;
    g_mm[1] = uvec4(0u);
    g_mm[2] = g_mask;
    g_mm[3] = uvec4(0u);
}

void mm_add(uint q, uvec4 x) {   // q = 0: into the first pair, 2: into the second
    if (key_lt(x, g_mm[q])) g_mm[q] = x;
    if (key_lt(g_mm[q + 1u], x)) g_mm[q + 1u] = x;
}

shared uvec4 s_red[4 * MAX_SUBGROUPS];

// Reduces g_mm over the workgroup (every invocation must call it); every invocation gets the result.
void wg_minmax() {
    [[unroll]] for (uint q = 0u; q < 4u; q++) {
        g_mm[q] = (q & 1u) == 0u ? sg_min_key(g_mm[q]) : sg_max_key(g_mm[q]);
    }
    if (gl_SubgroupInvocationID == 0u) {
        [[unroll]] for (uint q = 0u; q < 4u; q++) s_red[q * MAX_SUBGROUPS + gl_SubgroupID] = g_mm[q];
    }
    barrier();
    uint lid = gl_LocalInvocationID.x;
    if (lid < 4u) {
        uvec4 acc = s_red[lid * MAX_SUBGROUPS];
        for (uint s = 1u; s < gl_NumSubgroups; s++) {
            uvec4 x = s_red[lid * MAX_SUBGROUPS + s];
            bool take = (lid & 1u) == 0u ? key_lt(x, acc) : key_lt(acc, x);
            if (take) acc = x;
        }
        s_red[lid * MAX_SUBGROUPS] = acc;
    }
    barrier();
    [[unroll]] for (uint q = 0u; q < 4u; q++) g_mm[q] = s_red[q * MAX_SUBGROUPS];
    barrier();
}

// ---- the stable partition of a chunk into shared memory ----

// The chunk's items in registers: g_r[a] holds chunk position a * WG_SIZE + lid (tag = that position); g_cls[a]
// its class: 0 (left, or "<"), 1 ("="), 2 (right, or ">"), 3 (no item: position >= m).
uint g_cls[KPT];

DEFINE_WG_SCAN(uint, qscan)
shared uint s_cnt[KPT * MAX_SUBGROUPS];

// Places the chunk's m items in s_items, class by class (class 0 at positions 0.., then class 1, then 2), each
// class in chunk order (stable); returns the class sizes. Every invocation must call it. Lanes of a subgroup are
// consecutive invocations (full subgroups, see SubgroupPlan).
uvec3 stage_chunk(uint m) {
    uint lid = gl_LocalInvocationID.x;
    uint sg = gl_SubgroupID;
    uint nsg = gl_NumSubgroups;
    uint rk[KPT];
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uvec4 b0 = subgroupBallot(g_cls[a] == 0u);
        uvec4 b1 = subgroupBallot(g_cls[a] == 1u);
        uvec4 b2 = subgroupBallot(g_cls[a] == 2u);
        uint c = g_cls[a];
        uint r0 = subgroupBallotExclusiveBitCount(b0);
        uint r1 = subgroupBallotExclusiveBitCount(b1);
        uint r2 = subgroupBallotExclusiveBitCount(b2);
        rk[a] = c == 0u ? r0 : c == 1u ? r1 : r2;
        if (gl_SubgroupInvocationID == 0u) {
            s_cnt[a * nsg + sg] = subgroupBallotBitCount(b0) | (subgroupBallotBitCount(b1) << 16u);
        }
    }
    barrier();
    // Exclusive scan over the entries (a, subgroup), a major: chunk order. Counts of a chunk are below 2^16.
    uint entries = KPT * nsg;
    uint per = div_ceil(entries, WG_SIZE);
    uint e0 = lid * per;
    uint sum = 0u;
    for (uint j = 0u; j < per; j++) {
        if (e0 + j < entries) sum += s_cnt[e0 + j];
    }
    uint total;
    uint ex = qscan_exclusive_add(sum, total);
    for (uint j = 0u; j < per; j++) {
        if (e0 + j < entries) {
            uint c = s_cnt[e0 + j];
            s_cnt[e0 + j] = ex;
            ex += c;
        }
    }
    barrier();
    uint n0 = total & 0xFFFFu;
    uint n1 = total >> 16u;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint c = g_cls[a];
        if (c < 3u) {
            uint pre = s_cnt[a * nsg + sg];
            uint p0 = pre & 0xFFFFu;
            uint p1 = pre >> 16u;
            uint before = min(m, a * WG_SIZE + sg * gl_SubgroupSize);   // items of the chunk before this entry
            uint pos = c == 0u ? p0 + rk[a] : c == 1u ? n0 + p1 + rk[a] : n0 + n1 + (before - p0 - p1) + rk[a];
            smem_put(pos, g_r[a]);
        }
    }
    barrier();
    return uvec3(n0, n1, m - n0 - n1);
}

// ---- indirect grids and the phase-two queue ----

// The VkDispatchIndirectCommand of `groups` workgroups at meta[at..at + 3): (x, y, 1), x <= max_x.
void qs_grid(uint groups, uint at) {
    uint x = min(groups, pc.max_x);
    meta[at] = x;
    meta[at + 1u] = groups == 0u ? 1u : div_ceil(groups, x);
    meta[at + 2u] = 1u;
}

uint qs_global() {
    return pc.rs_off + pc.rounds * RS_WORDS;
}

void put_job(uint q, uint start, uint len, uint flags) {
    if (q >= pc.qmax) return;   // cannot happen: the host sizes the queue for the worst case
    uint jb = pc.queue_off + q * JOB_WORDS;
    meta[jb] = start;
    meta[jb + 1u] = len;
    meta[jb + 2u] = flags;
    meta[jb + 3u] = 0u;
}

// ---- pivots and the planner ----

shared uint s_u[2];
shared uvec4 s_pivot;

// A 32-bit mix (lowbias32): the jitter of the sample positions.
uint qs_hash(uint x) {
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

// The median of a sample of the sequence [start, start + len) on `side` (len > WG_SIZE): invocation i reads the
// key at start + i step + qs_hash(start ^ (i x 0x9e3779b9)) % step (step = len / WG_SIZE: one key in each of
// WG_SIZE equal parts, at a pseudo-random place so that periodic data does not fool it) and finds its rank
// among the WG_SIZE sampled keys (ties broken by i); the key of rank WG_SIZE / 2 is the median. Every
// invocation must call it.
uvec4 sample_median(uint start, uint len, uint side) {
    uint lid = gl_LocalInvocationID.x;
    uint step = len / WG_SIZE;
    Item x;
    x.k = key_order(load_key(side, start + lid * step + qs_hash(start ^ (lid * 0x9e3779b9u)) % step)) & g_mask;
    x.t = lid;
    smem_put(lid, x);
    barrier();
    uint rank = 0u;
    [[dont_unroll]] for (uint j = 0u; j < WG_SIZE; j++) {
        uvec4 y = smem_get(j).k;
        if (key_lt(y, x.k) || (j < lid && key_eq(y, x.k))) rank++;
    }
    if (rank == WG_SIZE / 2u) s_pivot = x.k;
    barrier();
    uvec4 p = s_pivot;
    barrier();
    return p;
}

// Decides what becomes of the sequence [start, start + len) on `side` whose masked keys lie in [mn, mx] (its
// parent had parent_len keys and was split by rule parent_mode), the next round being `next`: nothing (empty,
// or all keys equal on side 0), copy jobs (all keys equal on side 1), a phase-two job (at most local_max keys,
// or no round left), or a sequence of round `next` with its pivot and workgroups. Every invocation must call it
// (uniform arguments).
void plan_seq(uint start, uint len, uint side, uvec4 mn, uvec4 mx, uint parent_len, uint parent_mode, uint next) {
    uint lid = gl_LocalInvocationID.x;
    if (len == 0u) return;
    uint gs = qs_global();
    if (len == 1u || key_eq(mn, mx)) {
        if (side == 0u) return;
        uint jobs = div_ceil(len, pc.local_max);
        if (lid == 0u) s_u[0] = atomicAdd(meta[gs + RS_BLOCKS], jobs);
        barrier();
        uint q0 = s_u[0];
        for (uint j = lid; j < jobs; j += WG_SIZE) {
            put_job(q0 + j, start + j * pc.local_max, min(pc.local_max, len - j * pc.local_max), JOB_SIDE | JOB_COPY);
        }
        barrier();
        return;
    }
    if (len <= pc.local_max || next >= pc.rounds) {
        if (lid == 0u) put_job(atomicAdd(meta[gs + RS_BLOCKS], 1u), start, len, side);
        return;
    }
    // A child keeps its parent's pivot rule, unless it got more than 7/8 of its parent's keys: then it takes the
    // other rule (the sample's median after a bad midpoint, the midpoint after a bad sample), and keeps that one
    // while it splits well. Each rule undoes the other's worst case.
    bool bad = len > parent_len - parent_len / 8u;
    uint mode = bad ? parent_mode ^ 1u : parent_mode;
    uvec4 p;
    uint strict = 0u;
    if (mode == PIVOT_MINMAX) {
        p = key_mid(mn, mx);   // mn <= p < mx: both sides of "<= p" get keys
    } else {
        p = sample_median(start, len, side);   // a key: mn <= p <= mx
        strict = key_eq(p, mx) ? 1u : 0u;      // p == mx: split "< p" from ">= p" instead
    }
    uint nb = div_ceil(len, pc.block);
    uint rs = pc.rs_off + next * RS_WORDS;
    uint par = next & 1u;
    if (lid == 0u) {
        uint idx = atomicAdd(meta[rs + RS_SEQS], 1u);
        uint b0 = atomicAdd(meta[rs + RS_BLOCKS], nb);
        s_u[0] = idx;
        s_u[1] = b0;
        if (idx < pc.smax) {
            uint sb = pc.seq_off + (par * pc.smax + idx) * SEQ_WORDS;
            meta[sb + SEQ_START] = start;
            meta[sb + SEQ_LEN] = len;
            meta[sb + SEQ_FLAGS] = strict | (mode << 1u);
            meta[sb + SEQ_BLOCKS] = nb;
            meta[sb + SEQ_FIRST] = b0;
            meta[sb + SEQ_LEFT] = 0u;
            meta[sb + SEQ_RIGHT] = 0u;
            meta[sb + SEQ_DONE] = 0u;
            [[unroll]] for (uint w = 0u; w < 4u; w++) meta[sb + SEQ_PIVOT + w] = p[w];
        }
    }
    barrier();
    uint idx = s_u[0];
    uint b0 = s_u[1];
    for (uint j = lid; j < nb; j += WG_SIZE) {
        if (b0 + j < pc.bmax) meta[pc.bmap_off + par * pc.bmax + b0 + j] = idx;
    }
    barrier();
}

// Block record key q (0: left min, 1: left max, 2: right min, 3: right max) of workgroup b.
uint rec_at(uint b, uint q) {
    return pc.rec_off + (b * 4u + q) * KEY_WORDS;
}

void put_rec(uint b, uint q, uvec4 k) {
    uint at = rec_at(b, q);
    meta[at] = k.x;
    if (KEY_WORDS >= 2u) meta[at + 1u] = k.y;
    if (KEY_WORDS == 4u) {
        meta[at + 2u] = k.z;
        meta[at + 3u] = k.w;
    }
}

uvec4 get_rec(uint b, uint q) {
    uint at = rec_at(b, q);
    return uvec4(meta[at], KEY_WORDS >= 2u ? meta[at + 1u] : 0u, KEY_WORDS == 4u ? meta[at + 2u] : 0u,
                 KEY_WORDS == 4u ? meta[at + 3u] : 0u);
}
