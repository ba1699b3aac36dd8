#version 460
// debug_wait_flag.comp: a diagnostic kernel that runs until the host sets flag[0] (a host-visible word) to
// non-zero, then adds 1 to flag[1] per invocation. vksort::diagnostics::cmd_wait_flag records it (one
// workgroup; 65535 on CPU drivers) to prove that waits are bounded whatever the device's speed: the host sets
// the flag only after its wait has returned. Never part of a real pass.
#include "common.glsl"

BUFFER(0, coherent, flag);

void main() {
    // Up to 2^24 polls per invocation where loops run as written: seconds on a GPU, far beyond any wait bound
    // a test sets, yet short enough that a kernel left behind by a lost context (whose flag can no longer be
    // written) ends by itself instead of holding an SM for hours. llvmpipe (lavapipe) ends loops after 65535
    // iterations, nested ones included (they share the count), so there the wait's length comes from the
    // number of workgroups: each one that starts after the flag is set returns at its first poll.
    for (uint i = 0u; i < 256u; i++) {
        for (uint j = 0u; j < 65535u; j++) {
            if (atomicAdd(flag[0], 0u) != 0u) {
                atomicAdd(flag[1], 1u);
                return;
            }
        }
    }
    atomicAdd(flag[1], 1u);
}
