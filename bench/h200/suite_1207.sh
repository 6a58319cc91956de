#!/bin/bash
# The workspace suite on the device machine, 2026-12-07 (fourth session): the release `suite`
# test binary of 6cdb0065's sources with its cajetac and cajetac-llvm (helpers reaped off the
# compiling threads' path, no warm-up), with default test threads (one a core), then with
# one; fuzz seed 20261210 program 9 with both kernel backends first. Carries .gl8/ (debs,
# suite.xz, cajetac-llvm.xz, cajetac.gz, spirv-val.gz, p3009*.cajeta).
set -u
G=.gl8; . bench/h200/carry_dir.sh
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETA_SPIRV_VAL=$B/spirv-val CI=true CAJETA_TESTS_DIR=$PWD/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# The test binary looks for cajetac next to its deps/ folder.
mkdir -p /tmp/t/deps && cp $B/suite /tmp/t/deps/suite && cp $B/cajetac $B/cajetac-llvm /tmp/t/
# Fuzz seed 20261210 program 9 (input 3009): LLVM's kernels differ on lavapipe; on NVIDIA?
# p3009r: reduced on lavapipe (cajeta-fuzz --reduce-program, LLVM's kernels); p3009c: that
# without its never-taken labeled `continue`, which lavapipe runs right; p3009m: kx and its
# function alone, reduced by hand (wrong on lavapipe with one invocation a workgroup too).
for p in p3009m p3009 p3009r p3009c; do for be in llvm rspirv; do
  echo "== $p --backend $be"
  CAJETA_CACHE_DIR=off timeout 120 $B/cajetac run --backend $be .gl8/$p.cajeta > "$OUT/$p.$be.txt" 2>&1; echo "rc=$?"
  echo "mismatch lines: $(grep -c checksum "$OUT/$p.$be.txt")"; tail -2 "$OUT/$p.$be.txt" | cut -c1-200
done; done
[ "${SUITE:-1}" = 1 ] || exit 0
echo "== suite, default threads ($(nproc) cores)"
(cd tests && timeout ${SUITE_TIMEOUT:-240} /tmp/t/deps/suite > "$OUT/suite_parallel.txt" 2>&1); echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_parallel.txt" | head -30
echo "== suite, --test-threads=1"
(cd tests && timeout ${SUITE_TIMEOUT:-240} /tmp/t/deps/suite --test-threads=1 > "$OUT/suite_serial.txt" 2>&1); echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_serial.txt" | head -30
ps aux | grep -c "[e]mit-helper" | sed 's/^/helpers left running: /'
