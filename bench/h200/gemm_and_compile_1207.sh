#!/bin/bash
# Issues 31 and 32, session of 2026-12-07, one command: the library GEMM with the 16-bit
# kernels' K steps unrolled and a ragged k's last slice peeled off the loop (every element
# checked; int8 at 4000³ twice), then compile speed on the host's 16 cores against naga and
# the LLVM backend's batches at 1 and 16 compile threads.
set -u
B=/tmp/bin; . bench/h200/carry.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
lscpu | grep -E "Model name|^CPU\(s\)" | tee $OUT/cpu.txt
step library
timeout ${LIB_T:-200} $B/coop_gemm --library --sizes ${LIB_SIZES:-8192,4096,4000,4096x14336x4096,3000x5000x2048} --reps 7 2>&1 | tee $OUT/library.txt | grep -E "^\||wrong|rror"
step library_int8_again
timeout 80 $B/coop_gemm --library --precisions i8i32 --sizes 4000,4096,4000 --reps 9 2>&1 | tee $OUT/library_int8.txt | grep -E "^\||wrong|rror"
step compile_speed
CAJETAC=$B/cajetac NAGA=$B/naga CAJETA_ROOT=$PWD timeout 150 $B/compile_speed 2>&1 | tee $OUT/compile_speed.txt | grep -E "^\||^#" | head -60
step "llvm 200 kernels, threads"
for t in 1 16; do echo "threads $t"; CAJETA_COMPILE_THREADS=$t CAJETAC=$B/cajetac NAGA=$B/naga CAJETA_ROOT=$PWD timeout 60 $B/compile_speed --quick 2>&1 | grep -iE "200 kernels" | head -8; done | tee $OUT/threads.txt
step done
