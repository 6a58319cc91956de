"""Writes the compile_speed bench's 200-kernel inputs (compiler/benches/gen.rs: `cajeta(200)`
and `wgsl(200)`) into the folder given, as many.cajeta and many.wgsl, for the device
scripts, which carry no cargo."""
import sys

W = sys.argv[1]
s = "package bench;\nimport cajeta.xpu.*;\n\npublic final class Many {\n"
g = "struct P { a: f32, n: u32 }\n@group(0) @binding(0) var<storage, read> x: array<f32>;\n@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n@group(0) @binding(2) var<uniform> p: P;\n"
for i in range(200):
    s += ("    @Kernel\n    public static void k%d(KernelBuffer<float32> x, KernelBuffer<float32> y, float32 a, uint32 n) {\n        uint32 j = KernelThread.globalIdX();\n        if (j >= n) {\n            return;\n        }\n        float32 v = x[j];\n        for (uint32 t = 0; t < %d; t++) {\n            v = v * a + (float32) t;\n        }\n        y[j] = v + y[j];\n    }\n\n") % (i, i % 4 + 1)
    g += ("@compute @workgroup_size(64)\nfn k%d(@builtin(global_invocation_id) gid: vec3<u32>) {\n    let j = gid.x;\n    if (j >= p.n) { return; }\n    var v = x[j];\n    for (var t = 0u; t < %du; t++) { v = v * p.a + f32(t); }\n    y[j] = v + y[j];\n}\n") % (i, i % 4 + 1)
open(W + "/many.cajeta", "w").write(s + "}\n")
open(W + "/many.wgsl", "w").write(g)
