#!/bin/bash
# Issue 31 in one command (session of 2026-12-06; NVIDIA's sample built locally into .gl/vkcm
# with print-only patches for VKCM_ONLY, VKCM_TILES and pipeline statistics): the library
# GEMM (every element checked), the contending sweep
# shapes with cuBLAS, and NVIDIA's sample with pipeline statistics.
set -u
B=/tmp/bin; . bench/h200/carry.sh
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 & SMI=$!
step library
timeout ${LIB_T:-210} $B/coop_gemm --library --sizes ${LIB_SIZES:-8192,4096,4000,4096x14336x4096,3000x5000x2048} --reps 5 2>&1 | tee $OUT/library.txt | grep -E "^\||wrong|rror"
step sweep
timeout ${SWEEP_T:-170} $B/coop_gemm --sweep --torch --fixed-nk --sizes 8192 --reps 5 --shapes ${SHAPES:-f16f16-256x256x32-2x4,f16f32-128x256x32-2x4,bf16f32-128x256x32-2x4,i8i32-128x256x64-2x4-bc,i8i32-256x128x64-4x2-bc} 2>&1 | tee $OUT/sweep.txt | grep -vE "^\s*$" | tail -70
step vkcm
(cd .gl/vkcm && VKCM_ONLY=${VKCM_ONLY:-shmemfp16_fp16,shmemfp16_fp32,shmembf16_fp32,shmems8_s32} VKCM_TILES=${VKCM_TILES:-256x256x32,128x256x32,256x128x32,128x256x64,256x128x64} timeout ${VKCM_T:-130} stdbuf -oL ./vkcm --dim=8192 --shmem) 2>&1 | tee $OUT/vkcm.txt | grep -E "TFlops|TOPS|stats:|shader" | cut -c1-400 | head -120
kill $SMI 2>/dev/null
step done
