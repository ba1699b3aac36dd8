#version 460
// quicksort_setup.comp (vksort::quicksort::setup): zeroes the round states and the global slot of the
// bookkeeping (quicksort.glsl) before a sort that runs phase one: counters 0, every indirect grid (0, 1, 1), so
// rounds nobody plans stay empty dispatches. One workgroup.
#include "common.glsl"

BUFFER(0, , meta);

layout(push_constant) uniform Push {
    uint rs_off;   // first word of the round states
    uint words;    // words of the round states and the global slot
} pc;

const uint RS_WORDS = 8u;
const uint RS_ARGS = 4u;

void main() {
    if (flat_group_id() != 0u) return;
    for (uint i = gl_LocalInvocationID.x; i < pc.words; i += WG_SIZE) {
        uint w = i % RS_WORDS;
        meta[pc.rs_off + i] = (w == RS_ARGS + 1u || w == RS_ARGS + 2u) ? 1u : 0u;
    }
}
