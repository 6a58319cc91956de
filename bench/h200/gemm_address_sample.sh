#!/bin/bash
# Issue 31, session of 2026-12-07 (second): in one command on one card, the library GEMM
# (every element checked), the tuned shapes through descriptors and again through buffer
# device addresses (CAJETA_BUFFER_ADDRESS=always: the kernels' address variants, as NVIDIA's
# sample reaches its buffers), torch beside them, NVIDIA's sample (.gl/vkcm, built by
# bench/h200/vkcm/build.sh), then precision_axpb (issue 32's 16-bit rates).
set -u
B=/tmp/bin; . bench/h200/carry.sh
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 & SMI=$!
SHAPES=${SHAPES:-f16f16-256x256x32-2x4-u,f16f32-128x256x32-2x4-u,bf16f32-128x256x32-2x4-u,i8i32-256x128x64-4x2-bc,i8i32-128x256x64-2x4-bc}
step library
timeout ${LIB_T:-150} $B/coop_gemm --library --sizes ${LIB_SIZES:-8192,4096,4000,4096x14336x4096,3000x5000x2048} --reps 5 2>&1 | tee $OUT/library.txt | grep -E "^\||wrong|rror"
step "library, fp16 and bf16 to fp32 three times"
timeout 60 $B/coop_gemm --library --precisions f16f32,bf16f32 --sizes 8192,8192,8192 --reps 7 2>&1 | tee $OUT/library_f32.txt | grep -E "^\||wrong|rror"
step "sweep, descriptors"
timeout ${SWEEP_T:-110} $B/coop_gemm --sweep --torch --fixed-nk --sizes 8192 --reps 5 --shapes $SHAPES 2>&1 | tee $OUT/sweep_desc.txt | grep -vE "^\s*$" | tail -45
step "sweep, device addresses"
CAJETA_BUFFER_ADDRESS=always timeout ${SWEEP_T:-110} $B/coop_gemm --sweep --fixed-nk --sizes 8192 --reps 5 --shapes $SHAPES 2>&1 | tee $OUT/sweep_addr.txt | grep -vE "^\s*$" | tail -40
step vkcm
# VKCM_TILES replaces the sample's own tile choice (bench/h200/vkcm/vkcm.patch), so each
# precision gets the blocks the sample itself would run (no 256x256 with float32
# accumulators, which the sample skips as too slow).
vkcm() { (cd .gl/vkcm && VKCM_ONLY=$1 VKCM_TILES=$2 timeout $3 stdbuf -oL ./vkcm --dim=8192 --shmem) 2>&1 | tee -a $OUT/vkcm.txt | grep -E "TFlops|stats:" | cut -c1-260; }
if [ -x .gl/vkcm/vkcm ]; then
  vkcm shmemfp16_fp16 256x256x32,128x256x32,256x128x32 50
  vkcm shmemfp16_fp32,shmembf16_fp32 128x256x16,256x128x16,128x256x32 60
  vkcm shmems8_s32 128x256x64,256x128x64 40
fi
step axpb
timeout ${AXPB_T:-60} $B/precision_axpb 2>&1 | tee $OUT/axpb.txt | tail -14
kill $SMI 2>/dev/null
step done
