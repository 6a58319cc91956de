#!/bin/bash
# The workspace suite on the device machine: the release `suite` test binary with its cajetac
# and cajetac-llvm, with default test threads (one a core), then with one; fuzz seed 20261210
# program 9 with both kernel backends first, and the device's profile. Carries the folder G
# (.gl8 on 2026-12-07 with 6cdb0065's build, .gl9 with 4bad7e90's): debs, suite.xz,
# cajetac-llvm.xz, cajetac.gz, spirv-val.gz, p3009*.cajeta.
set -u
G=${G:-.gl9}; . bench/h200/carry_dir.sh
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETA_SPIRV_VAL=$B/spirv-val CI=true CAJETA_TESTS_DIR=$PWD/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# The test binary looks for cajetac next to its deps/ folder.
mkdir -p /tmp/t/deps && cp $B/suite /tmp/t/deps/suite && cp $B/cajetac $B/cajetac-llvm /tmp/t/
# Fuzz seed 20261211 program 36 (p3036, both backends wrong on lavapipe: Mesa 22.3 loop
# analysis), then seed 20261210 program 9 (input 3009): LLVM's kernels differ on lavapipe; on NVIDIA?
# p3009r: reduced on lavapipe (cajeta-fuzz --reduce-program, LLVM's kernels); p3009c: that
# without its never-taken labeled `continue`, which lavapipe runs right; p3009m: kx and its
# function alone, reduced by hand (wrong on lavapipe with one invocation a workgroup too).
for p in p3036 p3009m p3009 p3009r p3009c; do for be in llvm rspirv; do
  echo "== $p --backend $be"
  CAJETA_CACHE_DIR=off timeout 60 $B/cajetac run --backend $be $G/$p.cajeta > "$OUT/$p.$be.txt" 2>&1; echo "rc=$?"
  echo "mismatch lines: $(grep -c checksum "$OUT/$p.$be.txt")"; tail -2 "$OUT/$p.$be.txt" | cut -c1-200
done; cmp -s "$OUT/$p.llvm.txt" "$OUT/$p.rspirv.txt" && echo "$p: both backends print the same" || echo "$p: the backends DIFFER"; done
$B/cajetac devices --json > "$OUT/devices.json" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; print(d["name"], d["limits"]["max_compute_shared_memory_size"], [f for f in d["features"] if "Float16" in f or "BFloat" in f or "ooperative" in f])' "$OUT/devices.json"
[ "${SUITE:-1}" = 1 ] || exit 0
echo "== suite, default threads ($(nproc) cores)"
(cd tests && timeout ${SUITE_TIMEOUT:-200} /tmp/t/deps/suite > "$OUT/suite_parallel.txt" 2>&1); echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_parallel.txt" | head -30
echo "== suite, --test-threads=1"
(cd tests && timeout ${SERIAL_TIMEOUT:-320} /tmp/t/deps/suite --test-threads=1 > "$OUT/suite_serial.txt" 2>&1); echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_serial.txt" | head -30
ps aux | grep -c "[e]mit-helper" | sed 's/^/helpers left running: /'
