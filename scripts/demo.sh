#!/usr/bin/env bash
# The built-in demo: a throw-away repository with stations (worktrees) and a rail holding a
# live claim, a stale one, a conflicting one, one with resources (and an expiring and a blocked
# one), then its board in the terminal and as a web page (`rail board --html`). Nothing outside
# $DEMO_DIR (default: a new temp dir) is touched.
#
#   scripts/demo.sh            builds `rail` only: the web page is compiled into it
#   scripts/demo.sh --serve    also builds the live web board (the wasm core, the page) and
#                              serves the demo rail with it, reloading as the rail changes
#                              (or DEMO_SERVE=1)
#
# It says what it does before every step that can take more than a few seconds, and cargo shows
# its progress; a second run rebuilds nothing (bench/README.md has the times).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SERVE=${DEMO_SERVE:-0}
[ "${1:-}" = "--serve" ] && SERVE=1

say() { printf '\033[1mdemo:\033[0m %s\n' "$*"; }

TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
RAIL="$TARGET_DIR/debug/rail"
if [ -x "$RAIL" ]; then
  say "building rail (cargo build -p rail-cli: only what changed)"
else
  say "building rail (cargo build -p rail-cli): the first build in a clone compiles about 100 crates, 2 to 3 minutes on 2 busy cores; later runs take seconds"
fi
cargo build -p rail-cli

DEMO_DIR=${DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/rail-demo-XXXXXX")}
APP="$DEMO_DIR/app"
rm -rf "$APP" "$DEMO_DIR"/app-*
mkdir -p "$APP"
cd "$APP"

# Times relative to now, in the form `date -u +%FT%TZ` writes.
ago() { date -u -d "-$1" +%FT%TZ; }
g() { git -c user.name=demo -c user.email=demo@example.invalid "$@"; }

g init -q -b main
mkdir -p src/auth src/billing src/search docs
echo "export const refresh = () => {};" > src/auth/token.ts
echo "export const total = () => 0;" > src/billing/tax.ts
echo "export const search = () => [];" > src/search/index.ts
echo "# App" > README.md
g add -A && g commit -qm "initial app"
"$RAIL" init >/dev/null

# Stations: one worktree and branch per session, as the "Behind!" article sets them up.
for s in auth billing search; do
  g worktree add -q -b "$s" "$DEMO_DIR/app-$s"
done

# Live: claimed 25 minutes ago, with a commit on its branch since.
"$RAIL" claim auth-refresh --session auth --now "$(ago '25 minutes')" \
  --path 'src/auth/**' --purpose 'Refresh tokens **before** they expire' >/dev/null
(cd "$DEMO_DIR/app-auth" && echo "// retry" >> src/auth/token.ts && g commit -qam "auth: retry refresh")

# Stale: claimed three hours ago, no commit, no renewal: free to take.
"$RAIL" claim billing-totals --session billing --now "$(ago '3 hours')" \
  --path 'src/billing/**' --path docs/billing.md --purpose 'Fix rounding in totals' >/dev/null

# With resources: a dev server port, a simulator and the checkout's test lock.
"$RAIL" claim search-index --session search --now "$(ago '10 minutes')" \
  --path 'src/search/**' --resource port:3000 --resource simulator:iphone-15 \
  --resource checkout:test-lock --purpose 'Rebuild the search index' >/dev/null

# Expiring: a 45-minute lease with 5 minutes left.
"$RAIL" claim docs-pass --session docs-bot --now "$(ago '40 minutes')" --lease 45m \
  --path 'docs/guide/**' --purpose 'Proofread the guide' >/dev/null

# Blocked: waits for auth-refresh to be released.
"$RAIL" claim release-notes --session writer --now "$(ago '5 minutes')" \
  --after auth-refresh --path CHANGELOG.md >/dev/null

# Conflicting: a participant claim file written by hand (the shape from the "file ownership vs
# resource ownership" article) that reaches into auth's paths and search's test lock.
mkdir -p claims
cat > claims/reviewer.yaml <<YAML
owner: reviewer
since: $(ago '15 minutes')
paths:
- src/auth/token.ts
resources:
- checkout:test-lock
purpose: test the token cache invalidation path
YAML

# A backlog: planned tasks with dependencies (`rail ready` lists the ones that can start).
cat >> claims.md <<'MD'

## Backlog
- [x] project-setup
- [ ] auth-refresh | paths: src/auth/**
- [ ] search-ranking | after: search-index | paths: src/search/rank.ts
- [ ] billing-export | after: project-setup | paths: src/billing/export.ts | purpose: CSV export of totals
MD

# The seed's own one-liner still works beside rail.
flock claims.md -c 'grep -q "^readme-polish |" claims.md || echo "readme-polish | human | $(date -u +%FT%RZ)" >> claims.md'

echo
"$RAIL" board
echo
echo "The demo rail is in $APP (claims.md, claims/, claims.log); stations: $DEMO_DIR/app-*."
echo "Try:  cd $APP && $RAIL ready && $RAIL who src/auth/token.ts && $RAIL take billing-totals --session you"

# The web board: a self-contained snapshot file (the page is built into rail: cli/assets).
echo
"$RAIL" board --html "$DEMO_DIR/board.html"
echo "The web board of this rail, one file: file://$DEMO_DIR/board.html"
if [ "$SERVE" != 1 ]; then
  echo "The live web board, reloading as the rail changes: npm run demo -- --serve (builds the wasm core first)"
  exit 0
fi

# The live page: the wasm core and the page, built once (bootstrap's `web` profile installs the
# wasm tools and the board's npm packages, nothing else).
echo
say "the live web board needs the wasm tools and the board's npm packages"
bash "$ROOT/scripts/bootstrap.sh" web
if [ -f "$ROOT/web-viewer/dist/index.html" ]; then
  say "building the web board (only what changed)"
else
  say "building the web board: the wasm core (cargo, about 3 minutes the first time), then the page"
fi
(cd "$ROOT" && npm run --silent build -w web-viewer)
echo "Serving the live board of the demo rail (it reloads as the rail changes):"
exec node "$ROOT/web-viewer/scripts/serve.mjs" --rail "$APP" --port "${DEMO_PORT:-8080}"
