#version 460
// split_differ.comp (vksort::split::differ): which bits of the transformed keys vary. One workgroup per tile of
// WG_SIZE x KPT keys ORs the transformed keys and their complements (subgroup, then workgroup), then ORs both
// into the control block (CTRL_OR, CTRL_NOR; cleared before). Reads every key once; tiles at or beyond n do
// nothing.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;

BUFFER(0, readonly, keys);
BUFFER(1, , meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
} pc;

#include "split_common.glsl"

shared uvec4 s_or[MAX_SUBGROUPS];
shared uvec4 s_nor[MAX_SUBGROUPS];

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint base = flat_group_id() * WG_SIZE * KPT;
    if (base >= n) return;
    uvec4 o = uvec4(0u);
    uvec4 no = uvec4(0u);
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint i = base + a * WG_SIZE + gl_LocalInvocationID.x;
        if (i < n) {
            uvec4 t = key_order(KEY_AT(keys, i));
            o |= t;
            no |= ~t;
        }
    }
    o = subgroupOr(o);
    no = subgroupOr(no);
    if (gl_SubgroupInvocationID == 0u) {
        s_or[gl_SubgroupID] = o;
        s_nor[gl_SubgroupID] = no;
    }
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        for (uint s = 1u; s < gl_NumSubgroups; s++) {
            o |= s_or[s];
            no |= s_nor[s];
        }
        for (uint w = 0u; w < KEY_WORDS; w++) {
            if (o[w] != 0u) atomicOr(meta[CTRL_OR + w], o[w]);
            if (no[w] != 0u) atomicOr(meta[CTRL_NOR + w], no[w]);
        }
    }
}
