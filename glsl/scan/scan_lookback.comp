#version 460
// scan_lookback.comp: the single-pass prefix sum (decoupled look-back). One workgroup per tile; tiles are
// claimed with an atomic counter. Each workgroup loads its tile (16-byte vectors, VECS per invocation),
// scans it locally (scan_tile.glsl), publishes its aggregate, looks back over its predecessors
// (lookback.glsl), publishes its inclusive prefix and writes tile + prefix.
// Reads n elements (+ a few status words), writes n elements. input may alias output (in place).
// Variants u32_inplace / u64_inplace (LB_INPLACE) serve input == output: their data is `coherent` (see the
// in-place protocol in lookback.glsl).
// @variant u32
// @variant u64 ELEM_U64=1
// @variant u32_inplace LB_INPLACE=1
// @variant u64_inplace ELEM_U64=1 LB_INPLACE=1
#extension GL_KHR_memory_scope_semantics : require
#include "common.glsl"
#include "scan_elem.glsl"

layout(constant_id = 2) const uint VECS = 4;       // 16-byte vectors per invocation
layout(constant_id = 3) const uint INCLUSIVE = 0;  // 1: inclusive scan, 0: exclusive

#ifdef LB_INPLACE
BUFFER_OF(ELEM_V, 0, coherent readonly, in_v);
BUFFER_OF(ELEM_V, 1, coherent writeonly, out_v);
#else
BUFFER_OF(ELEM_V, 0, readonly, in_v);
BUFFER_OF(ELEM_V, 1, writeonly, out_v);
#endif
layout(push_constant) uniform Push {
    uint n;       // elements
    uint groups;  // workgroups dispatched (= tiles)
    uint reset;   // 1: the status starts zeroed and is left so (lookback.glsl, LB_RESET)
} pc;

#include "scan_tile.glsl"

#define LB_T ELEM_T
#ifdef ELEM_U64
#define LB_WORDS 4u
#else
#define LB_WORDS 2u
#endif
#define LB_BINDING 2
#define LB_SINGLE (pc.groups == 1u)
#define LB_RESET (pc.reset != 0u)
#include "lookback.glsl"

LB_T lb_fallback_aggregate(uint tile) {
    ELEM_T s = ELEM_T(0);
    uint first = tile * TILE_VECS;
    for (uint i = gl_SubgroupInvocationID; i < TILE_VECS; i += gl_SubgroupSize) {
        s += vec_sum(load_vec(first + i, pc.n, ELEM_T(0)));
    }
    return subgroupAdd(s);
}

void main() {
    if (lb_idle()) return;
    uint tile = lb_claim_tile();
    tile_load(tile, pc.n);
    ELEM_T total = tile_scan(INCLUSIVE != 0u);
    ELEM_T prefix = lb_tile_prefix(tile, total);
    tile_store(tile, pc.n, prefix);
}
