// wg_scan.glsl: subgroup and workgroup scans, for any subgroup size (4..128) and any WG_SIZE that is a
// multiple of the subgroup size. Include after common.glsl.
//
// DEFINE_WG_SCAN(T, NAME) defines, for element type T (uint, uint64_t, ...):
//   T NAME_exclusive_add(T v, out T total)  exclusive prefix sum of v over the workgroup, and the total.
// Every invocation of the workgroup must call it (it contains barriers). It uses its own shared array, so two
// scans may follow each other; a barrier separates consecutive calls of the same NAME.
// The total is the last subgroup's inclusive prefix, written by the lane that computed it. It was the sum of
// the carry's subgroupAdd steps: on NVIDIA's driver 580 (H200) that total came out wrong at 16 and 32 subgroups
// per workgroup while every prefix was right (quicksort's chunk scan at 512 invocations, the MSD bucket count at
// 512 and 1024; docs/tuning.md, "A wrong workgroup-scan total").
#define DEFINE_WG_SCAN(T, NAME)                                                                  \
shared T NAME##_partials[MAX_SUBGROUPS + 1];                                                     \
T NAME##_exclusive_add(T v, out T total) {                                                       \
    T incl = subgroupInclusiveAdd(v);                                                            \
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) NAME##_partials[gl_SubgroupID] = incl;  \
    barrier();                                                                                   \
    if (gl_SubgroupID == 0u) {                                                                   \
        T carry = T(0);                                                                          \
        for (uint base = 0u; base < gl_NumSubgroups; base += gl_SubgroupSize) {                  \
            uint i = base + gl_SubgroupInvocationID;                                             \
            T x = i < gl_NumSubgroups ? NAME##_partials[i] : T(0);                               \
            T xi = subgroupInclusiveAdd(x);                                                      \
            if (i < gl_NumSubgroups) NAME##_partials[i] = carry + xi - x;                        \
            if (i + 1u == gl_NumSubgroups) NAME##_partials[MAX_SUBGROUPS] = carry + xi;          \
            carry += subgroupAdd(x);                                                             \
        }                                                                                        \
    }                                                                                            \
    barrier();                                                                                   \
    total = NAME##_partials[MAX_SUBGROUPS];                                                      \
    T r = NAME##_partials[gl_SubgroupID] + incl - v;                                             \
    barrier();                                                                                   \
    return r;                                                                                    \
}
