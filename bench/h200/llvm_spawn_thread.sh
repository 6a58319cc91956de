#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: `build --backend
# llvm` of the 200 kernels with the sixteen helpers spawned on the main thread before the
# front end (as shipped) and on one starter thread beside it (CAJETA_EXP_SPAWN_THREAD, the
# experiment commit after 'cli: build and run in files of their own'), beside the rspirv
# build and naga, taking turns; a timeline of each. Carries .gl7/ (debs, paired, naga.gz,
# cajetac.gz, cajetac-llvm.xz).
set -u
G=.gl7; . bench/h200/carry_dir.sh
W=/tmp/w; mkdir -p $W
python3 bench/h200/many_kernels.py $W
C=$B/cajetac; E=/usr/bin/env
for v in CAJETA_EXP_X CAJETA_EXP_SPAWN_THREAD; do
  rm -f $OUT/trace_$v.txt; $E $v=1 CAJETA_COMPILE_TRACE=$OUT/trace_$v.txt $C build --backend llvm $W/many.cajeta -o $W/t$v
done
python3 bench/h200/trace_summary.py $OUT/trace_CAJETA_EXP_X.txt $OUT/trace_CAJETA_EXP_SPAWN_THREAD.txt > $OUT/trace_summary.txt
for r in 1 2; do
  echo "== 200 kernels, round $r (medians of 31, rebuilds, taking turns)"
  $B/paired 31 $E CAJETA_EXP_X=1 $C build --backend llvm $W/many.cajeta -o $W/l0 -- $E CAJETA_EXP_SPAWN_THREAD=1 $C build --backend llvm $W/many.cajeta -o $W/l1 \
    -- $E CAJETA_EXP_X=1 $C build $W/many.cajeta -o $W/r -- $E CAJETA_EXP_X=1 $B/naga $W/many.wgsl $W/m.spv 2>&1
done > $OUT/timings.txt
cat $OUT/trace_summary.txt $OUT/timings.txt
