#!/bin/bash
# 2026-12-07 (seventh session), one command on the device machine, at the commit that adds
# the experiment switches CAJETA_EXP_LLVM_OPTIONS (extra LLVM options for the emission
# helpers) and CAJETA_EXP_PIPELINE (one LLVM pipeline in place of the list), both to be
# removed: program 0 of seed 0xC47E7A cut to its `kx` kernel (p0x.cajeta: kx, its helper
# h165, kx's launch and checks; kx's LLVM module is the whole program's but for the
# helper's name), whose O2 module is wrong on NVIDIA, run by `cajetac-llvm run --backend
# llvm` through O2 alone with `-opt-bisect-limit=N`, N over LLVM's pass invocations (on the
# 2-core container with the H200 profile: N <= 151 gives no module the structure check
# accepts, 152..266 six distinct modules, every one right on lavapipe). At each N where the
# count of wrong lines changes, the two modules' opcode counts are compared and both
# modules are written to $OUT. Carries .gle/ (debs, cajetac-llvm.xz, spirv-dis.gz,
# p0x.cajeta).
set -u
G=${G:-.gle}; . bench/h200/carry_dir.sh
export PATH=$B:$PATH CAJETA_CACHE_DIR=off CAJETA_COMPILE_THREADS=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
P=$PWD/$G/p0x.cajeta
cd /tmp
cajetac-llvm devices --json > /tmp/profile.json 2>&1; cp /tmp/profile.json $OUT/
echo "profile: $(gzip -9 -c /tmp/profile.json | base64 -w0)"
export CAJETA_EXP_PIPELINE="default<O2>"
# The count of wrong lines, or R when the kernel is refused (no module for this N).
run_n() {
  local o; o=$(CAJETA_EXP_LLVM_OPTIONS="-opt-bisect-limit=$1" timeout 60 cajetac-llvm run --backend llvm $P 2>&1)
  if echo "$o" | grep -q "could not compile"; then echo R; else echo "$o" | grep -c "device"; fi
}
build_n() {
  rm -rf /tmp/m$1; CAJETA_EXP_LLVM_OPTIONS="-opt-bisect-limit=$1" timeout 60 cajetac-llvm build --backend llvm --device-profile /tmp/profile.json $P -o /tmp/m$1 > /dev/null 2>&1
  spirv-dis --raw-id /tmp/m$1/kx.spv > /tmp/m$1.dis 2>&1; md5sum < /tmp/m$1/kx.spv 2>/dev/null | cut -c1-8
}
echo "shipped pipelines: $(env -u CAJETA_EXP_PIPELINE cajetac-llvm run --backend llvm $P 2>&1 | grep -c device) wrong lines; O2 alone: $(run_n -1)"
ops() { grep -oE "Op[A-Za-z0-9]+" $1 | sort | uniq -c; }
prev=""; prevn=""; line=""
for n in $(seq ${FROM:-146} ${TO:-270}); do
  w=$(run_n $n); h=$(build_n $n); line="$line $n:$w:$h"
  if [ -n "$prev" ] && [ "$w" != "$prev" ]; then
    echo "== change at N=$n: $prevn gave $prev, $n gives $w"
    CAJETA_EXP_LLVM_OPTIONS="-opt-bisect-limit=$n" cajetac-llvm build --backend llvm --device-profile /tmp/profile.json $P -o /tmp/mm 2>&1 | grep "($n)" | head -2
    diff <(ops /tmp/m$prevn.dis) <(ops /tmp/m$n.dis) | grep "^[<>]" | head -40 | tr '\n' ';'; echo
    cp /tmp/m$prevn/kx.spv $OUT/kx_$prevn.spv 2>/dev/null; cp /tmp/m$n/kx.spv $OUT/kx_$n.spv 2>/dev/null
    # The instructions that differ, names and ids left out (ids are renumbered throughout).
    norm() { grep -vE "OpName|OpDecorate|OpMemberDecorate" $1 | sed -E 's/%[0-9]+/%/g'; }
    diff <(norm /tmp/m$prevn.dis) <(norm /tmp/m$n.dis) | grep "^[<>]" | head -${DIFF_LINES:-60}
  fi
  prev=$w; prevn=$n
done
echo "N:wrong:hash $line" | fold -w 200
# 2. The shipped pipelines' module through the compile cache: as emitted, then in its place
#    (cache_inject.py, carried as inject.py, rewrites the cache entry and its checksum) a module wrong everywhere (the
#    control: lavapipe's profile, O2 and the structurizer without lower-switch, 29 wrong
#    lines on lavapipe), then the emitted module without its SignedZeroInfNanPreserve
#    execution modes and capability.
unset CAJETA_EXP_PIPELINE
C=/tmp/cc
fresh() { rm -rf $C; CAJETA_CACHE_DIR=$C cajetac-llvm run --backend llvm $P 2>&1 | grep -c device; }
again() { CAJETA_CACHE_DIR=$C cajetac-llvm run --backend llvm $P 2>&1 | grep -c device; }
echo "cache: emitted $(fresh), from the cache $(again)"
python3 $OLDPWD/$G/inject.py $C kx $OLDPWD/$G/kx_wrong_lavapipe.spv; echo "control: $(again)"
fresh > /dev/null; python3 $OLDPWD/$G/inject.py $C kx strip-fc; echo "without SignedZeroInfNanPreserve: $(again)"
