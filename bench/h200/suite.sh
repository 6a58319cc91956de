#!/bin/bash
# The device suite and the owed benchmarks on the device machine (the H200), in one command:
# the workspace's device tests with default test threads and then sequentially, the checked-mode
# cost (kernel_speed), and the precision rates. Binaries arrive gzipped in .gl/ (README.md).
set -u
cd "$(dirname "$0")/../.."
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=/tmp/bin; mkdir -p $B
for f in .gl/*.gz; do gunzip -c "$f" > $B/$(basename "$f" .gz); chmod +x $B/$(basename "$f" .gz); done
# xz where gzip would not fit the carry (the LLVM-linked test binary and cajetac-llvm).
for f in .gl/*.xz; do
  python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$f" > $B/$(basename "$f" .xz)
  chmod +x $B/$(basename "$f" .xz)
done
cp .gl/spirv-* $B/ 2>/dev/null
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETA_SPIRV_VAL=$B/spirv-val CI=true CAJETA_TESTS_DIR=$PWD/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
step() { echo "== $* ($(date +%T))"; }
# The test binary looks for cajetac next to its deps/ folder.
mkdir -p /tmp/t/deps && cp $B/suite /tmp/t/deps/suite && cp $B/cajetac $B/cajetac-llvm /tmp/t/ 2>/dev/null
step "suite, default threads ($(nproc) cores)"
(cd tests && timeout ${SUITE_TIMEOUT:-200} /tmp/t/deps/suite 2>&1) > "$OUT/suite_parallel.txt"; echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_parallel.txt" | head -20
step "suite, --test-threads=1"
(cd tests && timeout ${SUITE_TIMEOUT:-200} /tmp/t/deps/suite --test-threads=1 2>&1) > "$OUT/suite_serial.txt"; echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_serial.txt" | head -20
if [ -x $B/kernel_speed ]; then
  step "kernel_speed (checked mode)"
  timeout 90 $B/kernel_speed --no-glsl --no-llvm 2>&1 | tee "$OUT/kernel_speed.txt" | tail -25
fi
step done
