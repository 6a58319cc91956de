#!/bin/bash
# Issue 31, session of 2026-12-07 (third), one command: each precision's tuned cooperative
# kernel with its next K slice loaded behind a branch (as before) and with no branch
# (`-s`, `CoopGemmShape::straight_prefetch`: the loads issued in every trip, as NVIDIA's
# sample predicates them), through buffer addresses, 8192³, general and with `n`, `k` as
# constants; the sweep twice (order effects), then NVIDIA's sample's float16 256x256 block.
# Ran at commit 1983bb5f; the `-s` form was slower in every precision (docs/PERFORMANCE.md,
# "No branch around the next slice's loads") and was removed after it.
set -u
B=/tmp/bin; . bench/h200/carry.sh
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
SHAPES=f16f16-256x256x32-2x4-u,f16f32-128x256x32-2x4-u,bf16f32-128x256x32-2x4-u,i8i32-256x128x64-4x2-bc-u
for run in 1 2; do
  step "sweep $run"
  CAJETA_BUFFER_ADDRESS=always timeout ${SWEEP_T:-150} $B/coop_gemm --sweep --fixed-nk --torch --sizes 8192 --reps ${REPS:-7} --shapes $SHAPES 2>&1 | tee $OUT/sweep$run.txt | grep -E "^\| 8192|Register Count"
done
step vkcm
(cd .gl/vkcm && VKCM_ONLY=shmemfp16_fp16 VKCM_TILES=256x256x32 timeout 45 stdbuf -oL ./vkcm --dim=8192 --shmem) 2>&1 | tee $OUT/vkcm.txt | grep -E "TFlops|stats:" | cut -c1-200
step done
