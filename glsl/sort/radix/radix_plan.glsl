// radix_plan.glsl: the plan of a radix sort, run by one workgroup after the upfront histograms (the
// radix_plan pass, or the upfront pass's last workgroup). Per digit place: turns the histogram into global
// exclusive digit offsets (in place; all places in one read and one scan) and skips the place when one digit holds all n keys (the pass would be the
// identity). Then writes, per place, the indirect dispatch arguments of its passes (0 groups when skipped) and
// the side the pass reads from, and the final copy's arguments. With an even number of places the plan keeps
// the number of passes run even (the result lands in the caller's buffers; the host records no copy then).
//
// Include after common.glsl, radix_common.glsl and wg_scan.glsl, with `meta[]` (the meta binding) and RADIX
// declared. Every invocation of the workgroup must call radix_plan (it contains barriers).
DEFINE_WG_SCAN(uint, pscan)

shared uint s_skip;   // bit p: place p is skipped (places <= 16: digits of at least 4 bits, keys <= 64 bits)
shared bool s_plan_last;

// The ticket of a pass whose last workgroup plans: each of its `groups` workgroups calls this (every invocation)
// after adding its histograms to meta, and it returns true in the last one to take a ticket (CTRL_UPFRONT_DONE).
// Every workgroup's histogram writes come before its ticket and that one's reads after its own, so it sees them
// all.
bool last_to_count(uint groups) {
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationID.x == 0u) s_plan_last = atomicAdd(meta[CTRL_UPFRONT_DONE], 1u) == groups - 1u;
    barrier();
    if (!s_plan_last) return false;
    memoryBarrierBuffer();
    return true;
}

// Histogram words per invocation: every place's histogram is read in one round trip.
const uint PLAN_WPT = ((64u + DIGIT_BITS - 1u) / DIGIT_BITS * RADIX + WG_SIZE - 1u) / WG_SIZE;

// `hybrid` (the hybrid sort; 0 for the LSD sorts): bits 0..7 its MSD places P, bits 8..15 log2 of its most
// groups. The plan then runs only the P highest places that are not skipped (Onesweep, in place order), skips
// every place below them, keeps no pass parity (the group pass reads either side), and writes the groups' bits
// for the bounds and group passes (CTRL_HYBRID: the groups' lowest bit, the bits below it are sorted in the
// group pass; CTRL_HYBRID + 1: group bits, at most log2 of the most groups, the highest of the bits the MSD
// passes sorted on, below the places skipped above them).
void radix_plan(uint places, uint tile, uint max_x, uint hist_off, uint copy_chunk, uint portion_tiles,
                uint copy_len, uint lo, uint hi, uint hybrid) {
    uint lid = gl_LocalInvocationID.x;
    uint n = meta[CTRL_N];
    uint tiles = div_ceil(n, tile);
    // The histograms of all places, one array of places x RADIX words, scanned at once: each place's counts
    // sum to n, so the exclusive scan at word p x RADIX + d is p x n plus digit d's offset within place p
    // (exact modulo 2^32, as the offset itself is below 2^32). Invocation lid holds a contiguous chunk.
    uint words = places * RADIX;
    uint wpt = div_ceil(words, WG_SIZE);
    uint w0 = lid * wpt;
    uint cnt[PLAN_WPT];
    [[unroll]] for (uint k = 0u; k < PLAN_WPT; k++) {
        cnt[k] = k < wpt && w0 + k < words ? meta[hist_off + w0 + k] : 0u;
    }
    if (lid == 0u) s_skip = n == 0u ? 0xFFFFFFFFu : 0u;
    barrier();
    uint sum = 0u;
    uint full = 0u;   // places where one of this invocation's digits holds all n keys
    [[unroll]] for (uint k = 0u; k < PLAN_WPT; k++) {
        if (cnt[k] == n && k < wpt && w0 + k < words) full |= 1u << ((w0 + k) / RADIX);
        sum += cnt[k];
    }
    if (full != 0u) atomicOr(s_skip, full);
    uint total;
    uint ex = pscan_exclusive_add(sum, total);   // its barriers also order s_skip
    [[unroll]] for (uint k = 0u; k < PLAN_WPT; k++) {
        uint i = w0 + k;
        if (k < wpt && i < words) meta[hist_off + i] = ex - (i / RADIX) * n;
        ex += cnt[k];
    }
    uint skipped = s_skip & ((1u << places) - 1u);
    if (lid != 0u) return;
    // With an even number of places, an odd number of passes to run would leave the result on the scratch side
    // (and need the final copy): run one skipped place anyway (a stable pass over keys that all share its digit
    // is the identity), so the result always lands in the caller's buffers. n == 0 runs nothing.
    uint hybrid_p = hybrid & 0xFFu;
    if (hybrid_p == 0u && places % 2u == 0u && n > 0u && bitCount(((1u << places) - 1u) & ~skipped) % 2u == 1u) {
        skipped &= ~(1u << findMSB(skipped));
    }
    if (hybrid_p != 0u) {
        uint live = ((1u << places) - 1u) & ~skipped;
        uint top_end = lo;   // end of the highest place that is not skipped
        uint cut = 0u;       // the lowest MSD place
        if (live != 0u) {
            top_end = min(hi, lo + (uint(findMSB(live)) + 1u) * DIGIT_BITS);
            uint m = live;
            for (uint k = 0u; k < hybrid_p && m != 0u; k++) {
                cut = uint(findMSB(m));
                m &= ~(1u << cut);
            }
        }
        skipped |= (1u << cut) - 1u;
        uint gb = min(top_end - (lo + cut * DIGIT_BITS), (hybrid >> 8u) & 0xFFu);
        meta[CTRL_HYBRID] = top_end - gb;
        meta[CTRL_HYBRID + 1u] = gb;
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
