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
# The native host builds for the platforms its users are on. macOS cannot be linked here, and has
# no C compiler: zig's clang (cargo-zigbuild, from scripts/bootstrap.sh) compiles the shell
# grammar's C for it, so macOS is checked with its default features like the other platforms.
zigbuild="$PWD/.rail-bootstrap/zigbuild/bin"
[ -x "$zigbuild/cargo-zigbuild" ] || { echo "test: cargo-zigbuild is missing; run scripts/bootstrap.sh test" >&2; exit 3; }
# The virtualenv's python3 first: cargo-zigbuild finds zig as `python3 -m ziglang`.
PATH="$zigbuild:$PATH" cargo-zigbuild clippy -p rail-cli --target aarch64-apple-darwin --all-targets --quiet -- -D warnings
cargo clippy -p rail-cli --target x86_64-pc-windows-gnu --all-targets --quiet -- -D warnings

stage "release: crate packages, workflows (actionlint), the composite action"
scripts/check-release.sh

stage "native Rust tests (core, CLI races, fixtures)"
cargo test --workspace --quiet

stage "the demo (scripts/demo.sh, as npm run demo runs it: rail only, no wasm or npm)"
demo_dir=$(mktemp -d "${TMPDIR:-/tmp}/rail-demo-test-XXXXXX")
if ! DEMO_DIR="$demo_dir" DEMO_SERVE=0 bash scripts/demo.sh >"$demo_dir/out.txt" 2>&1 ||
  ! grep -q '^STALE' "$demo_dir/out.txt" || ! grep -q 'billing-totals' "$demo_dir/board.html"; then
  cat "$demo_dir/out.txt"
  echo "test: the demo failed, or showed no board, or wrote no board.html ($demo_dir)" >&2
  exit 1
fi
rm -rf "$demo_dir"

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
