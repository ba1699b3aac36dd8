#version 460
// warpsort_pieces.comp (vksort::warpsort::pieces): one round of WarpSort's phase 4. In round q, group
// (piece j, pair i) merges piece j's segments of the row blocks [2i x 2^q, (2i + 1) x 2^q) (A) and
// [(2i + 1) x 2^q, (2i + 2) x 2^q) (B) (warp_merge.glsl) into the piece-major layout at off[j][2i x 2^q]. Round 0
// reads the row-major layout of phase 2 (row r's segment at r x row_len + pos[r][j]), later rounds the
// piece-major layout the round before wrote (block boundaries from off). Stable: A lies before B in the input
// of every round, and the tags are input positions. A block without a partner is copied.
#include "common.glsl"
#include "keys.glsl"
#include "items.glsl"

SIDE(0, 1, readonly, kin, vin);
SIDE(2, 3, writeonly, kout, vout);
BUFFER(4, readonly, meta);
BUFFER(5, readonly, pos);
BUFFER(6, readonly, off);

#include "warp_merge.glsl"

layout(push_constant) uniform Push {
    ITEM_PUSH
    uint row_len;
    uint rows;
    uint pieces;
    uint round;   // q
    uint pairs;   // pairs per piece in this round
} pc;

void main() {
    items_init(pc.key_kind, pc.flags, ITEM_MASK(pc));
    if (ITEM_N(pc) == 0u) return;
    uint group = flat_group_id() * (WG_SIZE / GROUP_LANES) + group_in_workgroup();
    if (group >= pc.pieces * pc.pairs) return;
    uint j = group / pc.pairs;
    uint i = group % pc.pairs;
    uint b = 1u << pc.round;
    uint ra = 2u * i * b;
    uint rb = min(ra + b, pc.rows);
    uint re = min(ra + 2u * b, pc.rows);
    uint c = j * (pc.rows + 1u);
    uint a0, alen, b0, blen;
    if (pc.round == 0u) {
        uint pa = ra * (pc.pieces + 1u) + j;
        a0 = ra * pc.row_len + pos[pa];
        alen = pos[pa + 1u] - pos[pa];
        b0 = a0 + alen;
        blen = 0u;
        if (rb < re) {
            uint pb = rb * (pc.pieces + 1u) + j;
            b0 = rb * pc.row_len + pos[pb];
            blen = pos[pb + 1u] - pos[pb];
        }
    } else {
        a0 = off[c + ra];
        b0 = off[c + rb];
        alen = b0 - a0;
        blen = off[c + re] - b0;
    }
    merge_runs(a0, alen, b0, blen, off[c + ra], group_lane());
}
