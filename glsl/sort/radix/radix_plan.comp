#version 460
// radix_plan.comp (vksort::radix::plan): one workgroup, after the upfront histograms of every portion (sorts
// of several portions; with one portion, the upfront pass's last workgroup plans instead). See radix_plan.glsl.
#include "common.glsl"
#include "radix_common.glsl"

layout(constant_id = 3) const uint DIGIT_BITS = 8;
const uint RADIX = 1u << DIGIT_BITS;

BUFFER(0, , meta);

layout(push_constant) uniform Push {
    uint places;
    uint tile;        // keys per tile of the pass kernels
    uint max_x;       // maxComputeWorkGroupCount[0]
    uint hist_off;
    uint copy_chunk;  // keys per workgroup of the copy kernel
    uint portion_tiles;   // tiles per portion: the pass kernels' grids cover one portion
    uint copy_len;        // keys per dispatch of the final copy
    uint lo;              // the sorted bits [lo, hi)
    uint hi;
    uint hybrid;          // the hybrid sort's MSD places and group bits (radix_plan.glsl); 0 for the LSD sorts
} pc;

#include "wg_scan.glsl"
#include "radix_plan.glsl"

void main() {
    radix_plan(pc.places, pc.tile, pc.max_x, pc.hist_off, pc.copy_chunk, pc.portion_tiles, pc.copy_len, pc.lo, pc.hi,
               pc.hybrid);
}
