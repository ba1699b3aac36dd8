// scan_elem.glsl: the element type of a scan / reduce / compaction variant. Include after common.glsl.
// Without a define the element is a 32-bit uint; with ELEM_U64 it is a 64-bit uint (the device must have
// shaderInt64 and shaderSubgroupExtendedTypes; the Rust side checks ctx.caps().int64 first).
//   ELEM_T      the element type
//   ELEM_V      the 16-byte vector of elements used for loads and stores (uvec4 / u64vec2)
//   VW          elements per ELEM_V
//   ELEM_ONES   all bits set (identity of min)
#ifdef ELEM_U64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#define ELEM_T uint64_t
#define ELEM_V u64vec2
#define VW 2u
#define ELEM_ONES 0xffffffffffffffffUL
#else
#define ELEM_T uint
#define ELEM_V uvec4
#define VW 4u
#define ELEM_ONES 0xffffffffu
#endif
