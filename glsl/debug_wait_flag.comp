#version 460
// debug_wait_flag.comp: a diagnostic kernel that runs until the host sets flag[0] (a host-visible word) to
// non-zero, then adds 1 to flag[1] per invocation. vksort::diagnostics::cmd_wait_flag records 65535
// workgroups of it to prove that waits are bounded whatever the device's speed: the host sets the flag only
// after its wait has returned. Never part of a real pass.
#include "common.glsl"

layout(set = 0, binding = 0, std430) coherent buffer Flag { uint flag[]; };

void main() {
    // Up to 2^32 polls per invocation where loops run as written. llvmpipe (lavapipe) ends loops after 65535
    // iterations, nested ones included (they share the count), so there the wait's length comes from the
    // number of workgroups: each one that starts after the flag is set returns at its first poll.
    for (uint i = 0u; i < 65535u; i++) {
        for (uint j = 0u; j < 65535u; j++) {
            if (atomicAdd(flag[0], 0u) != 0u) {
                atomicAdd(flag[1], 1u);
                return;
            }
        }
    }
    atomicAdd(flag[1], 1u);
}
