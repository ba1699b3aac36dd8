#version 460
// radix_copy.comp (vksort::radix::copy): when an odd number of passes ran, copies the sorted keys (and values)
// from the scratch side back to the caller's buffers. Dispatched indirectly with 0 groups when not needed; once
// per portion (bindings from key `first` on) when the arrays are larger than one binding.
#include "common.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint KPT = 4;
layout(constant_id = 4) const uint KEY_WORDS = 1;
layout(constant_id = 5) const uint VAL_WORDS = 0;

SIDE(0, 2, writeonly, keys_a, vals_a);
SIDE(1, 3, readonly, keys_b, vals_b);
BUFFER(4, readonly, meta);

layout(push_constant) uniform Push {
    uint first;        // index of the portion's first key
    uint portion_len;  // keys per portion
} pc;

void main() {
    uint total = meta[CTRL_N];
    uint n = total > pc.first ? min(total - pc.first, pc.portion_len) : 0u;
    if (meta[CTRL_FINAL_SEL] == 0u) return;
    uint g = flat_group_id();
    uint base = g * WG_SIZE * KPT;
    if (base >= n) return;
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        uint i = base + k * WG_SIZE + gl_LocalInvocationID.x;
        if (i < n) {
            for (uint w = 0u; w < KEY_WORDS; w++) keys_a[i * KEY_WORDS + w] = keys_b[i * KEY_WORDS + w];
            for (uint w = 0u; w < VAL_WORDS; w++) vals_a[i * VAL_WORDS + w] = vals_b[i * VAL_WORDS + w];
        }
    }
}
