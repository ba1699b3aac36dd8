// scan_tile.glsl: tile loads/stores in 16-byte vectors and the subgroup-striped tile scan shared by the
// single-pass look-back scan, the reduce-then-scan downsweep and spine. Include after common.glsl and
// scan_elem.glsl, once the shader has declared:
//   const uint VECS                 vectors (ELEM_V) per invocation (a specialization constant)
//   in_v[]                          the input as ELEM_V (a tail element e is read as in_v[e / VW][e % VW])
//   out_v[]                         the output likewise (tail elements written one component at a time)
//
// Tile layout ("subgroup-striped rows"): a tile is WG_SIZE * VECS vectors. Subgroup s owns the contiguous
// run of gl_SubgroupSize * VECS vectors starting at s * gl_SubgroupSize * VECS; within it, row j is the
// gl_SubgroupSize consecutive vectors starting at j * gl_SubgroupSize, and lane l holds vector l of each
// row. Every load and store instruction of a subgroup thus touches gl_SubgroupSize consecutive 16-byte
// vectors (fully coalesced), and the scan needs no shared-memory transposition: per row, an in-vector
// serial scan, one subgroupInclusiveAdd over the lanes' vector sums, and a running carry; across subgroups,
// one workgroup scan of the subgroup totals (wg_scan.glsl).

#include "wg_scan.glsl"

const uint TILE_VECS = WG_SIZE * VECS;
const uint TILE_ELEMS = TILE_VECS * VW;

ELEM_V tile_v[VECS];   // the invocation's vectors of the current tile

// The first vector (of row 0) this invocation holds in tile `tile`; row j is at + j * gl_SubgroupSize.
uint tile_first_vec(uint tile) {
    return tile * TILE_VECS + gl_SubgroupID * gl_SubgroupSize * VECS + gl_SubgroupInvocationID;
}

// Vector `vi` of the input; elements at or above n read as `pad`. Only whole vectors below n are read as
// vectors, so no access goes past element n - 1.
ELEM_V load_vec(uint vi, uint n, ELEM_T pad) {
    if (vi * VW + VW <= n) return in_v[vi];
    ELEM_V r = ELEM_V(pad);
    [[unroll]] for (uint c = 0u; c < VW; c++) {
        uint e = vi * VW + c;
        if (e < n) r[c] = in_v[vi][c];
    }
    return r;
}

// Stores vector `vi` of the output; elements at or above n are not written.
void store_vec(uint vi, uint n, ELEM_V x) {
    if (vi * VW + VW <= n) {
        out_v[vi] = x;
        return;
    }
    [[unroll]] for (uint c = 0u; c < VW; c++) {
        uint e = vi * VW + c;
        if (e < n) out_v[vi][c] = x[c];
    }
}

ELEM_T vec_sum(ELEM_V x) {
#ifdef ELEM_U64
    return x.x + x.y;
#else
    return (x.x + x.y) + (x.z + x.w);
#endif
}

// In-vector scan of x (inclusive or exclusive); `s` gets the vector's sum.
ELEM_V vec_scan(ELEM_V x, bool inclusive, out ELEM_T s) {
#ifdef ELEM_U64
    s = x.x + x.y;
    return inclusive ? ELEM_V(x.x, s) : ELEM_V(ELEM_T(0), x.x);
#else
    uint a = x.x;
    uint b = a + x.y;
    uint c = b + x.z;
    s = c + x.w;
    return inclusive ? uvec4(a, b, c, s) : uvec4(0u, a, b, c);
#endif
}

// Loads tile `tile` into tile_v (elements at or above n read as 0).
// A full tile (every element below n) is loaded and stored without per-vector bounds checks, so that all
// VECS loads of an invocation are issued back to back (a per-vector branch makes some compilers wait for each
// load before the next one). The test is uniform over the workgroup.
bool tile_full(uint tile, uint n) {
    return tile < n / TILE_ELEMS;
}

void tile_load(uint tile, uint n) {
    uint first = tile_first_vec(tile);
    if (tile_full(tile, n)) {
        [[unroll]] for (uint j = 0u; j < VECS; j++) tile_v[j] = in_v[first + j * gl_SubgroupSize];
    } else {
        [[unroll]] for (uint j = 0u; j < VECS; j++) tile_v[j] = load_vec(first + j * gl_SubgroupSize, n, ELEM_T(0));
    }
}

// Stores tile_v + add as tile `tile` (elements at or above n are not written).
void tile_store(uint tile, uint n, ELEM_T add) {
    uint first = tile_first_vec(tile);
    if (tile_full(tile, n)) {
        [[unroll]] for (uint j = 0u; j < VECS; j++) out_v[first + j * gl_SubgroupSize] = tile_v[j] + add;
    } else {
        [[unroll]] for (uint j = 0u; j < VECS; j++) store_vec(first + j * gl_SubgroupSize, n, tile_v[j] + add);
    }
}

DEFINE_WG_SCAN(ELEM_T, tile_wg)

// Scans tile_v in place over the workgroup (inclusive or exclusive, starting from 0) and returns the tile's
// total in every invocation. Every invocation must call it (it contains barriers).
ELEM_T tile_scan(bool inclusive) {
    ELEM_T carry = ELEM_T(0);
    [[unroll]] for (uint j = 0u; j < VECS; j++) {
        ELEM_T s;
        ELEM_V x = vec_scan(tile_v[j], inclusive, s);
        ELEM_T incl = subgroupInclusiveAdd(s);
        tile_v[j] = x + (carry + (incl - s));
        carry += subgroupBroadcast(incl, gl_SubgroupSize - 1u);
    }
    // carry is the subgroup's total in every lane; the last lane contributes it to the workgroup scan,
    // so every lane gets the sum of the earlier subgroups' totals.
    ELEM_T total;
    ELEM_T before = tile_wg_exclusive_add(gl_SubgroupInvocationID == gl_SubgroupSize - 1u ? carry : ELEM_T(0), total);
    [[unroll]] for (uint j = 0u; j < VECS; j++) tile_v[j] += before;
    return total;
}
