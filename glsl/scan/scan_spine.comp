#version 460
// scan_spine.comp: reduce-then-scan, pass 2. One workgroup scans the tile sums (exclusive, in place),
// looping over chunks of WG_SIZE * VECS vectors with a running carry. No inter-workgroup waiting.
// Reads and writes one element per tile of the main scan.
// @variant u32
// @variant u64 ELEM_U64=1
#include "common.glsl"
#include "scan_elem.glsl"

layout(constant_id = 2) const uint VECS = 4;

// Both bindings are the partials region: read as input, written as output, each element by one invocation.
BUFFER_OF(ELEM_V, 0, readonly, in_v);
BUFFER_OF(ELEM_V, 1, writeonly, out_v);
layout(push_constant) uniform Push {
    uint count;   // tile sums to scan
} pc;

#include "scan_tile.glsl"

void main() {
    if (flat_group_id() != 0u) return;
    ELEM_T carry = ELEM_T(0);
    uint chunks = div_ceil(pc.count, TILE_ELEMS);
    for (uint c = 0u; c < chunks; c++) {
        tile_load(c, pc.count);
        ELEM_T total = tile_scan(false);
        tile_store(c, pc.count, carry);
        carry += total;
    }
}
