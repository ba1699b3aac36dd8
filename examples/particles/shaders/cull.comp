#version 450
// particles::cull: keeps the particles whose bounding sphere meets the view frustum and whose centre lies between
// the near and far planes, and appends (view depth, particle index) to the key and value arrays vksort sorts.
// The visible count is the indirect draw's instance count (`DrawArgs::instance_count`), which the sort also reads
// as its GPU-side count: it never goes to the host. One global atomic per workgroup (workgroup-local slots
// first), so the order of the appended particles is not deterministic; the sort makes the draw order so.
#extension GL_GOOGLE_include_directive : require
#include "particle.glsl"

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer Particles { Particle particles[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Keys { float keys[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Values { uint values[]; };
// VkDrawIndirectCommand
layout(std430, set = 0, binding = 3) buffer DrawArgs {
    uint vertex_count;
    uint instance_count;
    uint first_vertex;
    uint first_instance;
} args;

layout(push_constant) uniform Push {
    mat4 view;
    vec2 tan_half; // tan of half the horizontal and vertical field of view
    float near;
    float far;
    uint n;
} pc;

shared uint local_count;
shared uint base;

void main() {
    uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u) + gl_GlobalInvocationID.x;
    if (gl_LocalInvocationIndex == 0u) {
        local_count = 0u;
    }
    barrier();
    bool visible = false;
    float depth = 0.0;
    uint slot = 0u;
    if (i < pc.n) {
        Particle p = particles[i];
        vec3 c = (pc.view * vec4(p.pos, 1.0)).xyz;
        depth = -c.z; // the camera looks down -z
        float radius = p.size * 1.41421356; // the quad's corners
        // Inward side planes of the symmetric frustum: x - z tan_x >= 0, -x - z tan_x >= 0 (same for y).
        vec2 nx = normalize(vec2(1.0, pc.tan_half.x));
        vec2 ny = normalize(vec2(1.0, pc.tan_half.y));
        visible = depth > pc.near && depth < pc.far
            && nx.x * c.x - nx.y * c.z >= -radius && -nx.x * c.x - nx.y * c.z >= -radius
            && ny.x * c.y - ny.y * c.z >= -radius && -ny.x * c.y - ny.y * c.z >= -radius;
        if (visible) {
            slot = atomicAdd(local_count, 1u);
        }
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u && local_count > 0u) {
        base = atomicAdd(args.instance_count, local_count);
    }
    barrier();
    if (visible) {
        keys[base + slot] = depth;
        values[base + slot] = i;
    }
}
