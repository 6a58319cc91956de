#!/bin/bash
# A/B of a compiler change on the device machine: the probes in tests/device and the saved
# failing campaign programs (.gl/camp, .gl/red1) through `cajetac run` with the carried
# binaries (.gl/cajetac.gz the old build, .gl/cajetac-new.gz the new one, .gl/cajetac-llvm.xz
# with `--backend llvm`). A program is right when it returns 0 (generated programs) or 777.
set -u
cd "$(dirname "$0")/../.."
B=${B:-/tmp/bin}; . bench/h200/carry.sh >/dev/null 2>&1
one() { # binary-and-flags file -> "ok" or the file's name
  r=$(timeout 30 $1 run $2 "$3" 2>/dev/null | tail -1)
  case "$r" in 0|777) echo ok ;; *) echo "$(basename "$3" .cajeta)" ;; esac
}
export -f one
for way in "$B/cajetac|" "$B/cajetac-new|" "$B/cajetac-llvm|--backend llvm"; do
  bin=${way%|*}; flags=${way#*|}
  for set in "tests/device/wide_conversions.cajeta tests/device/narrow_signedness.cajeta" ".gl/red1/*.cajeta" ".gl/camp/*.cajeta"; do
    out=$(ls $set | xargs -P 8 -I{} bash -c "one '$bin' '$flags' {}")
    echo "$(basename $bin) $flags [$set]: $(echo "$out" | grep -c '^ok$') right; wrong: $(echo "$out" | grep -v '^ok$' | sort | tr '\n' ' ')"
  done
done
