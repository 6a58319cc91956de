#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: `build --backend
# llvm` of the 200 kernels (74c6866f: no warm-up, helpers reaped off the threads' path) at
# the default batch size (13 kernels, 16 batches) and at CAJETA_LLVM_BATCH=10, 7 and 4
# (more batches than compile threads, taken as threads come free), beside the rspirv build
# and naga, taking turns; a timeline of the default and of size 7. Carries .gl6/ (debs,
# paired, naga.gz, cajetac.gz, cajetac-llvm.xz).
set -u
G=.gl6; . bench/h200/carry_dir.sh
W=/tmp/w; mkdir -p $W
python3 bench/h200/many_kernels.py $W
C=$B/cajetac; E=/usr/bin/env
for v in 0 7; do
  rm -f $OUT/trace_$v.txt; $E CAJETA_LLVM_BATCH=$v CAJETA_COMPILE_TRACE=$OUT/trace_$v.txt $C build --backend llvm $W/many.cajeta -o $W/t$v
done
python3 bench/h200/trace_summary.py $OUT/trace_0.txt $OUT/trace_7.txt > $OUT/trace_summary.txt
{ echo "== 200 kernels (medians of 31, rebuilds, taking turns; CAJETA_LLVM_BATCH=0 is the default)"
  $B/paired 31 $E CAJETA_LLVM_BATCH=0 $C build --backend llvm $W/many.cajeta -o $W/l0 -- $E CAJETA_LLVM_BATCH=10 $C build --backend llvm $W/many.cajeta -o $W/l10 \
    -- $E CAJETA_LLVM_BATCH=7 $C build --backend llvm $W/many.cajeta -o $W/l7 -- $E CAJETA_LLVM_BATCH=4 $C build --backend llvm $W/many.cajeta -o $W/l4 \
    -- $E CAJETA_LLVM_BATCH=0 $C build $W/many.cajeta -o $W/r -- $E CAJETA_LLVM_BATCH=0 $B/naga $W/many.wgsl $W/m.spv 2>&1
} > $OUT/timings.txt
lscpu | grep -E "Thread|Core|Socket|Model name" >> $OUT/timings.txt
cat $OUT/trace_summary.txt $OUT/timings.txt
