#version 460
// radix_upsweep.comp (vksort::radix::upsweep): reduce-then-scan, step 1 of a digit place: the digit counts of
// tile g = portion * portion_tiles + workgroup id, written digit-major to status[digit * tiles + g]. The key
// bindings hold the portion's keys from key src_base on.
#include "common.glsl"
#include "keys.glsl"
#include "radix_common.glsl"

layout(constant_id = 2) const uint KPT = 8;
layout(constant_id = 3) const uint DIGIT_BITS = 8;
layout(constant_id = 4) const uint KEY_WORDS = 1;

const uint RADIX = 1u << DIGIT_BITS;
const uint TILE = WG_SIZE * KPT;

BUFFER(0, readonly, keys_a);
BUFFER(1, readonly, keys_b);
BUFFER(2, readonly, meta);
BUFFER(3, writeonly, status);

layout(push_constant) uniform Push {
    uint shift;
    uint pass_bits;
    uint pass_index;
    uint key_kind;
    uint flags;
    uint portion;
    uint portion_tiles;
    uint src_base;
} pc;

shared uint s_hist[RADIX];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = meta[CTRL_N];
    uint tiles = div_ceil(n, TILE);
    uint lg = flat_group_id();
    uint g = pc.portion * pc.portion_tiles + lg;
    if (lg >= pc.portion_tiles || g >= tiles) return;
    uint sel = meta[CTRL_PASS + 8u * pc.pass_index + 3u];
    for (uint d = lid; d < RADIX; d += WG_SIZE) s_hist[d] = 0u;
    barrier();
    uint mask = (1u << pc.pass_bits) - 1u;
    bool desc = (pc.flags & 1u) != 0u;
    [[unroll]] for (uint k = 0u; k < KPT; k++) {
        uint gidx = g * TILE + k * WG_SIZE + lid;
        uint idx = gidx - pc.src_base;
        if (gidx < n) {
            uvec2 key;
            if (sel == 0u) {
                key = uvec2(keys_a[idx * KEY_WORDS], KEY_WORDS == 2u ? keys_a[idx * KEY_WORDS + 1u] : 0u);
            } else {
                key = uvec2(keys_b[idx * KEY_WORDS], KEY_WORDS == 2u ? keys_b[idx * KEY_WORDS + 1u] : 0u);
            }
            atomicAdd(s_hist[key_digit(key_transform(key, pc.key_kind, desc), pc.shift, mask)], 1u);
        }
    }
    barrier();
    for (uint d = lid; d < RADIX; d += WG_SIZE) status[d * tiles + g] = s_hist[d];
}
