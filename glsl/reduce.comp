#version 460
// reduce.comp: single-pass reduction (sum, min or max) of n elements into out[0].
// `groups` workgroups each reduce tiles g, g + groups, ... (WG_SIZE * VECS 16-byte vectors per tile) and
// write their partial to scratch; the last workgroup to finish (atomic counter between buffer memory barriers) reduces
// the partials and writes the result. n = 0 writes the identity.
// Scratch: word 0 the done counter (cleared by the host), words 1..3 reserved, then `groups` partials.
// Reads n elements, writes one (+ one partial per workgroup).
// @variant u32_sum OP=0
// @variant u32_min OP=1
// @variant u32_max OP=2
// @variant u64_sum OP=0 ELEM_U64=1
// @variant u64_min OP=1 ELEM_U64=1
// @variant u64_max OP=2 ELEM_U64=1
#include "common.glsl"
#include "scan_elem.glsl"

layout(constant_id = 2) const uint VECS = 4;

BUFFER_OF(ELEM_V, 0, readonly, in_v);
layout(set = 0, binding = 1, std430) writeonly buffer Out { ELEM_T result; };
layout(set = 0, binding = 2, std430) coherent buffer Scratch {
    uint done;
    uint reserved[3];
    ELEM_T partials[];
};
layout(push_constant) uniform Push {
    uint n;
    uint tiles;
    uint groups;
} pc;

#if OP == 0
#define IDENT ELEM_T(0)
#define COMBINE(a, b) ((a) + (b))
#define SG_OP subgroupAdd
#elif OP == 1
#define IDENT ELEM_ONES
#define COMBINE(a, b) min((a), (b))
#define SG_OP subgroupMin
#else
#define IDENT ELEM_T(0)
#define COMBINE(a, b) max((a), (b))
#define SG_OP subgroupMax
#endif

const uint TILE_VECS = WG_SIZE * VECS;
shared ELEM_T sg_part[MAX_SUBGROUPS];
shared bool is_last;

ELEM_V load_vec(uint vi) {
    if (vi * VW + VW <= pc.n) return in_v[vi];
    ELEM_V r = ELEM_V(IDENT);
    [[unroll]] for (uint c = 0u; c < VW; c++) {
        uint e = vi * VW + c;
        if (e < pc.n) r[c] = in_v[vi][c];
    }
    return r;
}

ELEM_T hreduce(ELEM_V x) {
#ifdef ELEM_U64
    return COMBINE(x.x, x.y);
#else
    return COMBINE(COMBINE(x.x, x.y), COMBINE(x.z, x.w));
#endif
}

// Reduction over the workgroup; the result is valid in subgroup 0.
ELEM_T wg_reduce(ELEM_T v) {
    v = SG_OP(v);
    if (gl_SubgroupInvocationID == 0u) sg_part[gl_SubgroupID] = v;
    barrier();
    ELEM_T r = IDENT;
    if (gl_SubgroupID == 0u) {
        for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) r = COMBINE(r, sg_part[i]);
        r = SG_OP(r);
    }
    return r;
}

void main() {
    uint g = flat_group_id();
    if (g >= pc.groups) return;
    ELEM_V acc = ELEM_V(IDENT);
    uint lane_first = gl_SubgroupID * gl_SubgroupSize * VECS + gl_SubgroupInvocationID;
    for (uint t = g; t < pc.tiles; t += pc.groups) {
        uint first = t * TILE_VECS + lane_first;
        ELEM_V xs[VECS];
        if (t < pc.n / (TILE_VECS * VW)) {   // full tile: unchecked loads, issued back to back
            [[unroll]] for (uint j = 0u; j < VECS; j++) xs[j] = in_v[first + j * gl_SubgroupSize];
        } else {
            [[unroll]] for (uint j = 0u; j < VECS; j++) xs[j] = load_vec(first + j * gl_SubgroupSize);
        }
        [[unroll]] for (uint j = 0u; j < VECS; j++) {
            ELEM_V x = xs[j];
#ifdef ELEM_U64
            acc = ELEM_V(COMBINE(acc.x, x.x), COMBINE(acc.y, x.y));
#else
            acc = uvec4(COMBINE(acc.x, x.x), COMBINE(acc.y, x.y), COMBINE(acc.z, x.z), COMBINE(acc.w, x.w));
#endif
        }
    }
    ELEM_T part = wg_reduce(hreduce(acc));
    if (gl_LocalInvocationIndex == 0u) partials[g] = part;
    // Fences in uniform control flow (lavapipe mishandles them in divergent flow), relaxed counter.
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u) is_last = atomicAdd(done, 1u) == pc.groups - 1u;
    barrier();
    if (!is_last) return;
    memoryBarrierBuffer();
    ELEM_T r = IDENT;
    for (uint i = gl_LocalInvocationIndex; i < pc.groups; i += WG_SIZE) r = COMBINE(r, partials[i]);
    barrier();
    r = wg_reduce(r);
    if (gl_LocalInvocationIndex == 0u) result = r;
}
