#!/bin/bash
# Issue 31, 2026-12-07 (fifth session), one command: each precision's tuned cooperative kernel
# as shipped, with each subgroup's index from `Wave.id()` (`-w`, `CoopGemmShape::wave_index`),
# with workgroups taking their blocks in groups of eight block rows (`-g`, `grouped`), and
# both; through buffer addresses, 8192³, general and with `n`, `k` as constants, twice (order
# effects). Carries .gla/ (debs, coop_gemm.gz built with the experiment).
# Ran (as the sweep of bench/h200/suite_failures_gemm.sh) at commit 59b3bd4f, whose `--forms`
# made `-w`, `-g` (eight rows) and `-w-g`; `-w` changed nothing and was removed, and `--forms`
# now makes the group sizes `-g4`, `-g8`, `-g16` (docs/PERFORMANCE.md, "The subgroup's index
# and the order of the blocks").
set -u
G=${G:-.gla}; . bench/h200/carry_dir.sh
export PYTHONUNBUFFERED=1
step() { echo "== $* ($(date +%T))"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
SHAPES=${SHAPES:-f16f16-256x256x32-2x4-u,f16f32-128x256x32-2x4-u,i8i32-256x128x64-4x2-bc-u}
for run in 1 2; do
  step "sweep $run"
  CAJETA_BUFFER_ADDRESS=always timeout ${SWEEP_T:-200} $B/coop_gemm --sweep --forms --fixed-nk $([ $run = 1 ] && echo --torch) --sizes 8192 --reps ${REPS:-7} --shapes $SHAPES > $OUT/sweep$run.txt 2>&1
  echo "rc=$?"
done
step done
for run in 1 2; do grep -E "^\| 8192" $OUT/sweep$run.txt | cut -d"|" -f4,8,9; done
