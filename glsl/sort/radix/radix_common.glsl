// radix_common.glsl: what the radix-sort passes share. Include after common.glsl and keys.glsl.
//
// Scratch "meta" region (one storage buffer binding, u32 words):
//   [0, CTRL_WORDS)                     control block (below)
//   [hist_off, hist_off + PLACES*RADIX) per digit place: digit histogram, then (after radix_plan) the
//                                       global exclusive digit offsets (portion 0's; see below)
//   [.. + PLACES*RADIX, .. + 2*PLACES*RADIX)  per place: the second "running offsets" array of portions
// Scratch "status" region (its own binding per pass):
//   onesweep: one slot per (place, portion): word 0 the portion's tile counter, then from STATUS_HDR the
//             look-back status per (tile of the portion, digit)
//   reduce-then-scan: per-(digit, tile) counts, then offsets (all tiles of the sort)
//
// Portions: a sort is cut into portions of whole tiles (a look-back status word counts at most 2^30 - 1
// keys, and a binding covers at most maxStorageBufferRange bytes). Each pass runs once per portion; the
// portion's source keys/values are bound from its first key (push constant src_base = that key's index), and
// destinations are global (through 64-bit device addresses when an array exceeds one binding: the `wide`
// variants). Onesweep's portion q reads its global digit offsets from one running array of the place and its
// last tile leaves portion q + 1's offsets (its own plus the portion's digit counts) in the other.
//
// Look-back status word: bits 30..31 flag (0 not ready, 1 aggregate, 2 inclusive prefix), bits 0..29 count.

#include "control.glsl"           // CTRL_N, CTRL_OVERFLOW, CTRL_RAW_COUNT, CTRL_WORDS
const uint CTRL_TILES = 3u;      // tiles of the pass kernels
const uint CTRL_UPFRONT_ARGS = 4u;   // VkDispatchIndirectCommand of the upfront histogram (indirect count)
const uint CTRL_COPY_ARGS = 8u;      // VkDispatchIndirectCommand of the final copy (0 groups when not needed)
const uint CTRL_FINAL_SEL = 11u;     // where the result lies after all passes: 0 caller's buffers, 1 scratch
const uint CTRL_UPFRONT_DONE = 12u;  // upfront workgroups done (plan_fused: the last one plans)
const uint CTRL_MSD = 13u;           // MSD sort: split digit's low bit + 1 (0: nothing to sort)
const uint CTRL_MSD_BIAS = 14u;      // MSD sort: the keys' bias (2 words, msd_range.glsl)
const uint CTRL_HYBRID = 16u;        // hybrid sort: its groups' lowest bit, then their bit count (radix_plan.glsl)
const uint CTRL_FUSED_ITEM = 18u;     // fused Onesweep (radix_onesweep.comp FUSED): the next item to claim
const uint CTRL_FUSED_PLANNED = 19u;  //   1 once the plan is written
const uint CTRL_FUSED_STALLED = 20u;  //   1 when a wait gave up (a broken sort; the result is wrong)
const uint CTRL_FUSED_DONE = 21u;     //   per place p (at most 8): CTRL_FUSED_DONE + p, its tiles finished
const uint CTRL_PASS = 32u;          // per place p: CTRL_PASS + 8p: tile args (x,y,z), source selector,
                                     //   spine args (x,y,z), skipped flag
const uint STATUS_HDR = 32u;         // onesweep status slot: words before the first tile's status

const uint FLAG_AGGREGATE = 1u << 30;
const uint FLAG_INCLUSIVE = 2u << 30;
const uint COUNT_MASK = (1u << 30) - 1u;

// A device address base + idx x stride + extra, in 64 bits (lo, hi): the wide variants' stores and the clock
// records.
uvec2 addr_at(uvec2 base, uint idx, uint stride, uint extra) {
    uint hi, lo, c0, c1;
    umulExtended(idx, stride, hi, lo);
    lo = uaddCarry(lo, extra, c0);
    uint rlo = uaddCarry(base.x, lo, c1);
    return uvec2(rlo, base.y + hi + c0 + c1);
}

// A VkDispatchIndirectCommand's (x, y, z) for `groups` workgroups (flat_group_id() order): at most max_x
// (maxComputeWorkGroupCount[0]) in x; 0 groups give (0, 1, 1).
uvec3 indirect_grid(uint groups, uint max_x) {
    if (groups == 0u) return uvec3(0u, 1u, 1u);
    uint x = min(groups, max_x);
    return uvec3(x, div_ceil(groups, x), 1u);
}
