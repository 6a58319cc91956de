#!/bin/bash
# Runs device programs (arguments, default the narrow-integer probes) on the device machine
# with rspirv's kernels and with LLVM's, printing each program's output and exit status:
# the quick check of a driver hypothesis before a campaign (docs/fuzzing.md).
set -u
cd "$(dirname "$0")/../.."
B=${B:-/tmp/bin}; . bench/h200/carry.sh
export PATH=$B:$PATH
[ $# -gt 0 ] || set -- tests/device/narrow_*.cajeta tests/device/sign_extend_64.cajeta \
  tests/fuzz_findings/wrong_results/nvidia_seed_c47e7a_program_16.cajeta
for f in "$@"; do
  step "$f"
  "$B/cajetac" run "$f" 2>&1 | tail -12; echo "rspirv rc=${PIPESTATUS[0]}"
  "$B/cajetac-llvm" run --backend llvm "$f" 2>&1 | tail -12; echo "llvm rc=${PIPESTATUS[0]}"
done
