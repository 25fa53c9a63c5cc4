#!/usr/bin/env bash
# Prints the raw and gzipped size of the optimised wasm module and fails when it is over budget.
#
#   scripts/wasm-size.sh [FILE]     (default: wasm/pkg/web/rail_wasm_bg.wasm; build it first with
#                                    scripts/build-wasm.sh)
#
# Budget (KiB = 1024 bytes; gzip at level 9, as a server would send it precompressed):
#   raw  <= 500 KiB
#   gzip <= 200 KiB
# NOT MET YET (issue 4 stays open): the package is about 526 KiB / 216 KiB. What was measured
# (wasm/README.md): opt-level "z" meets the budget (454 / 194 KiB, measured on an earlier core) but makes core about 4x slower
# than native in wasm and would push the extension's and the web board's own targets out of
# reach, so the build stays at opt-level "s". Until the budget is met, this script fails above a
# regression ceiling a little over today's size, and still prints the budget verdict, so the gap
# is visible and cannot grow unnoticed. Lower the ceiling whenever the package shrinks.
# To see what dominates, build with names kept and ask twiggy (cargo install twiggy):
#   wasm-bindgen target-wasm/wasm32-unknown-unknown/wasm/rail_wasm.wasm --out-dir /tmp/named --target web
#   wasm-opt -Oz -g /tmp/named/rail_wasm_bg.wasm -o /tmp/named.wasm && twiggy top -n 40 /tmp/named.wasm
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
file=${1:-$root/wasm/pkg/web/rail_wasm_bg.wasm}
raw_budget=$((500 * 1024))
gzip_budget=$((200 * 1024))
raw_ceiling=$((530 * 1024))
gzip_ceiling=$((218 * 1024))

if [[ ! -f "$file" ]]; then
    echo "wasm-size: $file is missing; run scripts/build-wasm.sh" >&2
    exit 2
fi
raw=$(wc -c <"$file")
gz=$(gzip -9 -c "$file" | wc -c)
kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
verdict() {
    if (($1 <= $2)); then echo "ok"; else echo "OVER by $(kib $(($1 - $2)))"; fi
}
printf 'wasm-size: %s\n' "${file#"$root"/}"
printf '  raw   %8d bytes  %-11s (budget %s)  %s\n' "$raw" "$(kib "$raw")" "$(kib $raw_budget)" "$(verdict "$raw" $raw_budget)"
printf '  gzip  %8d bytes  %-11s (budget %s)  %s\n' "$gz" "$(kib "$gz")" "$(kib $gzip_budget)" "$(verdict "$gz" $gzip_budget)"
if ((raw <= raw_budget && gz <= gzip_budget)); then
    exit 0
fi
printf '  the budget is not met yet (issue 4); regression ceiling %s / %s: %s\n' \
    "$(kib $raw_ceiling)" "$(kib $gzip_ceiling)" \
    "$( ((raw <= raw_ceiling && gz <= gzip_ceiling)) && echo "within it" || echo "EXCEEDED")"
((raw <= raw_ceiling && gz <= gzip_ceiling))
