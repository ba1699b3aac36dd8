// control.glsl: the control block at the start of every sort's scratch (u32 words). The host reads these
// through the generated `shaders::include::control` (src/sort/count.rs); families add their own words after.
#ifndef CONTROL_GLSL
#define CONTROL_GLSL
const uint CTRL_N = 0u;          // keys to sort (the count, clamped to the capacity)
const uint CTRL_OVERFLOW = 1u;   // 1 when the GPU-side count was above the capacity
const uint CTRL_RAW_COUNT = 2u;  // the GPU-side count as read
const uint CTRL_WORDS = 256u;    // words of the control block

// A sort's first pass that reads the GPU-side count itself (`raw`, clamped to the capacity: `n`) leaves in
// buffer `meta`, from one invocation, what the later passes and the host read.
#define CTRL_RECORD_COUNT(meta, n, raw, capacity) \
    {                                             \
        meta[CTRL_N] = (n);                       \
        meta[CTRL_RAW_COUNT] = (raw);             \
        meta[CTRL_OVERFLOW] = (raw) > (capacity) ? 1u : 0u; \
    }
#endif
