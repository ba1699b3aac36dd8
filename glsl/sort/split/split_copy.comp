#version 460
// split_copy.comp (vksort::split::copy): when an odd number of passes ran, the sorted keys (and values) lie in
// the scratch side: copies them back to the caller's buffers. Dispatched indirectly (0 workgroups for an even
// number of passes). Reads and writes k + v bytes per key.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

SIDE(0, 2, writeonly, keys_out, vals_out);
SIDE(1, 3, readonly, keys_in, vals_in);
BUFFER(4, readonly, meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
} pc;

#include "split_common.glsl"

void main() {
    uint n = ITEM_N(pc);
    if ((meta[CTRL_PASSES] & 1u) == 0u) return;
    uint base = flat_group_id() * WG_SIZE * KPT;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint i = base + a * WG_SIZE + gl_LocalInvocationID.x;
        if (i < n) {
            SET_KEY(keys_out, i, KEY_AT(keys_in, i));
            if (VAL_WORDS > 0u) SET_VAL(vals_out, i, VAL_AT(vals_in, i));
        }
    }
}
