#version 460
// warpsort_chunks.comp (vksort::warpsort::chunks): WarpSort's phase 1. Each group of GROUP_LANES lanes (a
// subgroup, or an aligned slice of one) sorts one chunk of GROUP_LANES x KPT items in registers with the bitonic
// network of bitonic.glsl over the group (strides below KPT in registers, the others by subgroup shuffles; no
// barrier of the workgroup, no shared memory), stably: items are tagged with their chunk position (TAGGED), which
// makes the network stable. Positions past n are virtual +infinity (the last chunk may be short).
//
// Lane l holds chunk positions l x KPT .. l x KPT + KPT - 1 (blocked, as bitonic.glsl wants) and writes back
// exactly those positions, so the keys may be sorted in place (kin and kout the same buffer: the chunk pass is
// in place when an even number of passes follows). Values are gathered by tag from the chunk once, all reads
// before a subgroup barrier and all writes after it, so they may be in place too.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 30) const uint GROUP_LANES = 8;

#define BITONIC_SUBGROUP_ONLY   // groups are at most a subgroup: no shared memory
#include "bitonic.glsl"

const uint CHUNK = GROUP_LANES * KPT;

// Not readonly: in place, kin/vin and kout/vout are the same memory.
SIDE(0, 1, , kin, vin);
SIDE(2, 3, , kout, vout);
BUFFER(4, readonly, meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (flat_group_id() * (WG_SIZE / GROUP_LANES) * CHUNK >= n) return;   // uniform in the workgroup
    uint lane = gl_SubgroupInvocationID & (GROUP_LANES - 1u);
    uint group = flat_group_id() * (WG_SIZE / GROUP_LANES) + gl_SubgroupID * (gl_SubgroupSize / GROUP_LANES) +
                 gl_SubgroupInvocationID / GROUP_LANES;
    uint base = group * CHUNK;
    uint m = base < n ? min(n - base, CHUNK) : 0u;
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = lane * KPT + a;
        g_r[a].k = p < m ? key_order(KEY_AT(kin, base + p)) : uvec4(0u);
        g_r[a].t = p;
    }
    bitonic_sort(lane, GROUP_LANES, m);
    uvec2 v[KPT];
    if (VAL_WORDS > 0u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = lane * KPT + a;
            v[a] = p < m ? VAL_AT(vin, base + g_r[a].t) : uvec2(0u);
        }
        subgroupMemoryBarrierBuffer();
        subgroupBarrier();
    }
    [[unroll]] for (uint a = 0u; a < KPT; a++) {
        uint p = lane * KPT + a;
        if (p < m) {
            SET_KEY(kout, base + p, key_unorder(g_r[a].k));
            SET_VAL(vout, base + p, v[a]);
        }
    }
}
