#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: `build --backend
# llvm` of the 200 kernels with the prestarted helpers warming up (as shipped) and not
# (CAJETA_EXP_NO_WARMUP, the experiment commit after 'the reap at a spawn returns at once'),
# beside the rspirv build and naga, then the small commands beside naga; a timeline of each
# LLVM form. Carries .gl5/ (debs, paired, naga.gz, cajetac.gz, cajetac-llvm.xz).
set -u
G=.gl5; . bench/h200/carry_dir.sh
W=/tmp/w; mkdir -p $W; cp tests/kernels/saxpy.cajeta compiler/benches/inputs/saxpy.wgsl $W/
python3 bench/h200/many_kernels.py $W
C=$B/cajetac; E=/usr/bin/env
for v in CAJETA_EXP_X CAJETA_EXP_NO_WARMUP; do
  rm -f $OUT/trace_$v.txt; $E $v=1 CAJETA_COMPILE_TRACE=$OUT/trace_$v.txt $C build --backend llvm $W/many.cajeta -o $W/ml
done
python3 bench/h200/trace_summary.py $OUT/trace_CAJETA_EXP_X.txt $OUT/trace_CAJETA_EXP_NO_WARMUP.txt > $OUT/trace_summary.txt
{ echo "== 200 kernels (medians of 31, rebuilds, taking turns)"
  $B/paired 31 $E CAJETA_EXP_X=1 $C build --backend llvm $W/many.cajeta -o $W/ml -- $E CAJETA_EXP_NO_WARMUP=1 $C build --backend llvm $W/many.cajeta -o $W/mw \
    -- $E CAJETA_EXP_X=1 $C build $W/many.cajeta -o $W/mr -- $E CAJETA_EXP_X=1 $B/naga $W/many.wgsl $W/m.spv \
    -- $C build $W/many.cajeta -o $W/mr2 -- $B/naga $W/many.wgsl $W/m2.spv -- $C check $W/many.cajeta -- $B/naga $W/many.wgsl 2>&1
  echo "== small commands (medians of 101, taking turns)"
  $B/paired 101 $C --version -- $B/naga --version -- $C check $W/saxpy.cajeta -- $B/naga $W/saxpy.wgsl \
    -- $C build $W/saxpy.cajeta -o $W/s -- $B/naga $W/saxpy.wgsl $W/s.spv -- $C build --backend llvm $W/saxpy.cajeta -o $W/sl 2>&1
} > $OUT/timings.txt
cat $OUT/trace_summary.txt $OUT/timings.txt
