#!/bin/bash
# Issue 31, session of 2026-12-07 (second): the library GEMM now launching its cooperative
# kernels' buffer-address variants, checked on every element at every shape, beside the same
# library forced onto descriptors (CAJETA_BUFFER_ADDRESS=never) in the same command; the
# float16-accumulator shapes through addresses twice (compiled for n and k or not, loads
# first or not); NVIDIA's sample's float16 256x256 block (cut off by the time limit in the
# first command) and torch.
set -u
B=/tmp/bin; . bench/h200/carry.sh
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/clocks.csv 2>&1 & SMI=$!
step "library, addresses"
timeout ${LIB_T:-160} $B/coop_gemm --library --sizes ${LIB_SIZES:-8192,4096,4000,4096x14336x4096,3000x5000x2048} --reps 5 2>&1 | tee $OUT/library_addr.txt | grep -E "^\||wrong|rror"
step "library, descriptors"
CAJETA_BUFFER_ADDRESS=never timeout 70 $B/coop_gemm --library --sizes 8192 --reps 5 2>&1 | tee $OUT/library_desc.txt | grep -E "^\||wrong|rror"
step "library, addresses, 8192 again"
timeout 70 $B/coop_gemm --library --sizes 8192 --reps 5 2>&1 | tee $OUT/library_addr2.txt | grep -E "^\||wrong|rror"
for r in 1 2; do
step "sweep f16f16, addresses, run $r"
CAJETA_BUFFER_ADDRESS=always timeout 80 $B/coop_gemm --sweep --fixed-nk --sizes 8192 --reps 7 --shapes f16f16-256x256x32-2x4 $([ $r = 1 ] && echo --torch) 2>&1 | tee $OUT/sweep_f16f16_$r.txt | grep -E "^\| 8192"
done
step vkcm
(cd .gl/vkcm && VKCM_ONLY=shmemfp16_fp16 VKCM_TILES=256x256x32 timeout 90 stdbuf -oL ./vkcm --dim=8192 --shmem) 2>&1 | tee $OUT/vkcm.txt | grep -E "TFlops|stats:" | cut -c1-260
kill $SMI 2>/dev/null
step done
