#!/bin/bash
# The device suite and the owed benchmarks on the device machine (the H200), in one command:
# the workspace's device tests with default test threads and then sequentially, the checked-mode
# cost (kernel_speed), and the precision rates. Binaries arrive gzipped in .gl/ (README.md).
set -u
cd "$(dirname "$0")/../.."
B=/tmp/bin; . bench/h200/carry.sh
cp .gl/spirv-* $B/ 2>/dev/null
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETA_SPIRV_VAL=$B/spirv-val CI=true CAJETA_TESTS_DIR=$PWD/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# The test binary looks for cajetac next to its deps/ folder.
mkdir -p /tmp/t/deps && cp $B/suite /tmp/t/deps/suite && cp $B/cajetac $B/cajetac-llvm /tmp/t/ 2>/dev/null
# The ten-minute soak (tests/soak.rs): SOAK_SECS starts it detached, beside this command's
# work, and bench/h200/soak_collect.sh waits for it and collects its samples. The device's
# `run` waits for every process its command started, so the command stays open until the
# soak ends (600 s is the longest a command may run): a soak of SOAK_SECS=600 ends with the
# command's time limit, and soak_collect.sh must come in a command started within the
# machine's idle time (30 s).
if [ -n "${SOAK_SECS:-}" ]; then
  mkdir -p /tmp/soak
  (cd tests && CAJETA_SOAK_SECS=$SOAK_SECS CAJETA_SOAK_THREADS=${SOAK_THREADS:-16} \
    setsid nohup /tmp/t/deps/suite soak:: --nocapture --test-threads=1 \
    > /tmp/soak/soak.log 2>&1 < /dev/null & echo $! > /tmp/soak/pid)
  step "soak started for ${SOAK_SECS}s, ${SOAK_THREADS:-16} threads (pid $(cat /tmp/soak/pid))"
fi
# eu-stack (elfutils, carried as .debs in .gl/eu/) to see where a stalled run waits.
for f in .gl/eu/*.deb; do [ -e "$f" ] && dpkg -x "$f" /tmp/eu; done
export LD_LIBRARY_PATH=/tmp/eu/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# A parallel run that outlives SUITE_TIMEOUT: its threads' stacks and the tests still running.
parallel_suite() {
  local log="$OUT/suite_parallel$1.txt"
  (cd tests && exec /tmp/t/deps/suite ${TEST_ARGS:-}) > "$log" 2>&1 &
  local pid=$! t=0
  while kill -0 $pid 2>/dev/null && [ $t -lt ${SUITE_TIMEOUT:-200} ]; do sleep 1; t=$((t+1)); done
  if kill -0 $pid 2>/dev/null; then
    echo "STALLED after ${t}s: stacks in stall_stacks$1.txt"
    [ -x /tmp/eu/usr/bin/eu-stack ] && /tmp/eu/usr/bin/eu-stack -p $pid > "$OUT/stall_stacks$1.txt" 2>&1
    (cd tests && /tmp/t/deps/suite --list 2>/dev/null) | sed -n 's/: test$//p' | sort > /tmp/all_tests
    sed -n 's/^test \(.*\) \.\.\. .*/\1/p' "$log" | sort > /tmp/done_tests
    comm -23 /tmp/all_tests /tmp/done_tests | tee "$OUT/unfinished$1.txt" | head -40
    kill -9 $pid
  fi
  wait $pid 2>/dev/null; echo "rc=$?"
  grep -E "^test result|FAILED|panicked" "$log" | head -20
}
for round in $(seq 1 ${PARALLEL_ROUNDS:-1}); do
  step "suite, default threads ($(nproc) cores), round $round"
  parallel_suite "_$round"
done
# libtest prints why a test failed only when the whole run ends, which a stalled run never
# does: each test reported FAILED is run again alone, its output kept in failures.txt.
failed=$(sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' "$OUT"/suite_parallel_*.txt | sort -u)
if [ -n "$failed" ]; then
  step "the failed tests alone"
  for t in $failed; do
    echo "=== $t"
    (cd tests && timeout 120 /tmp/t/deps/suite --exact "$t" --nocapture --test-threads=1 2>&1 | tail -40)
  done > "$OUT/failures.txt"
  grep -E "^=== |panicked at|^test result" "$OUT/failures.txt" | head -40
fi
if [ -n "${REDUCE:-}" ] && [ -x $B/cajeta-fuzz ]; then
  step "reduce $REDUCE on this device"
  R=$(realpath "$REDUCE")
  (cd "$OUT" && timeout ${REDUCE_TIMEOUT:-240} $B/cajeta-fuzz --reduce-program "$R" > reduced.cajeta 2> reduce.err) 2>/dev/null
  echo "rc=$?"; wc -l "$OUT/reduced.cajeta" "$OUT/reduce-progress.cajeta" 2>/dev/null; tail -3 "$OUT/reduce.err"
fi
[ "${SERIAL:-1}" = 1 ] || { step done; exit 0; }
step "suite, --test-threads=1"
(cd tests && timeout ${SUITE_TIMEOUT:-200} /tmp/t/deps/suite --test-threads=1 2>&1) > "$OUT/suite_serial.txt"; echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_serial.txt" | head -20
if [ -x $B/kernel_speed ]; then
  step "kernel_speed (checked mode)"
  timeout 90 $B/kernel_speed --no-glsl --no-llvm 2>&1 | tee "$OUT/kernel_speed.txt" | tail -25
fi
step done
