// radix_plan.glsl: the plan of a radix sort, run by one workgroup after the upfront histograms (the
// radix_plan pass, or the upfront pass's last workgroup). Per digit place: turns the histogram into global
// exclusive digit offsets (in place) and skips the place when one digit holds all n keys (the pass would be the
// identity). Then writes, per place, the indirect dispatch arguments of its passes (0 groups when skipped) and
// the side the pass reads from, and the final copy's arguments. With an even number of places the plan keeps
// the number of passes run even (the result lands in the caller's buffers; the host records no copy then).
//
// Include after common.glsl, radix_common.glsl and wg_scan.glsl, with `meta[]` (the meta binding) and RADIX
// declared. Every invocation of the workgroup must call radix_plan (it contains barriers).
DEFINE_WG_SCAN(uint, pscan)

shared uint s_skip;

void radix_plan(uint places, uint tile, uint max_x, uint hist_off, uint copy_chunk, uint portion_tiles,
                uint copy_len) {
    uint lid = gl_LocalInvocationID.x;
    uint n = meta[CTRL_N];
    uint tiles = div_ceil(n, tile);
    const uint DPT = (RADIX + WG_SIZE - 1u) / WG_SIZE;
    uint skipped = 0u;   // bit p: place p is skipped (places <= 16: digits of at least 4 bits, keys <= 64 bits)
    for (uint p = 0u; p < places; p++) {
        if (lid == 0u) s_skip = n == 0u ? 1u : 0u;
        barrier();
        uint h = hist_off + p * RADIX;
        uint d0 = lid * DPT;
        uint sum = 0u;
        for (uint k = 0u; k < DPT; k++) {
            uint d = d0 + k;
            if (d < RADIX) {
                uint c = meta[h + d];
                if (c == n) s_skip = 1u;
                sum += c;
            }
        }
        uint total;
        uint ex = pscan_exclusive_add(sum, total);
        for (uint k = 0u; k < DPT; k++) {
            uint d = d0 + k;
            if (d < RADIX) {
                uint c = meta[h + d];
                meta[h + d] = ex;
                ex += c;
            }
        }
        barrier();
        if (s_skip != 0u) skipped |= 1u << p;
        barrier();
    }
    if (lid != 0u) return;
    // With an even number of places, an odd number of passes to run would leave the result on the scratch side
    // (and need the final copy): run one skipped place anyway (a stable pass over keys that all share its digit
    // is the identity), so the result always lands in the caller's buffers. n == 0 runs nothing.
    if (places % 2u == 0u && n > 0u && bitCount(((1u << places) - 1u) & ~skipped) % 2u == 1u) {
        skipped &= ~(1u << findMSB(skipped));
    }
    uint sel = 0u;
    for (uint p = 0u; p < places; p++) {
        bool skip = (skipped & (1u << p)) != 0u;
        uint r = CTRL_PASS + 8u * p;
        uvec3 t = indirect_grid(skip ? 0u : min(tiles, portion_tiles), max_x);
        meta[r + 0u] = t.x;
        meta[r + 1u] = t.y;
        meta[r + 2u] = t.z;
        meta[r + 3u] = sel;
        uvec3 s = indirect_grid(skip ? 0u : RADIX, max_x);
        meta[r + 4u] = s.x;
        meta[r + 5u] = s.y;
        meta[r + 6u] = s.z;
        meta[r + 7u] = skip ? 1u : 0u;
        if (!skip) sel ^= 1u;
    }
    meta[CTRL_TILES] = tiles;
    meta[CTRL_FINAL_SEL] = sel;
    uvec3 c = indirect_grid(sel == 1u ? div_ceil(min(n, copy_len), copy_chunk) : 0u, max_x);
    meta[CTRL_COPY_ARGS + 0u] = c.x;
    meta[CTRL_COPY_ARGS + 1u] = c.y;
    meta[CTRL_COPY_ARGS + 2u] = c.z;
}
