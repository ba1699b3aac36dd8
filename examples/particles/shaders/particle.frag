#version 450
// particles::draw, fragment stage: a soft disc (alpha falls to 0 at the quad's inscribed circle), blended
// "over" what is behind it: src * a + dst * (1 - a). Only a back-to-front order gives the right picture.
layout(location = 0) in vec2 uv;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 out_color;

void main() {
    float a = color.a * max(0.0, 1.0 - dot(uv, uv));
    out_color = vec4(color.rgb, a);
}
