#version 460
// warpsort_merge.comp (vksort::warpsort::merge): one round of WarpSort's phase 2. Rows of row_len items (the
// last one short) are merged pairwise, rows 2i and 2i + 1 by group i (warp_merge.glsl: the windowed bitonic
// merge, subgroup shuffles only), from kin/vin into kout/vout at the same place. Stable: tags are input
// positions, row 2i's before row 2i + 1's. A row without a partner is copied. Groups past n do nothing.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

SIDE(0, 1, readonly, kin, vin);
SIDE(2, 3, writeonly, kout, vout);
BUFFER(4, readonly, meta);

#include "warp_merge.glsl"

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint row_len;   // items of an input row
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint group = flat_group_id() * (WG_SIZE / GROUP_LANES) + group_in_workgroup();
    uint a0 = group * 2u * pc.row_len;
    if (a0 >= n) return;
    uint alen = min(pc.row_len, n - a0);
    uint b0 = a0 + alen;
    uint blen = b0 < n ? min(pc.row_len, n - b0) : 0u;
    merge_runs(a0, alen, b0, blen, a0, group_lane());
}
