#version 450
// Hand-written GLSL twin of `Blur.blurX` (examples/blur.cajeta) for the kernel-speed
// benchmark: same workgroup-size spec ids, bindings and push-constant layout as cajetac's
// reflection, same tap order, and `precise` so the sum is NoContraction like Cajeta's floats.
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) uniform texture2D src;
layout(set = 0, binding = 1) readonly buffer Wt { float wt[]; };
layout(set = 0, binding = 2, r32f) uniform writeonly image2D dst;
layout(push_constant) uniform Pc { uint w; uint h; int r; } pc;

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x < pc.w && y < pc.h) {
        precise float acc = 0.0;
        for (int j = -pc.r; j <= pc.r; j++) {
            uint sx = uint(clamp(int(x) + j, 0, int(pc.w) - 1));
            acc += wt[j + pc.r] * texelFetch(src, ivec2(sx, y), 0).r;
        }
        imageStore(dst, ivec2(x, y), vec4(acc, 0.0, 0.0, 0.0));
    }
}
