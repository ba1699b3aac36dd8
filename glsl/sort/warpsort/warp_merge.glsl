// warp_merge.glsl: WarpSort's windowed bitonic merge of two sorted runs by one group of GROUP_LANES lanes (a
// subgroup, or an aligned slice of one), with subgroup shuffles only: no barriers, no shared memory. Include
// after items.glsl; the including shader declares the buffers kin, vin (read) and kout, vout (written), u32
// arrays of keys and values.
//
// The window (after Ye et al. 2010, and Chhugani et al. 2008 on CPUs): a buffer of 2t items, t = GROUP_LANES x
// MPT, in registers. The lower half H holds t items, ascending; each step loads t more items L from the run
// whose next unloaded item is smaller, merges H ++ L (a bitonic merge: L is loaded reversed, so H ++ rev(L) is
// bitonic, and the half-cleaners sort it), emits the lower t and keeps the upper t as the next H. Runs are
// extended by +infinity padding (key all ones, tag 0xffffffff: after every real item). Why the emitted items
// are the next t of the merged order: H always holds the largest loaded items of each run; when the next item
// of A (say) is not after B's next, every loaded item of A precedes it and every loaded item of B precedes B's
// next, so the 2t items hold at least t + 1 that precede every unloaded item.
//
// Layout: striped. Lane l's register a of a half holds half-position a x GROUP_LANES + l, so loads and stores
// are coalesced (consecutive lanes, consecutive addresses; L is read descending). Strides of at least
// GROUP_LANES compare registers of one lane, shorter strides exchange with lane l ^ j by shuffles.
//
// Stability: an item's tag is its index in the pass's input buffer, and the caller places run A before run B
// there, so ties go to A's items and, within a run, keep their order. The same tag names where the item's value
// is read from when it is written (values never enter the registers).
//
// Loop bound: a merge emitting m items runs ceil(m / t) + 1 window steps, the only loop of a merge (see
// MPT_MAX); the host plan keeps every merge within MAX_MERGE_STEPS (src/sort/warpsort/policy.rs), below
// lavapipe's budget of 65535 loop iterations per invocation.

layout(constant_id = 30) const uint GROUP_LANES = 8;   // lanes of a group (a power of two <= subgroup size)
layout(constant_id = 31) const uint MPT = 4;           // items per lane of each window half (a power of two <= 8)

const uint MPT_MAX = 8u;   // the register arrays' size (see below)
const uint WINDOW = GROUP_LANES * MPT;
const uint MAX_MERGE_STEPS = 65000u;
const uint PAD_TAG = 0xffffffffu;

Item w_lo[MPT_MAX];   // only the first MPT are used (constant indices stay in bounds)
Item w_hi[MPT_MAX];

// This invocation's lane in its group, and the group's index in the workgroup (any subgroup size that is a
// multiple of GROUP_LANES).
uint group_lane() {
    return gl_SubgroupInvocationID & (GROUP_LANES - 1u);
}

uint group_in_workgroup() {
    return gl_SubgroupID * (gl_SubgroupSize / GROUP_LANES) + gl_SubgroupInvocationID / GROUP_LANES;
}

Item pad_item() {
    Item x;
    x.k = uvec4(0xffffffffu);
    x.t = PAD_TAG;
    return x;
}

Item load_item(uint i) {
    Item x;
    x.k = key_order(KEY_AT(kin, i));
    x.t = i;
    return x;
}

// Writes item x (raw key, and its value gathered from its tag) at output position pos.
void write_item(uint pos, Item x) {
    SET_KEY(kout, pos, key_unorder(x.k));
    if (VAL_WORDS > 0u) SET_VAL(vout, pos, VAL_AT(vin, x.t));
}

void cx_pair(inout Item lo, inout Item hi) {
    if (item_lt(hi, lo)) {
        Item x = lo;
        lo = hi;
        hi = x;
    }
}

// Loops over lanes and registers have literal bounds (the most lanes, 128, and registers, 8) and guard their
// body with the specialization constant: spirv-opt unrolls them before the driver sees them, so the window-step
// loop is the only loop a merge runs (lavapipe counts every iteration of every loop of an invocation against
// one budget of 65535).

// One register step of stride jr (no-op unless jr < MPT) and one lane step of stride j (no-op unless
// j < GROUP_LANES) of a half.
void reg_step(inout Item h[MPT_MAX], uint jr) {
    if (jr < MPT) {
        [[unroll]] for (uint a = 0u; a < MPT_MAX; a++) {
            if (a < MPT && (a & jr) == 0u) cx_pair(h[a], h[a | jr]);
        }
    }
}

void lane_step(inout Item h[MPT_MAX], uint lane, uint j) {
    if (j < GROUP_LANES) {
        bool upper = (lane & j) != 0u;
        [[unroll]] for (uint a = 0u; a < MPT_MAX; a++) {
            if (a < MPT) {
                Item o = item_shuffle_xor(h[a], j);
                if (upper ? item_lt(h[a], o) : item_lt(o, h[a])) h[a] = o;
            }
        }
    }
}

// Sorts a bitonic half (striped over the group) ascending: register strides t/2 .. GROUP_LANES (MPT/2 .. 1),
// then lane strides GROUP_LANES/2 .. 1. Written out for the largest sizes (8 registers, 128 lanes).
void half_sort(inout Item h[MPT_MAX], uint lane) {
    reg_step(h, 4u);
    reg_step(h, 2u);
    reg_step(h, 1u);
    lane_step(h, lane, 64u);
    lane_step(h, lane, 32u);
    lane_step(h, lane, 16u);
    lane_step(h, lane, 8u);
    lane_step(h, lane, 4u);
    lane_step(h, lane, 2u);
    lane_step(h, lane, 1u);
}

// Merges H (w_lo, ascending) with L (w_hi, holding the loaded run reversed): afterwards w_lo holds the lower t
// ascending, w_hi the upper t ascending.
void window_merge(uint lane) {
    [[unroll]] for (uint a = 0u; a < MPT_MAX; a++) {
        if (a < MPT) cx_pair(w_lo[a], w_hi[a]);
    }
    half_sort(w_lo, lane);
    half_sort(w_hi, lane);
}

// Item idx of the run at kin[base, base + len), +infinity past its end.
Item run_item(uint base, uint idx, uint len) {
    return idx < len ? load_item(base + idx) : pad_item();
}

// Merges A = kin[a0, a0 + alen) and B = kin[b0, b0 + blen) (a0 + alen <= b0) into kout[o0, o0 + alen + blen),
// values alike. Every lane of the group calls it with the same arguments. The next unloaded item of each run
// (its head) stays in registers, and a step loads the chosen run's new head with its t items, so a step waits
// for one round of loads, not two.
void merge_runs(uint a0, uint alen, uint b0, uint blen, uint o0, uint lane) {
    uint total = alen + blen;
    if (total == 0u) return;
    [[unroll]] for (uint a = 0u; a < MPT_MAX; a++) {
        if (a < MPT) w_lo[a] = run_item(a0, a * GROUP_LANES + lane, alen);
    }
    uint ia = WINDOW;   // items of A (padded) loaded
    uint ib = 0u;
    Item ha = run_item(a0, ia, alen);
    Item hb = run_item(b0, ib, blen);
    uint emitted = 0u;
    for (uint step = 0u; step < MAX_MERGE_STEPS; step++) {
        if (emitted >= total) break;
        // A unless B's head comes first (both exhausted: pads from A).
        bool from_a = !item_lt(hb, ha);
        uint base = from_a ? a0 : b0;
        uint idx = from_a ? ia : ib;
        uint len = from_a ? alen : blen;
        [[unroll]] for (uint a = 0u; a < MPT_MAX; a++) {
            if (a < MPT) w_hi[a] = run_item(base, idx + WINDOW - 1u - (a * GROUP_LANES + lane), len);
        }
        Item head = run_item(base, idx + WINDOW, len);
        if (from_a) {
            ia += WINDOW;
            ha = head;
        } else {
            ib += WINDOW;
            hb = head;
        }
        window_merge(lane);
        [[unroll]] for (uint a = 0u; a < MPT_MAX; a++) {
            if (a < MPT) {
                uint p = emitted + a * GROUP_LANES + lane;
                if (p < total) write_item(o0 + p, w_lo[a]);
            }
        }
        emitted += WINDOW;
        [[unroll]] for (uint a = 0u; a < MPT_MAX; a++) {
            if (a < MPT) w_lo[a] = w_hi[a];
        }
    }
}
