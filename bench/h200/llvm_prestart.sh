#!/bin/bash
# Issue 32, session of 2026-12-07 (third), one command on the device host's CPU: the LLVM
# kernel backend's 200-kernel build and saxpy with the emission helpers started on the main
# thread before the front end (old: the build of 48bbc314) and on starter threads beside it
# (new: 55e389a3), and the rspirv backend's build of the same file (the anchor), taking
# turns. Carries .gl2/ (debs, old/cajetac-llvm.xz, new/cajetac.gz, new/cajetac-llvm.xz).
# Ran once (2026-12-07): the starter threads did not help on the host and were reverted
# (71c84162; docs/PERFORMANCE.md, "Both machines after the LLVM backend's lean pipeline").
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for f in .gl2/*.deb; do dpkg -x "$f" /; done; ldconfig
B=/tmp/bin; mkdir -p $B/old $B/new
unxz() { python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$1" > "$2"; chmod +x "$2"; }
gunzip -c .gl2/new/cajetac.gz > $B/new/cajetac; chmod +x $B/new/cajetac
unxz .gl2/new/cajetac-llvm.xz $B/new/cajetac-llvm; unxz .gl2/old/cajetac-llvm.xz $B/old/cajetac-llvm
lscpu | grep -E "Model name|^CPU\(s\)" | tee $OUT/cpu.txt
W=/tmp/w; mkdir -p $W; cp tests/kernels/saxpy.cajeta $W/
python3 - "$B" "$W" <<'PY' 2>&1 | tee $OUT/prestart.txt
import resource, subprocess, statistics, sys, time, os
B, W = sys.argv[1], sys.argv[2]
s = "package bench;\nimport cajeta.xpu.*;\n\npublic final class Many {\n"
for i in range(200):
    s += ("    @Kernel\n    public static void k%d(KernelBuffer<float32> x, KernelBuffer<float32> y, float32 a, uint32 n) {\n        uint32 j = KernelThread.globalIdX();\n        if (j >= n) {\n            return;\n        }\n        float32 v = x[j];\n        for (uint32 t = 0; t < %d; t++) {\n            v = v * a + (float32) t;\n        }\n        y[j] = v + y[j];\n    }\n\n") % (i, i % 4 + 1)
open(W + "/many.cajeta", "w").write(s + "}\n")
def run(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    w = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3, w * 1e3
m = statistics.median
for name in ["many", "saxpy"]:
    R = {"old": [], "new": [], "rspirv": []}
    for i in range(31):
        for v in ("old", "new"):
            R[v].append(run([B + "/" + v + "/cajetac-llvm", "build", "--backend", "llvm", W + "/" + name + ".cajeta", "-o", W + "/o" + v]))
        R["rspirv"].append(run([B + "/new/cajetac", "build", W + "/" + name + ".cajeta", "-o", W + "/or"]))
    for v in ("old", "new", "rspirv"):
        print("%s %s: CPU %.2f ms, wall %.2f ms (medians of 31)" % (name, v, m([a for a, b in R[v]]), m([b for a, b in R[v]])))
PY
echo "== done"
