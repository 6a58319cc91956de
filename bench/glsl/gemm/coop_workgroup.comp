#version 450
// Hand-written reference GEMM with workgroup-scope cooperative matrices
// (VK_NV_cooperative_matrix2's cooperativeMatrixWorkgroupScope / FlexibleDimensions): the
// whole workgroup holds one BM x BN accumulator and multiplies BM x BK by BK x BN tiles
// loaded straight from the buffers; the driver decides how the tiles are staged and split
// over the workgroup's subgroups. C (float32) = A (float16, MxK row-major) x B (float16, KxN
// row-major); fp16 accumulators with -DACC_F16. Needs M % BM == N % BN == K % BK == 0.
#pragma use_vulkan_memory_model
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Pc { uint m; uint n; uint k; } pc;

#ifdef ACC_F16
#define ACC float16_t
#else
#define ACC float
#endif

#ifndef BM
#define BM 128
#define BN 128
#define BK 32
#endif

void main() {
    uint row0 = gl_WorkGroupID.y * BM;
    uint col0 = gl_WorkGroupID.x * BN;
    coopmat<ACC, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
        coopmat<ACC, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
    for (uint t = 0; t < pc.k; t += BK) {
        coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
        coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
        coopMatLoad(ma, a, row0 * pc.k + t, pc.k, gl_CooperativeMatrixLayoutRowMajor);
        coopMatLoad(mb, b, t * pc.n + col0, pc.n, gl_CooperativeMatrixLayoutRowMajor);
        acc = coopMatMulAdd(ma, mb, acc);
    }
    coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> r =
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(acc);
    coopMatStore(r, c, row0 * pc.n + col0, pc.n, gl_CooperativeMatrixLayoutRowMajor);
}
