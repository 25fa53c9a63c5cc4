#!/usr/bin/env bash
# What a release needs, checked without making one (a stage of `npm test`):
#
#   1. the crates users install (rail-core, rail-cli) package for a registry: metadata, a version
#      on the path dependency, and the files the build needs inside the package (the web board
#      page in cli/assets, README, LICENSE). `--no-verify`: compiling the packaged crates again
#      costs minutes; the workspace build of the same sources is tested everywhere else, and the
#      file list is what could differ, so that is checked here.
#   2. the GitHub workflows pass actionlint (with shellcheck on their `run:` scripts; it also
#      checks the inputs a workflow gives the local action); installed by scripts/bootstrap.sh test.
#   3. the composite action (action.yml): scripts/check-action.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'check-release: %s\n' "$*"; }

# 1. Packages.
cargo package -p rail-core -p rail-cli --allow-dirty --no-verify --offline --quiet 2>&1 |
  grep -v '^warning: ignoring \(test\|bench\|example\)' || true
version=$(cargo metadata --no-deps --format-version 1 --offline |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).packages.find(p=>p.name==="rail-cli").version))')
dir=${CARGO_TARGET_DIR:-target}/package
for crate in rail-core rail-cli; do
  file="$dir/$crate-$version.crate"
  [ -f "$file" ] || { say "$file was not written"; exit 1; }
  listing=$(tar tzf "$file")
  need=(Cargo.toml README.md LICENSE src/lib.rs)
  [ "$crate" = rail-cli ] && need=(Cargo.toml README.md LICENSE src/main.rs assets/standalone.html)
  for f in "${need[@]}"; do
    grep -qx "$crate-$version/$f" <<<"$listing" || { say "$crate's package lacks $f"; exit 1; }
  done
  manifest=$(tar xzf "$file" -O "$crate-$version/Cargo.toml")
  for key in description license repository readme keywords categories; do
    grep -q "^$key = " <<<"$manifest" || { say "$crate's package has no $key"; exit 1; }
  done
  if grep -q '^publish = false' <<<"$manifest"; then say "$crate says publish = false"; exit 1; fi
  say "$crate $version: $(wc -c <"$file") bytes, $(wc -l <<<"$listing") files"
done
# The packaged page is the vendored one, byte for byte.
tar xzf "$dir/rail-cli-$version.crate" -O "rail-cli-$version/assets/standalone.html" | cmp -s - cli/assets/standalone.html ||
  { say "the packaged standalone.html differs from cli/assets/standalone.html"; exit 1; }

# 2. Workflows and the action.
actionlint=.rail-bootstrap/actionlint/bin/actionlint
[ -x "$actionlint" ] || { say "actionlint is missing: run scripts/bootstrap.sh test"; exit 1; }
command -v shellcheck >/dev/null || { say "shellcheck is missing: run scripts/bootstrap.sh test"; exit 1; }
"$actionlint" -no-color -oneline .github/workflows/*.yml
say "actionlint: $(ls .github/workflows/*.yml | wc -l) workflow(s) clean"

# 3. The composite action.
node scripts/check-action.mjs
