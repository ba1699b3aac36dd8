// radix_common.glsl: what the radix-sort passes share. Include after common.glsl and keys.glsl.
//
// Scratch "meta" region (one storage buffer binding, u32 words):
//   [0, CTRL_WORDS)                     control block (below)
//   [hist_off, hist_off + PLACES*RADIX) per digit place: digit histogram, then (after radix_plan) the
//                                       global exclusive digit offsets
//   [status_off, ...)                   onesweep: look-back status per (place, tile, digit);
//                                       reduce-then-scan: per-(digit, tile) counts, then offsets
//
// Look-back status word: bits 30..31 flag (0 not ready, 1 aggregate, 2 inclusive prefix), bits 0..29 count.
// Hence at most 2^30 - 1 keys per sort (checked on the host).

const uint CTRL_N = 0u;          // keys to sort (clamped count)
const uint CTRL_OVERFLOW = 1u;   // 1 when the GPU-side count was above the capacity
const uint CTRL_RAW_COUNT = 2u;  // the GPU-side count as read
const uint CTRL_TILES = 3u;      // tiles of the pass kernels
const uint CTRL_UPFRONT_ARGS = 4u;   // VkDispatchIndirectCommand of the upfront histogram (indirect count)
const uint CTRL_COPY_ARGS = 8u;      // VkDispatchIndirectCommand of the final copy (0 groups when not needed)
const uint CTRL_FINAL_SEL = 11u;     // where the result lies after all passes: 0 caller's buffers, 1 scratch
const uint CTRL_COUNTERS = 16u;      // tile counters, one per digit place
const uint CTRL_PASS = 32u;          // per place p: CTRL_PASS + 8p: tile args (x,y,z), source selector,
                                     //   spine args (x,y,z), skipped flag
const uint CTRL_WORDS = 256u;

const uint FLAG_AGGREGATE = 1u << 30;
const uint FLAG_INCLUSIVE = 2u << 30;
const uint COUNT_MASK = (1u << 30) - 1u;
