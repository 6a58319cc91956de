#!/bin/bash
# Issue 32 and 28 in one command (session of 2026-12-06): precision_axpb before and after the
# stride unroll (binaries precision_axpb_before and precision_axpb in .gl/) and with the
# hand-written loop forms of axpb_forms/, compile speed on 16
# cores, the device programs three ways (bfloat16 cooperative branch included).
set -u
B=/tmp/bin; . bench/h200/carry.sh
cp .gl/naga $B/ 2>/dev/null; chmod +x $B/naga 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B/cajetac devices --json > $OUT/profile.json 2>&1; grep -c BFloat16 $OUT/profile.json
step confirm
timeout 200 bash bench/h200/confirm.sh 2>&1 | tail -30
step precision
for run in "precision_axpb_before" "precision_axpb" "precision_axpb_before bench/h200/axpb_forms/unroll2.cajeta" "precision_axpb_before bench/h200/axpb_forms/unroll2s.cajeta" "precision_axpb_before bench/h200/axpb_forms/unroll4.cajeta" "precision_axpb_before bench/h200/axpb_forms/pairs.cajeta" "precision_axpb" "precision_axpb_before"; do
  set -- $run; echo "== $1 ${2:-built-in}"; timeout 60 $B/$1 ${2:+--source $2} --reps 15 2>&1 | grep -E "^\||Precision|rror|Not run" | cut -c1-200
done | tee $OUT/precision.txt
step compile_speed
CAJETAC=$B/cajetac NAGA=$B/naga CAJETA_ROOT=$PWD timeout 150 $B/compile_speed 2>&1 | tee $OUT/compile_speed.txt | grep -E "^\||^#" | head -60
step "llvm 200 kernels, threads"
for t in 1 16; do echo "threads $t"; CAJETA_COMPILE_THREADS=$t CAJETAC=$B/cajetac NAGA=$B/naga CAJETA_ROOT=$PWD timeout 60 $B/compile_speed --quick 2>&1 | grep -iE "200 kernels" | head -6; done | tee $OUT/threads.txt
step done
