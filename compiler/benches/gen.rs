//! Generated inputs shared by the compile-speed benchmarks: the same N kernels written in
//! Cajeta, GLSL (one file each, as glslang wants) and WGSL (one module, N entry points).

/// One Cajeta file with `n` kernels.
pub fn cajeta(n: usize) -> String {
    let mut s = String::from("package bench;\nimport cajeta.xpu.*;\n\npublic final class Many {\n");
    for i in 0..n {
        s.push_str(&format!(
            "    @Kernel\n    public static void k{i}(KernelBuffer<float32> x, KernelBuffer<float32> y, float32 a, uint32 n) {{\n        uint32 j = KernelThread.globalIdX();\n        if (j >= n) {{\n            return;\n        }}\n        float32 v = x[j];\n        for (uint32 t = 0; t < {}; t++) {{\n            v = v * a + (float32) t;\n        }}\n        y[j] = v + y[j];\n    }}\n\n",
            i % 4 + 1
        ));
    }
    s.push_str("}\n");
    s
}

/// Kernel `i` in GLSL.
pub fn glsl(i: usize) -> String {
    format!(
        "#version 450\nlayout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\nlayout(set = 0, binding = 0) readonly buffer X {{ float x[]; }};\nlayout(set = 0, binding = 1) buffer Y {{ float y[]; }};\nlayout(push_constant) uniform P {{ float a; uint n; }};\nvoid main() {{\n    uint j = gl_GlobalInvocationID.x;\n    if (j >= n) {{ return; }}\n    float v = x[j];\n    for (uint t = 0u; t < {}u; t++) {{ v = v * a + float(t); }}\n    y[j] = v + y[j];\n}}\n",
        i % 4 + 1
    )
}

/// One WGSL module with `n` entry points.
pub fn wgsl(n: usize) -> String {
    let mut s = String::from("struct P { a: f32, n: u32 }\n@group(0) @binding(0) var<storage, read> x: array<f32>;\n@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n@group(0) @binding(2) var<uniform> p: P;\n");
    for i in 0..n {
        s.push_str(&format!(
            "@compute @workgroup_size(64)\nfn k{i}(@builtin(global_invocation_id) gid: vec3<u32>) {{\n    let j = gid.x;\n    if (j >= p.n) {{ return; }}\n    var v = x[j];\n    for (var t = 0u; t < {}u; t++) {{ v = v * p.a + f32(t); }}\n    y[j] = v + y[j];\n}}\n",
            i % 4 + 1
        ));
    }
    s
}
