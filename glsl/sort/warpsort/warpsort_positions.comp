#version 460
// warpsort_positions.comp (vksort::warpsort::positions): WarpSort's phase 3, second pass. One invocation per
// (row r, piece boundary j), j = 0..P: pos[r x (P + 1) + j] = how many items of row r precede splitter j - 1 in
// the order (key, position) (a binary search, at most 32 steps); 0 for j = 0 and the row's length for j = P.
// Items equal in key to a splitter go left when their position is before the splitter's (an earlier row, or
// earlier in the same row) and right otherwise, so pieces are contiguous in every row and in the stable order.
// Row r covers positions [r x row_len, min((r + 1) x row_len, n)) of `keys` (empty past n).
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

BUFFER(0, readonly, keys);
BUFFER(1, readonly, meta);
BUFFER(2, readonly, split);
BUFFER(3, writeonly, pos);

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint row_len;
    uint rows;
    uint pieces;
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    uint n = ITEM_N(pc);
    uint idx = flat_group_id() * WG_SIZE + gl_LocalInvocationID.x;
    if (idx >= pc.rows * (pc.pieces + 1u)) return;
    uint r = idx / (pc.pieces + 1u);
    uint j = idx % (pc.pieces + 1u);
    uint rs = r * pc.row_len;
    uint len = rs < n ? min(pc.row_len, n - rs) : 0u;
    uint res = len;
    if (j == 0u) {
        res = 0u;
    } else if (j < pc.pieces && len > 0u) {
        uint W = KEY_WORDS + 1u;
        uint o = (j - 1u) * W;
        Item s;
        s.k = uvec4(split[o], KEY_WORDS >= 2u ? split[o + 1u] : 0u, KEY_WORDS == 4u ? split[o + 2u] : 0u,
                    KEY_WORDS == 4u ? split[o + 3u] : 0u);
        s.t = split[o + KEY_WORDS];
        uint lo = 0u;
        uint hi = len;
        for (uint it = 0u; it < 33u && lo < hi; it++) {
            uint mid = lo + (hi - lo) / 2u;
            Item x;
            x.k = key_order(KEY_AT(keys, rs + mid));
            x.t = rs + mid;
            if (item_lt(x, s)) {
                lo = mid + 1u;
            } else {
                hi = mid;
            }
        }
        res = lo;
    }
    pos[idx] = res;
}
