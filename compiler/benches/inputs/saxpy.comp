#version 450
// The saxpy kernel of tests/kernels/saxpy.cajeta, hand-written in GLSL.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform P { float a; uint n; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) { return; }
    y[i] = a * x[i] + y[i];
}
