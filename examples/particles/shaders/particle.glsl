// The particle record shared by the renderer's shaders (std430; the host's `scene::Particle`, 32 bytes).
struct Particle {
    vec3 pos;   // world position
    float size; // half the quad's side, world units
    vec3 vel;   // world velocity
    uint color; // RGBA8, unpackUnorm4x8
};
