#!/bin/bash
# Issues 31 and 32, session of 2026-12-07 (second), one command: the library GEMM launching
# its cooperative kernels' buffer-address variants (every element checked) beside the same
# library on descriptors (CAJETA_BUFFER_ADDRESS=never), the float16-accumulator shapes
# through addresses, NVIDIA's sample's float16 256x256 block; then compile speed on the
# host's 16 cores against naga (the LLVM backend's lean pipeline and early helpers), and
# the LLVM backend's 200 kernels at 1, 4 and 16 compile threads; precision_axpb last.
set -u
B=/tmp/bin; . bench/h200/carry.sh
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
lscpu | grep -E "Model name|^CPU\(s\)" | tee $OUT/cpu.txt
step "library, addresses"
timeout 150 $B/coop_gemm --library --sizes ${LIB_SIZES:-8192,4000,3000x5000x2048} --reps 5 2>&1 | tee $OUT/library_addr.txt | grep -E "^\||wrong|rror"
step "library, descriptors"
CAJETA_BUFFER_ADDRESS=never timeout 60 $B/coop_gemm --library --sizes 8192 --reps 5 2>&1 | tee $OUT/library_desc.txt | grep -E "^\||wrong|rror"
[ -n "${SWEEP:-}" ] && step "sweep f16f16, addresses" && CAJETA_BUFFER_ADDRESS=always timeout 60 $B/coop_gemm --sweep --fixed-nk --torch --sizes 8192 --reps 7 --shapes f16f16-256x256x32-2x4-u 2>&1 | tee $OUT/sweep_f16f16.txt | grep -E "^\| 8192"
step vkcm
(cd .gl/vkcm && VKCM_ONLY=shmemfp16_fp16 VKCM_TILES=256x256x32 timeout 45 stdbuf -oL ./vkcm --dim=8192 --shmem) 2>&1 | tee $OUT/vkcm.txt | grep -E "TFlops|stats:" | cut -c1-260
step compile_speed
CAJETAC=$B/cajetac NAGA=$B/naga CAJETA_ROOT=$PWD timeout ${CS_T:-130} $B/compile_speed 2>&1 | tee $OUT/compile_speed.txt | grep -E "^\||^#" | head -40
step "llvm 200 kernels, threads"
for t in ${THREADS:-1 16}; do echo "threads $t"; CAJETA_COMPILE_THREADS=$t CAJETAC=$B/cajetac NAGA=$B/naga CAJETA_ROOT=$PWD timeout 40 $B/compile_speed --quick 2>&1 | grep -iE "llvm.*200 kernels" | head -3; done | tee $OUT/threads.txt
step precision_axpb
timeout ${AXPB_T:-40} $B/precision_axpb 2>&1 | tee $OUT/axpb.txt | tail -14
step done
