#!/bin/bash
# Issue 31, session of 2026-12-07, second call: the library GEMM with the 16-bit kernels'
# K steps unrolled and a ragged k's last slice peeled off the loop (every element checked),
# and int8 at 4000³ once more.
set -u
B=/tmp/bin; . bench/h200/carry.sh 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
step library
timeout ${LIB_T:-220} $B/coop_gemm --library --sizes ${LIB_SIZES:-8192,4096,4000,4096x14336x4096,3000x5000x2048} --reps 7 2>&1 | tee $OUT/library.txt | grep -E "^\||wrong|rror"
step library_int8_again
timeout 90 $B/coop_gemm --library --precisions i8i32 --sizes 4000,4096,4000,3000x5000x2048 --reps 9 2>&1 | tee $OUT/library_int8.txt | grep -E "^\||wrong|rror"
step done
