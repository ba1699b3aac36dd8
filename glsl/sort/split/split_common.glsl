// split_common.glsl: what the passes of the split radix sort share (src/sort/split/mod.rs): the words the
// differ and plan passes leave in the control block, the digit of a key in a pass, and indirect grids. Include
// after common.glsl, keys.glsl and items.glsl, once the shader has declared `meta[]` (the control block) and,
// for digit_of_pass, the spec constant DIGIT_BITS.
//
// Control block (u32 words; 0..2 are the count words of src/sort/count.rs):
//   CTRL_OR..+3      OR of the transformed keys (lowest word first), written by split_differ
//   CTRL_NOR..+3     OR of their complements; bit b varies between the keys iff it is set in both
//   CTRL_VARYING     K: how many bits of the transformed key, within the bit range's mask, vary
//   CTRL_PASSES      P: the passes that run, ceil(K / bits per pass); recorded passes from P on do nothing
//   CTRL_BITS..+127  the varying bits, lowest first: pass i sorts on bits CTRL_BITS + i * per_pass ...
//
// Arguments region (VkDispatchIndirectCommand, 3 words each): the final copy's at word 0; recorded pass i's
// tile passes at ARGS_PASS + ARGS_STRIDE * i, its scan at that + 4.

const uint CTRL_OR = 8u;
const uint CTRL_NOR = 12u;
const uint CTRL_VARYING = 16u;
const uint CTRL_PASSES = 17u;
const uint CTRL_BITS = 32u;

const uint ARGS_PASS = 4u;
const uint ARGS_STRIDE = 8u;

const uint MAX_DIGIT_BITS = 8u;

// The grid of `groups` workgroups within maxComputeWorkGroupCount[0] (the shaders take flat_group_id()).
uvec3 indirect_grid(uint groups, uint max_x) {
    if (groups == 0u) return uvec3(0u, 1u, 1u);
    uint x = min(groups, max_x);
    return uvec3(x, div_ceil(groups, x), 1u);
}

// The bits one pass sorts on: digit bit j is bit pos[j] of the transformed key. `contig`: the bits are
// consecutive within one word (the usual case: a shift and a mask).
struct Digit {
    uint count;
    uint pos[MAX_DIGIT_BITS];
    bool contig;
    uint word;
    uint shift;
    uint mask;
};

// The digit of pass `pass` when every pass takes `per_pass` of the varying bits (the last one what is left).
Digit digit_of_pass(uint pass, uint per_pass) {
    Digit g;
    uint k = meta[CTRL_VARYING];
    uint first = pass * per_pass;
    g.count = first < k ? min(per_pass, k - first) : 0u;
    [[unroll]] for (uint j = 0u; j < MAX_DIGIT_BITS; j++) {
        g.pos[j] = j < g.count ? meta[CTRL_BITS + first + j] : 0u;
    }
    uint lo = g.pos[0];
    uint hi = g.count > 0u ? meta[CTRL_BITS + first + g.count - 1u] : lo;
    g.contig = hi - lo + 1u == g.count && (lo >> 5) == (hi >> 5);
    g.word = lo >> 5;
    g.shift = lo & 31u;
    g.mask = (1u << g.count) - 1u;
    return g;
}

// The digit of transformed key t.
uint digit_of(Digit g, uvec4 t) {
    if (g.contig) return (t[g.word] >> g.shift) & g.mask;
    uint d = 0u;
    [[unroll]] for (uint j = 0u; j < MAX_DIGIT_BITS; j++) {
        if (j < g.count) d |= ((t[g.pos[j] >> 5] >> (g.pos[j] & 31u)) & 1u) << j;
    }
    return d;
}
