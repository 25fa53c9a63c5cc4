#!/usr/bin/env bash
# Everything about the wasm package, in one run (scripts/test.sh calls it):
#
#   1. build            scripts/build-wasm.sh (skipped when up to date)
#      lint             clippy over the wasm tests (wasm32) and the types generator (native)
#   2. node             wasm-bindgen-test tests (wasm/tests/node.rs) in Node
#   3. chromium         the same tests in headless Chromium (wasm/tests/browser.rs)
#   4. types            wasm/types/rail.d.ts is what the Rust structs generate today
#   5. package          the built pkg/node and pkg/web from JavaScript: exotic inputs, the web
#                       build, and `tsc --strict` over the .d.ts (wasm/tests/js/package.mjs);
#                       a crowded rail's board, who and scope grow with it, not its pairs
#                       (wasm/tests/js/crowded.mjs)
#   6. conformance      every fixture gives the same JSON through wasm and natively, also with
#                       the results built the way a host that forbids `new Function` builds them
#   7. size             the optimised .wasm within budget (scripts/wasm-size.sh)
#
# Every step runs even if an earlier one failed (except that nothing runs without a build);
# the script fails at the end if any did.
#
# Assumes (what `scripts/bootstrap.sh test` installs): Rust with the wasm32-unknown-unknown
# target; wasm-bindgen-cli (wasm-bindgen and wasm-bindgen-test-runner) at the exact wasm-bindgen
# version of Cargo.lock; Node >= 20 with the npm workspace packages installed (binaryen's
# wasm-opt and typescript's tsc, from wasm/package.json); Chromium and ChromeDriver
# (CHROMEDRIVER, default /usr/bin/chromedriver).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
target_dir=${CARGO_TARGET_DIR:-$root/target}

failed=()
step() {
    local name=$1
    shift
    printf '\n\033[1m-- wasm: %s\033[0m\n' "$name"
    local started=$SECONDS
    if "$@"; then
        printf -- '-- wasm: %s ok (%ds)\n' "$name" $((SECONDS - started))
    else
        printf -- '-- wasm: %s FAILED\n' "$name"
        failed+=("$name")
    fi
}

# The wasm tests build with some optimisation and no debug info: about ten times faster to run
# (the fuzz and large-input tests) and to load, for one slower first build. Only wasm32 builds
# see these settings, so native builds keep their own.
wasm_test() { # TEST [VAR=VALUE...]
    local test=$1
    shift
    env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
        CARGO_PROFILE_TEST_OPT_LEVEL=1 CARGO_PROFILE_TEST_DEBUG=0 \
        CARGO_PROFILE_DEV_OPT_LEVEL=1 CARGO_PROFILE_DEV_DEBUG=0 "$@" \
        cargo test -p rail-wasm --target wasm32-unknown-unknown --test "$test"
}
node_tests() { wasm_test node; }
chromium_tests() { wasm_test browser CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"; }
lint() {
    cargo clippy -p rail-wasm --target wasm32-unknown-unknown --tests --quiet -- -D warnings &&
        cargo clippy -p rail-wasm --features ts --all-targets --quiet -- -D warnings
}
types() { cargo test -p rail-wasm --features ts --test types --quiet; }
package() { node wasm/tests/js/package.mjs && node wasm/tests/js/crowded.mjs; }
conformance() {
    local native="$target_dir/debug/rail-conformance-native"
    cargo build -p rail-conformance --quiet &&
        node tests/conformance/conformance.mjs --native "$native" &&
        node --disallow-code-generation-from-strings tests/conformance/conformance.mjs --native "$native"
}
size() { scripts/wasm-size.sh; }

step build scripts/build-wasm.sh || true
if [[ " ${failed[*]} " == *" build "* ]]; then
    echo "wasm: the build failed; nothing else can run" >&2
    exit 1
fi
step lint lint
step node node_tests
step chromium chromium_tests
step types types
step package package
step conformance conformance
step size size

if ((${#failed[@]})); then
    printf '\nwasm: FAILED: %s\n' "${failed[*]}"
    exit 1
fi
printf '\nwasm: all passed\n'
