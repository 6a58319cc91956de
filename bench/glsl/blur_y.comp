#version 450
// Hand-written GLSL twin of `Blur.blurY` (examples/blur.cajeta); see blur_x.comp.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1) readonly buffer Wt { float wt[]; };
layout(set = 0, binding = 2, r32f) uniform writeonly image2D dst;
layout(push_constant) uniform Pc { uint w; uint h; int r; } pc;

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x < pc.w && y < pc.h) {
        precise float acc = 0.0;
        for (int j = -pc.r; j <= pc.r; j++) {
            uint sy = uint(clamp(int(y) + j, 0, int(pc.h) - 1));
            acc += wt[j + pc.r] * imageLoad(src, ivec2(x, sy)).r;
        }
        imageStore(dst, ivec2(x, y), vec4(acc, 0.0, 0.0, 0.0));
    }
}
