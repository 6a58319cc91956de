#!/bin/bash
# 2026-12-07 (seventh session): the commands sent to the device machine inline, kept as
# they ran (each was one `device` call; the warm machine kept the carried folders between
# them). Binaries: .gle/ of db1f993f (cajetac, cajetac-llvm, spirv-dis), .gld/coop_gemm.xz
# of c7c3c4df, .gl/ of the morning (precision_axpb, naga, compile_speed), NVIDIA's sample in
# .gl/vkcm. Results: docs/fuzzing.md and docs/PERFORMANCE.md, "seventh".
set -u
case "${1:-}" in
gemm)  # H200: the library GEMM, a sweep beside torch, then the sample (next call)
  G=.gle; . bench/h200/carry_dir.sh
  python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(".gld/coop_gemm.xz").read())' > $B/coop_gemm; chmod +x $B/coop_gemm
  timeout 200 $B/coop_gemm --library --sizes 8192,4096,4000,4096x14336x4096 --reps 5 2>&1 | grep -E "^\||wrong|rror" | cut -c1-200
  timeout 150 $B/coop_gemm --sweep --torch --fixed-nk --sizes 8192 --reps 5 --shapes f16f16-256x256x32-2x4,f16f32-128x256x32-2x4,bf16f32-128x256x32-2x4,i8i32-256x128x64-4x2-bc 2>&1 | grep -E "^\||torch|TFLOP" | cut -c1-200 | tail -30 ;;
sample)
  cd .gl/vkcm && for s in shmemfp16_fp16 shmems8_s32 shmemfp16_fp32; do VKCM_ONLY=$s VKCM_TILES=256x256x32,128x256x32,128x256x64,256x128x64 timeout 100 stdbuf -oL ./vkcm --dim=8192 --shmem 2>&1 | grep -E "TFlops|TOPS|rror" | cut -c1-180 | head -12; done ;;
precision)
  mkdir -p /tmp/pb; gunzip -c .gl/precision_axpb.gz > /tmp/pb/pa; chmod +x /tmp/pb/pa
  for r in 1 2; do timeout 100 /tmp/pb/pa 2>&1 | tail -14; done ;;
compile)  # after `--no-llvm` with the morning's cajetac.gz, twice with .gle's cajetac
  G=.gle; . bench/h200/carry_dir.sh > /dev/null 2>&1; mkdir -p /tmp/cs
  for f in naga compile_speed; do gunzip -c .gl/$f.gz > /tmp/cs/$f; chmod +x /tmp/cs/$f; done
  for r in 1 2; do CAJETAC=$B/cajetac NAGA=/tmp/cs/naga timeout 250 /tmp/cs/compile_speed 2>&1 | grep -E "^\|" | grep -v "n/a"; done ;;
instcombine)  # H100: kx through sroa,early-cse,instcombine + the structurizer, bisected over
  # instcombine's visits (found: 609 right, 610 wrong), both modules written to $OUT
  G=.gle; . bench/h200/carry_dir.sh > /dev/null 2>&1; export PATH=$B:$PATH CAJETA_CACHE_DIR=off
  S="function(lower-switch,fix-irreducible,unify-loop-exits,structurizecfg)"
  export CAJETA_EXP_PIPELINE="function(sroa,early-cse,instcombine<no-verify-fixpoint>),$S"
  w() { CAJETA_EXP_LLVM_OPTIONS="-debug-counter=instcombine-visit=0-$1" timeout 60 cajetac-llvm run --backend llvm $G/p0x.cajeta 2>&1 | grep -c device; }
  for n in 30 100 300 500 700 1000 10000; do echo "$n: $(w $n)"; done
  lo=500; hi=700; while [ $((hi-lo)) -gt 1 ]; do m=$(((lo+hi)/2)); r=$(w $m); echo "$m: $r"; if [ "$r" = 0 ]; then lo=$m; else hi=$m; fi; done
  for n in $lo $hi; do CAJETA_EXP_LLVM_OPTIONS="-debug-counter=instcombine-visit=0-$n" cajetac-llvm build --backend llvm $G/p0x.cajeta -o /tmp/b$n > /dev/null 2>&1; cp /tmp/b$n/kx.spv $OUT/kx_ic_$n.spv; done ;;
*) echo "usage: $0 gemm|sample|precision|compile|instcombine" ;;
esac
