#!/usr/bin/env bash
# The whole test suite: formatting, clippy, then every crate's tests (compiler unit tests,
# runtime device tests, spirv-val goldens, diagnostics, the bounded fuzz campaign (docs/fuzzing.md), device suite with and
# without synchronization validation), and the VS Code extension's grammar tests. With CI=true a
# missing Vulkan device fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
# Incremental caches double the target directory and a one-off CI build never reuses them.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
cargo fmt --all -- --check
# The VS Code extension's grammar tests (installs nodejs/npm when missing, as root).
editors/vscode/test.sh
cargo clippy --workspace --all-targets --locked -- -D warnings
# The build without LLVM (no native host code, no LLVM kernel backend) stays warning-free too.
cargo clippy -p cajetac --no-default-features --all-targets --locked -- -D warnings
cargo test --workspace --locked
# The MPI tests (mpirun -np 2 and 4) need the `mpi` feature: built without LLVM, so they add no
# binary that links it (docs/distributed.md, "Tests").
cargo clippy -p cajetac --no-default-features --features mpi --all-targets --locked -- -D warnings
cargo test -p cajetac --no-default-features --features mpi --test suite --locked -- mpi::
# Everything once more with every context that reads the environment under the Khronos
# validation layer (synchronization validation on; any VALIDATION message fails the test).
# The whole workspace, not `-p cajeta-runtime`: the same package selection reuses the test
# binaries just built instead of building the runtime again with other features (disk, time).
CAJETA_VALIDATION=1 cargo test --workspace --locked
