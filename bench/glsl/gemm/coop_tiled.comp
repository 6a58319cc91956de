#version 450
// Hand-written reference GEMM for issue 13: C (float32) = A (float16, MxK row-major) x
// B (float16, KxN row-major) with GL_KHR_cooperative_matrix 16x16x16 tiles. One workgroup of
// 8 subgroups computes a BM x BN block; each subgroup holds a WM x WN block of accumulators
// (TM x TN tiles) in registers. A and B tiles are staged in shared memory with 16-byte loads,
// rows padded by one uvec4 to spread the banks. ACC is float (fp32 accumulators) or
// float16_t (fp16 accumulators), chosen with -DACC_F16; the block and subgroup tiles with
// -DBM=.. -DBN=.. -DBK=.. -DWM=.. -DWN=... The next K slice is fetched into registers while
// the current one is multiplied. Needs M % BM == N % BN == K % BK == 0.
#pragma use_vulkan_memory_model
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) readonly buffer A { uvec4 a[]; };
layout(set = 0, binding = 1) readonly buffer B { uvec4 b[]; };
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
#define WM 64
#define WN 32
#endif
const uint TM = WM / 16, TN = WN / 16;  // tiles per subgroup
const uint THREADS = (BM / WM) * (BN / WN) * 32;
const uint SA = BK / 8 + 1;             // row strides in uvec4, padded
const uint SB = BN / 8 + 1;
shared uvec4 sa[BM * SA];
shared uvec4 sb[BK * SB];

void main() {
    uint tid = gl_LocalInvocationID.x;
    uint warp = gl_SubgroupID;
    uint wm = warp / (BN / WN);
    uint wn = warp % (BN / WN);
    uint row0 = gl_WorkGroupID.y * BM;
    uint col0 = gl_WorkGroupID.x * BN;
    uint kq = pc.k / 8;
    uint nq = pc.n / 8;
    coopmat<ACC, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[TM][TN];
    for (uint i = 0; i < TM; i++) {
        for (uint j = 0; j < TN; j++) {
            acc[i][j] = coopmat<ACC, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
        }
    }
    const uint AQ = BM * BK / 8 / THREADS;  // uvec4 per thread per tile
    const uint BQ = BK * BN / 8 / THREADS;
    uvec4 ra[AQ];
    uvec4 rb[BQ];
    for (uint q = 0; q < AQ; q++) {
        uint i = tid + q * THREADS, r = i / (BK / 8), c = i % (BK / 8);
        ra[q] = a[(row0 + r) * kq + c];
    }
    for (uint q = 0; q < BQ; q++) {
        uint i = tid + q * THREADS, r = i / (BN / 8), c = i % (BN / 8);
        rb[q] = b[r * nq + col0 / 8 + c];
    }
    for (uint t = 0; t < pc.k; t += BK) {
        for (uint q = 0; q < AQ; q++) {
            uint i = tid + q * THREADS, r = i / (BK / 8), c = i % (BK / 8);
            sa[r * SA + c] = ra[q];
        }
        for (uint q = 0; q < BQ; q++) {
            uint i = tid + q * THREADS, r = i / (BN / 8), c = i % (BN / 8);
            sb[r * SB + c] = rb[q];
        }
        barrier();
        // The next tiles are fetched into registers while this one is multiplied.
        if (t + BK < pc.k) {
            for (uint q = 0; q < AQ; q++) {
                uint i = tid + q * THREADS, r = i / (BK / 8), c = i % (BK / 8);
                ra[q] = a[(row0 + r) * kq + (t + BK) / 8 + c];
            }
            for (uint q = 0; q < BQ; q++) {
                uint i = tid + q * THREADS, r = i / (BN / 8), c = i % (BN / 8);
                rb[q] = b[(t + BK + r) * nq + col0 / 8 + c];
            }
        }
        [[unroll]] for (uint kk = 0; kk < BK; kk += 16) {
            coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma[TM];
            coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb[TN];
            [[unroll]] for (uint i = 0; i < TM; i++) {
                coopMatLoad(ma[i], sa, (wm * WM + i * 16) * SA + kk / 8, SA, gl_CooperativeMatrixLayoutRowMajor);
            }
            [[unroll]] for (uint j = 0; j < TN; j++) {
                coopMatLoad(mb[j], sb, kk * SB + (wn * WN + j * 16) / 8, SB, gl_CooperativeMatrixLayoutRowMajor);
            }
            [[unroll]] for (uint i = 0; i < TM; i++) {
                [[unroll]] for (uint j = 0; j < TN; j++) {
                    acc[i][j] = coopMatMulAdd(ma[i], mb[j], acc[i][j]);
                }
            }
        }
        barrier();
    }
    for (uint i = 0; i < TM; i++) {
        for (uint j = 0; j < TN; j++) {
            coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> r =
                coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(acc[i][j]);
            uint off = (row0 + wm * WM + i * 16) * pc.n + col0 + wn * WN + j * 16;
            coopMatStore(r, c, off, pc.n, gl_CooperativeMatrixLayoutRowMajor);
        }
    }
}
