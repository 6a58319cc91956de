#!/bin/bash
# 2026-12-07, eighth session, one command, prepared and NOT run (no device machine was lent).
# Carry G (.glh: the release suite, cajetac, cajetac-llvm and precision_axpb of 2eaab58c,
# stripped, as *.xz; spirv-val.xz; the debs). The programs and kernel forms are the tree's.
# The tree and the carry together stay under 64 MB: strip the binaries before xz.
# 1. Program 0 of seed 0xC47E7A, its kx cut and the hand-cut term through `cajetac run`
#    with each kernel backend: is the guardless 16-bit division (586f4a53) right on NVIDIA?
#    Then the two `llvm-divergent-control-flow` programs (seed 32 program 103, and the labeled
#    jumps of tests/device/labeled_jumps_strided.cajeta, which the carried cajetac of
#    e31e6b48 still runs through O2 first): right on NVIDIA means lavapipe's defect.
# 2. precision_axpb at 256 MiB to 2 GiB, then the grid-stride loop unrolled by 4 (loads
#    first) and two adjacent elements a thread: does the 16-bit forms' shortfall shrink with
#    size (a fixed cost a launch) or with bytes in flight?
# 3. The workspace suite (fuzz_replays runs program 0 with LLVM's kernels), default threads,
#    then one thread in the time left.
set -u; T0=$(date +%s)
G=${G:-.glh}; . bench/h200/carry_dir.sh
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETA_SPIRV_VAL=$B/spirv-val CI=true CAJETA_TESTS_DIR=$PWD/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
W=tests/fuzz_findings/wrong_results
for f in $W/nvidia_seed_c47e7a_program_0_llvm.cajeta bench/h200/kx_cut_c47e7a.cajeta $W/nvidia_seed_c47e7a_program_0_llvm_min.cajeta $W/seed32_program_103_llvm.cajeta tests/device/labeled_jumps_strided.cajeta; do
  p=$(basename $f .cajeta); for be in llvm rspirv; do
  CAJETA_CACHE_DIR=off timeout 60 $B/cajetac run --backend $be $f > "$OUT/$p.$be.txt" 2>&1
  echo "== $p --backend $be: rc=$? mismatch lines: $(grep -c checksum "$OUT/$p.$be.txt")"; tail -1 "$OUT/$p.$be.txt" | cut -c1-160
done; done
for m in 256 512 1024 2048 256; do
  echo "== axpb builtin --mib $m"
  timeout 60 $B/precision_axpb --reps 10 --mib $m 2>&1 | grep -E "^\| (fp|bf)|copy|Not run"
done
for s in unroll4 pairs; do
  echo "== axpb $s --mib 256"
  timeout 60 $B/precision_axpb --reps 10 --source bench/h200/axpb_forms/$s.cajeta 2>&1 | grep -E "^\| (fp|bf)|copy|Not run"
done
mkdir -p /tmp/t/deps && cp $B/suite /tmp/t/deps/suite && cp $B/cajetac $B/cajetac-llvm /tmp/t/
echo "== suite, default threads ($(nproc) cores), at $(( $(date +%s) - T0 )) s"
(cd tests && timeout 200 /tmp/t/deps/suite > "$OUT/suite_parallel.txt" 2>&1); echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_parallel.txt" | head -30
LEFT=$(( ${BUDGET_S:-540} - ( $(date +%s) - T0 ) )); echo "== suite, --test-threads=1, $LEFT s left"
[ $LEFT -gt 30 ] && { (cd tests && timeout $LEFT /tmp/t/deps/suite --test-threads=1 > "$OUT/suite_serial.txt" 2>&1); echo "rc=$?"
grep -E "^test result|FAILED|panicked" "$OUT/suite_serial.txt" | head -30; }
ps aux | grep -c "[e]mit-helper" | sed 's/^/helpers left running: /'
