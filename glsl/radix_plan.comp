#version 460
// radix_plan.comp (vksort::radix::plan): one workgroup, after the upfront histogram. Per digit place: turns the
// histogram into global exclusive digit offsets (in place) and skips the place when one digit holds all n keys
// (the pass would be the identity). Then writes, per place, the indirect dispatch arguments of its passes
// (0 groups when skipped) and the side the pass reads from, and the final copy's arguments.
#include "common.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint DIGIT_BITS = 8;
const uint RADIX = 1u << DIGIT_BITS;

layout(set = 0, binding = 0, std430) buffer Meta { uint meta[]; };

layout(push_constant) uniform Push {
    uint places;
    uint tile;        // keys per tile of the pass kernels
    uint max_x;       // maxComputeWorkGroupCount[0]
    uint hist_off;
    uint copy_chunk;  // keys per workgroup of the copy kernel
    uint portion_tiles;   // tiles per portion: the pass kernels' grids cover one portion
    uint copy_len;        // keys per dispatch of the final copy
} pc;

#include "wg_scan.glsl"
DEFINE_WG_SCAN(uint, pscan)

shared uint s_skip;

uvec3 grid(uint groups) {
    if (groups == 0u) return uvec3(0u, 1u, 1u);
    uint x = min(groups, pc.max_x);
    return uvec3(x, div_ceil(groups, x), 1u);
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = meta[CTRL_N];
    uint tiles = div_ceil(n, pc.tile);
    const uint DPT = (RADIX + WG_SIZE - 1u) / WG_SIZE;
    uint sel = 0u;
    for (uint p = 0u; p < pc.places; p++) {
        if (lid == 0u) s_skip = n == 0u ? 1u : 0u;
        barrier();
        uint h = pc.hist_off + p * RADIX;
        uint d0 = lid * DPT;
        uint sum = 0u;
        for (uint k = 0u; k < DPT; k++) {
            uint d = d0 + k;
            if (d < RADIX) {
                uint c = meta[h + d];
                if (c == n) s_skip = 1u;
                sum += c;
            }
        }
        uint total;
        uint ex = pscan_exclusive_add(sum, total);
        for (uint k = 0u; k < DPT; k++) {
            uint d = d0 + k;
            if (d < RADIX) {
                uint c = meta[h + d];
                meta[h + d] = ex;
                ex += c;
            }
        }
        barrier();
        bool skip = s_skip != 0u;
        if (lid == 0u) {
            uint r = CTRL_PASS + 8u * p;
            uvec3 t = grid(skip ? 0u : min(tiles, pc.portion_tiles));
            meta[r + 0u] = t.x;
            meta[r + 1u] = t.y;
            meta[r + 2u] = t.z;
            meta[r + 3u] = sel;
            uvec3 s = grid(skip ? 0u : RADIX);
            meta[r + 4u] = s.x;
            meta[r + 5u] = s.y;
            meta[r + 6u] = s.z;
            meta[r + 7u] = skip ? 1u : 0u;
        }
        if (!skip) sel ^= 1u;
        barrier();
    }
    if (lid == 0u) {
        meta[CTRL_TILES] = tiles;
        meta[CTRL_FINAL_SEL] = sel;
        uvec3 c = grid(sel == 1u ? div_ceil(min(n, pc.copy_len), pc.copy_chunk) : 0u);
        meta[CTRL_COPY_ARGS + 0u] = c.x;
        meta[CTRL_COPY_ARGS + 1u] = c.y;
        meta[CTRL_COPY_ARGS + 2u] = c.z;
    }
}
