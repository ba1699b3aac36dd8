// bitonic.glsl: the bitonic sorting network over items held in registers, the building block of the bitonic
// sort, the merge sort's tile sort and WarpSort. Include after items.glsl; needs the spec constant KPT (items
// per invocation, a power of two) and a power-of-two WG_SIZE.
//
// A group of G invocations (a workgroup, or one subgroup) holds G x KPT items, "blocked": invocation `lid` of
// the group holds the group positions lid * KPT + a in g_r[a]. Every comparator puts the smaller item at the
// lower position (the form of the network whose first step of each merge stage compares a position with its
// mirror, i ^ (k - 1), instead of reversing every other block). Positions >= n hold virtual +infinity and a
// comparator whose higher position is >= n does nothing, so a group sorts its first n positions without any
// padding being stored (items.glsl, item_cx).
//
// Strides below KPT run in registers, strides of up to a subgroup's lanes through subgroup shuffles (lanes of a
// group's subgroup are consecutive invocations: full subgroups, see SubgroupPlan), longer strides through the
// shared array s_items (workgroup groups only). Every register index is a compile-time constant once KPT is
// specialized (the loops over KPT unroll), so the items stay in registers.
//
// A shader whose groups are never larger than a subgroup (WarpSort's chunks) defines BITONIC_SUBGROUP_ONLY
// before the include: s_items and the shared-memory steps are then left out, so the pipeline declares no
// shared memory.

Item g_r[KPT];

#ifndef BITONIC_SUBGROUP_ONLY
// The shared copy of a workgroup's tile: word w of the item at position p at s_items[w * S_STRIDE + spad(p)],
// one padding word per 32 so that blocked (stride KPT) and striped accesses are free of bank conflicts.
const uint B_TILE = WG_SIZE * KPT;
const uint S_STRIDE = B_TILE + B_TILE / 32u;
const uint S_WORDS = KEY_WORDS + TAGGED;
shared uint s_items[S_STRIDE * S_WORDS];

uint spad(uint p) {
    return p + (p >> 5u);
}

void smem_put(uint p, Item x) {
    uint q = spad(p);
    s_items[q] = x.k.x;
    if (KEY_WORDS >= 2u) s_items[S_STRIDE + q] = x.k.y;
    if (KEY_WORDS == 4u) {
        s_items[2u * S_STRIDE + q] = x.k.z;
        s_items[3u * S_STRIDE + q] = x.k.w;
    }
    if (TAGGED != 0u) s_items[KEY_WORDS * S_STRIDE + q] = x.t;
}

Item smem_get(uint p) {
    uint q = spad(p);
    Item x;
    x.k = uvec4(s_items[q], 0u, 0u, 0u);
    if (KEY_WORDS >= 2u) x.k.y = s_items[S_STRIDE + q];
    if (KEY_WORDS == 4u) {
        x.k.z = s_items[2u * S_STRIDE + q];
        x.k.w = s_items[3u * S_STRIDE + q];
    }
    x.t = TAGGED != 0u ? s_items[KEY_WORDS * S_STRIDE + q] : 0u;
    return x;
}

// Registers -> shared (blocked positions of invocation lid) and back.
void regs_to_smem(uint lid) {
    [[unroll]] for (uint a = 0u; a < KPT; a++) smem_put(lid * KPT + a, g_r[a]);
}

void smem_to_regs(uint lid) {
    [[unroll]] for (uint a = 0u; a < KPT; a++) g_r[a] = smem_get(lid * KPT + a);
}
#endif

// One comparator inside the invocation: registers a < b at positions base + a, base + b.
void reg_cx(uint a, uint b, uint base, uint n) {
    if (base + b >= n) return;
    if (item_lt(g_r[b], g_r[a])) {
        Item x = g_r[a];
        g_r[a] = g_r[b];
        g_r[b] = x;
    }
}

// The half-cleaner steps (no flip) with strides below KPT, in registers.
void reg_merge_steps(uint lid, uint n) {
    uint base = lid * KPT;
    [[unroll]] for (uint j = KPT / 2u; j >= 1u; j >>= 1u) {
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            if ((a & j) == 0u) reg_cx(a, a | j, base, n);
        }
    }
}

// Sorts each invocation's KPT items (stages k = 2 .. KPT), all in registers: every index is a constant once
// the loops unroll.
void reg_sort(uint lid, uint n) {
    uint base = lid * KPT;
    [[unroll]] for (uint k = 2u; k <= KPT; k <<= 1u) {
        [[unroll]] for (uint j = k / 2u; j >= 1u; j >>= 1u) {
            [[unroll]] for (uint a = 0u; a < KPT; a++) {
                if ((a & j) != 0u) continue;
                reg_cx(a, j == k / 2u ? (a ^ (k - 1u)) : (a | j), base, n);
            }
        }
    }
}

// One step of stride j >= KPT of stage k across invocations (flip: the stage's first step). Lanes in one
// subgroup exchange by shuffles; longer strides go through s_items (workgroup groups only; the branch is
// uniform in the workgroup, so its barriers are too). Register indices must stay compile-time constants (a
// runtime index moves g_r to local memory): `flip` selects between two unrolled loops, never inside an index.
void cross_step(uint k, uint j, bool flip, uint lid, uint n) {
    uint m = flip ? (k / KPT - 1u) : (j / KPT);   // lane offset (xor) of the partner invocation
    uint span = flip ? (k - 1u) : j;              // position offset (xor) of the partner item
    // No temporary array of items (one made the NVIDIA compiler keep the network in local memory at KPT 8):
    // every register is updated from values received in the same iteration.
    if (m < gl_SubgroupSize) {
        if (flip && KPT > 1u) {
            // Register a pairs with the partner's register KPT - 1 - a: a mirror pair is exchanged together.
            // (With one register per invocation, a mirror step pairs register 0 with register 0: below.)
            [[unroll]] for (uint a = 0u; a < KPT / 2u; a++) {
                uint b = KPT - 1u - a;
                Item ra = item_shuffle_xor(g_r[b], m);   // the partner's register b, paired with my a
                Item rb = item_shuffle_xor(g_r[a], m);   // the partner's register a, paired with my b
                uint pa = lid * KPT + a, pb = lid * KPT + b;
                g_r[a] = item_cx(g_r[a], ra, pa, pa ^ span, n);
                g_r[b] = item_cx(g_r[b], rb, pb, pb ^ span, n);
            }
        } else {
            [[unroll]] for (uint a = 0u; a < KPT; a++) {
                uint p = lid * KPT + a;
                g_r[a] = item_cx(g_r[a], item_shuffle_xor(g_r[a], m), p, p ^ span, n);
            }
        }
    }
#ifndef BITONIC_SUBGROUP_ONLY
    else {
        barrier();
        regs_to_smem(lid);
        barrier();
        [[unroll]] for (uint a = 0u; a < KPT; a++) {
            uint p = lid * KPT + a;
            g_r[a] = item_cx(g_r[a], smem_get(p ^ span), p, p ^ span, n);
        }
    }
#endif
}

// Sorts the group's first n positions ascending: a group of `group` invocations (a power of two; a
// subgroup's lanes, or the workgroup), this invocation being `lid` of it.
void bitonic_sort(uint lid, uint group, uint n) {
    reg_sort(lid, n);
    for (uint k = 2u * KPT; k <= group * KPT; k <<= 1u) {
        for (uint j = k / 2u; j >= KPT; j >>= 1u) cross_step(k, j, j == k / 2u, lid, n);
        reg_merge_steps(lid, n);
    }
}

// The half-cleaner steps of strides group * KPT / 2 .. 1 (no flip): the end of a merge stage larger than the
// group, whose longer strides ran before.
void bitonic_merge_steps(uint lid, uint group, uint n) {
    uint k = 2u * group * KPT;   // any stage larger than the group: only its strides below the group run
    for (uint j = group * KPT / 2u; j >= KPT; j >>= 1u) cross_step(k, j, false, lid, n);
    reg_merge_steps(lid, n);
}
