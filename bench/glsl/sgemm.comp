#version 450
// Hand-written GLSL twin of `Sgemm.sgemm` (examples/sgemm.cajeta): 16x16 tiles of A and B in
// shared memory between barriers, products summed in order k = 0, 1, 2, ... with `precise`
// (NoContraction, like Cajeta's float arithmetic), so both kernels give identical bits.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Pc { uint m; uint n; uint k; } pc;
shared float ta[16 * 16];
shared float tb[16 * 16];

void main() {
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint col = gl_WorkGroupID.x * 16 + tx;
    uint row = gl_WorkGroupID.y * 16 + ty;
    precise float acc = 0.0;
    for (uint t = 0; t < pc.k; t += 16) {
        ta[ty * 16 + tx] = (row < pc.m && t + tx < pc.k) ? a[row * pc.k + t + tx] : 0.0;
        tb[ty * 16 + tx] = (col < pc.n && t + ty < pc.k) ? b[(t + ty) * pc.n + col] : 0.0;
        barrier();
        for (uint kk = 0; kk < 16; kk++) {
            acc += ta[ty * 16 + kk] * tb[kk * 16 + tx];
        }
        barrier();
    }
    if (row < pc.m && col < pc.n) {
        c[row * pc.n + col] = acc;
    }
}
