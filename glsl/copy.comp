#version 460
// copy.comp: the bandwidth roofline. Copies `n_vec4` uvec4 words from src to dst, WG_SIZE * ITEMS vec4s
// per workgroup. vksort::copy measures with it; it is what every other pass is compared against.
#include "common.glsl"

layout(constant_id = 2) const uint ITEMS = 4;

BUFFER_OF(uvec4, 0, readonly, src);
BUFFER_OF(uvec4, 1, writeonly, dst);
layout(push_constant) uniform Push { uint n_vec4; uint group_count; } pc;

void main() {
    uint g = flat_group_id();
    if (g >= pc.group_count) return;
    uint base = g * WG_SIZE * ITEMS + gl_LocalInvocationID.x;
    [[unroll]] for (uint i = 0u; i < ITEMS; i++) {
        uint idx = base + i * WG_SIZE;
        if (idx < pc.n_vec4) dst[idx] = src[idx];
    }
}
