#!/usr/bin/env bash
# `npm test -w vscode-extension` (the root `npm test` runs it through `npm test --workspaces`).
# Builds what the tests need — the wasm package, the rail CLI, the extension and its .vsix — then
# runs, in the order a failure is cheapest to see:
#   1. unit tests of the host code on real temporary git repositories (node:test), shared-rail
#      tests on clones of a bare remote (by path and behind git-daemon) among them
#   2. conformance: the extension's lock code and the rail CLI racing as real processes on one
#      rail, and on clones of one shared remote
#   3. VS Code: code-server + Chromium — the in-host integration suite, the 1,000-claim
#      measurements, and the UI driven by Playwright (screenshots in artifacts/vscode/)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(cd .. && pwd)
stage() { printf '\n\033[1m== vscode-extension: %s\033[0m\n' "$*"; }

stage "wasm package and rail CLI"
"$root/scripts/build-wasm.sh"
(cd "$root" && cargo build -p rail-cli --quiet)

stage "code-server"
bash scripts/prepare-code-server.sh --finish
[ -x "${RAIL_CHROMIUM:-/usr/bin/chromium}" ] || { echo "Chromium is missing (apt-get install chromium; the root bootstrap does)" >&2; exit 1; }

stage "typecheck, bundle, package"
# Show Board is web-viewer's page: build it if it is not built yet.
if [ ! -f "$root/web-viewer/dist/index.html" ]; then
  (cd "$root" && npm run build -w web-viewer)
fi
npx --no-install tsc -p . --noEmit
bash scripts/package.sh

stage "unit tests"
node --test --test-concurrency=1 out/test/unit/*.test.js

stage "conformance (extension vs rail CLI vs flock one-liner; shared rail across clones)"
node --test out/test/conformance/*.test.js

stage "VS Code: integration suite, measurements, UI"
node --test out/test/e2e/*.test.js
if [ -f "$root/artifacts/vscode/metrics.json" ]; then
  echo "metrics (artifacts/vscode/metrics.json):"
  cat "$root/artifacts/vscode/metrics.json"
fi
