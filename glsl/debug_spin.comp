#version 460
// debug_spin.comp: a diagnostic kernel that keeps the GPU busy for `iterations` rounds of a dependent
// hash chain per invocation, in `groups` workgroups. vksort::diagnostics uses it to prove that waits are bounded (a short timeout
// ends in Error::Timeout, not a hung process). Never part of a real pass.
#include "common.glsl"

BUFFER(0, , counter);
layout(push_constant) uniform Push { uint iterations; } pc;

void main() {
    uint x = counter[0] + gl_LocalInvocationID.x + 1u;
    // llvmpipe (lavapipe) ends any loop after 65535 iterations, so long runs come from many workgroups.
    for (uint i = 0u; i < min(pc.iterations, 65535u); i++) {
        x = x * 0x9e3779b1u + (x >> 15) + i;
        if ((x & 0xfffu) == 0x5a5u) x = atomicAdd(counter[0], 0u) + x;
    }
    atomicAdd(counter[1], x);
}
