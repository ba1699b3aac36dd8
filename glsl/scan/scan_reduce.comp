#version 460
// scan_reduce.comp: reduce-then-scan, pass 1. Workgroup g sums tile g (WG_SIZE * VECS 16-byte vectors,
// subgroup-striped like scan_tile.glsl) and writes the sum to partials[g].
// Reads n elements, writes one element per tile.
// @variant u32
// @variant u64 ELEM_U64=1
#include "common.glsl"
#include "scan_elem.glsl"

layout(constant_id = 2) const uint VECS = 4;

BUFFER_OF(ELEM_V, 0, readonly, in_v);
BUFFER_OF(ELEM_T, 1, writeonly, partials);
layout(push_constant) uniform Push {
    uint n;       // elements
    uint groups;  // tiles
} pc;

const uint TILE_VECS = WG_SIZE * VECS;
shared ELEM_T sg_sums[MAX_SUBGROUPS];

ELEM_V load_vec(uint vi, uint n) {
    if (vi * VW + VW <= n) return in_v[vi];
    ELEM_V r = ELEM_V(0);
    [[unroll]] for (uint c = 0u; c < VW; c++) {
        uint e = vi * VW + c;
        if (e < n) r[c] = in_v[vi][c];
    }
    return r;
}

void main() {
    uint g = flat_group_id();
    if (g >= pc.groups) return;
    uint first = g * TILE_VECS + gl_SubgroupID * gl_SubgroupSize * VECS + gl_SubgroupInvocationID;
    ELEM_V acc = ELEM_V(0);
    if (g < pc.n / (TILE_VECS * VW)) {   // full tile: unchecked loads, issued back to back
        [[unroll]] for (uint j = 0u; j < VECS; j++) acc += in_v[first + j * gl_SubgroupSize];
    } else {
        [[unroll]] for (uint j = 0u; j < VECS; j++) acc += load_vec(first + j * gl_SubgroupSize, pc.n);
    }
#ifdef ELEM_U64
    ELEM_T s = subgroupAdd(acc.x + acc.y);
#else
    ELEM_T s = subgroupAdd((acc.x + acc.y) + (acc.z + acc.w));
#endif
    if (gl_SubgroupInvocationID == 0u) sg_sums[gl_SubgroupID] = s;
    barrier();
    if (gl_SubgroupID == 0u) {
        ELEM_T t = ELEM_T(0);
        for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) t += sg_sums[i];
        t = subgroupAdd(t);
        if (gl_SubgroupInvocationID == 0u) partials[g] = t;
    }
}
