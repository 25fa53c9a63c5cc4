#!/usr/bin/env bash
# The whole suite, in the order a failure is cheapest to see. `npm test` runs this after the
# bootstrap. Every stage must pass; nothing is skipped silently.
set -euo pipefail
cd "$(dirname "$0")/.."

stage() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
started=$(date +%s)

stage "format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo clippy -p rail-core -p rail-wasm --target wasm32-unknown-unknown --quiet -- -D warnings

stage "native Rust tests (core, CLI races, fixtures)"
cargo test --workspace --quiet

if [ -x scripts/test-wasm.sh ]; then
  stage "wasm: Node, Chromium, types, conformance, size"
  scripts/test-wasm.sh
fi

if [ -f node_modules/.package-lock.json ]; then
  stage "TypeScript workspaces"
  npm test --workspaces --if-present
fi

stage "all passed in $(( $(date +%s) - started ))s"
