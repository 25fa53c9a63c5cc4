#!/usr/bin/env bash
# Builds the .vsix files: a minified bundle (dist/), the Node wasm beside it, no node_modules, and
# per platform the `rail` CLI (release build) in bin/ — the extension writes only through it.
#
#   rail-vscode-<version>-<target>.vsix   `vsce package --target <target>`, with bin/rail(.exe)
#   rail-vscode-<version>.vsix            universal, no binary (rail.path, or rail on PATH)
#
# Targets: linux-x64, linux-arm64, win32-x64, darwin-x64, darwin-arm64. This machine's own is
# built natively; the others when their Rust target is installed (rustup target add …) and a
# linker for it is configured (.cargo/config.toml `[target.<triple>] linker = …`, or
# CARGO_TARGET_<TRIPLE>_LINKER) and runnable. It prints which it built and which it skipped, and why.
#
# Usage: scripts/package.sh [TARGET...]   (default: every target; unavailable ones are skipped)
# RAIL_BIN_DIR=DIR: take each target's binary from DIR/<target>/rail(.exe) instead of building
# it (the release workflow builds every platform's `rail` on its own runner, then packages here).
# Offline: vsce runs with --no-dependencies, so it never asks npm anything.
set -euo pipefail
cd "$(dirname "$0")/.."
ext=$(pwd)
root=$(cd .. && pwd)
target_dir=${CARGO_TARGET_DIR:-$root/target}

declare -A TRIPLE=(
  [linux-x64]=x86_64-unknown-linux-gnu
  [linux-arm64]=aarch64-unknown-linux-gnu
  [win32-x64]=x86_64-pc-windows-gnu
  [darwin-x64]=x86_64-apple-darwin
  [darwin-arm64]=aarch64-apple-darwin
)
ALL=(linux-x64 linux-arm64 win32-x64 darwin-x64 darwin-arm64)
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=("${ALL[@]}")
for t in "${wanted[@]}"; do
  [ -n "${TRIPLE[$t]:-}" ] || { echo "package: unknown target $t (one of: ${ALL[*]})" >&2; exit 2; }
done

host_triple=$(rustc -vV | sed -n 's/^host: //p')

# The linker cargo would use for a triple: the environment, else .cargo/config.toml.
linker_for() {
  local triple=$1 var
  var="CARGO_TARGET_$(echo "$triple" | tr 'a-z-' 'A-Z_')_LINKER"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  [ -f "$root/.cargo/config.toml" ] || return 0
  awk -v want="[target.$triple]" '
    $0 == want { inside = 1; next }
    /^\[/ { inside = 0 }
    inside && $1 == "linker" { sub(/^[^=]*=[ \t]*"/, ""); sub(/".*$/, ""); print; exit }
  ' "$root/.cargo/config.toml"
}

# Why a target cannot be built here (empty: it can).
why_not() {
  local triple=$1 linker
  [ "$triple" = "$host_triple" ] && return 0
  rustup target list --installed 2>/dev/null | grep -qx "$triple" ||
    { echo "the Rust target $triple is not installed (rustup target add $triple)"; return 0; }
  linker=$(linker_for "$triple")
  [ -n "$linker" ] || { echo "no linker configured for $triple (.cargo/config.toml [target.$triple] linker)"; return 0; }
  command -v "$linker" >/dev/null || { echo "its linker $linker is not installed"; return 0; }
}

binary_of() {
  local triple=$1 name=rail
  case $triple in *windows*) name=rail.exe ;; esac
  if [ "$triple" = "$host_triple" ]; then echo "$target_dir/release/$name"; else echo "$target_dir/$triple/release/$name"; fi
}

node scripts/build.mjs --production
version=$(node -p 'require("./package.json").version')
# The folder holds what this run built, nothing older.
rm -f "rail-vscode-$version".vsix "rail-vscode-$version"-*.vsix
built=()
skipped=()
trap 'rm -rf "$ext/bin"' EXIT

pack() { # pack OUT [--target T]
  local out=$1
  shift
  rm -f "$out"
  npx --no-install vsce package --no-dependencies --allow-missing-repository "$@" --out "$out" >/dev/null
}

for t in "${wanted[@]}"; do
  triple=${TRIPLE[$t]}
  if [ -n "${RAIL_BIN_DIR:-}" ]; then
    bin=$RAIL_BIN_DIR/$t/rail
    case $triple in *windows*) bin=$bin.exe ;; esac
    if [ ! -f "$bin" ]; then
      skipped+=("$t: no $bin")
      continue
    fi
  else
    reason=$(why_not "$triple")
    if [ -n "$reason" ]; then
      skipped+=("$t: $reason")
      continue
    fi
    if [ "$triple" = "$host_triple" ]; then
      (cd "$root" && cargo build --release -p rail-cli --quiet)
    else
      # A cross build that fails is reported and skipped: the other packages are still made.
      log=$(mktemp)
      if ! (cd "$root" && cargo build --release -p rail-cli --target "$triple" --quiet) >"$log" 2>&1; then
        first=$(grep -m1 '^error' "$log" || tail -n1 "$log")
        skipped+=("$t: cargo build --target $triple failed: $first")
        rm -f "$log"
        continue
      fi
      rm -f "$log"
    fi
    bin=$(binary_of "$triple")
  fi
  rm -rf "$ext/bin"
  mkdir -p "$ext/bin"
  cp "$bin" "$ext/bin/"
  chmod 755 "$ext/bin/$(basename "$bin")"
  out="rail-vscode-$version-$t.vsix"
  pack "$out" --target "$t"
  built+=("$t: $out ($(wc -c <"$out") bytes, rail $(wc -c <"$bin") bytes)")
done
rm -rf "$ext/bin"
out="rail-vscode-$version.vsix"
pack "$out"
built+=("universal (no binary: rail.path or rail on PATH): $out ($(wc -c <"$out") bytes)")

echo "package: built"
for b in "${built[@]}"; do echo "  $b"; done
if [ ${#skipped[@]} -gt 0 ]; then
  echo "package: skipped"
  for s in "${skipped[@]}"; do echo "  $s"; done
fi
