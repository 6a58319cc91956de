#!/bin/bash
# Issue 32, 2026-12-07 (fourth session), one command on the device host: (1) the start-up
# floor there (an empty C program dynamic and static, `--version`, `check` and `build` of
# saxpy) for cajetac before (b8464f38) and after the small-page advice for the compile's
# first heap chunk and stack, beside naga, with the host's transparent-huge-page setting;
# (2) 200 kernels, rspirv and `--backend llvm`; (3) timelines of `build --backend llvm` of
# the 200 kernels (CAJETA_COMPILE_TRACE); (4) precision_axpb before and after `?:` with
# plain arms became one OpSelect. Carries .gl3/ (debs, paired/hdyn/hstat static, naga.gz,
# old/{cajetac.gz,precision_axpb.gz}, new/{cajetac.gz,cajetac-llvm.xz,precision_axpb.gz}).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for f in .gl3/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/bin; mkdir -p $B/old $B/new
for f in .gl3/old/*.gz .gl3/new/*.gz .gl3/naga.gz; do d=$B/$(basename $(dirname $f)); [ "$f" = .gl3/naga.gz ] && d=$B; gunzip -c $f > $d/$(basename $f .gz); chmod +x $d/$(basename $f .gz); done
python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' .gl3/new/cajetac-llvm.xz > $B/new/cajetac-llvm; chmod +x $B/new/cajetac-llvm
cp .gl3/paired .gl3/hdyn .gl3/hstat $B/; chmod +x $B/paired $B/hdyn $B/hstat
{ uname -r; echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"; echo "THP defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"; lscpu | grep -E "Model name|^CPU\(s\)"; nproc; } | tee $OUT/host.txt
W=/tmp/w; mkdir -p $W; cp tests/kernels/saxpy.cajeta compiler/benches/inputs/saxpy.wgsl $W/
python3 bench/h200/many_kernels.py $W
O=$B/old/cajetac; N=$B/new/cajetac; G=$B/naga
echo "== floor (medians of 101, taking turns)" | tee $OUT/floor.txt
$B/paired 101 $B/hdyn -- $B/hstat -- $O --version -- $N --version -- $G --version \
  -- $O check $W/saxpy.cajeta -- $N check $W/saxpy.cajeta -- $G $W/saxpy.wgsl \
  -- $O build $W/saxpy.cajeta -o $W/so -- $N build $W/saxpy.cajeta -o $W/sn -- $G $W/saxpy.wgsl $W/s.spv 2>&1 | tee -a $OUT/floor.txt
echo "== 200 kernels (medians of 21, rebuilds, taking turns)" | tee $OUT/many.txt
$B/paired 21 $O build $W/many.cajeta -o $W/mo -- $N build $W/many.cajeta -o $W/mn -- $G $W/many.wgsl $W/m.spv \
  -- $O check $W/many.cajeta -- $N check $W/many.cajeta -- $G $W/many.wgsl \
  -- $N build --backend llvm $W/many.cajeta -o $W/ml 2>&1 | tee -a $OUT/many.txt
for i in 1 2 3; do
  rm -f $OUT/trace$i.txt
  CAJETA_COMPILE_TRACE=$OUT/trace$i.txt $N build --backend llvm $W/many.cajeta -o $W/ml
done
python3 bench/h200/trace_summary.py $OUT/trace1.txt $OUT/trace2.txt $OUT/trace3.txt | tee $OUT/trace_summary.txt
echo "== precision_axpb, old (b8464f38-era) and new (OpSelect), twice each"
for r in 1 2; do for v in old new; do echo "-- $v $r"; $B/$v/precision_axpb --mib 256 --reps 15 2>&1 | tee $OUT/axpb_${v}_$r.txt | grep -E "^\| (fp|bf)|copy ="; done; done
echo "== done"
