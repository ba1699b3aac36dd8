// key_differ.glsl: where a workgroup's keys differ. Include after common.glsl and keys.glsl (used by
// radix_local.glsl and the MSD passes).

shared uint s_and[2];
shared uint s_or[2];

// AND of a and OR of o over the workgroup, in place (every invocation calls it and gets the result).
void wg_and_or(inout uvec2 a, inout uvec2 o) {
    if (gl_LocalInvocationID.x == 0u) {
        s_and[0] = ~0u;
        s_and[1] = ~0u;
        s_or[0] = 0u;
        s_or[1] = 0u;
    }
    barrier();
    a = subgroupAnd(a);
    o = subgroupOr(o);
    if (subgroupElect()) {
        atomicAnd(s_and[0], a.x);
        atomicAnd(s_and[1], a.y);
        atomicOr(s_or[0], o.x);
        atomicOr(s_or[1], o.y);
    }
    barrier();
    a = uvec2(s_and[0], s_and[1]);
    o = uvec2(s_or[0], s_or[1]);
    barrier();
}

// The bits where all the keys that went into (a, o) agree across the workgroup are those where AND == OR: the
// differing bits are AND ^ OR (every invocation calls it and gets the result).
uvec2 wg_differ(uvec2 a, uvec2 o) {
    wg_and_or(a, o);
    return a ^ o;
}
