# Sourced by the device scripts that carry a folder of their own: G names it (.gl4, .gl5, …).
# Installs the carried Vulkan loader and glvnd debs, points the loader at NVIDIA's driver,
# and unpacks the folder's *.gz (gzip) and *.xz (the LLVM-linked `cajetac-llvm`, too large
# for gzip within the carry) into $B, with the static `paired` launcher. Sets OUT and B.
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for f in "$G"/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=${B:-/tmp/bin}; mkdir -p "$B"
for f in "$G"/*.gz; do gunzip -c "$f" > "$B/$(basename "$f" .gz)"; chmod +x "$B/$(basename "$f" .gz)"; done
for f in "$G"/*.xz; do
  python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$f" > "$B/$(basename "$f" .xz)"
  chmod +x "$B/$(basename "$f" .xz)"
done
if [ -f "$G/paired" ]; then cp "$G/paired" "$B/"; chmod +x "$B/paired"; fi
