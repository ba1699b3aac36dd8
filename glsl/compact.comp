#version 460
// compact.comp: single-pass stable stream compaction. Keeps the elements that are non-zero (variant
// `values`) or whose flag is non-zero (variant `flags`), in input order. One workgroup per tile (claimed
// with an atomic counter): count the kept elements per 16-byte vector, scan the counts locally
// (scan_tile.glsl's subgroup-striped layout), decoupled look-back over the tiles' counts (lookback.glsl),
// then write the kept elements to their positions (through shared memory when the tile fits, see
// STAGE_ELEMS). The last tile writes the kept count to count_out[0].
// Reads n elements (+ n flags), writes the kept elements and one count.
// @variant values
// @variant flags FLAGS=1
#extension GL_KHR_memory_scope_semantics : require
#include "common.glsl"

layout(constant_id = 2) const uint VECS = 4;   // uvec4 per invocation
// How kept elements reach memory (CompactStaging): 0 = each stored directly (scattered stores),
// 1 = the whole tile staged in shared memory in output order, then stored by consecutive invocations
// (STAGE_ELEMS = the tile, WG_SIZE * VECS * 4 words), 2 = per subgroup and row: a row's kept elements (at
// most 4 * gl_SubgroupSize) staged in the subgroup's slice of shared memory, then stored by consecutive
// lanes (STAGE_ELEMS = WG_SIZE * 4 words, whatever VECS is).
layout(constant_id = 3) const uint STAGE_ELEMS = 1;
layout(constant_id = 8) const uint STAGE_MODE = 0;

BUFFER_OF(uvec4, 0, readonly, in_v);
#ifdef FLAGS
BUFFER_OF(uvec4, 1, readonly, flag_v);
#define OUT_BINDING 2
#define COUNT_BINDING 3
#define LB_BINDING 4
#else
#define OUT_BINDING 1
#define COUNT_BINDING 2
#define LB_BINDING 3
#endif
BUFFER(OUT_BINDING, writeonly, out_s);
layout(set = 0, binding = COUNT_BINDING, std430) writeonly buffer Count { uint count_out; };
layout(push_constant) uniform Push {
    uint n;
    uint groups;  // tiles (at least 1, so that n = 0 writes a count of 0)
    uint mode;    // predicate: 0 x != 0, 1 (x & a) == b, 2 x - a < b (unsigned: a <= x < a + b)
    uint a;
    uint b;
    uint reset;   // 1: the status starts zeroed and is left so (lookback.glsl, LB_RESET)
} pc;

// Whether an element (or flag) x passes the predicate. `mode` is uniform: the branch costs nothing.
bool keep(uint x) {
    if (pc.mode == 1u) return (x & pc.a) == pc.b;
    if (pc.mode == 2u) return x - pc.a < pc.b;
    return x != 0u;
}

uint keep_bits(uvec4 f) {
    return (keep(f.x) ? 1u : 0u) | (keep(f.y) ? 2u : 0u) | (keep(f.z) ? 4u : 0u) | (keep(f.w) ? 8u : 0u);
}

const uint TILE_VECS = WG_SIZE * VECS;

#define LB_T uint
#define LB_WORDS 2u
#define LB_SINGLE (pc.groups == 1u)
#define LB_RESET (pc.reset != 0u)
#include "lookback.glsl"
#include "wg_scan.glsl"

DEFINE_WG_SCAN(uint, cwg)

uvec4 load4(uint vi, uint n) {
    if (vi * 4u + 4u <= n) return in_v[vi];
    uvec4 r = uvec4(0u);
    [[unroll]] for (uint c = 0u; c < 4u; c++) {
        if (vi * 4u + c < n) r[c] = in_v[vi][c];
    }
    return r;
}

// The keep mask (bit c: element c of vector vi is kept); elements at or above n are not kept.
uint keep_mask(uint vi, uint n, uvec4 values) {
#ifdef FLAGS
    uvec4 f = uvec4(0u);
    if (vi * 4u + 4u <= n) {
        f = flag_v[vi];
    } else {
        [[unroll]] for (uint c = 0u; c < 4u; c++) {
            if (vi * 4u + c < n) f[c] = flag_v[vi][c];
        }
    }
#else
    uvec4 f = values;
#endif
    uint m = keep_bits(f);
    [[unroll]] for (uint c = 0u; c < 4u; c++) {
        if (vi * 4u + c >= n) m &= ~(1u << c);
    }
    return m;
}

uint lb_fallback_aggregate(uint tile) {
    uint s = 0u;
    uint first = tile * TILE_VECS;
    for (uint i = gl_SubgroupInvocationID; i < TILE_VECS; i += gl_SubgroupSize) {
        uint vi = first + i;
#ifdef FLAGS
        s += bitCount(keep_mask(vi, pc.n, uvec4(0u)));
#else
        s += bitCount(keep_mask(vi, pc.n, load4(vi, pc.n)));
#endif
    }
    return subgroupAdd(s);
}

shared uint stage[STAGE_ELEMS];

// Writes the kept components of v (bits of m) to stage[pos], stage[pos + 1], ... in order.
void stage_kept(uint pos, uvec4 v, uint m) {
    [[unroll]] for (uint c = 0u; c < 4u; c++) {
        if ((m & (1u << c)) != 0u) {
            stage[pos] = v[c];
            pos++;
        }
    }
}

uvec4 vals[VECS];
uint masks[VECS];
uint offs[VECS];

void main() {
    if (lb_idle()) return;
    uint tile = lb_claim_tile();
    uint first = tile * TILE_VECS + gl_SubgroupID * gl_SubgroupSize * VECS + gl_SubgroupInvocationID;
    uint carry = 0u;
    bool full = tile < pc.n / (TILE_VECS * 4u);   // uniform: unchecked loads, issued back to back
#ifdef FLAGS
    uvec4 fl[VECS];
#endif
    if (full) {
        [[unroll]] for (uint j = 0u; j < VECS; j++) vals[j] = in_v[first + j * gl_SubgroupSize];
#ifdef FLAGS
        [[unroll]] for (uint j = 0u; j < VECS; j++) fl[j] = flag_v[first + j * gl_SubgroupSize];
#endif
    } else {
        [[unroll]] for (uint j = 0u; j < VECS; j++) vals[j] = load4(first + j * gl_SubgroupSize, pc.n);
    }
    [[unroll]] for (uint j = 0u; j < VECS; j++) {
        uint vi = first + j * gl_SubgroupSize;
        if (full) {
#ifdef FLAGS
            uvec4 f = fl[j];
#else
            uvec4 f = vals[j];
#endif
            masks[j] = keep_bits(f);
        } else {
            masks[j] = keep_mask(vi, pc.n, vals[j]);
        }
        uint c = bitCount(masks[j]);
        uint incl = subgroupInclusiveAdd(c);
        offs[j] = carry + incl - c;
        carry += subgroupBroadcast(incl, gl_SubgroupSize - 1u);
    }
    uint total;
    uint before = cwg_exclusive_add(gl_SubgroupInvocationID == gl_SubgroupSize - 1u ? carry : 0u, total);
    if (STAGE_MODE == 1u) {
        // Kept elements to shared memory in output order (lb_tile_prefix's barrier publishes them), then
        // written out by consecutive invocations: coalesced stores instead of one scattered store per element.
        [[unroll]] for (uint j = 0u; j < VECS; j++) stage_kept(before + offs[j], vals[j], masks[j]);
        uint tile_prefix = lb_tile_prefix(tile, total);
        for (uint i = gl_LocalInvocationIndex; i < total; i += WG_SIZE) out_s[tile_prefix + i] = stage[i];
    } else if (STAGE_MODE == 2u) {
        // Row by row: the row's kept elements are one contiguous run of the output starting at the row's
        // first offset (lane 0's, whose in-row exclusive count is 0); staged in this subgroup's slice, then
        // stored by consecutive lanes. Only subgroup barriers: the slice is the subgroup's own.
        uint base = lb_tile_prefix(tile, total) + before;
        uint slice = gl_SubgroupID * gl_SubgroupSize * 4u;
        [[unroll]] for (uint j = 0u; j < VECS; j++) {
            uint row = subgroupBroadcastFirst(offs[j]);
            stage_kept(slice + offs[j] - row, vals[j], masks[j]);
            uint count = subgroupAdd(bitCount(masks[j]));
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            for (uint i = gl_SubgroupInvocationID; i < count; i += gl_SubgroupSize) {
                out_s[base + row + i] = stage[slice + i];
            }
            subgroupMemoryBarrierShared();
            subgroupBarrier();   // the slice is read before the next row overwrites it
        }
    } else {
        uint prefix = lb_tile_prefix(tile, total) + before;
        [[unroll]] for (uint j = 0u; j < VECS; j++) {
            uint pos = prefix + offs[j];
            uint m = masks[j];
            [[unroll]] for (uint c = 0u; c < 4u; c++) {
                if ((m & (1u << c)) != 0u) {
                    out_s[pos] = vals[j][c];
                    pos++;
                }
            }
        }
    }
    if (tile == pc.groups - 1u && gl_LocalInvocationIndex == 0u) count_out = lb_sh_prefix + total;
}
