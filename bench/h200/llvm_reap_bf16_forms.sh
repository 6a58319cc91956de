#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: (1) the bf16p store's
# cost, precision_axpb built with the experiment of commit "experiment: CAJETA_EXP_BF16"
# run as shipped, without the NaN test (nonan) and without rounding (trunc), taking turns;
# (2) `build --backend llvm` of the 200 kernels with helpers reaped off the compiling
# threads' path, beside the rspirv build and naga (same run), and three timelines
# (CAJETA_COMPILE_TRACE). Carries .gl4/ (debs, paired, naga.gz, cajetac.gz,
# cajetac-llvm.xz, precision_axpb.gz).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for f in .gl4/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/bin; mkdir -p $B
for f in .gl4/*.gz; do gunzip -c $f > $B/$(basename $f .gz); chmod +x $B/$(basename $f .gz); done
python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' .gl4/cajetac-llvm.xz > $B/cajetac-llvm; chmod +x $B/cajetac-llvm
cp .gl4/paired $B/; chmod +x $B/paired
{ uname -r; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core"; } | tee $OUT/host.txt
echo "== precision_axpb: shipped / nonan / trunc, three rounds"
for r in 1 2 3; do for v in shipped nonan trunc; do
  echo "-- $v $r"; CAJETA_EXP_BF16=$v $B/precision_axpb --mib 256 --reps 15 2>&1 | tee $OUT/axpb_${v}_$r.txt | grep -E "^\| (fp32|bf16p)|copy ="
done; done
W=/tmp/w; mkdir -p $W; cp compiler/benches/inputs/saxpy.wgsl $W/
python3 - $W <<'PY'
import sys
W = sys.argv[1]
s = "package bench;\nimport cajeta.xpu.*;\n\npublic final class Many {\n"
g = "struct P { a: f32, n: u32 }\n@group(0) @binding(0) var<storage, read> x: array<f32>;\n@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n@group(0) @binding(2) var<uniform> p: P;\n"
for i in range(200):
    s += ("    @Kernel\n    public static void k%d(KernelBuffer<float32> x, KernelBuffer<float32> y, float32 a, uint32 n) {\n        uint32 j = KernelThread.globalIdX();\n        if (j >= n) {\n            return;\n        }\n        float32 v = x[j];\n        for (uint32 t = 0; t < %d; t++) {\n            v = v * a + (float32) t;\n        }\n        y[j] = v + y[j];\n    }\n\n") % (i, i % 4 + 1)
    g += ("@compute @workgroup_size(64)\nfn k%d(@builtin(global_invocation_id) gid: vec3<u32>) {\n    let j = gid.x;\n    if (j >= p.n) { return; }\n    var v = x[j];\n    for (var t = 0u; t < %du; t++) { v = v * p.a + f32(t); }\n    y[j] = v + y[j];\n}\n") % (i, i % 4 + 1)
open(W + "/many.cajeta", "w").write(s + "}\n")
open(W + "/many.wgsl", "w").write(g)
PY
echo "== 200 kernels (medians of 31, rebuilds, taking turns)" | tee $OUT/many.txt
$B/paired 31 $B/cajetac build --backend llvm $W/many.cajeta -o $W/ml -- $B/cajetac build $W/many.cajeta -o $W/mr -- $B/naga $W/many.wgsl $W/m.spv 2>&1 | tee -a $OUT/many.txt
for i in 1 2 3; do
  rm -f $OUT/trace$i.txt
  CAJETA_COMPILE_TRACE=$OUT/trace$i.txt $B/cajetac build --backend llvm $W/many.cajeta -o $W/ml
done
python3 - $OUT <<'PY' | tee $OUT/trace_summary.txt
import sys
for i in (1, 2, 3):
    lines = [l.rstrip("\n").split(" ", 3) for l in open(sys.argv[1] + "/trace%d.txt" % i)]
    t0 = float(lines[0][0])
    keep = ("main (", "handing", "helpers started", "build:", "ended helpers")
    print("== trace %d: %.2f ms" % (i, float(lines[-1][0]) - t0))
    for t, pid, th, what in lines:
        if what.startswith(keep):
            print("%8.2f %7s %-18s %s" % (float(t) - t0, pid, th, what))
    reads = [float(t) - t0 for t, p, th, w in lines if w.startswith("helper: request")]
    answers = [float(t) - t0 for t, p, th, w in lines if w == "helper: answered"]
    print("   requests read %.2f..%.2f, answered %.2f..%.2f" % (min(reads), max(reads), min(answers), max(answers)))
PY
echo "== done"
