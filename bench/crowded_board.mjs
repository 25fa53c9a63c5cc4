#!/usr/bin/env node
// One wasm board in Node, as the VS Code extension builds it: the helper bench/crowded_claims.py
// runs for the wasm side (a process per call, so its peak memory is its own).
//
//   node bench/crowded_board.mjs PKG CLAIMS_MD NOW
//
// PKG is a wasm package built for Node (wasm/pkg/node, or a copy of an older build); CLAIMS_MD
// the rail's claims.md; NOW the time to judge it at. Prints one JSON line: the board's
// milliseconds, its size as JSON and its conflicts and claims, or the error the call threw.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const [pkg, file, now] = process.argv.slice(2);
if (!pkg || !file || !now) {
  console.error("usage: node bench/crowded_board.mjs PKG CLAIMS_MD NOW");
  process.exit(2);
}
const wasm = createRequire(import.meta.url)(join(resolve(pkg), "rail_wasm.js"));
const texts = { claims: { path: "claims.md", text: readFileSync(file, "utf8") } };
const facts = { now, host: "bench" };
const start = performance.now();
try {
  const board = wasm.board(texts, facts);
  const ms = performance.now() - start;
  const json = JSON.stringify(board).length;
  console.log(JSON.stringify({ ms, json, claims: board.claims.length, conflicts: board.conflicts.length }));
} catch (e) {
  const ms = performance.now() - start;
  console.log(JSON.stringify({ ms, error: String(e instanceof Error ? e.message : e).slice(0, 200) }));
}
