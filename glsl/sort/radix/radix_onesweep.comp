#version 460
// radix_onesweep.comp: one digit place of the LSD radix sort, in one pass (Onesweep). Variants:
//   ballot / partitioned:                     tiles claimed through an atomic counter, decoupled look-back
//                                             over per-digit tile counts (vksort::radix::onesweep)
//   downsweep / downsweep_partitioned:        tile = workgroup id, offsets from the reduce-then-scan spine
//                                             (vksort::radix::downsweep)
// Reads keys (and values) from the source side chosen by the plan (0: caller's buffers A, 1: scratch B),
// writes them, stably ranked by this place's digit, to the other side; each digit's run of a tile leaves
// through shared memory so that global writes are contiguous.
//
// Forward progress: the look-back waits at most SPIN_LIMIT polls on a predecessor tile's status; then it counts
// that tile's digit itself from the keys and goes on. STALL_EVERY > 0 (tests only) makes tiles with
// id % STALL_EVERY == 1 never publish their status, so successors must take that path.
// @variant ballot LOOKBACK=1
// @variant partitioned LOOKBACK=1 PARTITIONED=1
// @variant downsweep LOOKBACK=0
// @variant downsweep_partitioned LOOKBACK=0 PARTITIONED=1
// @variant ballot_wide LOOKBACK=1 WIDE=1
// @variant partitioned_wide LOOKBACK=1 PARTITIONED=1 WIDE=1
// @variant downsweep_wide LOOKBACK=0 WIDE=1
// @variant downsweep_partitioned_wide LOOKBACK=0 PARTITIONED=1 WIDE=1
// @variant ballot_clock LOOKBACK=1 CLOCKS=1
// @variant partitioned_clock LOOKBACK=1 PARTITIONED=1 CLOCKS=1 SMID=1
// @variant fused LOOKBACK=1 FUSED=1
// @variant fused_partitioned LOOKBACK=1 PARTITIONED=1 FUSED=1
//
// FUSED=1 variants (vksort::radix::onesweep::fused; RadixPolicy::fused_max): the upfront histogram, the plan and
// every digit place in one dispatch, for sorts of one portion. Workgroups claim items from one counter (each one
// item, or items in a loop: FUSED_LOOP), in order: the upfront items (each counts the digits of every place over
// tiles u, u + ups, ...; the last one to finish plans), then place 0's tiles, place 1's, ... A tile of place p first
// waits until place p - 1 has finished all its tiles (the plan, for place 0); then it is one Onesweep tile (the
// look-back over the place's own status slot). The wait needs no co-residency: every item waited on was claimed
// earlier, by a workgroup that has started, and that workgroup only waits on items claimed before its own. The
// arrays and the control block are coherent here: a place reads at L2 what the place before it wrote on other SMs.
//
// CLOCKS=1 variants (diagnostics, `RadixPolicy::tile_clocks`): one clock record per tile (clock.glsl, layout
// TILE_CLOCK_*) through the device address in push constants pad0/pad1. SMID=1 adds the SM and warp ids
// (GL_NV_shader_sm_builtins).
//
// WIDE=1 variants (arrays larger than one binding): the pass reads its portion through bindings 0..3 (bound
// from the portion's first key) and writes through 64-bit device addresses of the whole destination arrays
// (push constant addr[]), with the byte offsets computed in 64 bits.
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"
#ifndef WIDE
#define WIDE 0
#endif
#ifndef FUSED
#define FUSED 0
#endif
#if FUSED
#define FUSED_COHERENT coherent
#define FUSED_VOLATILE volatile coherent
#else
#define FUSED_COHERENT
#define FUSED_VOLATILE
#endif
#if WIDE
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define WORD_REF
layout(buffer_reference, std430, buffer_reference_align = 4) buffer WordRef { uint word; };
#endif
#include "clock.glsl"
#if CLOCKS
#define RANK_CLOCK(i) CLOCK(i)
#endif

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 3) const uint DIGIT_BITS = 8;
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;
layout(constant_id = 6) const uint SPIN_LIMIT = 1024;
layout(constant_id = 7) const uint STALL_EVERY = 0;
layout(constant_id = 8) const uint EARLY_COUNTS = 0;   // 1: publish tile counts before ranking (Onesweep)
// Timing experiments only (results are wrong when non-zero): bit 0 no look-back wait (earlier tiles count 0),
// bit 1 no matching in the ranking, bit 2 keys leave to their own tile's range (no scatter).
layout(constant_id = 9) const uint DEBUG_MODE = 0;
#define RANK_DEBUG_NO_MATCH ((DEBUG_MODE & 2u) != 0u)
// bit 3 (8): the ranking's subgroup syncs order all memory (subgroupBarrier), not only shared memory.
#define RANK_SYNC_FULL ((DEBUG_MODE & 8u) != 0u)
// 1: CUB-style ranking (radix_rank.glsl rank2_*): [digit][subgroup] counters and one workgroup scan instead of
// the per-digit serial loop over subgroups and the separate digit scan; the early tile histogram shares the
// counters' zeroing barrier. 2: the same with 16-bit counters packed two per word (tile < 65536 keys).
layout(constant_id = 10) const uint RANK2 = 0;
// 1: wide exchange: a second shared array carries a second word with each exchanged key: the digit (32-bit keys
// without values: no recompute), the value (32-bit keys with 32-bit values: one round for both), the high word
// (64-bit keys: the digit comes from the exchanged key, no separate digit round); values then move two words
// per round.
layout(constant_id = 11) const uint KEEP_DIGIT = 0;
layout(constant_id = 12) const uint BALLOT_WORDS = 4;   // see radix_rank.glsl
// 1: the ranking finds each item's peers through lane masks in shared memory (radix_rank.glsl MATCH_OR).
layout(constant_id = 13) const uint MATCH_OR = 0;
// Look-back: predecessors' status words read per round trip (RadixPolicy::lookback_batch, 1..16).
layout(constant_id = 14) const uint LB_BATCH = 4;
// Sub-tiles per tile (RadixPolicy::sub_tiles; rank2 only, not with KEEP_DIGIT): a workgroup ranks its tile as
// SUB_TILES sub-tiles of WG_SIZE x KPT keys, one after another with the same registers. Every sub-tile but the
// last is parked, digit-sorted, in shared memory (s_held) until the tile's offsets are known; the last one stays
// in registers as with one sub-tile. One tile claim, one published count and one look-back then cover
// SUB_TILES x WG_SIZE x KPT keys: fewer tiles for the look-back to walk over.
layout(constant_id = 15) const uint SUB_TILES = 1;
// Exchange parts (RadixPolicy::exchange_parts; not with KEEP_DIGIT): each exchange round moves the tile through
// shared memory in XPARTS parts of ceil(KPT / XPARTS) x WG_SIZE slots, one after another (a barrier pair per
// part), so smem holds a part instead of the whole tile: a larger tile in less shared memory.
layout(constant_id = 18) const uint XPARTS = 1;
// FUSED: digit places of the sort (the upfront items count them all, the tiles sort them in turn).
layout(constant_id = 19) const uint FUSED_PLACES = 4;
// FUSED: 1: a workgroup claims items until none is left (a grid of one per tile, or of one on CPU drivers);
// 0: it runs the one item it claims (a grid of one per item), with no state kept across items; 2: chosen by the
// count (a GPU-side count whose capacity is past FUSED_LOOP_MAX; the setup pass sized the grid for the count):
// claiming while n <= FUSED_LOOP_MAX.
layout(constant_id = 22) const uint FUSED_LOOP = 0;
layout(constant_id = 23) const uint FUSED_LOOP_MAX = 0;

const uint RADIX = 1u << DIGIT_BITS;
const uint NSUB = (RANK2 != 0u && KEEP_DIGIT == 0u) ? SUB_TILES : 1u;
const uint SUB = WG_SIZE * KPT;   // keys ranked at once (a sub-tile)
const uint TILE = SUB * NSUB;     // keys per tile claim, published count and look-back
const uint XP = KEEP_DIGIT != 0u ? 1u : XPARTS;
const uint XK = (KPT + XP - 1u) / XP;   // item rows per exchange part
const uint XSLOTS = XK * WG_SIZE;       // tile slots per exchange part
const uint HIST_WORDS = MAX_SUBGROUPS * RADIX;
const uint R2_CTRS = (RANK2 == 2u ? RADIX / 2u : RADIX) * MAX_SUBGROUPS;
const uint R2_SMEM = R2_CTRS + (R2_CTRS >> 5u) + 1u;   // = rank2's R2_WORDS (radix_rank.glsl)
const uint RANK_WORDS = RANK2 != 0u ? R2_SMEM : HIST_WORDS;
// MATCH_OR: the ranking's lane masks follow the rank counters in smem (radix_rank.glsl).
const uint MATCH_BASE = RANK_WORDS;
const uint MATCH_WORDS = MATCH_OR != 0u ? MAX_SUBGROUPS * RADIX * BALLOT_WORDS : 0u;
const uint XWORDS = XP > 1u ? XSLOTS : SUB;   // the exchange's share of smem
const uint SMEM_WORDS = XWORDS > RANK_WORDS + MATCH_WORDS ? XWORDS : RANK_WORDS + MATCH_WORDS;

SIDE(0, 2, FUSED_COHERENT, keys_a, vals_a);
SIDE(1, 3, FUSED_COHERENT, keys_b, vals_b);
// FUSED: volatile, since a workgroup polls the control block for the place before its own.
BUFFER(4, FUSED_VOLATILE, meta);
// volatile: the look-back polls predecessors' status words with plain loads that the compiler must not cache
// or hoist (a status word carries its flag and count together, so no ordering with other data is needed).
// Onesweep: this (place, portion)'s status slot (tile counter, look-back status); downsweep: the spine's
// per-(digit, tile) global offsets.
BUFFER(5, volatile coherent, status);

#if FUSED
layout(push_constant) uniform Push {
    uint lo;             // the sorted bits [lo, hi)
    uint hi;
    uint key_kind;       // keys.glsl KEY_KIND_*
    uint flags;          // bit 0: descending
    uint hist_off;       // meta word offset of the places' histograms, then global digit offsets
    uint slot_words;     // words per place of the status binding (the place's status slot)
    uint upfront_items;  // most upfront items (each adds its histograms to meta with global atomics)
    uint max_x;          // the plan's fields (radix_plan.glsl)
    uint copy_chunk;
    uint portion_tiles;
    uint copy_len;
} pc;
// The place of the tile being sorted, and what the passes' push constants say for it.
uint f_place;
#define PASS_INDEX f_place
#define PASS_SHIFT (pc.lo + f_place * DIGIT_BITS)
#define PASS_BITS min(DIGIT_BITS, pc.hi - PASS_SHIFT)
#define PASS_HIST (pc.hist_off + f_place * RADIX)
#define PASS_NEXT (pc.hist_off + (FUSED_PLACES + f_place) * RADIX)
#define PASS_PORTION 0u
#define PASS_PORTION_TILES 0xFFFFFFFFu
#define SRC_BASE 0u
#define PASS_SBASE (f_place * pc.slot_words + STATUS_HDR)
#else
#define PASS_INDEX pc.pass_index
#define PASS_SHIFT pc.shift
#define PASS_BITS pc.pass_bits
#define PASS_HIST pc.hist_off
#define PASS_NEXT pc.next_off
#define PASS_PORTION pc.portion
#define PASS_PORTION_TILES pc.portion_tiles
#define SRC_BASE pc.src_base
#define PASS_SBASE STATUS_HDR
layout(push_constant) uniform Push {
    uint shift;          // lowest bit of this digit place (of the transformed key)
    uint pass_bits;      // digit width of this place (<= DIGIT_BITS)
    uint pass_index;     // digit place index (plan records)
    uint key_kind;       // keys.glsl KEY_KIND_*
    uint flags;          // bit 0: descending
    uint hist_off;       // onesweep: meta word offset of this portion's global digit offsets
    uint next_off;       // onesweep: meta word offset where the portion's last tile leaves the next portion's
    uint portion;        // portion index
    uint portion_tiles;  // tiles per portion
    uint src_base;       // index of the first key the source bindings (0..3) hold
    uint pad0;
    uint pad1;
    uvec2 addr[4];       // WIDE: device addresses of keys A, keys B, values A, values B (whole arrays)
} pc;
#endif

shared uint smem[SMEM_WORDS];
shared uint s_tot[RADIX];
shared uint s_lstart[RADIX];
shared uint s_gbase[RADIX];
shared uint s_tile;
shared uint s_uniform;   // 1 + the digit every key of a full tile has, else 0
shared uint s_x2[KEEP_DIGIT != 0u ? SUB : 1u];   // the wide exchange's second word
// NSUB > 1: the parked sub-tiles (key words, then value words, each SUB words in tile-slot order), per parked
// sub-tile and digit the offset of its run (s_hbase: a count of earlier sub-tiles minus the run's slot start,
// plus the digit's global offset after the look-back), and per digit the count of the sub-tiles ranked so far.
const uint HELD_W = KEY_WORDS + VAL_WORDS;
shared uint s_held[NSUB > 1u ? (NSUB - 1u) * SUB * HELD_W : 1u];
shared uint s_hbase[NSUB > 1u ? (NSUB - 1u) * RADIX : 1u];
shared uint s_cum[NSUB > 1u ? RADIX : 1u];
uint held_at(uint s, uint w, uint i) { return (s * HELD_W + w) * SUB + i; }
// Always 0, read after a barrier: a sub-tile's load addresses depend on it, so the compiler cannot hoist the
// loads of one sub-tile above the barriers of the one before (which would keep both in registers at once).
shared uint s_zero;
// Keys of sub-tile s within a tile of tile_n keys.
uint sub_count(uint tile_n, uint s) { return tile_n > s * SUB ? min(SUB, tile_n - s * SUB) : 0u; }

#define RANK_LOCAL 1
#define RANK_CUB 1
#include "radix_rank.glsl"
// Item j's digit and (after ranking) its position, from g_dr (radix_rank.glsl's RANK_LOCAL word).
#define DIG(j) dr_digit(g_dr[j])
#define POS(j) dr_rank(g_dr[j])

// rank2 with sub-tiles: digit d's keys in the parked sub-tiles (0 with one sub-tile).
uint parked_count(uint d) { return NSUB > 1u ? s_cum[d] : 0u; }
// rank2: digit d's runs get their global offsets from gb, the digit's offset for this tile: the parked
// sub-tiles' runs in s_hbase, the last sub-tile's in s_gbase (both minus the run's slot start).
void place_runs(uint d, uint gb) {
    for (uint s = 0u; s + 1u < NSUB; s++) s_hbase[s * RADIX + d] += gb;
    s_gbase[d] = gb + parked_count(d) - rank2_start(d);
}

// g_sel: the side the pass reads (0 caller's buffers A, 1 scratch B).

uint load_key(uint g_sel, uint i) { return g_sel == 0u ? keys_a[i] : keys_b[i]; }

// Word w of destination key / value `dst` (a global index) on the side the pass writes.
void store_key(uint g_sel, uint dst, uint w, uint v) {
#if WIDE
    WordRef(addr_at(pc.addr[g_sel == 0u ? 1u : 0u], dst, KEY_WORDS * 4u, w * 4u)).word = v;
#else
    if (g_sel == 0u) keys_b[dst * KEY_WORDS + w] = v; else keys_a[dst * KEY_WORDS + w] = v;
#endif
}
void store_val(uint g_sel, uint dst, uint w, uint v) {
#if WIDE
    WordRef(addr_at(pc.addr[g_sel == 0u ? 3u : 2u], dst, VAL_WORDS * 4u, w * 4u)).word = v;
#else
    if (g_sel == 0u) vals_b[dst * VAL_WORDS + w] = v; else vals_a[dst * VAL_WORDS + w] = v;
#endif
}

#if CLOCKS
// The tile's clock record (at every exit of a tile that was processed).
void clock_flush(uint tile) {
#ifdef SMID
    if (gl_LocalInvocationID.x == 0u) clk[TILE_CLOCK_WARP] = gl_WarpIDNV;
#endif
    clock_exit(TILE_CLOCK_END, TILE_CLOCK_RT_END, TILE_CLOCK_SM, TILE_CLOCK_TILE, tile, uvec2(pc.pad0, pc.pad1), tile);
}
#define CLOCK_FLUSH() clock_flush(tile)
#else
#define CLOCK_FLUSH()
#endif

// Loads sub-tile keys [BASE, BASE + N) (N <= SUB). Two loops: every load is issued before any digit is
// computed (a load inside per-item control flow would wait for the previous item's). Items past the end read
// the tile's first key instead (no branch) and get the largest digit.
#define LOAD_KEYS(KB, BASE, N)                                                                          \
    [[unroll]] for (uint j = 0u; j < KPT; j++) {                                                        \
        uint lp = item_pos(j);                                                                          \
        uint idx = (lp < (N) ? (BASE) + lp : tile_base) - SRC_BASE;                                  \
        g_w0[j] = KB[idx * KEY_WORDS];                                                                  \
        g_w1[j] = KEY_WORDS == 2u ? KB[idx * KEY_WORDS + 1u] : 0u;                                      \
    }                                                                                                   \
    [[unroll]] for (uint j = 0u; j < KPT; j++) {                                                        \
        uint dg = key_digit(key_transform(uvec2(g_w0[j], g_w1[j]), pc.key_kind, desc), PASS_SHIFT, mask); \
        g_dr[j] = item_pos(j) < (N) ? dg : mask;                                                        \
    }

// Values are loaded after the ranking (fewer live registers while ranking), in the keys' item layout.
#define LOAD_VALS(VB)                                                                                   \
    [[unroll]] for (uint j = 0u; j < KPT; j++) {                                                        \
        uint lp = item_pos(j);                                                                          \
        uint idx = (lp < sub_n ? sub_base + lp : tile_base) - SRC_BASE;                              \
        g_v0[j] = VB[idx * VAL_WORDS];                                                                  \
        g_v1[j] = VAL_WORDS == 2u ? VB[idx * VAL_WORDS + 1u] : 0u;                                      \
    }

// Values of sub-tile keys [sub_base, sub_base + sub_n) of the tile that starts at tile_base.
void load_values(uint g_sel, uint tile_base, uint sub_base, uint sub_n, out uint g_v0[KPT], out uint g_v1[KPT]) {
    if (VAL_WORDS == 0u) return;
    if (g_sel == 0u) {
        LOAD_VALS(vals_a)
    } else {
        LOAD_VALS(vals_b)
    }
}

// idx: global key index (of the source side).
uint digit_at(uint g_sel, uint gidx, uint mask) {
    uint idx = gidx - SRC_BASE;
    uvec2 k = uvec2(load_key(g_sel, idx * KEY_WORDS), KEY_WORDS == 2u ? load_key(g_sel, idx * KEY_WORDS + 1u) : 0u);
    return key_digit(key_transform(k, pc.key_kind, (pc.flags & 1u) != 0u), PASS_SHIFT, mask);
}

#if LOOKBACK
// Counts digit d in (full) tile p of the portion from the keys: the look-back's way forward past a stalled
// predecessor.
uint recount(uint g_sel, uint p, uint d, uint mask) {
    uint c = 0u;
    uint first = (PASS_PORTION * PASS_PORTION_TILES + p) * TILE;
    for (uint i = 0u; i < TILE; i++) {
        if (digit_at(g_sel, first + i, mask) == d) c++;
    }
    return c;
}

// Sum of digit d's counts over the portion's tiles [0, tile). Reads LB_BATCH predecessors' status words at once
// (independent loads, one round trip) and takes them nearest first; a predecessor that is not ready yet is
// polled alone, at most SPIN_LIMIT times, before its digit is counted from its keys.
const uint LB_MAX = 16u;
uint look_back(uint g_sel, uint tile, uint d, uint sbase, uint mask) {
    uint excl = 0u;
    uint p = tile;
    while (p > 0u) {
        uint s[LB_MAX];
        [[unroll]] for (uint i = 0u; i < LB_MAX; i++) {
            if (i < LB_BATCH) s[i] = i < p ? status[sbase + (p - 1u - i) * RADIX + d] : FLAG_INCLUSIVE;
        }
        bool stop = false;
        bool waiting = false;
        [[unroll]] for (uint i = 0u; i < LB_MAX; i++) {
            if (i < LB_BATCH && !stop) {
                if (s[i] == 0u) {
                    stop = true;
                    waiting = true;
                } else {
                    excl += s[i] & COUNT_MASK;
                    p--;
                    stop = (s[i] & FLAG_INCLUSIVE) != 0u;
                }
            }
        }
        if (!waiting) {
            if (stop) break;
            continue;
        }
        // Predecessor p - 1 is not ready: poll it.
        p--;
        uint v = 0u;
        for (uint spin = 0u; spin < SPIN_LIMIT; spin++) {
            v = status[sbase + p * RADIX + d];
            if (v != 0u) break;
        }
        if (v == 0u) {
            excl += recount(g_sel, p, d, mask);
            continue;
        }
        excl += v & COUNT_MASK;
        if ((v & FLAG_INCLUSIVE) != 0u) break;
    }
    return excl;
}

#endif

// One exchange round of one word per item, in XP parts. Part p: every item whose tile slot POS(j) lies in
// [p x XSLOTS, (p + 1) x XSLOTS) writes WORD (an expression of j) to smem; after a barrier, OUT runs for each
// slot i = k x WG_SIZE + lid of the part (k: its item row) with w = the word in slot i. FIRST: the caller's
// barrier already separates smem's last use from part 0's writes.
#define EXCHANGE(FIRST, WORD, OUT)                                              \
    [[unroll]] for (uint p = 0u; p < XP; p++) {                                 \
        if (!(FIRST) || p > 0u) barrier();                                      \
        [[unroll]] for (uint j = 0u; j < KPT; j++) {                            \
            uint xs = POS(j) - p * XSLOTS;                                      \
            if (XP == 1u || xs < XSLOTS) smem[xs] = (WORD);                     \
        }                                                                       \
        barrier();                                                              \
        if ((FIRST) && p == 0u) { CLOCK(7); }                                   \
        [[unroll]] for (uint kk = 0u; kk < XK; kk++) {                          \
            uint k = p * XK + kk;                                               \
            if (k < KPT) {                                                      \
                uint i = k * WG_SIZE + lid;                                     \
                uint w = smem[i - p * XSLOTS];                                  \
                OUT                                                             \
            }                                                                   \
        }                                                                       \
    }

// rank_digits (per-subgroup counters): POS becomes each item's tile position, from the digit's tile start and
// its subgroup's exclusive prefix (smem, read before anything reuses it).
void positions_from_subgroup_prefixes(inout uint g_dr[KPT]) {
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint d = DIG(j);
        g_dr[j] += (s_lstart[d] + smem[gl_SubgroupID * RADIX + d]) << 16u;
    }
}

// What a tile claim zeroes before the barrier that publishes the claimed tile: rank2's counters and the early
// histogram.
void claim_clears() {
    if (RANK2 != 0u) {
        rank2_clear();
        if (EARLY_COUNTS != 0u) {
            for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) s_tot[d] = 0u;
        }
    }
}

// One tile of onesweep_tile, as its phases see it (ltile: its index within the portion; sel: the side it reads).
struct Tile {
    uint l;
    uint index;
    uint base;
    uint n;
    uint sel;
    uint mask;
    bool desc;
    bool last_of_portion;
    bool stalled;     // STALL_EVERY (tests): this tile never publishes its status
    uint x_base;      // the last (or only) sub-tile's first key and count
    uint x_n;
};

// The tile's items (per invocation; every phase is inlined, so these stay in registers like locals): key words,
// value words, destinations, and per item one word with its digit in the low 16 bits (DIG) and its rank within
// the subgroup, then its tile position, in the high 16 bits (POS): radix_rank.glsl's RANK_LOCAL form.
uint g_w0[KPT];
uint g_w1[KPT];
uint g_v0[KPT];
uint g_v1[KPT];
uint g_dest[KPT];
uint g_dr[KPT];

// Loads keys [base, base + count) of the tile's side into g_w0/g_w1 and their digits into g_dr. The side is
// chosen once for the whole loop (a select per load could make the compiler read both sides).
void load_keys(Tile t, uint base, uint count) {
    uint tile_base = t.base;
    bool desc = t.desc;
    uint mask = t.mask;
    if (t.sel == 0u) {
        LOAD_KEYS(keys_a, base, count)
    } else {
        LOAD_KEYS(keys_b, base, count)
    }
}

// Sub-tiles but the last (NSUB > 1, rank2): loaded, counted (early counts), ranked and parked digit-sorted in
// s_held. Each invocation keeps the per-digit bookkeeping of the digits d = lid + k x WG_SIZE only, as the
// look-back does, so those words need no barrier.
void park_sub_tiles(Tile t) {
    uint lid = gl_LocalInvocationID.x;
    for (uint d = lid; d < RADIX; d += WG_SIZE) s_cum[d] = 0u;
#if !LOOKBACK
    rank2_clear();
    barrier();
#endif
    for (uint s = 0u; s + 1u < NSUB; s++) {
        uint h_base = t.base + s * SUB + s_zero;
        uint h_n = sub_count(t.n, s);
        load_keys(t, h_base, h_n);
#if LOOKBACK
        if (EARLY_COUNTS != 0u) {
            [[unroll]] for (uint j = 0u; j < KPT; j++) atomicAdd(s_tot[DIG(j)], 1u);
        }
#endif
        rank2_count(PASS_BITS, g_dr);
        rank2_scan();
        [[unroll]] for (uint j = 0u; j < KPT; j++) g_dr[j] += r2_value(DIG(j), gl_SubgroupID) << 16u;
        load_values(t.sel, t.base, h_base, h_n, g_v0, g_v1);
        for (uint d = lid; d < RADIX; d += WG_SIZE) {
            s_hbase[s * RADIX + d] = s_cum[d] - rank2_start(d);
            s_cum[d] += rank2_total(d);
        }
        [[unroll]] for (uint j = 0u; j < KPT; j++) {
            s_held[held_at(s, 0u, POS(j))] = g_w0[j];
            if (KEY_WORDS == 2u) s_held[held_at(s, 1u, POS(j))] = g_w1[j];
            if (VAL_WORDS >= 1u) s_held[held_at(s, KEY_WORDS, POS(j))] = g_v0[j];
            if (VAL_WORDS == 2u) s_held[held_at(s, KEY_WORDS + 1u, POS(j))] = g_v1[j];
        }
        barrier();
        rank2_clear();
        barrier();
    }
}

#if LOOKBACK
// Publishes digit d's status word of this tile (the one place the look-back status is written).
void publish(Tile t, uint d, uint word) {
    if (!t.stalled) status[PASS_SBASE + t.l * RADIX + d] = word;
}
// A tile's count before its look-back: inclusive for the portion's first tile, an aggregate otherwise.
uint count_flag(Tile t) { return t.l == 0u ? FLAG_INCLUSIVE : FLAG_AGGREGATE; }

// Early counts: the tile's digit histogram (shared atomics, s_tot zeroed), published before the (slower) ranking
// so that successors wait less. The padding items of a partial (last) tile count too: no tile follows it.
void publish_early_counts(Tile t) {
    [[unroll]] for (uint j = 0u; j < KPT; j++) atomicAdd(s_tot[DIG(j)], 1u);
    barrier();
    CLOCK(2);
    for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) publish(t, d, count_flag(t) | s_tot[d]);
}

// Digit d's keys in the tiles before this one (tot: in this one), published inclusive; the portion's last tile
// leaves the next portion's offsets.
uint look_back_digit(Tile t, uint d, uint tot) {
    uint excl = 0u;
    if (t.l > 0u) {
        if ((DEBUG_MODE & 1u) == 0u) excl = look_back(t.sel, t.l, d, PASS_SBASE, t.mask);
        publish(t, d, FLAG_INCLUSIVE | (excl + tot));
    }
    if (t.last_of_portion) meta[PASS_NEXT + d] = s_gbase[d] + excl + tot;
    return excl;
}

// rank2: counters and early histogram were zeroed before the tile claim's barrier.
void rank_and_look_back_rank2(Tile t) {
    if (EARLY_COUNTS != 0u) publish_early_counts(t);
    rank2_count(PASS_BITS, g_dr);
    CLOCK(3);
    rank2_scan();
    CLOCK(5);
    if (EARLY_COUNTS == 0u) {
        for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) {
            publish(t, d, count_flag(t) | (rank2_total(d) + parked_count(d)));
        }
    }
    // POS becomes each item's position in the sub-tile.
    [[unroll]] for (uint j = 0u; j < KPT; j++) g_dr[j] += r2_value(DIG(j), gl_SubgroupID) << 16u;
    load_values(t.sel, t.base, t.x_base, t.x_n, g_v0, g_v1);
    for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) {
        uint tot = rank2_total(d) + parked_count(d);
        uint excl = look_back_digit(t, d, tot);
        place_runs(d, s_gbase[d] + excl);
        if (t.n == TILE && tot == TILE) s_uniform = d + 1u;
    }
}

void rank_and_look_back(Tile t) {
    if (EARLY_COUNTS != 0u) {
        for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) s_tot[d] = 0u;
        barrier();
        publish_early_counts(t);
    }
    rank_digits(PASS_BITS, g_dr);
    CLOCK(5);
    positions_from_subgroup_prefixes(g_dr);
    load_values(t.sel, t.base, t.x_base, t.x_n, g_v0, g_v1);
    if (EARLY_COUNTS == 0u) {
        for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) publish(t, d, count_flag(t) | s_tot[d]);
    }
    for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) {
        uint excl = look_back_digit(t, d, s_tot[d]);
        s_gbase[d] += excl - s_lstart[d];
    }
}
#else
// Downsweep: the tile's digit offsets come from the spine (status[d x tiles + tile]).
void rank_from_spine_rank2(Tile t, uint tiles) {
    rank2_clear();
    barrier();
    rank2_count(PASS_BITS, g_dr);
    rank2_scan();
    [[unroll]] for (uint j = 0u; j < KPT; j++) g_dr[j] += r2_value(DIG(j), gl_SubgroupID) << 16u;
    load_values(t.sel, t.base, t.x_base, t.x_n, g_v0, g_v1);
    for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) {
        place_runs(d, status[d * tiles + t.index]);
        if (t.n == TILE && rank2_total(d) + parked_count(d) == TILE) s_uniform = d + 1u;
    }
}

void rank_from_spine(Tile t, uint tiles) {
    rank_digits(PASS_BITS, g_dr);
    positions_from_subgroup_prefixes(g_dr);
    load_values(t.sel, t.base, t.x_base, t.x_n, g_v0, g_v1);
    for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) {
        s_gbase[d] = status[d * tiles + t.index] - s_lstart[d];
    }
}
#endif

// The parked sub-tiles go out first: slot i of sub-tile s holds a key of digit d, bound for s_hbase + i.
// Not unrolled: the last sub-tile's keys are live in registers meanwhile.
void store_parked_sub_tiles(Tile t) {
    uint lid = gl_LocalInvocationID.x;
    for (uint s = 0u; s + 1u < NSUB; s++) {
        uint h_n = sub_count(t.n, s);
        [[dont_unroll]] for (uint k = 0u; k < KPT; k++) {
            uint i = k * WG_SIZE + lid;
            uint w0 = s_held[held_at(s, 0u, i)];
            uint w1 = KEY_WORDS == 2u ? s_held[held_at(s, 1u, i)] : 0u;
            uint d = key_digit(key_transform(uvec2(w0, w1), pc.key_kind, t.desc), PASS_SHIFT, t.mask);
            uint dst = (DEBUG_MODE & 4u) != 0u ? t.base + s * SUB + i : s_hbase[s * RADIX + d] + i;
            if (i < h_n) {
                store_key(t.sel, dst, 0u, w0);
                if (KEY_WORDS == 2u) store_key(t.sel, dst, 1u, w1);
                if (VAL_WORDS >= 1u) store_val(t.sel, dst, 0u, s_held[held_at(s, KEY_WORDS, i)]);
                if (VAL_WORDS == 2u) store_val(t.sel, dst, 1u, s_held[held_at(s, KEY_WORDS + 1u, i)]);
            }
        }
    }
}

// Fast path: every key of the (full) tile has one digit: the tile moves as one block, no exchange.
void store_uniform_tile(Tile t) {
    uint gb = s_gbase[s_uniform - 1u];
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        uint dst = gb + item_pos(j);
        store_key(t.sel, dst, 0u, g_w0[j]);
        if (KEY_WORDS == 2u) store_key(t.sel, dst, 1u, g_w1[j]);
        if (VAL_WORDS >= 1u) store_val(t.sel, dst, 0u, g_v0[j]);
        if (VAL_WORDS == 2u) store_val(t.sel, dst, 1u, g_v1[j]);
    }
}

// Wide exchange (KEEP_DIGIT): round A carries each key with a second word, round B the values.
void exchange_wide(Tile t) {
    uint lid = gl_LocalInvocationID.x;
    const bool KV = KEY_WORDS == 1u && VAL_WORDS == 1u;   // the value rides with the key; digit recomputed
    [[unroll]] for (uint j = 0u; j < KPT; j++) {
        smem[POS(j)] = g_w0[j];
        s_x2[POS(j)] = KEY_WORDS == 2u ? g_w1[j] : (KV ? g_v0[j] : DIG(j));
    }
    barrier();
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        uint i = k * WG_SIZE + lid;
        if (i < t.x_n) {
            uint w = smem[i];
            uint x = s_x2[i];
            uint d = (KEY_WORDS == 2u || KV)
                         ? key_digit(key_transform(uvec2(w, KEY_WORDS == 2u ? x : 0u), pc.key_kind, t.desc), PASS_SHIFT, t.mask)
                         : x;
            uint dst = (DEBUG_MODE & 4u) != 0u ? t.x_base + i : s_gbase[d] + i;
            g_dest[k] = dst;
            store_key(t.sel, dst, 0u, w);
            if (KEY_WORDS == 2u) store_key(t.sel, dst, 1u, x);
            if (KV) store_val(t.sel, dst, 0u, x);
        }
    }
    if (VAL_WORDS == 2u || (VAL_WORDS == 1u && KEY_WORDS == 2u)) {
        barrier();
        [[unroll]] for (uint j = 0u; j < KPT; j++) {
            smem[POS(j)] = g_v0[j];
            if (VAL_WORDS == 2u) s_x2[POS(j)] = g_v1[j];
        }
        barrier();
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            uint i = k * WG_SIZE + lid;
            if (i < t.x_n) {
                store_val(t.sel, g_dest[k], 0u, smem[i]);
                if (VAL_WORDS == 2u) store_val(t.sel, g_dest[k], 1u, s_x2[i]);
            }
        }
    }
}

// Exchange rounds of one word each. Round 0: the key (32-bit keys) or the digit (64-bit keys) finds each tile
// slot's destination. One part: reads and destinations first for every slot (no per-item branch), then the
// stores. Several parts: each part's keys are stored as they are read (no per-slot arrays live across parts).
void exchange_rounds(Tile t) {
    uint lid = gl_LocalInvocationID.x;
    uint g_sel = t.sel;
    uint x_n = t.x_n;
    uint xw[KPT];
    EXCHANGE(true, KEY_WORDS == 1u ? g_w0[j] : DIG(j),
             uint d = KEY_WORDS == 1u ? key_digit(key_transform(uvec2(w, 0u), pc.key_kind, t.desc), PASS_SHIFT, t.mask) : w;
             uint dst = (DEBUG_MODE & 4u) != 0u ? t.x_base + i : s_gbase[d] + i;
             g_dest[k] = dst;
             xw[k] = w;
             if (XP > 1u && KEY_WORDS == 1u && i < x_n) store_key(g_sel, dst, 0u, w);)
    if (XP == 1u && KEY_WORDS == 1u) {
        [[unroll]] for (uint k = 0u; k < KPT; k++) {
            if (k * WG_SIZE + lid < x_n) store_key(g_sel, g_dest[k], 0u, xw[k]);
        }
    }
    if (KEY_WORDS == 2u) {
        EXCHANGE(false, g_w0[j], if (i < x_n) store_key(g_sel, g_dest[k], 0u, w);)
        EXCHANGE(false, g_w1[j], if (i < x_n) store_key(g_sel, g_dest[k], 1u, w);)
    }
    if (VAL_WORDS >= 1u) {
        EXCHANGE(false, g_v0[j], if (i < x_n) store_val(g_sel, g_dest[k], 0u, w);)
    }
    if (VAL_WORDS == 2u) {
        EXCHANGE(false, g_v1[j], if (i < x_n) store_val(g_sel, g_dest[k], 1u, w);)
    }
}

// Sorts tile ltile (of the portion) of this place, of n keys, read from side g_sel. Every invocation calls it,
// after the barrier that published ltile (claim_clears() before it). Phases: load (and park earlier
// sub-tiles), rank and find the digits' offsets (look-back, or the spine), store the parked sub-tiles, then the
// tile: as one block when all its keys share a digit, else through the exchange.
void onesweep_tile(uint ltile, uint n, uint g_sel) {
    uint tiles = div_ceil(n, TILE);
    uint tile = PASS_PORTION * PASS_PORTION_TILES + ltile;
    if (ltile >= PASS_PORTION_TILES || tile >= tiles) return;
    Tile t;
    t.l = ltile;
    t.index = tile;
    t.base = tile * TILE;
    t.n = min(TILE, n - t.base);
    t.sel = g_sel;
    t.mask = (1u << PASS_BITS) - 1u;
    t.desc = (pc.flags & 1u) != 0u;
    t.last_of_portion = ltile == PASS_PORTION_TILES - 1u;
    t.stalled = LOOKBACK != 0 && STALL_EVERY > 0u && ltile % STALL_EVERY == 1u;
    t.x_base = t.base + (NSUB - 1u) * SUB + (NSUB > 1u ? s_zero : 0u);
    t.x_n = sub_count(t.n, NSUB - 1u);

    if (gl_LocalInvocationID.x == 0u) s_uniform = 0u;
#if LOOKBACK
    // The global digit offsets: loaded now, their latency hidden behind the ranking.
    for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) s_gbase[d] = meta[PASS_HIST + d];
#endif
    if (NSUB > 1u) park_sub_tiles(t);
    // The last (or only) sub-tile stays in registers; items past n get the largest digit and rank last.
    load_keys(t, t.x_base, t.x_n);
#if LOOKBACK
    if (RANK2 != 0u) rank_and_look_back_rank2(t); else rank_and_look_back(t);
#else
    if (RANK2 != 0u) rank_from_spine_rank2(t, tiles); else rank_from_spine(t, tiles);
#endif
    if (RANK2 == 0u) {
        for (uint d = gl_LocalInvocationID.x; d < RADIX; d += WG_SIZE) {
            if (t.n == TILE && s_tot[d] == TILE) s_uniform = d + 1u;
        }
    }
    barrier();
    CLOCK(6);
    store_parked_sub_tiles(t);
    if (s_uniform != 0u) {
        store_uniform_tile(t);
    } else if (KEEP_DIGIT != 0u) {
        exchange_wide(t);
    } else {
        exchange_rounds(t);
    }
    CLOCK_FLUSH();
}

#if !FUSED
void main() {
    uint lid = gl_LocalInvocationID.x;
    if (NSUB > 1u && lid == 0u) s_zero = 0u;
    uint n = meta[CTRL_N];
    uint g_sel = meta[CTRL_PASS + 8u * PASS_INDEX + 3u];
#if CLOCKS
    clock_entry(TILE_CLOCK_RT_ENTRY);
#endif
#if LOOKBACK
    // rank2: the rank counters and the early histogram are zeroed under the tile claim's barrier.
    if (lid == 0u) s_tile = atomicAdd(status[0], 1u);
    claim_clears();
    barrier();
    CLOCK(1);
    uint ltile = s_tile;   // the tile's index within the portion
#else
    uint ltile = flat_group_id();
#endif
    onesweep_tile(ltile, n, g_sel);
}
#else
#include "radix_plan.glsl"
shared uint s_item;

// Places whose digits one read of the keys counts (smem holds their RADIX counters each).
const uint UP_FIT = SMEM_WORDS / RADIX;
const uint UP_PLACES = FUSED_PLACES < UP_FIT ? FUSED_PLACES : UP_FIT;

// Upfront item u of ups: adds the digit counts of every place over tiles u, u + ups, ... to the meta
// histograms (zeroed by the setup pass). The last item to finish runs the plan (radix_plan.glsl), then raises
// CTRL_FUSED_PLANNED.
void upfront_item(uint u, uint ups, uint n) {
    uint lid = gl_LocalInvocationID.x;
    bool desc = (pc.flags & 1u) != 0u;
    uint tiles = div_ceil(n, TILE);
    for (uint p0 = 0u; p0 < FUSED_PLACES; p0 += UP_PLACES) {
        uint np = min(UP_PLACES, FUSED_PLACES - p0);
        for (uint i = lid; i < np * RADIX; i += WG_SIZE) smem[i] = 0u;
        barrier();
        for (uint t = u; t < tiles; t += ups) {
            for (uint sub = 0u; sub < NSUB; sub++) {
                // Every load is issued before any key is counted; indices past n read key 0, not counted.
                uint base = t * TILE + sub * SUB;
                uint w0[KPT];
                uint w1[KPT];
                [[unroll]] for (uint k = 0u; k < KPT; k++) {
                    uint i = base + k * WG_SIZE + lid;
                    uint idx = i < n ? i : 0u;
                    w0[k] = keys_a[idx * KEY_WORDS];
                    w1[k] = KEY_WORDS == 2u ? keys_a[idx * KEY_WORDS + 1u] : 0u;
                }
                [[unroll]] for (uint k = 0u; k < KPT; k++) {
                    if (base + k * WG_SIZE + lid < n) {
                        uvec2 key = key_transform(uvec2(w0[k], w1[k]), pc.key_kind, desc);
                        for (uint p = 0u; p < np; p++) {
                            uint shift = pc.lo + (p0 + p) * DIGIT_BITS;
                            uint bits = min(DIGIT_BITS, pc.hi - shift);
                            atomicAdd(smem[p * RADIX + key_digit(key, shift, (1u << bits) - 1u)], 1u);
                        }
                    }
                }
            }
        }
        barrier();
        for (uint i = lid; i < np * RADIX; i += WG_SIZE) {
            uint c = smem[i];
            if (c != 0u) atomicAdd(meta[pc.hist_off + p0 * RADIX + i], c);
        }
        barrier();
    }
    // As radix_upfront.comp's plan_fused: the last item to finish plans.
    if (!last_to_count(ups)) return;
    radix_plan(FUSED_PLACES, TILE, pc.max_x, pc.hist_off, pc.copy_chunk, pc.portion_tiles, pc.copy_len, pc.lo, pc.hi, 0u);
    memoryBarrierBuffer();
    barrier();
    if (lid == 0u) atomicExchange(meta[CTRL_FUSED_PLANNED], 1u);
}

// Waits until meta[word] reaches target: invocation 0 polls, then the workgroup goes on. The items waited on
// were claimed before this workgroup's, by workgroups that run, so the wait ends; its bound (2^30 polls) only
// keeps a broken sort from holding the GPU for ever (it then sets CTRL_FUSED_STALLED; the result is wrong).
void wait_for(uint word, uint target) {
    if (gl_LocalInvocationID.x == 0u) {
        uint v = meta[word];
        for (uint i = 0u; i < 32768u && v < target; i++) {
            for (uint j = 0u; j < 32768u && v < target; j++) v = meta[word];
        }
        if (v < target) atomicOr(meta[CTRL_FUSED_STALLED], 1u);
        memoryBarrierBuffer();
    }
    barrier();
}

// The next item of the claim order (every invocation gets it).
uint claim_item() {
    barrier();   // the previous item's last use of shared memory is over
    if (gl_LocalInvocationID.x == 0u) s_item = atomicAdd(meta[CTRL_FUSED_ITEM], 1u);
    claim_clears();
    barrier();
    return s_item;
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    if (NSUB > 1u && lid == 0u) s_zero = 0u;
    uint n = meta[CTRL_N];
    uint tiles = div_ceil(n, TILE);
    uint ups = min(tiles, pc.upfront_items);
    uint items = ups + FUSED_PLACES * tiles;
    bool loop = FUSED_LOOP == 1u || (FUSED_LOOP == 2u && n <= FUSED_LOOP_MAX);
    // Claiming, one workgroup per tile of n, so a place's tiles spread over the SMs. The host sizes the grid so
    // for a host count and the setup pass for a GPU-side one; a larger grid's extra workgroups would leave here.
    if (loop && gl_WorkGroupID.x >= max(tiles, 1u)) return;
    // The upfront items come first in the claim order: a workgroup runs those it claims, then tiles.
    uint item = claim_item();
    while (item < ups) {
        upfront_item(item, ups, n);
        if (!loop) return;
        item = claim_item();
    }
    while (item < items) {
        uint p = (item - ups) / tiles;
        uint ltile = item - ups - p * tiles;
        wait_for(p == 0u ? CTRL_FUSED_PLANNED : CTRL_FUSED_DONE + p - 1u, p == 0u ? 1u : tiles);
        uint rec = CTRL_PASS + 8u * p;
        if (meta[rec + 7u] == 0u) {   // not skipped by the plan
            f_place = p;
            onesweep_tile(ltile, n, meta[rec + 3u]);
        }
        // The tile's stores, then its count in the place's done counter.
        memoryBarrierBuffer();
        barrier();
        if (lid == 0u) atomicAdd(meta[CTRL_FUSED_DONE + p], 1u);
        if (!loop) return;
        item = claim_item();
    }
}
#endif
