#version 460
// radix_spine.comp (vksort::radix::spine): reduce-then-scan, step 2 of a digit place: workgroup d scans digit
// d's tile counts (status[d * tiles + t]) into global offsets: the place's global digit offset plus
// the exclusive sum over earlier tiles.
#include "common.glsl"
#include "radix_common.glsl"

layout(constant_id = 3) const uint DIGIT_BITS = 8;
const uint RADIX = 1u << DIGIT_BITS;

BUFFER(0, readonly, meta);
BUFFER(1, , status);

layout(push_constant) uniform Push {
    uint pass_index;
    uint tile;         // keys per tile
    uint hist_off;
} pc;

#include "wg_scan.glsl"
DEFINE_WG_SCAN(uint, sscan)

void main() {
    uint d = flat_group_id();
    if (d >= RADIX) return;
    uint n = meta[CTRL_N];
    uint tiles = div_ceil(n, pc.tile);
    uint carry = meta[pc.hist_off + pc.pass_index * RADIX + d];
    uint row = d * tiles;
    for (uint base = 0u; base < tiles; base += WG_SIZE) {
        uint t = base + gl_LocalInvocationID.x;
        uint c = t < tiles ? status[row + t] : 0u;
        uint total;
        uint ex = sscan_exclusive_add(c, total);
        if (t < tiles) status[row + t] = carry + ex;
        carry += total;
    }
}
