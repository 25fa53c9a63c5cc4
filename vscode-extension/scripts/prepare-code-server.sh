#!/usr/bin/env bash
# Makes code-server (a devDependency of the extension: the real VS Code host its tests run in)
# installable and complete on this kind of machine, with no network but the package registries.
# Idempotent: every step checks first and says "ok" when there is nothing to do.
#
#   prepare-code-server.sh           before `npm ci`: apt packages and the ripgrep cache
#   prepare-code-server.sh --finish  after `npm ci`: run code-server's postinstall if npm did not
#                                    (npm 11 warns that it will stop running dependencies'
#                                    install scripts unless the root package.json allows them)
#
# Why each step:
# - code-server's native modules (kerberos, node-pty, spdlog, argon2) build with node-gyp: they
#   need a C toolchain, pkg-config, python3 and the Kerberos headers.
# - its @vscode/ripgrep postinstall downloads a ripgrep binary from GitHub, which cannot work
#   here; it looks in a cache folder first, so we seed that with a tarball of Debian's `rg`.
# - as root, npm runs install scripts only with npm_config_unsafe_perm=true; this script exports
#   it for the postinstall it runs itself, and the root bootstrap must export it for `npm ci`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
say() { printf 'prepare-code-server: %s\n' "$*"; }

prepare() {
  local apt_packages=(build-essential pkg-config python3 libkrb5-dev ripgrep)
  local missing=() pkg
  for pkg in "${apt_packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "apt packages ok (${apt_packages[*]})"
  else
    say "installing apt packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi

  # code-server 4.100.3 pins @vscode/ripgrep 1.15.11, which wants ripgrep v13.0.0-10.
  local arch target
  arch=$(uname -m)
  case "$arch" in
    x86_64) target=x86_64-unknown-linux-musl ;;
    aarch64 | arm64) target=aarch64-unknown-linux-musl ;;
    *) say "no ripgrep cache for $arch; the postinstall will try to download"; return ;;
  esac
  local cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
  local tarball="$cache/ripgrep-v13.0.0-10-$target.tar.gz"
  if [ -s "$tarball" ]; then
    say "ripgrep cache ok ($tarball)"
  else
    local rg_bin
    rg_bin=$(command -v rg)
    mkdir -p "$cache"
    tar czf "$tarball.tmp" -C "$(dirname "$rg_bin")" rg
    mv "$tarball.tmp" "$tarball"
    say "seeded the ripgrep cache from $rg_bin"
  fi
}

finish() {
  local pkg="$root/node_modules/code-server"
  if [ ! -f "$pkg/package.json" ]; then
    say "code-server is not installed: run npm ci at the repository root" >&2
    exit 1
  fi
  # The postinstall installs VS Code's own dependencies and links node_modules.asar.
  if [ -e "$pkg/lib/vscode/node_modules.asar" ] && [ -d "$pkg/lib/vscode/node_modules/@vscode/ripgrep/bin" ]; then
    say "code-server ok ($(node -p "require('$pkg/package.json').version"))"
    return
  fi
  prepare
  say "running code-server's postinstall (npm skipped it)"
  (
    cd "$pkg"
    export npm_config_unsafe_perm=true npm_config_yes=true
    export npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64"
    sh ./postinstall.sh
  )
}

case "${1:-}" in
  --finish) finish ;;
  "") prepare ;;
  *) echo "usage: prepare-code-server.sh [--finish]" >&2; exit 2 ;;
esac
