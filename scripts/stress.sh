#!/usr/bin/env bash
# scripts/stress.sh [K]: the concurrency suites K times in a row (default 10), with two
# CPU-bound processes running beside them the whole time, and a pass count per suite.
#
# The suites are the ones whose outcome depends on how processes interleave: real processes
# racing for the lock and for tasks, killed holders recovered (`race`, `portable`), git
# rewriting the checkout under claims (`git_rewrites`), and machines racing through one shared
# remote by path and over git-daemon (`shared`), and across hosts: the VS Code extension's
# native runner, the CLI and the seed's flock one-liner racing on one rail and through one shared
# remote (`cross-host`, vscode-extension/test/conformance). A flaky test
# is a bug, in the test or in the code: every run of every suite must pass. Failed runs keep their
# output in target/stress/.
#
# Not part of `npm test` (it takes K times as long); docs/testing.md says when to run it.
set -euo pipefail
cd "$(dirname "$0")/.."

K=${1:-10}
case "$K" in '' | *[!0-9]*) echo "usage: scripts/stress.sh [K]" >&2; exit 2 ;; esac
SUITES=(race portable git_rewrites shared)
OUT=target/stress
rm -rf "$OUT" && mkdir -p "$OUT"

# Build every suite once, and find each test binary (cargo prints them as JSON).
declare -A BIN
while IFS=$'\t' read -r name path; do
  BIN[$name]=$path
done < <(cargo test -p rail-cli --no-run --message-format=json "${SUITES[@]/#/--test=}" 2>/dev/null |
  node -e '
    let buf = "";
    process.stdin.on("data", (d) => (buf += d));
    process.stdin.on("end", () => {
      for (const line of buf.split("\n")) {
        if (!line.startsWith("{")) continue;
        const m = JSON.parse(line);
        if (m.reason === "compiler-artifact" && m.executable && m.target.kind.includes("test"))
          console.log(`${m.target.name}\t${m.executable}`);
      }
    });')
for s in "${SUITES[@]}"; do
  [ -n "${BIN[$s]:-}" ] || { echo "stress: no test binary for $s" >&2; exit 1; }
done

# The cross-host suite: the extension's conformance tests, against the release CLI (the one the
# .vsix carries), bundled by the extension's own build.
# What is missing (npm packages, the wasm toolchain) is installed first, as `npm test` does.
bash scripts/bootstrap.sh test >/dev/null
cargo build --release -p rail-cli --quiet
scripts/build-wasm.sh
npm run --silent build -w web-viewer >/dev/null
(cd vscode-extension && node scripts/build.mjs >/dev/null)
BIN[cross-host]=node
SUITES+=(cross-host)
run_suite() {
  case "$1" in
    cross-host) (cd vscode-extension && node --test out/test/conformance/*.test.js) ;;
    *) (cd cli && "${BIN[$1]}" --test-threads=2) ;;
  esac
}

# Two CPU-bound processes for as long as the runs last: the machine is as busy as a CI runner
# with a build beside the tests.
hogs=()
for _ in 1 2; do
  (while :; do :; done) &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null || true' EXIT

declare -A PASS
for s in "${SUITES[@]}"; do PASS[$s]=0; done
for run in $(seq 1 "$K"); do
  for s in "${SUITES[@]}"; do
    log="$OUT/$s-$run.log"
    if run_suite "$s" >"$log" 2>&1; then
      PASS[$s]=$((PASS[$s] + 1))
      rm -f "$log"
      echo "run $run/$K $s: ok"
    else
      echo "run $run/$K $s: FAILED (output in $log)"
    fi
  done
done

echo
echo "stress: $K runs beside 2 CPU-bound processes"
failed=0
for s in "${SUITES[@]}"; do
  echo "  $s: ${PASS[$s]}/$K passed"
  [ "${PASS[$s]}" -eq "$K" ] || failed=1
done
exit "$failed"
