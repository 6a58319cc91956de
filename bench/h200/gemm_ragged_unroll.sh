#!/bin/bash
# Issue 31, session of 2026-12-07: the library GEMM with ragged k read in place (every element
# checked), the tuned shapes with and without the K steps unrolled beside torch, and
# precision_axpb (issue 32's 16-bit rates).
set -u
B=/tmp/bin; . bench/h200/carry.sh
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/gpu.txt
step library
timeout ${LIB_T:-220} $B/coop_gemm --library --sizes ${LIB_SIZES:-8192,4096,4000,4096x14336x4096,3000x5000x2048} --reps 5 2>&1 | tee $OUT/library.txt | grep -E "^\||wrong|rror"
step sweep
timeout ${SWEEP_T:-220} $B/coop_gemm --sweep --torch --fixed-nk --sizes 8192 --reps 5 --shapes ${SHAPES:-f16f16-256x256x32-2x4,f16f32-128x256x32-2x4,bf16f32-128x256x32-2x4,i8i32-256x128x64-4x2-bc} 2>&1 | tee $OUT/sweep.txt | grep -vE "^\s*$" | tail -60
step axpb
timeout ${AXPB_T:-90} $B/precision_axpb 2>&1 | tee $OUT/axpb.txt | tail -30
step done
