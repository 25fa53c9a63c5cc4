#!/usr/bin/env bash
# Builds the wasm package: rail-core behind rail-wasm's facade, for Node and for browsers.
#
#   wasm/pkg/node/  wasm-bindgen --target nodejs (CommonJS; the VS Code extension)
#   wasm/pkg/web/   wasm-bindgen --target web    (ES module + init(); the web board)
#
# Steps: cargo build (profile `wasm`) → wasm-bindgen without name/producers sections → wasm-opt -Oz from the npm `binaryen` package (never
# Debian's binaryen 108: it writes wasm that fails to instantiate). Idempotent: does nothing when
# both packages are newer than every input.
#
# Needs: the wasm32-unknown-unknown target, wasm-bindgen-cli equal to the wasm-bindgen version in
# Cargo.lock, Node with the npm `binaryen` package (wasm/package.json, an npm workspace).
# Options: --force rebuilds regardless of timestamps.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
raw="${CARGO_TARGET_DIR:-$root/target}/wasm32-unknown-unknown/wasm/rail_wasm.wasm"
pkg="$root/wasm/pkg"
force=false
[[ "${1:-}" == "--force" ]] && force=true

say() { printf 'build-wasm: %s\n' "$*" >&2; }

# One build at a time (two test runs may start together); the second then finds it up to date.
mkdir -p "$pkg"
exec 9>"$pkg/.build.lock"
flock 9

# Up to date when both packages exist and are newer than every source and manifest.
if ! $force && [[ -f "$pkg/node/rail_wasm_bg.wasm" && -f "$pkg/web/rail_wasm_bg.wasm" ]]; then
    newer=$(find core/src core/Cargo.toml wasm/src wasm/types wasm/Cargo.toml Cargo.toml Cargo.lock \
        scripts/build-wasm.sh -newer "$pkg/node/rail_wasm_bg.wasm" -print -quit 2>/dev/null || true)
    if [[ -z "$newer" && ! "$pkg/web/rail_wasm_bg.wasm" -ot "$pkg/node/rail_wasm_bg.wasm" ]]; then
        say "up to date ($pkg)"
        exit 0
    fi
fi

# The CLI must match the library exactly, or the generated glue does not fit the module.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [[ "$have" != "$want" ]]; then
    say "wasm-bindgen CLI ${have:-missing}, Cargo.lock wants $want:"
    say "  cargo install wasm-bindgen-cli --version $want   (without --locked)"
    exit 1
fi

wasm_opt=$("$root/scripts/wasm-tools.sh" wasm-opt)

# Not --quiet: the first build takes minutes, and cargo's progress says how far it is.
say "cargo build (profile wasm)"
# The inliner's threshold goes with the profile's opt-level 2 (Cargo.toml): LLVM's default for
# opt-level 2 makes the module about 10% larger than the budget allows, opt-level "s" makes it
# about 25% slower. Set here, not in a config file, so test builds of the wasm target keep
# their defaults. Added to RUSTFLAGS (with --target, those reach only the wasm code, not build
# scripts) rather than given as a --config, which a RUSTFLAGS in the environment would override.
RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-Cllvm-args=-inline-threshold=50" \
    cargo build -p rail-wasm --target wasm32-unknown-unknown --profile wasm

for target in nodejs web; do
    out="$pkg/${target/nodejs/node}"
    tmp="$pkg/.tmp-$target"
    rm -rf "$tmp"
    mkdir "$tmp"
    say "wasm-bindgen --target $target"
    wasm-bindgen "$raw" --out-dir "$tmp" --target "$target" \
        --remove-name-section --remove-producers-section
    say "wasm-opt -Oz ($target)"
    "$wasm_opt" -Oz "$tmp/rail_wasm_bg.wasm" -o "$tmp/rail_wasm_bg.opt.wasm"
    mv "$tmp/rail_wasm_bg.opt.wasm" "$tmp/rail_wasm_bg.wasm"
    rm -rf "$out"
    mv "$tmp" "$out"
done
say "done: $(wc -c <"$pkg/node/rail_wasm_bg.wasm") bytes ($pkg/node, $pkg/web)"
