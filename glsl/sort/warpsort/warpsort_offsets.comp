#version 460
// warpsort_offsets.comp (vksort::warpsort::offsets): WarpSort's phase 3, last pass, one workgroup. The segment
// of row r in piece j has pos[r][j + 1] - pos[r][j] items; the pieces are laid out one after another, each
// holding its rows' segments in row order (the piece-major layout of phase 4). An exclusive scan over the
// segments in (piece, row) order gives off[j x (rows + 1) + r], where row r's segment of piece j starts, and
// off[j x (rows + 1) + rows], where piece j ends. Each invocation scans `per` consecutive segments (the host
// keeps per below the loop bound).
#include "common.glsl"
#include "wg_scan.glsl"

DEFINE_WG_SCAN(uint, seg)

BUFFER(0, readonly, pos);
BUFFER(1, writeonly, off);

layout(push_constant) uniform Push {
    uint rows;
    uint pieces;
    uint per;   // segments per invocation
} pc;

uint seg_len(uint e) {
    uint j = e / pc.rows;
    uint r = e % pc.rows;
    uint p = r * (pc.pieces + 1u) + j;
    return pos[p + 1u] - pos[p];
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint total_segs = pc.rows * pc.pieces;
    uint begin = min(lid * pc.per, total_segs);
    uint end = min(begin + pc.per, total_segs);
    uint sum = 0u;
    for (uint e = begin; e < end; e++) sum += seg_len(e);
    uint total;
    uint run = seg_exclusive_add(sum, total);
    for (uint e = begin; e < end; e++) {
        uint j = e / pc.rows;
        uint r = e % pc.rows;
        off[j * (pc.rows + 1u) + r] = run;
        run += seg_len(e);
        if (r == pc.rows - 1u) off[j * (pc.rows + 1u) + pc.rows] = run;
    }
}
