// clock.glsl: phase-clock records of the `_clock` variants (CLOCKS=1; diagnostics). Invocation 0 of each
// workgroup keeps a CLOCK_WORDS-word record in shared memory (so the instrumented kernel needs hardly more
// registers than the plain one), reads the SM clock at phase boundaries (CLOCK(i), each right after a barrier)
// and the device's real-time clock at entry and exit, and writes the record through a device address at every
// exit (through radix_common.glsl's addr_at). The layouts below are the ones src/sort/radix/clocks.rs decodes
// (through the generated constants).
#ifndef CLOCK_GLSL
#define CLOCK_GLSL
const uint CLOCK_WORDS = 16u;
// Onesweep tiles: words 0..8 the SM clock at the phases of clocks.rs's PHASES, then:
const uint TILE_CLOCK_SM = 9u;         // the SM id (0 without GL_NV_shader_sm_builtins)
const uint TILE_CLOCK_RT_ENTRY = 10u;  // the real-time clock at entry (lo, hi)
const uint TILE_CLOCK_RT_END = 12u;    // the real-time clock at the end (lo, hi)
const uint TILE_CLOCK_WARP = 14u;      // invocation 0's warp id
const uint TILE_CLOCK_TILE = 15u;      // the tile's global index + 1 (0: no record)
const uint TILE_CLOCK_END = 8u;        // the phase word written at the end
// MSD bucket groups: words 0..7 the SM clock at the phases of clocks.rs's msd::PHASES, then:
const uint MSD_CLOCK_SM = 8u;
const uint MSD_CLOCK_GROUP = 9u;       // the group's index + 1 (0: no record)
const uint MSD_CLOCK_PATH = 10u;       // path | bucket << 8 | digit places sorted << 24
const uint MSD_CLOCK_KEYS = 11u;
const uint MSD_CLOCK_RT_ENTRY = 12u;
const uint MSD_CLOCK_RT_END = 14u;
const uint MSD_CLOCK_END = 7u;

#ifndef CLOCKS
#define CLOCKS 0
#endif
#if CLOCKS
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_ARB_shader_clock : require
#extension GL_EXT_shader_realtime_clock : require
#ifdef SMID
#extension GL_NV_shader_sm_builtins : require
#endif
#ifndef WORD_REF
#define WORD_REF
layout(buffer_reference, std430, buffer_reference_align = 4) buffer WordRef { uint word; };
#endif
shared uint clk[CLOCK_WORDS];
#define CLOCK(i) if (gl_LocalInvocationID.x == 0u) clk[i] = clock2x32ARB().x

// Entry (invocation 0): the record cleared, the SM clock in word 0, the real-time clock at `rt`.
void clock_entry(uint rt) {
    if (gl_LocalInvocationID.x != 0u) return;
    for (uint i = 0u; i < CLOCK_WORDS; i++) clk[i] = 0u;
    uvec2 t = clockRealtime2x32EXT();
    clk[0] = clock2x32ARB().x;
    clk[rt] = t.x;
    clk[rt + 1u] = t.y;
}

// Exit (invocation 0): the SM clock in word `end`, the real-time clock at `rt`, the SM id at `sm`, `id` + 1 at
// `id_word`, then the record stored at `base + record x CLOCK_WORDS x 4`.
void clock_exit(uint end, uint rt, uint sm, uint id_word, uint id, uvec2 base, uint record) {
    if (gl_LocalInvocationID.x != 0u) return;
    uvec2 t = clockRealtime2x32EXT();
    clk[end] = clock2x32ARB().x;
    clk[rt] = t.x;
    clk[rt + 1u] = t.y;
#ifdef SMID
    clk[sm] = gl_SMIDNV;
#else
    clk[sm] = 0u;
#endif
    clk[id_word] = id + 1u;
    for (uint i = 0u; i < CLOCK_WORDS; i++) WordRef(addr_at(base, record, CLOCK_WORDS * 4u, i * 4u)).word = clk[i];
}
#else
#define CLOCK(i)
#endif
#endif
