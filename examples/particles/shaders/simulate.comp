#version 450
// particles::simulate: one semi-implicit Euler step of every particle around a softened central mass
// (a = -gm * p / (|p|^2 + eps2)^(3/2)). Deterministic: the test's CPU reference takes the same steps.
#extension GL_GOOGLE_include_directive : require
#include "particle.glsl"

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) buffer Particles { Particle particles[]; };

layout(push_constant) uniform Push {
    float dt;
    float gm;
    float eps2;
    uint n;
} pc;

void main() {
    uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u) + gl_GlobalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    vec3 pos = particles[i].pos;
    vec3 vel = particles[i].vel;
    float r2 = dot(pos, pos) + pc.eps2;
    float inv = 1.0 / sqrt(r2);
    vec3 acc = pos * (-pc.gm * inv * inv * inv);
    vel = vel + acc * pc.dt;
    pos = pos + vel * pc.dt;
    particles[i].pos = pos;
    particles[i].vel = vel;
}
