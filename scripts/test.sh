#!/usr/bin/env bash
# The whole test suite: formatting, clippy, then every crate's tests (compiler unit tests,
# runtime device tests, spirv-val goldens, diagnostics, fuzz smoke, device suite with and
# without synchronization validation). With CI=true a missing Vulkan device fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
