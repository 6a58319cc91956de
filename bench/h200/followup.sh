#!/bin/bash
# One device command after suite.sh: the device-only fuzz finding reduced on this device
# (REDUCE), the cost of checked mode (kernel_speed), and the GEMM kernels beside torch and
# NVIDIA's vk_cooperative_matrix_perf (gemm.sh). Binaries arrive compressed in .gl/.
set -u
cd "$(dirname "$0")/../.."
B=/tmp/bin2; . bench/h200/carry.sh
nvidia-smi > "$OUT/smi.txt" 2>&1; head -12 "$OUT/smi.txt" | tail -4
if [ -n "${REDUCE:-}" ]; then
  step "reduce $REDUCE"
  R=$(realpath "$REDUCE")
  (cd "$OUT" && timeout ${REDUCE_TIMEOUT:-150} $B/cajeta-fuzz --reduce-program "$R" > reduced.cajeta 2> reduce.err)
  echo "rc=$?"; wc -l "$OUT/reduced.cajeta" "$OUT/reduce-progress.cajeta" 2>/dev/null; tail -3 "$OUT/reduce.err"
fi
step "kernel_speed (checked mode)"
timeout ${KS_TIMEOUT:-60} $B/kernel_speed --no-glsl --no-llvm 2>&1 | tee "$OUT/kernel_speed.txt" | tail -8
[ "${GEMM:-1}" = 1 ] || exit 0
step gemm
cp $B/coop_gemm .gl/coop_gemm
bash bench/h200/gemm.sh
