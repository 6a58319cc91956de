#!/bin/bash
# 2026-12-07 (sixth session), one command on the device machine, at the commit that adds
# CAJETA_TMP_TRACE beside the CAJETA_EXP_* switches: the suite's program 0 (seed 0xC47E7A),
# whose `kx` is wrong on NVIDIA with LLVM's kernels only, run four ways by
# `cajeta-fuzz --run-program` (with `cajetac-llvm` as its emission helper: LLVM's O2 pipeline
# ends the process on `k1`, which the helper turns into the next pipeline):
# 1. as emitted, and with the post-pass forms CAJETA_EXP_NEG / CAJETA_EXP_SCONV / both;
# 2. with hand-edited forms of kx's module (kv/k0 as emitted for the H100's profile; k1 `0 -
#    x` as OpSNegate; k2 the narrowing as OpSConvert; k3 the division on the 32-bit value; k4
#    no shift pair; k5 k1 and k2; k6 `0 - x` from a 32-bit zero), through CAJETA_EXP_SPV_DIR.
# Carries .gld/ (debs, cajeta-fuzz.xz, cajetac-llvm.xz, cajetac.xz, spirv-val.xz, p0.cajeta,
# kv/k*/kx.spv, coop_gemm.xz).
set -u
G=${G:-.gld}; . bench/h200/carry_dir.sh
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETAC_EXE=$B/cajetac-llvm CAJETA_SPIRV_VAL=$B/spirv-val CI=true CAJETA_CACHE_DIR=off
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
show() { grep -vE '^ |^package|^import|^$' "$1" | head -4 | cut -c1-150 | tr '\n' '|'; }
for v in none CAJETA_EXP_NEG CAJETA_EXP_SCONV both; do
  case $v in none) E=;; both) E="CAJETA_EXP_NEG=1 CAJETA_EXP_SCONV=1";; *) E="$v=1";; esac
  env $E timeout 120 $B/cajeta-fuzz --run-program $G/p0.cajeta > /tmp/p0-$v.txt 2>&1
  echo "== $v rc=$? $(show /tmp/p0-$v.txt)"
done
for d in $G/kv/k*; do
  CAJETA_EXP_SPV_DIR=$d timeout 120 $B/cajeta-fuzz --run-program $G/p0.cajeta > /tmp/p0-$(basename $d).txt 2>&1
  echo "== $(basename $d) rc=$? $(show /tmp/p0-$(basename $d).txt)"
done
# 3. The library's int8 GEMM with its blocks in groups of four block rows (`tuned.rs`, this
#    commit), every element checked, twice; then the int8 kernel's group sizes side by side.
for run in $(seq 1 ${LIB_RUNS:-2}); do
  CAJETA_BUFFER_ADDRESS=always timeout 120 $B/coop_gemm --library --precisions i8i32 --sizes 8192,4096,4000,4096x14336x4096 --reps 3 > /tmp/lib$run.txt 2>&1
  echo "library $run rc=$?"; grep -E "^\|" /tmp/lib$run.txt | cut -c1-180 | head -8
done
if [ "${SWEEP:-1}" = 1 ]; then
  CAJETA_BUFFER_ADDRESS=always timeout 120 $B/coop_gemm --sweep --forms --fixed-nk --sizes 8192 --reps 5 --shapes i8i32-256x128x64-4x2-bc-u > /tmp/sweep.txt 2>&1
  echo "sweep rc=$?"; grep -E "^\| 8192" /tmp/sweep.txt | cut -d"|" -f4,8
fi
