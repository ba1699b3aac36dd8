#version 460
// scan_hillis_steele.comp: the naive scan, one global pass per doubling step (ping-pong through scratch).
// mode 0 (vksort::scan::hillis_steele): dst[i] = src[i] + (i >= stride ? src[i - stride] : 0).
// mode 1 (vksort::scan::shift), the last pass: dst[i] = src[i - 1] (0 at i = 0) for an exclusive scan;
// a plain copy for an inclusive one. Each invocation handles ITEMS elements, WG_SIZE apart.
// Reads 2 elements (mode 0) or 1 (mode 1) and writes 1 per element.
// @variant u32
// @variant u64 ELEM_U64=1
#include "common.glsl"
#include "scan_elem.glsl"

layout(constant_id = 2) const uint ITEMS = 4;

BUFFER_OF(ELEM_T, 0, readonly, src);
BUFFER_OF(ELEM_T, 1, writeonly, dst);
layout(push_constant) uniform Push {
    uint n;
    uint stride;
    uint mode;       // 0: add, 1: shift (exclusive) / copy (inclusive)
    uint inclusive;
    uint groups;
} pc;

void main() {
    uint g = flat_group_id();
    if (g >= pc.groups) return;
    uint base = g * WG_SIZE * ITEMS + gl_LocalInvocationID.x;
    [[unroll]] for (uint k = 0u; k < ITEMS; k++) {
        uint i = base + k * WG_SIZE;
        if (i >= pc.n) break;
        ELEM_T v;
        if (pc.mode == 0u) {
            v = src[i];
            if (i >= pc.stride) v += src[i - pc.stride];
        } else if (pc.inclusive != 0u) {
            v = src[i];
        } else {
            v = i == 0u ? ELEM_T(0) : src[i - 1u];
        }
        dst[i] = v;
    }
}
