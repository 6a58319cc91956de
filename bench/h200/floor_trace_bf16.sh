#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: (1) the start-up
# floor there (an empty C program dynamic and static, `--version`, `check` and `build` of
# saxpy) for cajetac before (b8464f38) and after the small-page advice for the compile's
# first heap chunk and stack, beside naga, with the host's transparent-huge-page setting;
# (2) 200 kernels, rspirv and `--backend llvm`; (3) timelines of `build --backend llvm` of
# the 200 kernels (CAJETA_COMPILE_TRACE); (4) precision_axpb before and after `?:` with
# plain arms became one OpSelect. Carries .gl3/ (debs, paired/hdyn/hstat static, naga.gz,
# old/{cajetac.gz,precision_axpb.gz}, new/{cajetac.gz,cajetac-llvm.xz,precision_axpb.gz}).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for f in .gl3/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/bin; mkdir -p $B/old $B/new
for f in .gl3/old/*.gz .gl3/new/*.gz .gl3/naga.gz; do d=$B/$(basename $(dirname $f)); [ "$f" = .gl3/naga.gz ] && d=$B; gunzip -c $f > $d/$(basename $f .gz); chmod +x $d/$(basename $f .gz); done
python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' .gl3/new/cajetac-llvm.xz > $B/new/cajetac-llvm; chmod +x $B/new/cajetac-llvm
cp .gl3/paired .gl3/hdyn .gl3/hstat $B/; chmod +x $B/paired $B/hdyn $B/hstat
{ uname -r; echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"; echo "THP defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"; lscpu | grep -E "Model name|^CPU\(s\)"; nproc; } | tee $OUT/host.txt
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
O=$B/old/cajetac; N=$B/new/cajetac; G=$B/naga
echo "== floor (medians of 101, taking turns)" | tee $OUT/floor.txt
$B/paired 101 $B/hdyn -- $B/hstat -- $O --version -- $N --version -- $G --version \
  -- $O check $W/saxpy.cajeta -- $N check $W/saxpy.cajeta -- $G $W/saxpy.wgsl \
  -- $O build $W/saxpy.cajeta -o $W/so -- $N build $W/saxpy.cajeta -o $W/sn -- $G $W/saxpy.wgsl $W/s.spv 2>&1 | tee -a $OUT/floor.txt
echo "== 200 kernels (medians of 21, rebuilds, taking turns)" | tee $OUT/many.txt
$B/paired 21 $O build $W/many.cajeta -o $W/mo -- $N build $W/many.cajeta -o $W/mn -- $G $W/many.wgsl $W/m.spv \
  -- $O check $W/many.cajeta -- $N check $W/many.cajeta -- $G $W/many.wgsl \
  -- $N build --backend llvm $W/many.cajeta -o $W/ml 2>&1 | tee -a $OUT/many.txt
for i in 1 2 3; do
  rm -f $OUT/trace$i.txt
  CAJETA_COMPILE_TRACE=$OUT/trace$i.txt $N build --backend llvm $W/many.cajeta -o $W/ml
done
python3 - $OUT <<'PY' | tee $OUT/trace_summary.txt
import sys
for i in (1, 2, 3):
    lines = [l.rstrip("\n").split(" ", 3) for l in open(sys.argv[1] + "/trace%d.txt" % i)]
    t0 = float(lines[0][0])
    print("== trace %d: %.2f ms" % (i, float(lines[-1][0]) - t0))
    for t, pid, th, what in lines:
        if not what.startswith("batch: ") or i == 1:
            print("%8.2f %7s %-18s %s" % (float(t) - t0, pid, th, what))
PY
echo "== precision_axpb, old (b8464f38-era) and new (OpSelect), twice each"
for r in 1 2; do for v in old new; do echo "-- $v $r"; $B/$v/precision_axpb --mib 256 --reps 15 2>&1 | tee $OUT/axpb_${v}_$r.txt | grep -E "^\| (fp|bf)|copy ="; done; done
echo "== done"
