#!/usr/bin/env bash
# `npm test -w vscode-extension` (the root `npm test` runs it through `npm test --workspaces`).
# Builds what the tests need — the wasm package, the rail CLI (release: the binary the .vsix
# carries and the extension runs), the extension and this machine's platform .vsix — then runs,
# in the order a failure is cheapest to see:
#   1. unit tests (node:test): the native runner (binary resolution, the CLI's JSON and exit
#      codes, every operation against the real binary), the in-process reader, facts, rail
#      discovery, Install CLI, shared rails on clones of a bare remote (by path and git-daemon)
#   2. conformance: the extension's runner, the rail CLI and the flock one-liner racing as real
#      processes on one rail, also through the lock of a SIGKILLed rail; and the runner and the
#      CLI racing on clones of one shared remote
#   3. VS Code: code-server + Chromium — the in-host integration suite, the 1,000-claim
#      measurements, and the UI driven by Playwright (screenshots in artifacts/vscode/)
#
# `npm run package -w vscode-extension` builds every platform's .vsix this machine can build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(cd .. && pwd)
stage() { printf '\n\033[1m== vscode-extension: %s\033[0m\n' "$*"; }

stage "wasm package"
"$root/scripts/build-wasm.sh"

stage "code-server"
bash scripts/prepare-code-server.sh --finish
[ -x "${RAIL_CHROMIUM:-/usr/bin/chromium}" ] || { echo "Chromium is missing (apt-get install chromium; the root bootstrap does)" >&2; exit 1; }

stage "typecheck, bundle, rail CLI (release), packages for this machine (and Windows)"
# Show Board is web-viewer's page: build it if it is not built yet.
if [ ! -f "$root/web-viewer/dist/index.html" ]; then
  (cd "$root" && npm run build -w web-viewer)
fi
npx --no-install tsc -p . --noEmit
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) here=linux-x64 ;;
  Linux-aarch64) here=linux-arm64 ;;
  Darwin-arm64) here=darwin-arm64 ;;
  Darwin-x86_64) here=darwin-x64 ;;
  *) echo "no .vsix target for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
# Windows too where its target and mingw-w64 are installed (the root bootstrap installs them):
# its package is built and its size reported, though no VS Code runs it here.
others=()
[ "$here" = linux-x64 ] && others+=(win32-x64)
bash scripts/package.sh "$here" "${others[@]}"
export RAIL_VSIX_TARGET=$here
# The binary the .vsix carries has no fault injection compiled in (cli/src/faults.rs); the
# conformance suite's killed lock holder is a debug build, which does.
if grep -q RAIL_TEST_ "$root/target/release/rail"; then
  echo "target/release/rail carries fault injection (RAIL_TEST_*): a release build must not" >&2
  exit 1
fi
(cd "$root" && cargo build -p rail-cli --quiet)
export RAIL_FAULT_BIN="$root/target/debug/rail"

stage "unit tests"
node --test --test-concurrency=1 out/test/unit/*.test.js

stage "conformance (extension runner vs rail CLI vs flock one-liner; shared rail across clones)"
node --test out/test/conformance/*.test.js

stage "VS Code: integration suite, measurements, UI"
node --test out/test/e2e/*.test.js
if [ -f "$root/artifacts/vscode/metrics.json" ]; then
  echo "metrics (artifacts/vscode/metrics.json):"
  cat "$root/artifacts/vscode/metrics.json"
fi
