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
