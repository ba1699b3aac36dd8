#version 460
// radix_msd_buckets.comp (vksort::radix::msd, pass 3 of 3): one workgroup per bucket (split digit value d)
// sorts the bucket's keys (and values) on the bits below the split digit, [lo, shift), into the caller's
// buffers, stably. Keys are biased as in the split pass (msd_range.glsl: meta[CTRL_MSD_BIAS ..]). The split
// pass (radix_msd_split.comp) left each tile's keys sorted on the split digit in the tile's own range of the
// scratch arrays, with each digit's run start per tile in the run table; the bucket is
// the concatenation of its runs in tile order. The workgroup reads its two rows of the run table (digit d's and
// d + 1's starts, one word per tile), finds where the bucket starts (the sum of its run starts: the keys of
// smaller digits) and how many keys it holds, and scans the run lengths into a table in shared memory; key i of
// the bucket is then read from its run (a binary search of that table). Then:
//   - A bucket of at most RANK_MAX keys is placed by counting: its keys (their sorted bits, with their index in
//     the bucket) go to shared memory, and each key's place is the number of the bucket's keys that precede it
//     (smaller, or equal and earlier: stable). One round, no atomics, m^2 comparisons for m keys spread over the
//     workgroup; written straight from the registers to their places.
//   - A bucket of at most TILE keys is read once into registers, sorted there (radix_local.glsl: only places
//     where the bucket's keys differ) and written once.
//   - A bucket of more than LARGE keys (TILE, or RANK_MAX if larger) is left to helper workgroups (the first
//     `helpers` groups of the dispatch, before the RADIX bucket groups). The split pass added each digit's count
//     over all tiles to the counts row of the tables; every helper reads those counts, and the large buckets
//     share the helpers in proportion to their keys (at least one each). Each of a bucket's helpers reads the
//     same sample of the bucket, and helper j's share is the keys between two of its quantiles (see help()),
//     so the shares do not depend on how the keys' bits are spread (skewed digits, few distinct keys). A
//     bucket of at least COOP_MIN keys has its helpers cooperate (coop_share()): each reads 1/h of the bucket,
//     they exchange their counts per share through the tables and each scatters its part to the shares in
//     the second scratch (big_keys/big_vals). Otherwise, or when a helper is not running in time, each helper
//     works alone: it reads the bucket twice, in parts of at most TILE keys ranked by before / in / after its
//     share, counting the keys before its share the first time and writing the share's keys the second (the
//     same code as a cooperating helper's part, so the pass holds one helper path). Either way the share lands,
//     in bucket order, in its final range of the second scratch, from where its helper sorts it in registers
//     into the caller's buffers, or, past TILE keys, one digit place at a time through global memory between
//     that range and the caller's.
// Buffers are coherent: a workgroup reads back what its own invocations wrote in the previous place.
// @variant ballot
// @variant partitioned PARTITIONED=1
// @variant ballot_clock CLOCKS=1
// @variant partitioned_clock PARTITIONED=1 CLOCKS=1 SMID=1
//
// CLOCKS=1 variants (diagnostics, `RadixDebug::msd_clocks`): one clock record per workgroup that had something
// to do (clock.glsl, layout MSD_CLOCK_*) through the device address in push constants clk_lo/clk_hi. SMID=1
// adds the SM id.
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"
#include "msd_range.glsl"
#include "clock.glsl"
#if CLOCKS
#define NOTE(path, bucket, keys) if (gl_LocalInvocationID.x == 0u) { clk[MSD_CLOCK_PATH] = (path) | (bucket) << 8u; clk[MSD_CLOCK_KEYS] = (keys); }
#define NOTE_PLACES(p) if (gl_LocalInvocationID.x == 0u) clk[MSD_CLOCK_PATH] |= (p) << 24u
#else
#define NOTE(path, bucket, keys)
#define NOTE_PLACES(p)
#endif
// Paths of a clock record: an empty bucket; a counted bucket; a bucket sorted in registers; a large bucket
// left to the helpers; a helper's share sorted in registers; a helper's share sorted through global memory; a
// helper with nothing to do (no large bucket for it, or an empty share); a share of cooperative helpers.
const uint P_EMPTY = 0u;
const uint P_COUNTED = 1u;
const uint P_REGISTERS = 2u;
const uint P_LEFT = 3u;
const uint P_SHARE = 4u;
const uint P_SHARE_GLOBAL = 5u;
const uint P_IDLE = 6u;
const uint P_SHARE_COOP = 7u;   // a helper's share split off cooperatively (coop_share), sorted in registers

// The split pass's bias (meta[CTRL_MSD_BIAS ..], set at the start of main): every key this pass ranks,
// compares or counts is biased as the split pass's were (msd_range.glsl), so buckets and their sort agree.
uvec2 g_bias = uvec2(0u);
uvec2 msd_key(uvec2 k, uint kind, bool desc) {
    return sub64(key_transform(k, kind, desc), g_bias);
}
// From here on (this file and radix_local.glsl) key_transform means the biased key.
#define key_transform(k, kind, desc) msd_key(k, kind, desc)

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 3) const uint DIGIT_BITS = 8;
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;
layout(constant_id = 12) const uint BALLOT_WORDS = 4;   // see radix_rank.glsl
// Buckets of at most RANK_MAX keys are placed by counting (RadixPolicy::msd_rank_max; 0: never).
layout(constant_id = 7) const uint RANK_MAX = 0;
// The most split tiles a sort may have (the run-length table in shared memory holds one entry per tile).
layout(constant_id = 8) const uint MAX_TILES = 1024;
// Buckets of at least this many keys have cooperative helpers (RadixPolicy::msd_coop_min_keys; see
// coop_share()); 0: none.
layout(constant_id = 10) const uint COOP_MIN = 0;
// Polls of a cooperative helper's waits before it gives up (RadixPolicy::spin_limit, <= 60000).
layout(constant_id = 11) const uint COOP_SPIN = 1024;
// Stall emulation (tests, RadixDebug::stall_every): cooperative helpers j with j % COOP_STALL == 1 % COOP_STALL
// arrive late (after polling about 4 x COOP_SPIN times), so their bucket's others give up waiting.
layout(constant_id = 13) const uint COOP_STALL = 0;

const uint RADIX = 1u << DIGIT_BITS;
const uint TILE = WG_SIZE * KPT;
const uint HIST_WORDS = MAX_SUBGROUPS * RADIX;
const uint RANK_WORDS = RANK_MAX * 2u;   // the counted bucket's compared numbers: low words, then high words
const uint RUN_WORDS = 2u * MAX_TILES + 1u;   // the runs' offsets in the bucket (+ the count), then their sources
const uint TILE_OR_HIST = TILE > HIST_WORDS ? TILE : HIST_WORDS;
const uint RANK_OR_RUNS = RANK_WORDS > RUN_WORDS ? RANK_WORDS : RUN_WORDS;
const uint SMEM_WORDS = TILE_OR_HIST > RANK_OR_RUNS ? TILE_OR_HIST : RANK_OR_RUNS;
// Buckets of more than LARGE keys (neither counted nor held in registers) are the helpers'.
const uint LARGE = TILE > RANK_MAX ? TILE : RANK_MAX;
const uint RPT = RANK_MAX > WG_SIZE ? (RANK_MAX + WG_SIZE - 1u) / WG_SIZE : 1u;   // counted keys per invocation

SIDE(0, 1, coherent, keys, vals);
SIDE(2, 3, readonly, alt_keys, alt_vals);
BUFFER(4, readonly, meta);
SIDE(5, 6, coherent, big_keys, big_vals);
BUFFER(7, coherent, tables);

layout(push_constant) uniform Push {
    uint lo;
    uint key_kind;
    uint flags;        // bit 0: descending
    uint stride;       // the run table's row length (tiles of the capacity)
    uint split_tile;   // keys per split tile
    uint helpers;      // helper workgroups after the RADIX bucket groups (0 only when no bucket can exceed TILE)
    uint clk_lo;       // CLOCKS: the records' device address
    uint clk_hi;
} pc;

shared uint smem[SMEM_WORDS];
shared uint s_tot[RADIX];
shared uint s_lstart[RADIX];
shared uint s_bcount;    // find_runs: the bucket's key count
shared uint s_run[RADIX];   // large ranges: each digit's next destination within the range
shared uint s_node[3];      // helpers: the bucket, the helper's index among its helpers, their number
const uint MATCH_OR = 0u;
const uint MATCH_BASE = 0u;

#include "radix_rank.glsl"
#include "radix_local.glsl"
DEFINE_WG_SCAN(uint, runs)

// Sides: the caller's buffers, the split pass's tile-sorted scratch, the second scratch (large buckets).
const uint CALLER = 0u;
const uint SPLIT = 1u;
const uint BIG = 2u;

// Key i of one side.
uvec2 get_key(uint side, uint i) {
    if (side == SPLIT) return uvec2(alt_keys[i * KEY_WORDS], KEY_WORDS == 2u ? alt_keys[i * KEY_WORDS + 1u] : 0u);
    if (side == BIG) return uvec2(big_keys[i * KEY_WORDS], KEY_WORDS == 2u ? big_keys[i * KEY_WORDS + 1u] : 0u);
    return uvec2(keys[i * KEY_WORDS], KEY_WORDS == 2u ? keys[i * KEY_WORDS + 1u] : 0u);
}
void put_key(uint side, uint i, uvec2 k) {
    if (side == BIG) {
        big_keys[i * KEY_WORDS] = k.x;
        if (KEY_WORDS == 2u) big_keys[i * KEY_WORDS + 1u] = k.y;
    } else {
        keys[i * KEY_WORDS] = k.x;
        if (KEY_WORDS == 2u) keys[i * KEY_WORDS + 1u] = k.y;
    }
}
// Value words of element i (words past VAL_WORDS read as 0 and are not written).
uvec2 get_vals(uint side, uint i) {
    uvec2 v = uvec2(0u);
    if (VAL_WORDS >= 1u) v.x = side == SPLIT ? alt_vals[i * VAL_WORDS] : (side == BIG ? big_vals[i * VAL_WORDS] : vals[i * VAL_WORDS]);
    if (VAL_WORDS == 2u) v.y = side == SPLIT ? alt_vals[i * VAL_WORDS + 1u] : (side == BIG ? big_vals[i * VAL_WORDS + 1u] : vals[i * VAL_WORDS + 1u]);
    return v;
}
void put_vals(uint side, uint i, uvec2 v) {
    if (VAL_WORDS == 0u) return;
    if (side == BIG) {
        big_vals[i * VAL_WORDS] = v.x;
        if (VAL_WORDS == 2u) big_vals[i * VAL_WORDS + 1u] = v.y;
    } else {
        vals[i * VAL_WORDS] = v.x;
        if (VAL_WORDS == 2u) vals[i * VAL_WORDS + 1u] = v.y;
    }
}

// The bucket's runs (after find_runs): smem[t] is run t's first index in the bucket (t < tiles; smem[tiles] the
// bucket's count), smem[MAX_TILES + 1 + t] its first element in the split side.
// The run holding bucket key i: the last t in [0, tiles) with smem[t] <= i (a binary search).
uint run_holding(uint i, uint tiles) {
    uint a = 0u, b = tiles;   // smem[a] <= i
    while (b - a > 1u) {
        uint m = (a + b) >> 1u;
        if (smem[m] <= i) a = m; else b = m;
    }
    return a;
}
// The run holding bucket key i < cnt, walked to from run a (at or before it).
uint walk_run(uint a, uint i) {
    while (smem[a + 1u] <= i) a++;   // smem[tiles] = cnt ends the walk
    return a;
}
// Element in the split side of bucket key i, which run a holds.
uint run_element(uint a, uint i) {
    return smem[MAX_TILES + 1u + a] + i - smem[a];
}
// Element of bucket key i.
uint gather_index(uint i, uint tiles) {
    return run_element(run_holding(i, tiles), i);
}

// Digit d's run in split tile t: [start, end) within the tile (the table's starts, clamped to the tile's keys:
// the last tile's padding counts as the largest digit), from rows d and d + 1 of the run table.
uvec2 run_of(uint d, uint t, uint n) {
    uint m = min(pc.split_tile, n - t * pc.split_tile);
    uint row = 4u * pc.stride + d * pc.stride;
    uint s = min(tables[row + t], m);
    uint e = d + 1u < RADIX ? min(tables[row + pc.stride + t], m) : m;
    return uvec2(s, e);
}

// Reads digit d's runs from the run table and fills the run tables in smem; returns (bucket start, count).
// Ends with a barrier.
uvec2 find_runs(uint d, uint n, uint tiles) {
    uint lid = gl_LocalInvocationID.x;
    uint tpi = div_ceil(tiles, WG_SIZE);   // tiles per invocation, a contiguous chunk (the scan keeps tile order)
    uint t0 = lid * tpi;
    if (lid == 0u) {   // ordered before the atomics below by the scan's barriers
        s_run[0] = 0u;
        s_bcount = 0u;
    }
    uint len = 0u, before = 0u;
    for (uint k = 0u; k < tpi; k++) {
        uint t = t0 + k;
        if (t < tiles) {
            uvec2 r = run_of(d, t, n);
            len += r.y - r.x;
            before += r.x;
        }
    }
    uint unused_total;
    uint off = runs_exclusive_add(len, unused_total);
    uint start = subgroupAdd(before);
    for (uint k = 0u; k < tpi; k++) {
        uint t = t0 + k;
        if (t < tiles) {
            uvec2 r = run_of(d, t, n);
            smem[t] = off;
            smem[MAX_TILES + 1u + t] = t * pc.split_tile + r.x;
            off += r.y - r.x;
        }
    }
    // The bucket start and count: sums of the subgroups' sums (every key of a smaller digit, in any tile; the
    // bucket's keys). The count is not the scan's total: in 1024-invocation workgroups that came out wrong on
    // NVIDIA's driver 580 while the prefixes were right (docs/tuning.md, "A wrong workgroup-scan total").
    uint lens = subgroupAdd(len);
    if (subgroupElect()) {
        atomicAdd(s_run[0], start);
        atomicAdd(s_bcount, lens);
    }
    barrier();
    uvec2 r = uvec2(s_run[0], s_bcount);
    if (lid == 0u) smem[tiles] = r.y;
    barrier();
    return r;
}

#include "radix_range.glsl"

// Items [0, m) of the registers from bucket keys [0, m) of the split side (through the run tables of find_runs;
// m >= 1). Two loops, no per-item branch around a load: every item's load is issued before any is used (items
// past m read bucket key m - 1 and become zero padding).
void gather_items(uint m, uint tiles) {
    uint e[KPT];
    [[unroll]] for (uint j = 0u; j < KPT; j++) e[j] = gather_index(min(item_pos(j), m - 1u), tiles);
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uvec2 k = get_key(SPLIT, e[j]);
        uvec2 v = get_vals(SPLIT, e[j]);
        bool ok = item_pos(j) < m;
        g_w0[j] = ok ? k.x : 0u;
        g_w1[j] = ok ? k.y : 0u;
        g_v0[j] = ok ? v.x : 0u;
        g_v1[j] = ok ? v.y : 0u;
    }
}

// 64-bit shifts of (low, high) word pairs, by 0..63 bits.
uvec2 shr64(uvec2 v, uint b) {
    if (b == 0u) return v;
    if (b >= 32u) return uvec2(v.y >> (b - 32u), 0u);
    return uvec2((v.x >> b) | (v.y << (32u - b)), v.y >> b);
}
uvec2 shl64(uvec2 v, uint b) {
    if (b == 0u) return v;
    if (b >= 32u) return uvec2(0u, v.x << (b - 32u));
    return uvec2(v.x << b, (v.y << b) | (v.x >> (32u - b)));
}

// A bucket of at most RANK_MAX keys (read from the split side through the run tables): each key goes to the caller's buffers
// at start + the number of the bucket's keys that precede it on bits [lo, hi) of the transformed keys (bits at
// and above hi are equal within a bucket), equal keys in bucket order. Invocation lid places keys lid,
// lid + WG_SIZE, ... Where the compared bits and the index bits fit 32 or 64 bits, each key is compared as one
// number, (bits [lo, hi)) << index bits | index, which is unique, so one comparison counts a key; else (wide
// 64-bit ranges) as the key with its index breaking ties.
void place_counted(uint start, uint cnt, uint lo, uint hi, uint kind, bool desc, uint tiles) {
    uint lid = gl_LocalInvocationID.x;
    uvec2 m = range_mask(lo, hi);
    uint ib = uint(findMSB(max(cnt, 2u) - 1u)) + 1u;   // index bits
    uint wide = hi - lo + ib;
    uint mode = wide <= 32u ? 0u : (wide <= 64u ? 1u : 2u);   // 32-bit numbers, 64-bit numbers, key and index
    uvec2 k[RPT], v[RPT], c[RPT];
    uint r[RPT];
    [[unroll]] for (uint q = 0u; q < RPT; q++) {
        uint i = lid + q * WG_SIZE;
        r[q] = 0u;
        k[q] = uvec2(0u);
        v[q] = uvec2(0u);
        c[q] = uvec2(0u);
        if (i < cnt) {
            uint e = gather_index(i, tiles);
            k[q] = get_key(SPLIT, e);
            v[q] = get_vals(SPLIT, e);
            uvec2 t = key_transform(k[q], kind, desc) & m;
            c[q] = mode == 2u ? t : shl64(shr64(t, lo), ib) | uvec2(i, 0u);
        }
    }
    barrier();   // the run tables in smem are no longer read
    [[unroll]] for (uint q = 0u; q < RPT; q++) {
        uint i = lid + q * WG_SIZE;
        if (i < cnt) {
            smem[i] = c[q].x;
            smem[RANK_MAX + i] = c[q].y;
        }
    }
    barrier();
    if (mode == 0u) {
        uint j = 0u;
        for (; j + 4u <= cnt; j += 4u) {
            uvec4 x = uvec4(smem[j], smem[j + 1u], smem[j + 2u], smem[j + 3u]);
            [[unroll]] for (uint q = 0u; q < RPT; q++) {
                r[q] += (x.x < c[q].x ? 1u : 0u) + (x.y < c[q].x ? 1u : 0u) + (x.z < c[q].x ? 1u : 0u) + (x.w < c[q].x ? 1u : 0u);
            }
        }
        for (; j < cnt; j++) {
            uint x = smem[j];
            [[unroll]] for (uint q = 0u; q < RPT; q++) r[q] += x < c[q].x ? 1u : 0u;
        }
    } else {
        for (uint j = 0u; j < cnt; j++) {
            uvec2 x = uvec2(smem[j], smem[RANK_MAX + j]);
            [[unroll]] for (uint q = 0u; q < RPT; q++) {
                bool less = x.y < c[q].y || (x.y == c[q].y && x.x < c[q].x);
                if (mode == 2u) less = less || (x == c[q] && j < lid + q * WG_SIZE);
                r[q] += less ? 1u : 0u;
            }
        }
    }
    [[unroll]] for (uint q = 0u; q < RPT; q++) {
        uint i = lid + q * WG_SIZE;
        if (i < cnt) {
            put_key(CALLER, start + r[q], k[q]);
            put_vals(CALLER, start + r[q], v[q]);
        }
    }
}

// ---- Helpers: buckets of more than LARGE keys, shared by several workgroups (see the file comment) ----

const uint NONE = ~0u;
shared uint s_sample[2u * RADIX];   // the bucket's sample numbers in rank order: low words, then high words

// Helper q's bucket, its index among the bucket's helpers and their number; bucket RADIX: nothing to do. The
// buckets of more than LARGE keys (from the counts row) take the helpers in order, each one plus a share of the
// rest in proportion to its keys.
uvec3 helper_role(uint q) {
    uint lid = gl_LocalInvocationID.x;
    const uint HEAVY = 1u << 22u;   // counts stay below 2^21 (MSD_MAX_KEYS): the tally of large buckets rides above
    uint row = (4u + RADIX) * pc.stride;
    if (lid == 0u) s_node[0] = RADIX;
    for (uint x = lid; x < RADIX; x += WG_SIZE) {
        uint c = tables[row + x];
        s_tot[x] = c > LARGE ? c + HEAVY : 0u;
    }
    barrier();
    scan_digit_totals();
    uint last = s_lstart[RADIX - 1u] + s_tot[RADIX - 1u];
    uint heavy = last >> 22u;
    uint keys = last & (HEAVY - 1u);
    if (heavy != 0u) {
        uint spare = pc.helpers - heavy;   // the host dispatches at least as many helpers as buckets can be large
        for (uint x = lid; x < RADIX; x += WG_SIZE) {
            if (s_tot[x] != 0u) {
                uint k = s_lstart[x] >> 22u;
                uint before = s_lstart[x] & (HEAVY - 1u);
                uint a = k + spare * before / keys;
                uint b = k + 1u + spare * (before + (s_tot[x] & (HEAVY - 1u))) / keys;
                if (a <= q && q < b) {
                    s_node[0] = x;
                    s_node[1] = q - a;
                    s_node[2] = b - a;
                }
            }
        }
    }
    barrier();
    uvec3 r = uvec3(s_node[0], s_node[1], s_node[2]);
    barrier();
    return r;
}

// Part p of a bucket cut into `parts` by position (about cnt / parts keys each, at most TILE) into the
// registers, each key's share (below) as its digit, ranked by it (rank_digits, stable): s_tot[d] is the part's
// keys of digit d, and item x's place among them smem[subgroup x RADIX + d] + g_sub[x]. Each key's share: r =
// the sample's numbers at most the key's (its bits << DIGIT_BITS | the last sample slot at or before it in the
// bucket), share = the last s of h whose lower bound, the sample number of rank s ns / h, is among them
// (help()'s shares). The digit is the share (mine = NONE: cooperating, h < RADIX) or, for helper `mine` alone,
// 0 / 1 / 2 for a share before / equal to / after its own; padding RADIX - 1. Needs the run tables in smem
// (find_runs) and the sample in s_sample; the run tables are gone after it. Returns the part's keys.
uint load_part(uint p, uint parts, uint cnt, uint ns, uint h, uint mine, uint tiles, uint kind, bool desc, uvec2 m) {
    uint c0 = p * (cnt / parts) + min(p, cnt % parts);   // the first cnt % parts parts take one key more
    uint cm = cnt / parts + (p < cnt % parts ? 1u : 0u);
    // An invocation's items lie in increasing bucket order: one binary search of the run tables, then a walk.
    uint e[KPT];
    uint run = run_holding(c0 + min(item_pos(0u), cm - 1u), tiles);
    [[unroll]] for (uint x = 0u; x < KPT; x++) {
        uint i = c0 + min(item_pos(x), cm - 1u);
        run = walk_run(run, i);
        e[x] = run_element(run, i);
    }
    [[unroll]] for (uint x = 0u; x < KPT; x++) {
        uvec2 k = get_key(SPLIT, e[x]);
        uvec2 v = get_vals(SPLIT, e[x]);
        g_w0[x] = k.x;
        g_w1[x] = k.y;
        g_v0[x] = v.x;
        g_v1[x] = v.y;
        uint i = c0 + item_pos(x);
        uvec2 t = key_transform(k, kind, desc) & m;
        uint slot = min(ns - 1u, ((i + 1u) * ns + cnt - 1u) / cnt - 1u);
        uvec2 num = shl64(shr64(t, pc.lo), DIGIT_BITS) | uvec2(slot, 0u);
        uint a = 0u, b = ns;
        while (a < b) {
            uint mid = (a + b) >> 1u;
            if (lt64(num, uvec2(s_sample[mid], s_sample[RADIX + mid]))) b = mid; else a = mid + 1u;
        }
        uint share = a == 0u ? 0u : min(h - 1u, (a * h + ns - 1u) / ns - 1u);
        uint d = mine == NONE ? share : (share < mine ? 0u : (share == mine ? 1u : 2u));
        g_digit[x] = item_pos(x) < cm ? d : RADIX - 1u;
    }
    barrier();   // the run tables are read: rank_digits writes smem
    rank_digits(DIGIT_BITS);
    return cm;
}

// ---- Cooperative helpers (COOP_MIN): a large bucket's helpers split it by position, then exchange counts ----
//
// The tables' region past the counts row: 4 control words per bucket (arrivals, the decision, finished
// scatters; zeroed by the differ pass, or by the split pass of a one-tile sort), then one row of RADIX words per
// helper (its part's keys per share).
uint coop_ctl(uint x) { return (4u + RADIX) * pc.stride + RADIX + 4u * x; }
uint coop_row(uint q) { return (4u + RADIX) * pc.stride + 5u * RADIX + q * RADIX; }
const uint COOP_GO = 1u;      // every helper of the bucket arrived: they cooperate
const uint COOP_ALONE = 2u;   // one gave up waiting: each works alone (help())
shared uint s_coop[2];        // the last wait's outcome, the bucket's decision

uint coop_load(uint w) {
    return atomicLoad(tables[w], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Counts this workgroup into control word w, after its buffer stores (release: a fence in every invocation, in
// uniform control flow, then the barrier), and waits until the word reaches `target` or `polls` polls have
// passed; true when it was reached. Subgroup 0 waits, all its lanes polling, so it stays converged; relaxed
// atomics, with fences around in every invocation (lavapipe breaks barriers around divergent acquire/release
// operations; see lookback.glsl). `late` (stall emulation) polls a dead word about 4 x COOP_SPIN times before
// arriving. All invocations call it; ends with an acquire fence.
bool coop_arrive(uint w, uint target, uint polls, bool late) {
    memoryBarrierBuffer();
    barrier();
    if (gl_SubgroupID == 0u) {
        uint v = 0u;
        if (late) {
            uint rounds = min(COOP_SPIN * 4u + 64u, 60000u);
            uint dead = w | 3u;   // the bucket's word 3: always 0
            for (uint i = 0u; i < rounds; i++) v += coop_load(dead);
            if (subgroupMax(v) == 0xdeadbeefu && subgroupElect()) tables[dead] = 0u;   // keeps the loop
            v = 0u;
        }
        if (subgroupElect()) v = atomicAdd(tables[w], 1u) + 1u;
        v = subgroupMax(v);
        for (uint spins = 0u; v < target && spins < polls; spins++) v = subgroupMax(coop_load(w));
        if (subgroupElect()) s_coop[0] = v >= target ? 1u : 0u;
    }
    barrier();
    bool reached = s_coop[0] != 0u;
    memoryBarrierBuffer();
    barrier();   // s_coop[0] is read before the next wait writes it
    return reached;
}

// Cooperating helper q (role: bucket, index j among the bucket's h helpers, h), its part ranked by share
// (load_part): publishes its count per share (its row) and waits until the bucket's h helpers have published (at
// most COOP_SPIN polls: the GPU need not run them all at once); the first to finish waiting settles it for all:
// cooperate (all arrived) or work alone. Cooperating, it reads the h rows: s_run[s] = where the part's keys of
// share s go (the bucket start + the keys of shares < s + those of share s in parts < j). Returns (share j's
// first key in the bucket, its keys, 1), or (0, 0, 0) to work alone.
uvec3 coop_bases(uint q, uvec3 role, uint start) {
    uint lid = gl_LocalInvocationID.x;
    uint j = role.y, h = role.z;
    uint ctl = coop_ctl(role.x);
    uint row = coop_row(q);
    for (uint s = lid; s < h; s += WG_SIZE) tables[row + s] = s_tot[s];
    bool late = COOP_STALL != 0u && j % COOP_STALL == 1u % COOP_STALL;
    bool all = coop_arrive(ctl, h, COOP_SPIN, late);
    if (lid == 0u) {
        uint mine = all ? COOP_GO : COOP_ALONE;
        uint d = atomicCompSwap(tables[ctl + 1u], 0u, mine);
        s_coop[1] = d != 0u ? d : mine;
    }
    barrier();
    if (s_coop[1] != COOP_GO) return uvec3(0u);
    // Each share's keys (s_tot, scanned into s_lstart: where it starts) and those of parts before j (s_run),
    // from the h x h counts, four loads in flight per invocation. rank_digits' per-subgroup prefixes in smem
    // stay for the scatter.
    for (uint s = lid; s < RADIX; s += WG_SIZE) {
        s_tot[s] = 0u;
        s_run[s] = 0u;
    }
    barrier();
    uint first = q - j;
    uint hh = h * h;
    for (uint p0 = lid; p0 < hh; p0 += 4u * WG_SIZE) {
        uint c[4];
        [[unroll]] for (uint u = 0u; u < 4u; u++) {
            uint p = min(p0 + u * WG_SIZE, hh - 1u);
            c[u] = tables[coop_row(first + p / h) + p % h];
        }
        [[unroll]] for (uint u = 0u; u < 4u; u++) {
            uint p = p0 + u * WG_SIZE;
            if (p < hh) {
                atomicAdd(s_tot[p % h], c[u]);
                if (p / h < j) atomicAdd(s_run[p % h], c[u]);
            }
        }
    }
    barrier();
    scan_digit_totals();
    for (uint s = lid; s < h; s += WG_SIZE) s_run[s] += start + s_lstart[s];
    uvec3 r = uvec3(s_lstart[j], s_tot[j], 1u);
    barrier();
    return r;
}

// Phase 1 of help: a sample of the bucket (its cnt keys, through gather_index): ns evenly spaced keys
// in rank order in s_sample. Sample slot x (< ns <= 2^DIGIT_BITS) holds bucket key x cnt / ns, whose place in the
// (key, index) order is its number (bits [lo, shift) of the key) << DIGIT_BITS | x: unique, at most 64 bits
// (shift <= 64 - DIGIT_BITS), one word where they fit; in s_tot (low words) and s_lstart (high words) while
// ranked. Each slot's rank is the count of smaller numbers, four compared per step. Returns ns.
uint rank_sample(uint cnt, uint shift, uint tiles, uint kind, bool desc, uvec2 m) {
    uint lid = gl_LocalInvocationID.x;
    uint ns = min(min(WG_SIZE, RADIX), cnt);
    uvec2 num = uvec2(0u);
    if (lid < ns) {
        uvec2 sk = key_transform(get_key(SPLIT, gather_index(lid * cnt / ns, tiles)), kind, desc) & m;
        num = shl64(shr64(sk, pc.lo), DIGIT_BITS) | uvec2(lid, 0u);
        s_tot[lid] = num.x;
        s_lstart[lid] = num.y;
    }
    barrier();
    if (lid < ns) {
        uint r = 0u, x = 0u;
        if (shift - pc.lo + DIGIT_BITS <= 32u) {
            for (; x + 4u <= ns; x += 4u) {
                uvec4 y = uvec4(s_tot[x], s_tot[x + 1u], s_tot[x + 2u], s_tot[x + 3u]);
                r += (y.x < num.x ? 1u : 0u) + (y.y < num.x ? 1u : 0u) + (y.z < num.x ? 1u : 0u) + (y.w < num.x ? 1u : 0u);
            }
            for (; x < ns; x++) r += s_tot[x] < num.x ? 1u : 0u;
        } else {
            for (; x < ns; x++) r += lt64(uvec2(s_tot[x], s_lstart[x]), num) ? 1u : 0u;
        }
        s_sample[r] = num.x;
        s_sample[RADIX + r] = num.y;
    }
    barrier();
    return ns;
}

// Scatters the loaded part's items: cooperating (pass 0) every item after its digit's share base, alone
// (pass 2) the share's items (digit 1) from `at`; each after the part's earlier keys of its digit
// (rank_digits' per-subgroup prefix + rank).
void scatter_part(uint pass, uint cm, uint at) {
    uint IN = 1u;   // alone: the digit of the share's keys (a variable: s_tot's size is a spec constant)
    [[unroll]] for (uint x = 0u; x < KPT; x++) {
        uint d = g_digit[x];
        if (item_pos(x) < cm && (pass == 0u || d == IN)) {
            store_item(BIG, x, (pass == 0u ? s_run[d] : at) + smem[gl_SubgroupID * RADIX + d] + g_sub[x]);
        }
    }
}

// Phase 2 of help: helper q's share to its final range of the second scratch, in bucket order, over the
// bucket's parts (load_part). Pass 0: cooperating, helper j ranks part j of h by share, the helpers exchange
// their counts (coop_bases), each scatters its part to all shares, then waits until all h have scattered.
// Pass 1 then 2: alone (smaller buckets, or when a helper was not running in time), it reads the bucket's
// parts of at most TILE keys twice, ranked by before / in / after its share: first counting the keys before
// its share (its place) and in it, then writing its share's keys. Returns (the share's first key in the bucket,
// its keys (0: an empty share), 1 when it cooperated).
uvec3 move_share(uint q, uvec3 role, uint start, uint cnt, uint ns, bool coop, uint n, uint tiles, uint kind,
                 bool desc, uvec2 m) {
    uint j = role.y, h = role.z;
    uint pass = coop ? 0u : 1u;
    uint parts = coop ? h : div_ceil(cnt, TILE);
    uint p = coop ? j : 0u;
    uint off = 0u, g = 0u, at = 0u;   // at: where the next part's keys of the share go (alone)
    uint IN = 1u;
    bool runs = true;   // the run tables are in smem
    for (;;) {
        if (!runs) find_runs(role.x, n, tiles);
        runs = false;
        uint cm = load_part(p, parts, cnt, ns, h, pass == 0u ? NONE : j, tiles, kind, desc, m);
        if (pass == 0u) {
            uvec3 c = coop_bases(q, role, start);
            off = c.x;
            g = c.y;
            if (c.z == 0u) {   // alone, from the first part
                pass = 1u;
                parts = div_ceil(cnt, TILE);
                p = 0u;
                continue;
            }
        } else if (pass == 1u) {
            off += s_tot[IN - 1u];
            g += s_tot[IN];
        }
        if (pass != 1u) scatter_part(pass, cm, at);
        if (pass == 0u) {
            // Done once all h have scattered; a timeout (the helpers all run by then, so a guard only) works
            // alone from the first part.
            if (coop_arrive(coop_ctl(role.x) + 2u, h, min(COOP_SPIN * 16u, 60000u), false)) break;
            off = 0u;
            g = 0u;
            pass = 1u;
            parts = div_ceil(cnt, TILE);
            p = 0u;
            continue;
        }
        at += s_tot[IN];
        barrier();   // s_tot and smem are read: the next part writes them
        if (++p < parts) continue;
        if (pass == 2u) break;
        CLOCK(3);
        if (g == 0u) break;   // an empty share
        pass = 2u;
        p = 0u;
        at = start + off;
    }
    return uvec3(off, g, pass == 0u ? 1u : 0u);
}

// Helper workgroup q: its share of a bucket of more than LARGE keys (split digit below bit `shift`): the
// bucket's sample (rank_sample), the same in every helper of the bucket; helper j of h takes the keys from the
// sample of rank j x ns / h (or the first key) up to the one of rank (j + 1) x ns / h (or past the last), so the
// helpers' shares tile the bucket in sorted order; then the share moves to its place (move_share). The places
// are the same cooperating or alone (shares in sorted order, a share's keys in bucket order), so a cooperating
// helper's late scatter writes what the others wrote alone. Returns (first key, keys, shift, 1) when the caller
// is to sort that range on bits [lo, shift) in registers into the caller's buffers; a share of more than TILE
// keys is sorted here through global memory (0, 0, 0, 0).
uvec4 help(uint q, uint shift, uint n, uint tiles, uint kind, bool desc) {
    uvec3 role = helper_role(q);
    NOTE(P_IDLE, role.x, 0u);
    if (role.x == RADIX) return uvec4(0u);
    uvec2 sc = find_runs(role.x, n, tiles);
    CLOCK(1);
    uint start = sc.x;
    uint cnt = sc.y;
    uvec2 m = range_mask(pc.lo, shift);
    uint ns = rank_sample(cnt, shift, tiles, kind, desc, m);
    CLOCK(2);
    uint j = role.y, h = role.z;
    bool coop = COOP_MIN != 0u && cnt >= COOP_MIN && h >= 2u && h < RADIX && div_ceil(cnt, h) <= TILE;
    // An empty share alone: its bounds are the same sample (more helpers than samples).
    if (!coop && j != 0u && j + 1u < h && j * ns / h == (j + 1u) * ns / h) return uvec4(0u);
    uvec3 share = move_share(q, role, start, cnt, ns, coop, n, tiles, kind, desc, m);
    uint off = share.x, g = share.y;
    if (g == 0u) return uvec4(0u);   // an empty share
    sync_buffers();
    CLOCK(4);
    if (g > TILE) {
        NOTE(P_SHARE_GLOBAL, role.x, g);
        sort_range(BIG, CALLER, start + off, g, pc.lo, shift, kind, desc);
        return uvec4(0u);
    }
    NOTE(share.z != 0u ? P_SHARE_COOP : P_SHARE, role.x, g);
    return uvec4(start + off, g, shift, 1u);
}

#if CLOCKS
// Workgroup g's clock record (at every exit after main's first check).
void clock_flush(uint g) {
    clock_exit(MSD_CLOCK_END, MSD_CLOCK_RT_END, MSD_CLOCK_SM, MSD_CLOCK_GROUP, g, uvec2(pc.clk_lo, pc.clk_hi), g);
}
#define CLOCK_FLUSH() clock_flush(g)
#else
#define CLOCK_FLUSH()
#endif

void main() {
    uint msd = meta[CTRL_MSD];
    if (msd == 0u) return;   // nothing to sort
    uint shift = msd - 1u;
    g_bias = uvec2(meta[CTRL_MSD_BIAS], meta[CTRL_MSD_BIAS + 1u]);
    uint g = flat_group_id();
#if CLOCKS
    clock_entry(MSD_CLOCK_RT_ENTRY);
#endif
    uint n = meta[CTRL_N];
    uint tiles = div_ceil(n, pc.split_tile);
    bool desc = (pc.flags & 1u) != 0u;
    // The keys to sort in registers: from the split side through the run tables (a bucket), or a helper's
    // share from the second scratch; to [dst, dst + cnt) of the caller's buffers, on bits [lo, shift).
    // Helpers come first in the dispatch: theirs is the longest work.
    uint dst, cnt;
    bool helper = g < pc.helpers;
    if (helper) {
        uvec4 job = help(g, shift, n, tiles, pc.key_kind, desc);
        if (job.w == 0u) {
            CLOCK_FLUSH();
            return;
        }
        dst = job.x;
        cnt = job.y;
    } else {
        uint d = g - pc.helpers;
        if (d >= RADIX) return;
        uvec2 sc = find_runs(d, n, tiles);
        CLOCK(1);
        dst = sc.x;
        cnt = sc.y;
        NOTE(cnt == 0u ? P_EMPTY : (cnt <= RANK_MAX ? P_COUNTED : (cnt > LARGE ? P_LEFT : P_REGISTERS)), d, cnt);
        if (cnt == 0u) {
            CLOCK_FLUSH();
            return;
        }
        if (cnt <= RANK_MAX) {
            place_counted(dst, cnt, pc.lo, shift, pc.key_kind, desc, tiles);
            CLOCK_FLUSH();
            return;
        }
        if (cnt > LARGE) {   // the helpers' (the host dispatches some whenever a bucket can be this large)
            CLOCK_FLUSH();
            return;
        }
    }
    if (helper) {
        range_load(BIG, dst, cnt);
    } else {
        gather_items(cnt, tiles);
    }
    barrier();   // the run tables in smem are no longer read
    CLOCK(5);
    if (cnt > 1u && shift > pc.lo) {
        uvec2 differ = local_differ(cnt, pc.key_kind, desc);
#if CLOCKS
        uint places = 0u;
        for (uint s = pc.lo; s < shift; s += DIGIT_BITS) {
            places += key_digit(differ, s, (1u << min(DIGIT_BITS, shift - s)) - 1u) != 0u ? 1u : 0u;
        }
        NOTE_PLACES(places);
#endif
        local_sort(cnt, pc.lo, shift, pc.key_kind, desc, differ);
    }
    CLOCK(6);
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        if (item_pos(j) < cnt) store_item(CALLER, j, dst + item_pos(j));
    }
    CLOCK_FLUSH();
}
