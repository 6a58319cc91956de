#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: (1) the bf16p store's
# cost, precision_axpb built with the experiment of commit "experiment: CAJETA_EXP_BF16"
# run as shipped, without the NaN test (nonan) and without rounding (trunc), taking turns;
# (2) `build --backend llvm` of the 200 kernels with helpers reaped off the compiling
# threads' path, beside the rspirv build and naga (same run), and three timelines
# (CAJETA_COMPILE_TRACE). Carries .gl4/ (debs, paired, naga.gz, cajetac.gz,
# cajetac-llvm.xz, precision_axpb.gz).
set -u
G=.gl4; . bench/h200/carry_dir.sh
{ uname -r; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core"; } | tee $OUT/host.txt
echo "== precision_axpb: shipped / nonan / trunc, three rounds"
for r in 1 2 3; do for v in shipped nonan trunc; do
  echo "-- $v $r"; CAJETA_EXP_BF16=$v $B/precision_axpb --mib 256 --reps 15 2>&1 | tee $OUT/axpb_${v}_$r.txt | grep -E "^\| (fp32|bf16p)|copy ="
done; done
W=/tmp/w; mkdir -p $W; cp compiler/benches/inputs/saxpy.wgsl $W/
python3 bench/h200/many_kernels.py $W
echo "== 200 kernels (medians of 31, rebuilds, taking turns)" | tee $OUT/many.txt
$B/paired 31 $B/cajetac build --backend llvm $W/many.cajeta -o $W/ml -- $B/cajetac build $W/many.cajeta -o $W/mr -- $B/naga $W/many.wgsl $W/m.spv 2>&1 | tee -a $OUT/many.txt
for i in 1 2 3; do
  rm -f $OUT/trace$i.txt
  CAJETA_COMPILE_TRACE=$OUT/trace$i.txt $B/cajetac build --backend llvm $W/many.cajeta -o $W/ml
done
python3 bench/h200/trace_summary.py $OUT/trace1.txt $OUT/trace2.txt $OUT/trace3.txt | tee $OUT/trace_summary.txt
echo "== done"
