#!/bin/bash
# A short confirmation on the device machine after kernel changes: every device program
# (tests/device/*.cajeta, each must print 777) through `cajetac run` with rspirv's kernels,
# the NVIDIA fuzz finding, and checked mode's cost (kernel_speed, if carried). Writes
# $OUT/confirm.log. Binaries: .gl/cajetac.gz at least (bench/h200/carry.sh).
set -u
cd "$(dirname "$0")/../.."
B=${B:-/tmp/bin}; . bench/h200/carry.sh
export PATH=$B:$PATH CAJETA_TESTS_DIR=$PWD/tests
exec >> "$OUT/confirm.log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
step "device programs, rspirv kernels"
ok=0; bad=0
for p in tests/device/*.cajeta; do
  r=$(cd tests/device && timeout 60 "$B/cajetac" run "$(basename "$p")" 2>&1 | tail -1)
  if [ "$r" = 777 ]; then ok=$((ok + 1)); else bad=$((bad + 1)); echo "$p: $r" | cut -c1-200; fi
done
echo "device programs: $ok returned 777, $bad did not"
step "the NVIDIA fuzz finding"
timeout 60 "$B/cajetac" run tests/fuzz_findings/wrong_results/nvidia_seed_c47e7a_program_16.cajeta 2>&1 | tail -3
if [ -x "$B/kernel_speed" ]; then
  step "kernel_speed, checked mode"
  for i in 1 2; do timeout 90 "$B/kernel_speed" --no-glsl --no-llvm; done
fi
step done
