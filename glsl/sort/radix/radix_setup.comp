#version 460
// radix_setup.comp (vksort::radix::setup): the first pass of a radix sort. Zeroes the scratch region the sort
// accumulates into (control block, histograms and, for Onesweep, the look-back status slots) and writes the
// control block: n (the host's count, or the GPU-side count read from count[count_word] and clamped to the
// capacity, with the raw count and an overflow flag), and the upfront pass's indirect dispatch arguments (or, for
// the fused Onesweep with a GPU-side count, its grid: one workgroup per tile of n, or per item).
//
// The region may be larger than one binding: the host dispatches the kernel once per chunk of at most one
// binding (`clear` bound from the chunk's first byte, `vecs` 16-byte words); only the first chunk's dispatch
// has `control` set, and its workgroup 0 writes the control block after zeroing it. Each workgroup zeroes
// WG_SIZE x 4 vectors (16 KiB at 256 invocations).
#include "common.glsl"
#include "radix_common.glsl"

BUFFER(0, readonly, count);
BUFFER_OF(uvec4, 1, , clear);

layout(push_constant) uniform Push {
    uint count_word;   // word index of the GPU-side count in binding 0
    uint capacity;
    uint chunk;        // keys per upfront workgroup
    uint max_x;        // maxComputeWorkGroupCount[0]
    uint max_groups;   // most upfront workgroups
    uint host_n;       // the host's count (gpu_count == 0)
    uint gpu_count;    // 1: n comes from binding 0
    uint vecs;         // 16-byte words of this chunk
    uint control;      // 1: this chunk starts with the control block
    uint fused_places;    // non-zero: the fused Onesweep's grid instead of the upfront pass's (chunk: its tile)
    uint fused_loop_max;  // the fused grid: one workgroup per tile up to this many keys, else one per item
    uint fused_ups;       // the fused sort's most upfront items
} pc;

const uint VECS_PER_INVOCATION = 4u;

void set_word(uint w, uint v) {
    clear[w / 4u][w % 4u] = v;
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint g = flat_group_id();
    uint base = g * WG_SIZE * VECS_PER_INVOCATION;
    [[unroll]] for (uint k = 0u; k < VECS_PER_INVOCATION; k++) {
        uint i = base + k * WG_SIZE + lid;
        if (i < pc.vecs) clear[i] = uvec4(0u);
    }
    if (pc.control == 0u || g != 0u) return;
    // The control block lies in this workgroup's first vectors: its zeroes are written before n.
    memoryBarrierBuffer();
    barrier();
    if (lid != 0u) return;
    uint raw = pc.gpu_count != 0u ? count[pc.count_word] : pc.host_n;
    uint n = min(raw, pc.capacity);
    set_word(CTRL_N, n);
    set_word(CTRL_RAW_COUNT, raw);
    set_word(CTRL_OVERFLOW, raw > pc.capacity ? 1u : 0u);
    uint groups = div_ceil(n, pc.chunk);
    if (pc.fused_places != 0u && n > pc.fused_loop_max) groups = min(groups, pc.fused_ups) + pc.fused_places * groups;
    groups = min(groups, pc.max_groups);
    uvec3 grid = indirect_grid(groups, pc.max_x);
    set_word(CTRL_UPFRONT_ARGS + 0u, grid.x);
    set_word(CTRL_UPFRONT_ARGS + 1u, grid.y);
    set_word(CTRL_UPFRONT_ARGS + 2u, grid.z);
}
