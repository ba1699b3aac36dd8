// common.glsl: what every vksort compute shader shares.
//
// Specialization constants (set by the Rust policy, never hard-coded):
//   id 0  WG_SIZE        invocations per workgroup (local_size_x)
//   id 1  MIN_SUBGROUP   the smallest subgroup size the device may run this pipeline with; sizes the
//                        per-subgroup shared arrays (MAX_SUBGROUPS = WG_SIZE / MIN_SUBGROUP)
// Kernels that need more declare ids from 2 upwards. One name has one id in every shader (build.rs fails the
// build otherwise); the Rust side names them through the generated consts (`shaders::<stem>::KPT`, ...).
//
// Large grids: a dispatch may be split into (x, y) groups because of maxComputeWorkGroupCount; flat_group_id()
// gives the linear index, and kernels compare it with the group count they were given.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_control_flow_attributes : require

// Storage buffers, all in set 0 and bound by number (the host's pass rows list them in binding order).
// BUFFER(binding, qualifiers, name) declares the array `uint name[]`; BUFFER_OF the same of another type; SIDE
// one side of a sort (its keys and its values, same qualifiers). Qualifiers may be empty.
#define BUFFER_OF(T, b, access, name) layout(set = 0, binding = b, std430) access buffer name##_block { T name[]; }
#define BUFFER(b, access, name) BUFFER_OF(uint, b, access, name)
#define SIDE(kb, vb, access, keys, vals) BUFFER(kb, access, keys); BUFFER(vb, access, vals)

layout(constant_id = 0) const uint WG_SIZE = 256;
layout(constant_id = 1) const uint MIN_SUBGROUP = 4;
layout(local_size_x_id = 0) in;

const uint MAX_SUBGROUPS = WG_SIZE / MIN_SUBGROUP;

uint flat_group_id() {
    return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
}

uint div_ceil(uint a, uint b) {
    return (a + b - 1u) / b;
}
