#!/usr/bin/env bash
# Prints the path of a tool from the npm `binaryen` package (wasm-opt) or `typescript` (tsc),
# wasm/package.json's dev dependencies (installed by the root `npm install`/`npm ci`, as `wasm` is
# an npm workspace: in wasm/node_modules or hoisted to node_modules). Installs that workspace's
# packages first if neither place has the tool.
# Never a system binary: Debian's binaryen (108) writes wasm that fails to instantiate.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tool=${1:?usage: wasm-tools.sh wasm-opt|tsc}
find_tool() {
    for dir in "$root/wasm/node_modules/.bin" "$root/node_modules/.bin"; do
        if [[ -x "$dir/$tool" ]]; then
            echo "$dir/$tool"
            return 0
        fi
    done
    return 1
}
if ! find_tool; then
    echo "wasm-tools: $tool not installed; running npm install --workspace wasm" >&2
    (cd "$root" && npm install --workspace wasm --no-audit --no-fund --loglevel=error >&2)
    find_tool
fi
