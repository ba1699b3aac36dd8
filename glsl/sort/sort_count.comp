#version 460
// sort_count.comp (vksort::sort::count): the first pass of a comparison or partition sort with a GPU-side count
// (src/sort/items.rs). Reads the u32 count, clamps it to the capacity the sort was recorded for, and writes the
// control block (src/sort/count.rs): CTRL_N (the count sorted), CTRL_RAW_COUNT (as read) and CTRL_OVERFLOW (1
// when it exceeded the capacity). Every later pass reads n from CTRL_N. One invocation.
#include "common.glsl"
#include "control.glsl"

BUFFER(0, readonly, count);
BUFFER(1, , meta);

layout(push_constant) uniform Push {
    uint count_word;
    uint capacity;
} pc;

void main() {
    if (gl_LocalInvocationID.x != 0u || flat_group_id() != 0u) return;
    uint raw = count[pc.count_word];
    CTRL_RECORD_COUNT(meta, min(raw, pc.capacity), raw, pc.capacity)
}
