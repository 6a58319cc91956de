#!/bin/bash
# The fuzz campaign on the device machine: one `cajeta-fuzz` worker per seed, side by side on
# its cores, every generated program through spirv-val and then run every way (rspirv and LLVM
# kernels on the device's GPU, each with native and interpreted host code, and the CPU device).
# Needs cajeta-fuzz and cajetac-llvm (the LLVM helper) in .gl/ (bench/h200/carry.sh unpacks
# them). Every worker's event lines and saved findings come back as one archive,
# $OUT/campaign.tgz (the device returns at most eight files), and the findings are listed by
# seed and program so that each can be re-run with `cajeta-fuzz --seed S --run-program`.
# FUZZ_SECS (default 230) bounds the run, FUZZ_SEEDS (default 50..63) picks the workers.
set -u
cd "$(dirname "$0")/../.."
B=${B:-/tmp/bin}; . bench/h200/carry.sh
cp .gl/spirv-val "$B/" 2>/dev/null
export PATH=$B:$PATH CAJETAC_EXE=$B/cajetac-llvm CAJETA_SPIRV_VAL=$B/spirv-val CAJETA_TESTS_DIR=$PWD/tests
W=$(mktemp -d)
SEEDS=${FUZZ_SEEDS:-$(seq 50 63)}
step "campaign: ${FUZZ_SECS:-230}s, seeds $(echo $SEEDS)"
for s in $SEEDS; do
  mkdir -p "$W/fz$s"
  # A worker that dies (a driver crash takes the process) is restarted after the input it
  # was running, which is recorded as a crash.
  (end=$((SECONDS + ${FUZZ_SECS:-230})); from=0
   while [ $SECONDS -lt $end ] && [ "$from" -lt 100000 ]; do
     timeout $((end - SECONDS)) "$B/cajeta-fuzz" --worker "$from" --seed "$s" --inputs 0 --programs 100000 \
       --device-programs 100000 --out "$W/fz$s" >> "$W/fz$s/lines.txt" 2>> "$W/fz$s/err.txt"
     rc=$?; last=$(grep '^I ' "$W/fz$s/lines.txt" | tail -1 | cut -d' ' -f2)
     [ $rc -ge 128 ] && [ $rc -ne 137 ] && [ $rc -ne 143 ] || break
     echo "C $last exit $rc" >> "$W/fz$s/lines.txt"; from=$((last + 1))
   done
   echo "seed $s: $(grep -c '^D ' "$W/fz$s/lines.txt") programs, crashes at: $(grep '^C ' "$W/fz$s/lines.txt" | cut -d' ' -f2 | tr '\n' ' ')") &
done
wait
# D lines: index, kind, how far it got, whether it ran on the device, then the runs of the
# four ways, whether LLVM refused, the CPU device's run and refusal (tests/bin/cajeta_fuzz.rs).
cat "$W"/fz*/lines.txt | awk '/^D /{n++; if ($5==1) d++; if (substr($6,1,4)=="1111") w++; if (substr($6,6,1)=="1") c++}
  END {print "programs", n, "| on the device", d, "| all four ways", w, "| CPU device", c}'
for s in $SEEDS; do grep -h "^F " "$W/fz$s/lines.txt" | sed "s/^F /seed $s program /"; done | cut -c1-200 > "$W/findings.txt"
echo "finding lines: $(wc -l < "$W/findings.txt") (known-defect lines: $(grep -c '|[a-z-]\+|' "$W/findings.txt"))"
grep -v '|[a-z-]\+|' "$W/findings.txt" | head -60
tar czf "$OUT/campaign.tgz" -C "$W" .
dmesg 2>/dev/null | grep -v "Code:" | grep segfault | tail -5
step done
