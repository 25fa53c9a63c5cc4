#!/usr/bin/env bash
# Builds the .vsix: a minified bundle (dist/), the Node wasm beside it, no node_modules.
# Offline: vsce runs with --no-dependencies, so it never asks npm anything.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/build.mjs --production
version=$(node -p 'require("./package.json").version')
out="rail-vscode-$version.vsix"
rm -f "$out"
npx --no-install vsce package --no-dependencies --allow-missing-repository --out "$out" >/dev/null
echo "package: $out ($(wc -c <"$out") bytes)"
