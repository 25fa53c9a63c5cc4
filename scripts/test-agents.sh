#!/usr/bin/env bash
# The real-agent end-to-end suite (tests/agents/): Claude Code, Codex CLI, Copilot CLI and Gemini
# CLI, each pinned from npm, installed on demand into a cache outside the repository, driven
# headless by the scripted model in tests/agents/fake-model.mjs (Anthropic Messages, OpenAI
# Responses and Gemini streams on 127.0.0.1) against the freshly built `rail`, each agent with a
# HOME of its own and the trust docs/testing.md names. Prints "agents e2e: N/M passed".
# RAIL_E2E_ALLOW_ALL=1 runs it with a `rail` whose `hook` allows everything: it must then fail.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${XDG_CACHE_HOME:-$HOME/.cache}/rail-e2e"
# agent name, npm package, pinned version, binary: the four agents the suite drives (each
# driver in tests/agents/run.mjs; RAIL_E2E_ONLY=codex,copilot runs only those).
agents=(
  "claude @anthropic-ai/claude-code 2.1.332 claude"
  "codex @openai/codex 0.171.0 codex"
  "copilot @github/copilot 1.0.102 copilot"
  "gemini @google/gemini-cli 0.61.0 gemini"
)

cargo build --quiet -p rail-cli
json="{"
for entry in "${agents[@]}"; do
  read -r name package version bin <<<"$entry"
  dir="$cache/agents-${package##*/}-$version"
  if [ ! -x "$dir/node_modules/.bin/$bin" ]; then
    echo "installing $package@$version into $dir"
    mkdir -p "$dir"
    npm install --no-audit --no-fund --loglevel=error --prefix "$dir" "$package@$version" >/dev/null
  fi
  json+="\"$name\":\"$dir/node_modules/.bin/$bin\","
done
json="${json%,}}"

RAIL_BIN="$PWD/target/debug/rail" RAIL_E2E_AGENTS="$json" node tests/agents/run.mjs
