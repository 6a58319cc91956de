#!/bin/bash
# 2026-12-07 (fifth session), one command on the device machine:
# 1. the library GEMM (`coop_gemm --library`, every element checked) with its float32-
#    accumulator and int8 blocks in groups of eight block rows, 8192³, 4000³ and
#    3000x5000x2048;
# 2. the suite's generated program 0 (seed 0xC47E7A), which differed on an H100 with LLVM's
#    kernels only: run four ways (`cajeta-fuzz --run-program`), then reduced there
#    (`CAJETA_FUZZ_REDUCE_LLVM=1 cajeta-fuzz --reduce-program`, time-boxed), the reduction
#    kept in $OUT;
# 3. SWEEPS (default 2) sweeps of each precision's tuned kernel with its blocks in groups of
#    4, 8 and 16 block rows (`-g4`, `-g8`, `-g16`) beside row order, 8192³, general and
#    with `n`, `k` constants.
# Carries .glb/ (debs, coop_gemm.xz, cajeta-fuzz.xz, cajetac.xz, cajetac-llvm.xz,
# spirv-val.xz, p0.cajeta).
# Not run whole: no machine came for it this session. Its first step ran as a command of its
# own (docs/PERFORMANCE.md, "The library with grouped blocks on NVIDIA"); steps 2 and 3 wait.
set -u
G=${G:-.glb}; . bench/h200/carry_dir.sh
export PATH=$B:$PATH CAJETAC=$B/cajetac CAJETA_SPIRV_VAL=$B/spirv-val CI=true PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
CAJETA_BUFFER_ADDRESS=always timeout ${LIB_T:-120} $B/coop_gemm --library --sizes 8192,4000,3000x5000x2048 --reps 3 > $OUT/library.txt 2>&1; echo "library rc=$?"
grep -E "^\|" $OUT/library.txt | cut -c1-200 | head -24
mkdir -p /tmp/red && cd /tmp/red && cp "$OLDPWD/$G/p0.cajeta" .
timeout 120 $B/cajeta-fuzz --run-program p0.cajeta > run4.txt 2>&1; echo "run-program rc=$?"
grep -vE "^ |^package|^import|^$" run4.txt | cut -c1-200 | head -20
CAJETA_FUZZ_REDUCE_LLVM=1 timeout ${REDUCE_T:-300} $B/cajeta-fuzz --reduce-program p0.cajeta > reduced.cajeta 2> reduce.err; echo "reduce rc=$?"
tail -3 reduce.err | cut -c1-200
[ -s reduced.cajeta ] || cp reduce-progress.cajeta reduced.cajeta 2>/dev/null
cp reduced.cajeta "$OUT/reduced.cajeta"; echo "reduced: $(wc -l < reduced.cajeta) lines"
cd "$OLDPWD"
SHAPES=${SHAPES:-f16f32-128x256x32-2x4-u,i8i32-256x128x64-4x2-bc-u,f16f16-256x256x32-2x4-u}
for run in $(seq 1 ${SWEEPS:-2}); do
  CAJETA_BUFFER_ADDRESS=always timeout ${SWEEP_T:-120} $B/coop_gemm --sweep --forms --fixed-nk --sizes 8192 --reps ${REPS:-5} --shapes $SHAPES > $OUT/sweep$run.txt 2>&1
  echo "sweep $run rc=$?"
done
for run in $(seq 1 ${SWEEPS:-2}); do echo "-- sweep $run"; grep -E "^\| 8192" $OUT/sweep$run.txt | cut -d"|" -f4,8; done
