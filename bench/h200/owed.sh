#!/bin/bash
# The device measurements owed from 2026-12-06, in one command (about 400 s): NVIDIA runs of
# the narrow-arithmetic and boolean-phi fixes (both kernel backends), the LLVM-only fuzz
# findings, checked mode's cost (kernel_speed, needs .gl/kernel_speed.*), and the fuzz
# campaign (bench/h200/campaign.sh, needs .gl/cajeta-fuzz.*). Everything is written to
# $OUT/owed.log (never through a pipe that a time limit could cut) and campaign.tgz.
# Binaries: .gl/cajetac.gz and .gl/cajetac-llvm.xz at least (bench/h200/carry.sh).
set -u
cd "$(dirname "$0")/../.."
B=${B:-/tmp/bin}; . bench/h200/carry.sh
cp .gl/spirv-val "$B/" 2>/dev/null
export PATH=$B:$PATH CAJETAC_EXE=$B/cajetac-llvm CAJETA_SPIRV_VAL=$B/spirv-val CAJETA_TESTS_DIR=$PWD/tests
LOG=$OUT/owed.log
exec >> "$LOG" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
step "narrow arithmetic and boolean phis, both backends"
for p in tests/device/narrow_wrap.cajeta tests/device/sign_extend_64.cajeta tests/device/loop_carried_flags.cajeta \
  tests/fuzz_findings/wrong_results/nvidia_seed_c47e7a_program_16.cajeta; do
  for be in rspirv llvm; do
    r=$(timeout 60 "$B/cajetac" run --backend $be "$p" 2>&1 | tail -2 | tr '\n' ' '); echo "$p $be: $r"
  done
done
step "the fourteen programs whose LLVM kernels crashed the driver"
for sp in 50:371 51:333 52:231 53:65 54:258 55:73 56:198 57:154 58:322 59:130 60:21 61:125 62:47 63:202; do
  f=/tmp/crash_${sp%:*}_${sp#*:}.cajeta
  [ -x "$B/cajeta-fuzz" ] && "$B/cajeta-fuzz" --seed "${sp%:*}" --show-program "${sp#*:}" > "$f" 2>/dev/null
  [ -s "$f" ] || continue
  r=$(timeout 60 "$B/cajetac" run --backend llvm "$f" 2>&1 | tail -1); echo "seed ${sp%:*} program ${sp#*:}: exit $? $r"
done
step "LLVM-only findings on NVIDIA"
for p in tests/fuzz_findings/wrong_results/*_llvm.cajeta; do
  r=$(timeout 60 "$B/cajetac" run --backend llvm "$p" 2>&1 | tail -1); echo "$p: $r"
done
if [ -x "$B/kernel_speed" ]; then
  step "kernel_speed, checked mode"
  for i in 1 2 3; do timeout 90 "$B/kernel_speed" --no-glsl --no-llvm; done
fi
if [ -x "$B/cajeta-fuzz" ]; then
  FUZZ_SECS=${FUZZ_SECS:-200} bash bench/h200/campaign.sh
fi
step done
