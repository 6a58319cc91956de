#!/usr/bin/env bash
# JIT compile time of every example as `cajetac run` reports it (docs/PERFORMANCE.md "Host
# code"): runs each example RUNS times (default 5) at full size with CAJETA_HOST_TIMING=1,
# taking turns, and prints the median and range of "compile … ms" (lowering, optimization
# and machine code; in a real run it overlaps the creation of the device's context).
#
#   cargo build --release -p cajetac
#   bash bench/jit_examples.sh [RUNS] [CAJETAC] [EXAMPLE.cajeta…]   (default: examples/*.cajeta)
#
# An example that fails (or prints no timing) is reported as such; the others go on.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
bin=${2:-target/release/cajetac}
shift $(($# < 2 ? $# : 2))
examples=("$@")
if ((${#examples[@]} == 0)); then
    examples=(examples/*.cajeta)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A times
for ((r = 0; r < runs; r++)); do
    for ex in "${examples[@]}"; do
        name=$(basename "$ex" .cajeta)
        line=$(CAJETA_HOST_TIMING=1 "$bin" run "$ex" -- "$out/$name" full examples/data 2>&1 >/dev/null |
            grep -o 'native host code: compile [0-9.]* ms' | grep -o '[0-9.]* ms' | cut -d' ' -f1)
        times[$name]="${times[$name]:-} ${line:-fail}"
        rm -rf "${out:?}/$name"
    done
done
echo "JIT compile (ms), $runs runs each, $(nproc) CPUs: median (min–max)"
for ex in "${examples[@]}"; do
    name=$(basename "$ex" .cajeta)
    # shellcheck disable=SC2086
    printf '%s\n' ${times[$name]} | sort -g | awk -v n="$name" '
        /fail/ { bad = 1; next }
        { v[c++] = $1 }
        END {
            if (c == 0) { printf "%-12s no timing (the example failed)\n", n; exit }
            printf "%-12s %7.1f  (%.1f–%.1f)%s\n", n, v[int(c / 2)], v[0], v[c - 1], bad ? "  (some runs failed)" : ""
        }'
done
