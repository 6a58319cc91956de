#!/bin/bash
# Builds NVIDIA's Vulkan cooperative-matrix benchmark (jeffbolznv/vk_cooperative_matrix_perf, MIT)
# with vkcm.patch (VKCM_ONLY / VKCM_TILES selection, pipeline statistics lines, shader and
# cooperative-matrix shape on each result line) into $OUTDIR/vkcm, and copies the precompiled
# shaders it opens (relative path shaders/*.spv, so run it from $OUTDIR).
#
# usage: build.sh [SAMPLE [HEADERS [OUTDIR]]]   (or env VKCM_SRC, VK_HEADERS, VKCM_OUT)
#   SAMPLE : the sample's repository: a checkout, or a (bare) git directory
#            (default /work/.mirror/jeffbolznv+vk_cooperative_matrix_perf/repo; built at cc3f225f90f9)
#   HEADERS: KhronosGroup/Vulkan-Headers: a checkout (with include/), or a git directory
#            (default /work/.mirror/KhronosGroup+Vulkan-Headers/repo; built at f9973cd97e6f, 1.4.359)
#   OUTDIR : default <repo root>/.gl/vkcm
# Needs g++ and libvulkan.so.1 (any version; only linked against). libstdc++/libgcc are linked
# statically; a local arc4random keeps the glibc requirement at 2.35 (as cajetac's).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
SRC=${1:-${VKCM_SRC:-/work/.mirror/jeffbolznv+vk_cooperative_matrix_perf/repo}}
HDR=${2:-${VK_HEADERS:-/work/.mirror/KhronosGroup+Vulkan-Headers/repo}}
OUTDIR=${3:-${VKCM_OUT:-$ROOT/.gl/vkcm}}
LIBVULKAN=${LIBVULKAN:-/usr/lib/x86_64-linux-gnu/libvulkan.so.1}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

# show FILE: print one file of the sample (checkout or git directory)
show() { if [ -e "$SRC/$1" ]; then cat "$SRC/$1"; else git -C "$SRC" show "HEAD:$1"; fi; }
list_spv() {
  if [ -d "$SRC/shaders" ]; then (cd "$SRC" && ls shaders/*.spv); else git -C "$SRC" ls-tree --name-only HEAD shaders/ | grep '\.spv$'; fi
}

mkdir -p "$W/src"
show src/vk_cooperative_matrix_perf.cpp > "$W/src/vk_cooperative_matrix_perf.cpp"
(cd "$W" && patch -p1 --no-backup-if-mismatch < "$HERE/vkcm.patch")

if [ -e "$HDR/include/vulkan/vulkan_core.h" ]; then
  INC=$HDR/include
else  # git directory: take the C headers only (the big .hpp files may be absent from a snapshot)
  INC=$W/vh/include
  git -C "$HDR" ls-tree -r --name-only HEAD include | grep -E '\.h$' | while read -r f; do
    mkdir -p "$W/vh/$(dirname "$f")"; git -C "$HDR" show "HEAD:$f" > "$W/vh/$f"
  done
fi

cat > "$W/compat.c" <<'C'
/* arc4random for glibc < 2.36: referenced only by the static libstdc++'s std::random_device, never called. */
#include <sys/random.h>
#include <stdlib.h>
unsigned int arc4random(void)
{
    unsigned int r;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) r = (unsigned int)rand();
    return r;
}
C
nice -n 19 gcc -O2 -c "$W/compat.c" -o "$W/compat.o"
nice -n 19 g++ -O2 -fno-strict-aliasing -std=c++17 -I"$INC" "$W/src/vk_cooperative_matrix_perf.cpp" "$W/compat.o" \
  "$LIBVULKAN" -static-libstdc++ -static-libgcc -o "$W/vkcm"

mkdir -p "$OUTDIR/shaders"
cp "$W/vkcm" "$OUTDIR/vkcm"
for f in $(list_spv); do show "$f" > "$OUTDIR/$f"; done
echo "built $OUTDIR/vkcm ($(ls "$OUTDIR/shaders" | wc -l) shaders, $(du -sh "$OUTDIR" | cut -f1))"
objdump -T "$OUTDIR/vkcm" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1 | sed 's/^/needs /'
