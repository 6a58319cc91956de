#!/bin/bash
# 2026-12-07 (sixth session), one command on the device machine, with `cajeta-fuzz` built at
# 7ccbbe87 (the CAJETA_EXP_NEG / CAJETA_EXP_SCONV / CAJETA_EXP_SPV_DIR experiment switches of
# the LLVM post-pass, removed in ababf25f) and `coop_gemm` of ef018269. Ran without
# `cajetac-llvm`, so the whole program (p0) ended on LLVM's fatal error in `k1` (the fuzz tool
# is its own helper since 4fea366e); its GEMM sweep loop is fuzz_c47_gemm_groups.sh's:
# 1. the NVIDIA-only wrong result of the suite's program 0 (seed 0xC47E7A, LLVM kernels):
#    its hand-cut reproducer (min.cajeta) and the whole program (p0.cajeta), each run four
#    ways by `cajeta-fuzz --run-program`, under four forms of the LLVM post-pass: as is;
#    `0 - x` as OpSNegate (EXP_NEG); narrowings as OpSConvert (EXP_SCONV); both;
# 2. SWEEPS (default 2) sweeps of each precision's tuned kernel with its blocks in groups of
#    4, 8 and 16 block rows (`-g4`, `-g8`, `-g16`) beside row order, 8192³.
# Carries .glc/ (debs, cajeta-fuzz.xz, cajetac.xz, coop_gemm.xz, spirv-val.xz, p0.cajeta,
# min.cajeta, v/ with the hand-edited modules).
set -u
G=${G:-.glc}; . bench/h200/carry_dir.sh
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETA_SPIRV_VAL=$B/spirv-val CI=true CAJETA_CACHE_DIR=off
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
for p in min p0; do
  for v in none CAJETA_EXP_NEG CAJETA_EXP_SCONV both; do
    case $v in none) E=;; both) E="CAJETA_EXP_NEG=1 CAJETA_EXP_SCONV=1";; *) E="$v=1";; esac
    env $E timeout 120 $B/cajeta-fuzz --run-program $G/$p.cajeta > $OUT/$p-$v.txt 2>&1
    echo "== $p $v rc=$? $(grep -vE '^ |^package|^import|^$' $OUT/$p-$v.txt | head -4 | cut -c1-160 | tr '\n' '|')"
  done
done
# Hand-edited forms of min.cajeta's LLVM module (v0 as emitted; v1 `0 - x` as OpSNegate; v2
# the narrowing as OpSConvert; v3 without the shift pair; v4 the division on the 32-bit
# value; v5 `0 - x` from a 32-bit zero; v6 v1 and v2), through CAJETA_EXP_SPV_DIR.
for d in $G/v/v*; do
  CAJETA_EXP_SPV_DIR=$d timeout 60 $B/cajeta-fuzz --run-program $G/min.cajeta > $OUT/min-$(basename $d).txt 2>&1
  echo "== $(basename $d) rc=$? $(grep -vE '^ |^package|^import|^$' $OUT/min-$(basename $d).txt | head -4 | cut -c1-160 | tr '\n' '|')"
done
SHAPES=${SHAPES:-f16f32-128x256x32-2x4-u,i8i32-256x128x64-4x2-bc-u,f16f16-256x256x32-2x4-u}
for run in $(seq 1 ${SWEEPS:-2}); do
  CAJETA_BUFFER_ADDRESS=always timeout ${SWEEP_T:-120} $B/coop_gemm --sweep --forms --fixed-nk --sizes 8192 --reps ${REPS:-5} --shapes $SHAPES > $OUT/sweep$run.txt 2>&1
  echo "sweep $run rc=$?"
done
for run in $(seq 1 ${SWEEPS:-2}); do echo "-- sweep $run"; grep -E "^\| 8192" $OUT/sweep$run.txt | cut -d"|" -f4,8; done
