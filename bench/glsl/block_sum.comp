#version 450
// Hand-written GLSL twin of `Reduction.blockSum` (examples/reduction.cajeta): a grid-stride
// sum per thread, then a tree in 256 shared ints with one barrier per level.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) readonly buffer In { int inp[]; };
layout(set = 0, binding = 1) writeonly buffer Out { int outp[]; };
layout(push_constant) uniform Pc { uint n; } pc;
shared int t[256];

void main() {
    uint l = gl_LocalInvocationID.x;
    int acc = 0;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) {
        acc += inp[i];
    }
    t[l] = acc;
    barrier();
    for (uint s = 128; s > 0; s = s >> 1) {
        if (l < s) {
            t[l] = t[l] + t[l + s];
        }
        barrier();
    }
    if (l == 0) {
        outp[gl_WorkGroupID.x] = t[0];
    }
}
