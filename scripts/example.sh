#!/usr/bin/env bash
# The main job: build cajetac, compile the SPEC §1 example's kernels (SPIR-V, disassembly,
# reflection) and run it on the default Vulkan device (lavapipe when there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
cargo build --release --locked -p cajetac
bin=target/release/cajetac
"$bin" devices
"$bin" build examples/img_rmw.cajeta -o target/example --emit spirv,spvasm,reflect
echo "wrote: $(ls target/example | tr '\n' ' ')"
echo "running examples/img_rmw.cajeta (prints 777 when every texel is right):"
"$bin" run examples/img_rmw.cajeta
