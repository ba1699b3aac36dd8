#version 460
// scan_add.comp: the uniform add of the Blelloch scan: data[i] += sums[i / tile] for tiles >= 1 (tile 0's
// scanned sum is 0). Each invocation handles ITEMS elements, WG_SIZE apart. Reads and writes n elements.
// @variant u32
// @variant u64 ELEM_U64=1
#include "common.glsl"
#include "scan_elem.glsl"

layout(constant_id = 2) const uint ITEMS = 4;

BUFFER_OF(ELEM_T, 0, , data);
BUFFER_OF(ELEM_T, 1, readonly, sums);
layout(push_constant) uniform Push {
    uint n;
    uint tile;    // elements per tile of the level below
    uint groups;
} pc;

void main() {
    uint g = flat_group_id();
    if (g >= pc.groups) return;
    uint base = g * WG_SIZE * ITEMS + gl_LocalInvocationID.x;
    [[unroll]] for (uint k = 0u; k < ITEMS; k++) {
        uint i = base + k * WG_SIZE;
        if (i < pc.n && i >= pc.tile) data[i] += sums[i / pc.tile];
    }
}
