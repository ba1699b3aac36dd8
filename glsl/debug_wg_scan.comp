#version 460
// debug_wg_scan.comp: a diagnostic kernel that runs the shared workgroup scan (DEFINE_WG_SCAN) alone, so tests
// can check it bitwise at every workgroup size and subgroup width a device offers. Workgroup g scans
// values[g * WG_SIZE + i] and writes, at out[g * (WG_SIZE + 2)], every exclusive prefix, then the macro's
// total, then the total as the macro once took it (the carry of subgroupAdd steps; docs/tuning.md, "A wrong
// workgroup-scan total"), so a device where only that form goes wrong shows it here. Never part of a real pass.
// @variant u32
// @variant u64 ELEM_U64=1
#include "common.glsl"
#include "scan_elem.glsl"
#include "wg_scan.glsl"

BUFFER_OF(ELEM_T, 0, readonly, values);
BUFFER_OF(ELEM_T, 1, writeonly, result);

DEFINE_WG_SCAN(ELEM_T, probe)

shared ELEM_T carry_partials[MAX_SUBGROUPS + 1];

// The macro's earlier form, whole: the same prefixes, the total from the carry's subgroupAdd steps.
ELEM_T carry_form_total(ELEM_T v) {
    ELEM_T incl = subgroupInclusiveAdd(v);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) carry_partials[gl_SubgroupID] = incl;
    barrier();
    if (gl_SubgroupID == 0u) {
        ELEM_T carry = ELEM_T(0);
        for (uint base = 0u; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            uint i = base + gl_SubgroupInvocationID;
            ELEM_T x = i < gl_NumSubgroups ? carry_partials[i] : ELEM_T(0);
            ELEM_T xi = subgroupInclusiveAdd(x);
            if (i < gl_NumSubgroups) carry_partials[i] = carry + xi - x;
            carry += subgroupAdd(x);
        }
        if (gl_SubgroupInvocationID == 0u) carry_partials[MAX_SUBGROUPS] = carry;
    }
    barrier();
    return carry_partials[MAX_SUBGROUPS];
}

void main() {
    uint base = flat_group_id() * WG_SIZE;
    ELEM_T v = values[base + gl_LocalInvocationIndex];
    ELEM_T total;
    ELEM_T prefix = probe_exclusive_add(v, total);
    ELEM_T old_total = carry_form_total(v);
    uint at = flat_group_id() * (WG_SIZE + 2u);
    result[at + gl_LocalInvocationIndex] = prefix;
    if (gl_LocalInvocationIndex == 0u) {
        result[at + WG_SIZE] = total;
        result[at + WG_SIZE + 1u] = old_total;
    }
}
