#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: `build --backend
# llvm` of the 200 kernels with the prestarted helpers warming up (as shipped) and not
# (CAJETA_EXP_NO_WARMUP, the experiment commit after 'the reap at a spawn returns at once'),
# beside the rspirv build and naga, then the small commands beside naga; a timeline of each
# LLVM form. Carries .gl5/ (debs, paired, naga.gz, cajetac.gz, cajetac-llvm.xz).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for f in .gl5/*.deb; do dpkg -x "$f" /; done; ldconfig
B=/tmp/bin; mkdir -p $B
for f in .gl5/*.gz; do gunzip -c $f > $B/$(basename $f .gz); chmod +x $B/$(basename $f .gz); done
python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' .gl5/cajetac-llvm.xz > $B/cajetac-llvm; chmod +x $B/cajetac-llvm
cp .gl5/paired $B/; chmod +x $B/paired
W=/tmp/w; mkdir -p $W; cp tests/kernels/saxpy.cajeta compiler/benches/inputs/saxpy.wgsl $W/
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
C=$B/cajetac; E=/usr/bin/env
for v in CAJETA_EXP_X CAJETA_EXP_NO_WARMUP; do
  rm -f $OUT/trace_$v.txt; $E $v=1 CAJETA_COMPILE_TRACE=$OUT/trace_$v.txt $C build --backend llvm $W/many.cajeta -o $W/ml
done
python3 - $OUT <<'PY' > $OUT/trace_summary.txt
import sys
for v in ("CAJETA_EXP_X", "CAJETA_EXP_NO_WARMUP"):
    lines = [l.rstrip("\n").split(" ", 3) for l in open(sys.argv[1] + "/trace_%s.txt" % v)]
    t0 = float(lines[0][0])
    keep = ("main (", "handing", "helpers started", "build:", "ended helpers")
    print("== %s: %.2f ms" % (v, float(lines[-1][0]) - t0))
    for t, pid, th, what in lines:
        if what.startswith(keep):
            print("%8.2f %-18s %s" % (float(t) - t0, th, what))
    reads = [float(t) - t0 for t, p, th, w in lines if w.startswith("helper: request")]
    answers = [float(t) - t0 for t, p, th, w in lines if w == "helper: answered"]
    print("   requests read %.2f..%.2f, answered %.2f..%.2f" % (min(reads), max(reads), min(answers), max(answers)))
PY
{ echo "== 200 kernels (medians of 31, rebuilds, taking turns)"
  $B/paired 31 $E CAJETA_EXP_X=1 $C build --backend llvm $W/many.cajeta -o $W/ml -- $E CAJETA_EXP_NO_WARMUP=1 $C build --backend llvm $W/many.cajeta -o $W/mw \
    -- $E CAJETA_EXP_X=1 $C build $W/many.cajeta -o $W/mr -- $E CAJETA_EXP_X=1 $B/naga $W/many.wgsl $W/m.spv \
    -- $C build $W/many.cajeta -o $W/mr2 -- $B/naga $W/many.wgsl $W/m2.spv -- $C check $W/many.cajeta -- $B/naga $W/many.wgsl 2>&1
  echo "== small commands (medians of 101, taking turns)"
  $B/paired 101 $C --version -- $B/naga --version -- $C check $W/saxpy.cajeta -- $B/naga $W/saxpy.wgsl \
    -- $C build $W/saxpy.cajeta -o $W/s -- $B/naga $W/saxpy.wgsl $W/s.spv -- $C build --backend llvm $W/saxpy.cajeta -o $W/sl 2>&1
} > $OUT/timings.txt
cat $OUT/trace_summary.txt $OUT/timings.txt
