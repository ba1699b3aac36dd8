#version 460
// split_flags.comp (vksort::split::flags): the map of the per-bit form (after Seed 002's radix sort): for the
// varying bit of pass `pass`, flag[i] = 1 when bit b of key i's transformed key is 0 (the "false" flags whose
// exclusive scan places the zeros). Reads k bytes and writes 4 bytes per key. Dispatched indirectly: 0
// workgroups when the pass does not run.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

BUFFER(0, readonly, keys);
BUFFER(1, writeonly, flags);
BUFFER(2, readonly, meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint pass;
} pc;

#include "split_common.glsl"

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (pc.pass >= meta[CTRL_PASSES]) return;
    uint bit = meta[CTRL_BITS + pc.pass];
    uint w = bit >> 5;
    uint s = bit & 31u;
    uint base = flat_group_id() * WG_SIZE * KPT;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint i = base + a * WG_SIZE + gl_LocalInvocationID.x;
        if (i < n) {
            uvec4 t = key_order(KEY_AT(keys, i));
            flags[i] = ((t[w] >> s) & 1u) ^ 1u;
        }
    }
}
