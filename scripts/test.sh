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
# TypeScript and JavaScript: format and lint (biome.jsonc).
npx --no-install biome ci --colors=off .
cargo clippy -p rail-core -p rail-wasm --target wasm32-unknown-unknown --quiet -- -D warnings
# The native host builds for the platforms its users are on (macOS cannot be linked here).
for target in aarch64-apple-darwin x86_64-pc-windows-gnu; do
  # No C compiler for macOS here: the shell grammar (C) is left out of that check.
  features=(); [ "$target" = aarch64-apple-darwin ] && features=(--no-default-features)
  cargo clippy -p rail-cli --target "$target" "${features[@]}" --all-targets --quiet -- -D warnings
done

stage "release: crate packages, workflows (actionlint), the composite action"
scripts/check-release.sh

stage "native Rust tests (core, CLI races, fixtures)"
cargo test --workspace --quiet

stage "real agents end to end (tests/agents/, pinned agents from npm, scripted model)"
scripts/test-agents.sh

stage "native host on Windows (x86_64-pc-windows-gnu, under Wine)"
scripts/test-windows.sh

if [ -x scripts/test-wasm.sh ]; then
  stage "wasm: Node, Chromium, types, conformance, size"
  scripts/test-wasm.sh
fi

stage "schemas of claims/*.yaml and rail.yaml against core, over the fixture corpus"
node --test schemas/test/

if [ -f node_modules/.package-lock.json ]; then
  stage "TypeScript workspaces"
  npm test --workspaces --if-present
fi

stage "all passed in $(( $(date +%s) - started ))s"
