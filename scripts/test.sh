#!/usr/bin/env bash
# The whole test suite: installs what is missing, then unit, integration, property and doc tests,
# and runs each benchmark once as a test (figures: `cargo bench`, see docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh --browser
# Doc tests and the benchmarks' smoke runs first: the suite's last closing line should be the
# integration tests' count.
cargo test --locked --doc
cargo test --locked --benches
cargo test --locked --lib --bins --tests
