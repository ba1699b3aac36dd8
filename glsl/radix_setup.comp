#version 460
// radix_setup.comp (vksort::radix::setup): the GPU-side count. Reads count[count_word], clamps it to the
// capacity, records the raw count and an overflow flag, and writes n and the upfront pass's indirect dispatch
// arguments into the control block. One invocation does the work.
#include "common.glsl"
#include "radix_common.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Count { uint count[]; };
layout(set = 0, binding = 1, std430) buffer Meta { uint meta[]; };

layout(push_constant) uniform Push {
    uint count_word;   // word index of the count in the binding
    uint capacity;
    uint chunk;        // keys per upfront workgroup
    uint max_x;        // maxComputeWorkGroupCount[0]
    uint max_groups;   // most upfront workgroups
} pc;

void main() {
    if (gl_LocalInvocationID.x != 0u || flat_group_id() != 0u) return;
    uint raw = count[pc.count_word];
    uint n = min(raw, pc.capacity);
    meta[CTRL_N] = n;
    meta[CTRL_RAW_COUNT] = raw;
    meta[CTRL_OVERFLOW] = raw > pc.capacity ? 1u : 0u;
    uint groups = min(div_ceil(n, pc.chunk), pc.max_groups);
    uint x = groups == 0u ? 0u : min(groups, pc.max_x);
    meta[CTRL_UPFRONT_ARGS + 0u] = x;
    meta[CTRL_UPFRONT_ARGS + 1u] = groups == 0u ? 1u : div_ceil(groups, x);
    meta[CTRL_UPFRONT_ARGS + 2u] = 1u;
}
