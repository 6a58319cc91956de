#!/bin/bash
# 2026-12-07 (fifth session), one command: fuzz seed 20261211 program 36 with both kernel
# backends on NVIDIA; the GEMM experiments of bench/h200/gemm_wave_grouped.sh (the subgroup's
# index from `Wave.id()`, blocks in groups of eight rows), twice; then the five suite tests
# that failed on the H100 for reasons not yet read (suite_1207.sh's run of the day), with
# their panic messages printed. Carries .gl9/ (debs, suite.xz, cajetac-llvm.xz, cajetac.gz,
# spirv-val.gz, coop_gemm.gz, p3036.cajeta).
# Ran at commit 59b3bd4f (its sweep's `--forms` then made `-w`, `-g`, `-w-g`; see
# bench/h200/gemm_wave_grouped.sh).
set -u
G=${G:-.gl9}; . bench/h200/carry_dir.sh
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETA_SPIRV_VAL=$B/spirv-val CI=true CAJETA_TESTS_DIR=$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
mkdir -p /tmp/t/deps && cp $B/suite /tmp/t/deps/suite && cp $B/cajetac $B/cajetac-llvm /tmp/t/
for be in llvm rspirv; do
  CAJETA_CACHE_DIR=off timeout 60 $B/cajetac run --backend $be $G/p3036.cajeta > /tmp/p3036.$be.txt 2>&1
  echo "p3036 --backend $be: rc=$? last line: $(tail -1 /tmp/p3036.$be.txt | cut -c1-120)"
done
SHAPES=${SHAPES:-f16f16-256x256x32-2x4-u,f16f32-128x256x32-2x4-u,i8i32-256x128x64-4x2-bc-u}
for run in 1 2; do
  CAJETA_BUFFER_ADDRESS=always timeout ${SWEEP_T:-150} $B/coop_gemm --sweep --forms --fixed-nk $([ $run = 1 ] && echo --torch) --sizes 8192 --reps ${REPS:-5} --shapes $SHAPES > $OUT/sweep$run.txt 2>&1
  echo "sweep $run rc=$?"
done
(cd tests && timeout ${SUITE_TIMEOUT:-200} /tmp/t/deps/suite golden:: cpu_images::storage_images_match_lavapipe cpu_device::device_kernels_match_lavapipe cpu_programs::programs_run_on_the_cpu_device fuzz_campaign::generated_programs_validate --test-threads=5 > /tmp/suite5.txt 2>&1); echo "suite5 rc=$?"
grep -E "^test result" /tmp/suite5.txt
# Each failure's message, shortened, last so that it stays in the returned tail.
awk '/panicked at/{n=14} n>0{print substr($0,1,220); n--}' /tmp/suite5.txt | head -90
for run in 1 2; do echo "-- sweep $run"; grep -E "^\| 8192" $OUT/sweep$run.txt | cut -d"|" -f4,8,9; done
