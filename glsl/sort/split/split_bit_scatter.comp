#version 460
// split_bit_scatter.comp (vksort::split::bit_scatter): the scatter of the per-bit form. With zeros the
// exclusive scan of the flags of split_flags (zeros[i]: the zeros before key i) and Z the number of zeros, key i
// goes to zeros[i] when its bit is 0, else to Z + i - zeros[i] (ones keep their order after the zeros). Moves
// the raw key and its value from the source side to the destination side. Reads k + v + 4 bytes and writes
// k + v bytes per key. Dispatched indirectly: 0 workgroups when the pass does not run.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

SIDE(0, 2, readonly, keys_in, vals_in);
SIDE(1, 3, writeonly, keys_out, vals_out);
BUFFER(4, readonly, zeros);
BUFFER(5, readonly, meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint pass;
} pc;

#include "split_common.glsl"

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (pc.pass >= meta[CTRL_PASSES] || n == 0u) return;
    uint bit = meta[CTRL_BITS + pc.pass];
    uint w = bit >> 5;
    uint s = bit & 31u;
    uint last_one = (key_order(KEY_AT(keys_in, n - 1u))[w] >> s) & 1u;
    uint total_zeros = zeros[n - 1u] + (last_one ^ 1u);
    uint base = flat_group_id() * WG_SIZE * KPT;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint i = base + a * WG_SIZE + gl_LocalInvocationID.x;
        if (i < n) {
            uvec4 raw = KEY_AT(keys_in, i);
            uint one = (key_order(raw)[w] >> s) & 1u;
            uint z = zeros[i];
            uint dst = one == 0u ? z : total_zeros + i - z;
            SET_KEY(keys_out, dst, raw);
            if (VAL_WORDS > 0u) SET_VAL(vals_out, dst, VAL_AT(vals_in, i));
        }
    }
}
