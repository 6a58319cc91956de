#!/bin/bash
# The GEMM measurements of docs/PERFORMANCE.md ("Tensor cores") in one command on the device
# machine (the H200): cajetac's generated kernels (coop_gemm --sweep), the existing kernels,
# torch (cuBLAS) and NVIDIA's vk_cooperative_matrix_perf, side by side. Expects the binaries
# in .gl/ (bench/h200/README.md says how they get there) and writes logs under $OUT.
set -u
cd "$(dirname "$0")/../.."
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
SIZES=${SIZES:-8192}
step() { echo "== $* ($(date +%T))"; }
# SM clock and power every 250 ms beside the measurements: a slow row is read against them.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 250 > "$OUT/clocks.csv" 2>&1 &
SMI=$!
step sweep
timeout ${SWEEP_TIMEOUT:-240} .gl/coop_gemm --sweep --torch --sizes "$SIZES" --reps ${REPS:-7} ${SWEEP_ARGS:-} 2>&1 | tee "$OUT/sweep.txt"
if [ "${EXISTING:-1}" = 1 ]; then
  step existing
  timeout 60 .gl/coop_gemm --sizes "$SIZES" --reps 5 --variants prefetch64 2>&1 | tee "$OUT/existing.txt"
  timeout 60 .gl/coop_gemm --int8 --torch --sizes "$SIZES" --reps 5 2>&1 | tee -a "$OUT/existing.txt"
fi
if [ -n "${LIBRARY:-}" ]; then
  step library
  timeout ${LIBRARY_TIMEOUT:-120} .gl/coop_gemm --library 2>&1 | tee "$OUT/library.txt"
fi
if [ -d .gl/vkcm ]; then
step nvidia-sample
(cd .gl/vkcm && VKCM_ONLY=${VKCM_ONLY:-shmemfp16_fp16,shmemfp16_fp32,shmembf16_fp32,shmems8_s32} \
  timeout ${VKCM_TIMEOUT:-200} stdbuf -oL ./vkcm --dim=8192 --shmem) 2>&1 | tee "$OUT/vkcm.txt" | grep -E "shader:|TFlops|TOPS|cooperativeMatrixProps" | head -400
fi
kill $SMI 2>/dev/null
step done
