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
# The runtime's own device tests once more with every context under the validation layer
# (synchronization validation on; any VALIDATION message fails the test). Seconds, not minutes:
# the test binaries are already built.
CAJETA_VALIDATION=1 cargo test -p cajeta-runtime --locked
