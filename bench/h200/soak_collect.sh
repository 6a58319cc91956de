#!/bin/bash
# Waits for the soak that bench/h200/suite.sh started detached (SOAK_SECS) and copies its log,
# with the start, middle and end samples, to $OUT.
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
pid=$(cat /tmp/soak/pid 2>/dev/null)
if [ -z "$pid" ]; then echo "no soak was started on this machine"; exit 1; fi
t=0
while kill -0 "$pid" 2>/dev/null && [ $t -lt ${WAIT_SECS:-400} ]; do sleep 2; t=$((t+2)); done
kill -0 "$pid" 2>/dev/null && echo "soak still running after ${t}s of waiting"
cp /tmp/soak/soak.log "$OUT/soak.log"
grep -E "soak sample|soak: |test result|panicked" "$OUT/soak.log" | tail -12
