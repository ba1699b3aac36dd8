#version 460
// debug_residency.comp: a diagnostic kernel that measures how many workgroups of a given shape a device keeps
// resident at once (vksort::diagnostics::cmd_residency, examples/residency). Never part of a real pass.
//
// Every workgroup declares SHARED_WORDS words of shared memory (and writes all of them, so none is optimised
// away), keeps LIVE_REGS words per invocation live across a dependent loop of `iterations` rounds, and counts
// itself in and out of a per-SM counter (variant `sm`, GL_NV_shader_sm_builtins) or of one device-wide counter
// (variant `device`); the counter's high-water mark is the residency. The count-in follows a barrier (every
// invocation of the workgroup has started) and the count-out precedes one, so a workgroup is counted only while
// it is wholly resident.
//
// Counters (binding 0): words [0, slots) in-flight workgroups per slot, [slots, 2 x slots) their peaks,
// word 2 x slots a sink that keeps the loop's result live.
//
// Two variants ask whether a kind of pipeline changes how much shared memory the driver gives an SM (issue 19,
// step 1): `sm_block` declares the shared memory as a block (VK_KHR_workgroup_memory_explicit_layout: explicit
// offsets, the layout that allows aliasing), `sm_coop` also runs a cooperative-matrix multiply-add
// (VK_NV_cooperative_matrix, 16 x 16 x 16 half floats loaded from the shared memory) in every round of the
// loop, as tensor-core kernels do.
// @variant sm SMID=1
// @variant device SMID=0
// @variant sm_block SMID=1 BLOCK=1
// @variant sm_coop SMID=1 COOP=1
#include "common.glsl"
#if SMID
#extension GL_NV_shader_sm_builtins : require
#endif
#if BLOCK
#extension GL_EXT_shared_memory_block : require
#endif
#if COOP
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#endif

layout(constant_id = 50) const uint SHARED_WORDS = 1;
layout(constant_id = 51) const uint LIVE_REGS = 1;

BUFFER(0, , ctr);
layout(push_constant) uniform Push {
    uint iterations;   // rounds of the dependent loop (at most 65535: lavapipe ends longer loops)
    uint slots;        // counter slots (SMs for `sm`, 1 for `device`)
} pc;

#if BLOCK
shared Pad { uint pad[SHARED_WORDS]; };
#else
shared uint pad[SHARED_WORDS];
#endif

void main() {
    uint lid = gl_LocalInvocationID.x;
#if SMID
    uint slot = min(gl_SMIDNV, pc.slots - 1u);
#else
    uint slot = 0u;
#endif
    for (uint i = lid; i < SHARED_WORDS; i += WG_SIZE) pad[i] = i * 0x9e3779b1u + slot;
    barrier();
    if (lid == 0u) atomicMax(ctr[pc.slots + slot], atomicAdd(ctr[slot], 1u) + 1u);
    uint r[LIVE_REGS];
    [[unroll]] for (uint k = 0u; k < LIVE_REGS; k++) r[k] = pad[(lid * 7u + k * 13u) % SHARED_WORDS] + k;
#if COOP
    // A and B: 16 x 16 halves (128 words) from the start of the shared memory (which holds at least that much:
    // the caller's check), C accumulated in the loop.
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ca;
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> cb;
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> cc = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(0.0);
    coopMatLoadNV(ca, pad, 0u, 8u, false);
    coopMatLoadNV(cb, pad, 0u, 8u, true);
#endif
    for (uint it = 0u; it < min(pc.iterations, 65535u); it++) {
        [[unroll]] for (uint k = 0u; k < LIVE_REGS; k++) {
            r[k] = r[k] * 0x9e3779b1u + (r[(k + 1u) % LIVE_REGS] >> 7u) + it;
        }
#if COOP
        cc = coopMatMulAddNV(ca, cb, cc);
#endif
    }
    uint s = 0u;
    [[unroll]] for (uint k = 0u; k < LIVE_REGS; k++) s ^= r[k];
#if COOP
    // The product stays live: its first element joins the sink's value.
    s += uint(float(cc[0]));
#endif
    // Every invocation has finished its loop (and still holds its shared memory) before the count-out.
    s += pad[(lid * 5u) % SHARED_WORDS];
    barrier();
    if (lid == 0u) atomicAdd(ctr[slot], 0xffffffffu);
    if (s == 0x7a3c91e5u) ctr[2u * pc.slots] = s;
}
