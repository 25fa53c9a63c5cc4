#!/usr/bin/env bash
# The native host's tests for Windows (x86_64-pc-windows-gnu), run under Wine.
#
# Runs what a Windows process can do under Wine: the CLI's unit tests but those that run git and
# ssh-keygen (`shared::signature`, built for Unix only: counted and named below) (the OS layer in
# cli/src/sys among them: LockFileEx, OpenProcess, GetProcessTimes, file ids) and
# cli/tests/portable.rs (real rail.exe processes racing, a killed holder, a reused pid, a crash
# at every write step). The other integration tests run git and sh (hostile.rs also Unix links,
# FIFOs and ulimit); under Wine a Windows process cannot wait on a Linux child ("Invalid
# handle"), so they cannot run here: they are counted and named, never passed silently. They
# run on Linux in the native stage.
#
# Needs: rustup target x86_64-pc-windows-gnu, mingw-w64 (the linker, .cargo/config.toml) and
# wine64 — scripts/bootstrap.sh test installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TARGET=x86_64-pc-windows-gnu

wine=$(command -v wine64 || true)
[ -n "$wine" ] || wine=/usr/lib/wine/wine64
[ -x "$wine" ] || { echo "test-windows: wine64 is missing (scripts/bootstrap.sh test installs it)" >&2; exit 3; }
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "test-windows: x86_64-w64-mingw32-gcc is missing" >&2; exit 3; }

export WINEPREFIX="${WINEPREFIX:-$ROOT/target/wine-prefix}" WINEDEBUG=-all
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$wine"

# Build first, then put the ProcessPrng stand-in beside every executable Wine will start.
cargo test -p rail-cli --target "$TARGET" --bin rail --test portable --no-run --quiet 2>/dev/null
out="$ROOT/target/$TARGET/debug"
dll="$out/bcryptprimitives.dll"
if [ ! -f "$dll" ] || [ scripts/wine/bcryptprimitives.c -nt "$dll" ]; then
  x86_64-w64-mingw32-gcc -O2 -shared -o "$dll" scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def
fi
cp "$dll" "$out/deps/bcryptprimitives.dll"
# The first start of a prefix makes it (~7 s); do it apart so test output stays clean.
[ -d "$WINEPREFIX" ] || "$wine" cmd /c exit >/dev/null 2>&1 || true

log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test -p rail-cli --target "$TARGET" --bin rail --test portable 2>&1 | tee "$log"
ran=$(awk '/^test result:/ {for (i = 1; i <= NF; i++) if ($(i+1) ~ /^passed/) n += $i} END {print n + 0}' "$log")

# What cannot run here, counted from the native build's own lists.
skipped=0
names=()
list=$(cargo test -p rail-cli --test integration --quiet -- --list --format terse 2>/dev/null | grep ': test$' || true)
for t in $(printf '%s\n' "$list" | sed -n 's/::.*//p' | sort -u); do
  n=$(printf '%s\n' "$list" | grep -c "^$t::" || true)
  skipped=$((skipped + n))
  names+=("$t ($n)")
done
[ "$skipped" -gt 0 ] || { echo "test-windows: could not list cli/tests/integration's tests" >&2; exit 1; }
# The CLI's unit tests that run git or ssh-keygen are built for Unix only.
unix_only=$(cargo test -p rail-cli --bin rail --quiet -- --list --format terse 2>/dev/null | grep -c '^shared::signature::tests::' || true)
[ "$unix_only" -gt 0 ] || { echo "test-windows: could not list the CLI's Unix-only unit tests" >&2; exit 1; }
skipped=$((skipped + unix_only))
names+=("the CLI's shared::signature unit tests ($unix_only)")
echo "windows (Wine): $ran tests ran and passed; $skipped skipped, they run git or sh: cli/tests/integration ${names[*]}"
