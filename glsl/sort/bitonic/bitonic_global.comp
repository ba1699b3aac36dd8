#version 460
// bitonic_global.comp (vksort::bitonic::global): up to FUSE consecutive steps of merge stage k whose strides
// are at least a tile, in place, from stride j down to j >> (steps - 1). The stage's first step (j == k / 2)
// compares a position with its mirror (p ^ (k - 1)), the others p with p ^ stride; the smaller key goes to the
// lower position. Comparators whose higher position is >= n do nothing (positions >= n are virtual
// +infinity, see glsl/include/bitonic.glsl), so no padding exists. Nothing to do when n <= k / 2.
//
// Each invocation holds the 2^steps positions that those steps connect: from a base with zeros at the bits
// of the strides, base + c for every combination c of the strides; for a mirror step, c spans the strides after
// the first and the other half is the mirrors (base + c) ^ (k - 1), whose order is reversed (comparators are
// therefore placed by position, not by slot). Neighbouring invocations hold neighbouring positions (coalesced).
// A slot is written back only when its item changed; values are read only for moved items.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

layout(constant_id = 17) const uint FUSE = 3;   // most steps per pass (slots per invocation = 2^FUSE)

const uint SLOTS = 1u << FUSE;

SIDE(0, 1, , keys, vals);
BUFFER(2, readonly, meta);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint k;
    uint log_j;      // the first stride is 1 << log_j
    uint steps;      // steps of this pass, 1..FUSE (the last stride is at least a tile)
    uint groups;     // invocations with work (bases below the recorded n)
} pc;

// Slot i holds one position; step t (stride j >> t) pairs the slots that differ in bit FUSE - 1 - t. A pass of
// s < FUSE steps uses the slots whose low FUSE - s bits are 0. Every array index is a compile-time constant
// once the loops unroll (a runtime index would move the arrays to local memory).
uint pos_of[SLOTS];
uint src_of[SLOTS];    // the position the slot's item was read from
uvec4 key_of[SLOTS];

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    if (n <= pc.k / 2u) return;
    uint q = flat_group_id() * WG_SIZE + gl_LocalInvocationID.x;
    if (q >= pc.groups) return;
    uint s = pc.steps;
    uint lowbit = pc.log_j + 1u - s;          // the lowest stride's bit
    uint base = ((q >> lowbit) << (lowbit + s)) | (q & ((1u << lowbit) - 1u));
    if (base >= n) return;
    bool mirror = (1u << pc.log_j) == pc.k / 2u;
    uint unused = (1u << (FUSE - s)) - 1u;    // slot bits of steps this pass does not run
    [[unroll]] for (uint i = 0u; i < SLOTS; i++) {
        uint c = 0u;
        [[unroll]] for (uint t = 0u; t < FUSE; t++) {
            if (t < s && (i & (1u << (FUSE - 1u - t))) != 0u) c |= 1u << (pc.log_j - t);
        }
        uint p = base + c;
        // With a mirror step, the first step's bit selects the mirror of the lower half's position.
        if (mirror && (i & (1u << (FUSE - 1u))) != 0u) p = (base + (c & ~(1u << pc.log_j))) ^ (pc.k - 1u);
        pos_of[i] = p;
        src_of[i] = p;
        key_of[i] = ((i & unused) == 0u && p < n) ? key_order(KEY_AT(keys, p)) : uvec4(0u);
    }
    [[unroll]] for (uint t = 0u; t < FUSE; t++) {
        if (t >= s) break;
        uint bit = 1u << (FUSE - 1u - t);
        [[unroll]] for (uint i = 0u; i < SLOTS; i++) {
            if ((i & bit) != 0u) continue;
            uint i2 = i | bit;
            if ((i & unused) != 0u) continue;
            uint pa = pos_of[i], pb = pos_of[i2];
            if (max(pa, pb) >= n) continue;
            // The smaller item goes to the lower position (in a mirrored half, slot order is reversed).
            bool lower_first = pa < pb;
            uvec4 kl = lower_first ? key_of[i] : key_of[i2];
            uvec4 kh = lower_first ? key_of[i2] : key_of[i];
            if (key_lt(kh, kl)) {
                uvec4 tk = key_of[i];
                key_of[i] = key_of[i2];
                key_of[i2] = tk;
                uint ts = src_of[i];
                src_of[i] = src_of[i2];
                src_of[i2] = ts;
            }
        }
    }
    // Read every moved value before writing any (they come from this invocation's own positions).
    uvec2 v[SLOTS];
    if (VAL_WORDS > 0u) {
        [[unroll]] for (uint i = 0u; i < SLOTS; i++) {
            if (src_of[i] != pos_of[i]) v[i] = VAL_AT(vals, src_of[i]);
        }
    }
    [[unroll]] for (uint i = 0u; i < SLOTS; i++) {
        if (src_of[i] == pos_of[i]) continue;
        uint p = pos_of[i];
        SET_KEY(keys, p, key_unorder(key_of[i]));
        SET_VAL(vals, p, v[i]);
    }
}
