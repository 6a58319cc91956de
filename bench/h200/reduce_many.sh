#!/bin/bash
# Reduces many device-only wrong results at once on the device machine: one
# `cajeta-fuzz --reduce-program` per program in .gl/red/*.cajeta, side by side on its cores,
# each in its own folder (the reducer writes reduce-progress.cajeta as it goes), bounded by
# REDUCE_SECS (default 300). A file named *_llvm.cajeta is reduced for a difference of LLVM's
# kernels only (CAJETA_FUZZ_REDUCE_LLVM). Everything comes back as $OUT/reduced.tgz.
set -u
cd "$(dirname "$0")/../.."
B=${B:-/tmp/bin}; . bench/h200/carry.sh
export PATH=$B:$PATH CAJETAC_EXE=$B/cajetac-llvm CAJETA_SPIRV_VAL=$B/spirv-val CAJETA_TESTS_DIR=$PWD/tests
W=$(mktemp -d)
step "reducing $(ls .gl/red/*.cajeta | wc -l) programs, ${REDUCE_SECS:-300}s"
for f in .gl/red/*.cajeta; do
  n=$(basename "$f" .cajeta); mkdir -p "$W/$n"; cp "$f" "$W/$n/input.cajeta"
  llvm=; case "$n" in *_llvm) llvm=1 ;; esac
  (cd "$W/$n" && env ${llvm:+CAJETA_FUZZ_REDUCE_LLVM=1} timeout ${REDUCE_SECS:-300} "$B/cajeta-fuzz" --reduce-program input.cajeta > reduced.cajeta 2> err.txt; echo "$n rc=$? $(wc -l < reduce-progress.cajeta 2>/dev/null) lines") &
done
wait
tar czf "$OUT/reduced.tgz" -C "$W" .
step done
