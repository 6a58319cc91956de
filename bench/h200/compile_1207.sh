#!/bin/bash
# Issue 32, session of 2026-12-07, second call: compile speed on the host's 16 cores against
# naga with the bench's LLVM builds in a folder of their own (the rspirv rebuild is a rebuild
# again), then the LLVM backend's batches at 16 compile threads.
set -u
B=/tmp/bin; . bench/h200/carry.sh
lscpu | grep -E "Model name|^CPU\(s\)" | tee $OUT/cpu.txt
step compile_speed
CAJETAC=$B/cajetac NAGA=$B/naga CAJETA_ROOT=$PWD timeout 150 $B/compile_speed 2>&1 | tee $OUT/compile_speed.txt | grep -E "^\||^#" | head -60
step "llvm 200 kernels, threads"
for t in 16; do echo "threads $t"; CAJETA_COMPILE_THREADS=$t CAJETAC=$B/cajetac NAGA=$B/naga CAJETA_ROOT=$PWD timeout 60 $B/compile_speed --quick 2>&1 | grep -iE "200 kernels" | head -8; done | tee $OUT/threads.txt
step done
