#!/bin/bash
# A short confirmation on the device machine after kernel changes: every device program
# (tests/device/*.cajeta, each must print 777) through `cajetac run` three ways (rspirv's
# kernels, LLVM's kernels, the CPU device), eight programs at a time, and the NVIDIA fuzz
# finding. Prints a summary and writes $OUT/confirm.log. Binaries: .gl/cajetac-llvm.xz (or
# .gl/cajetac.gz for the rspirv way alone; bench/h200/carry.sh).
set -u
cd "$(dirname "$0")/../.."
B=${B:-/tmp/bin}; . bench/h200/carry.sh
export PATH=$B:$PATH CAJETA_TESTS_DIR=$PWD/tests
C=$B/cajetac-llvm; [ -x "$C" ] || C=$B/cajetac
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
one() { # cajetac flags program -> "ok" or the program and its last lines
  r=$(cd tests/device && timeout 120 $1 run $2 "$(basename "$3")" 2>&1 | tail -3)
  [ "$(echo "$r" | tail -1)" = 777 ] && echo ok || echo "$(basename "$3"): $(echo "$r" | tr '\n' '|')" | cut -c1-300
}
export -f one
for way in "|rspirv" "--backend llvm|llvm" "--device cpu|cpu"; do
  flags=${way%|*}; name=${way#*|}
  step "device programs, $name"
  out=$(ls tests/device/*.cajeta | xargs -P 8 -I{} bash -c "one '$C' '$flags' {}")
  echo "$out" | grep -v '^ok$' | tee -a "$OUT/confirm.log"
  echo "$name: $(echo "$out" | grep -c '^ok$') of $(echo "$out" | wc -l) returned 777" | tee -a "$OUT/confirm.log"
done
step "the NVIDIA fuzz finding"
timeout 60 "$C" run tests/fuzz_findings/wrong_results/nvidia_seed_c47e7a_program_16.cajeta 2>&1 | tail -3
step done
