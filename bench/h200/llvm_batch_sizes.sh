#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: `build --backend
# llvm` of the 200 kernels (74c6866f: no warm-up, helpers reaped off the threads' path) at
# the default batch size (13 kernels, 16 batches) and at CAJETA_LLVM_BATCH=10, 7 and 4
# (more batches than compile threads, taken as threads come free), beside the rspirv build
# and naga, taking turns; a timeline of the default and of size 7. Carries .gl6/ (debs,
# paired, naga.gz, cajetac.gz, cajetac-llvm.xz).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for f in .gl6/*.deb; do dpkg -x "$f" /; done; ldconfig
B=/tmp/bin; mkdir -p $B
for f in .gl6/*.gz; do gunzip -c $f > $B/$(basename $f .gz); chmod +x $B/$(basename $f .gz); done
python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' .gl6/cajetac-llvm.xz > $B/cajetac-llvm; chmod +x $B/cajetac-llvm
cp .gl6/paired $B/; chmod +x $B/paired
W=/tmp/w; mkdir -p $W
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
for v in 0 7; do
  rm -f $OUT/trace_$v.txt; $E CAJETA_LLVM_BATCH=$v CAJETA_COMPILE_TRACE=$OUT/trace_$v.txt $C build --backend llvm $W/many.cajeta -o $W/t$v
done
python3 - $OUT <<'PY' > $OUT/trace_summary.txt
import sys
for v in ("0", "7"):
    lines = [l.rstrip("\n").split(" ", 3) for l in open(sys.argv[1] + "/trace_%s.txt" % v)]
    t0 = float(lines[0][0])
    keep = ("main (", "handing", "helpers started", "build:", "ended helpers")
    print("== CAJETA_LLVM_BATCH=%s: %.2f ms" % (v, float(lines[-1][0]) - t0))
    for t, pid, th, what in lines:
        if what.startswith(keep):
            print("%8.2f %-18s %s" % (float(t) - t0, th, what))
    reads = [float(t) - t0 for t, p, th, w in lines if w.startswith("helper: request")]
    answers = [float(t) - t0 for t, p, th, w in lines if w == "helper: answered"]
    print("   %d requests read %.2f..%.2f, answered %.2f..%.2f" % (len(reads), min(reads), max(reads), min(answers), max(answers)))
PY
{ echo "== 200 kernels (medians of 31, rebuilds, taking turns; CAJETA_LLVM_BATCH=0 is the default)"
  $B/paired 31 $E CAJETA_LLVM_BATCH=0 $C build --backend llvm $W/many.cajeta -o $W/l0 -- $E CAJETA_LLVM_BATCH=10 $C build --backend llvm $W/many.cajeta -o $W/l10 \
    -- $E CAJETA_LLVM_BATCH=7 $C build --backend llvm $W/many.cajeta -o $W/l7 -- $E CAJETA_LLVM_BATCH=4 $C build --backend llvm $W/many.cajeta -o $W/l4 \
    -- $E CAJETA_LLVM_BATCH=0 $C build $W/many.cajeta -o $W/r -- $E CAJETA_LLVM_BATCH=0 $B/naga $W/many.wgsl $W/m.spv 2>&1
} > $OUT/timings.txt
lscpu | grep -E "Thread|Core|Socket|Model name" >> $OUT/timings.txt
cat $OUT/trace_summary.txt $OUT/timings.txt
