#!/usr/bin/env bash
# The built-in demo: a throw-away repository with stations (worktrees) and a rail holding a
# live claim, a stale one, a conflicting one, one with resources (and an expiring and a blocked
# one), then its board. Nothing outside $DEMO_DIR (default: a new temp dir) is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

cargo build --quiet -p rail-cli
RAIL="$ROOT/target/debug/rail"

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

# The web board: a self-contained snapshot file, and (in a terminal) the live page.
echo
"$RAIL" board --html "$DEMO_DIR/board.html"   # the page is built into rail (cli/assets)
echo "Open it from disk: file://$DEMO_DIR/board.html"
if [ -t 1 ] && [ "${DEMO_SERVE:-1}" = "1" ]; then
  (cd "$ROOT" && npm run --silent build -w web-viewer >/dev/null)
  echo "Serving the live board of the demo rail (it reloads as the rail changes):"
  exec node "$ROOT/web-viewer/scripts/serve.mjs" --rail "$APP" --port "${DEMO_PORT:-8080}"
fi
