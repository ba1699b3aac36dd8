#version 450
// particles::draw, vertex stage: instance k draws particle order[k] (the sorted indices: back to front) as a
// camera-facing quad, a 4-vertex triangle strip.
#extension GL_GOOGLE_include_directive : require
#include "particle.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Particles { Particle particles[]; };
layout(std430, set = 0, binding = 1) readonly buffer Order { uint order[]; };

layout(push_constant) uniform Push {
    mat4 view_proj;
    vec4 right; // camera right, world space
    vec4 up;    // camera up, world space
} pc;

layout(location = 0) out vec2 uv;
layout(location = 1) out vec4 color;

void main() {
    Particle p = particles[order[gl_InstanceIndex]];
    vec2 corner = vec2(float(gl_VertexIndex & 1), float(gl_VertexIndex >> 1)) * 2.0 - 1.0;
    vec3 world = p.pos + (pc.right.xyz * corner.x + pc.up.xyz * corner.y) * p.size;
    gl_Position = pc.view_proj * vec4(world, 1.0);
    uv = corner;
    color = unpackUnorm4x8(p.color);
}
