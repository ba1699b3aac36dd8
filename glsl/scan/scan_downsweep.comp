#version 460
// scan_downsweep.comp: reduce-then-scan, pass 3. Workgroup g rescans tile g (like scan_lookback.comp's
// local scan) and adds the spine's exclusive prefix partials[g]. Reads n elements + one per tile, writes n.
// input may alias output (each tile reads its own elements before writing them).
// @variant u32
// @variant u64 ELEM_U64=1
#include "common.glsl"
#include "scan_elem.glsl"

layout(constant_id = 2) const uint VECS = 4;
layout(constant_id = 3) const uint INCLUSIVE = 0;

BUFFER_OF(ELEM_V, 0, readonly, in_v);
BUFFER_OF(ELEM_V, 1, writeonly, out_v);
BUFFER_OF(ELEM_T, 2, readonly, partials);
layout(push_constant) uniform Push {
    uint n;
    uint groups;  // tiles
} pc;

#include "scan_tile.glsl"

void main() {
    uint g = flat_group_id();
    if (g >= pc.groups) return;
    tile_load(g, pc.n);
    tile_scan(INCLUSIVE != 0u);
    tile_store(g, pc.n, partials[g]);
}
