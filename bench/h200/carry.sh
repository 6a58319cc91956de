# Sourced by the device scripts (suite.sh, followup.sh) from the repository root: installs the
# carried Vulkan loader and glvnd libraries, points the loader at NVIDIA's driver, and unpacks
# the binaries carried compressed in .gl/ into $B (gzip, or xz where gzip would not fit the
# carry: the LLVM-linked test binary and cajetac-llvm). Sets OUT, B and `step`.
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=${B:-/tmp/bin}; mkdir -p "$B"
for f in .gl/*.gz; do gunzip -c "$f" > "$B/$(basename "$f" .gz)"; chmod +x "$B/$(basename "$f" .gz)"; done
for f in .gl/*.xz; do
  python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$f" > "$B/$(basename "$f" .xz)"
  chmod +x "$B/$(basename "$f" .xz)"
done
step() { echo "== $* ($(date +%T))"; }
