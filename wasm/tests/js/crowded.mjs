// A crowded rail through the Node package, as the VS Code extension builds its board (issue 41,
// finding 5): 1,500 one-line claims of `src/**`, each its own session, so every pair overlaps.
// Each pair was its own conflict: a 43 KB claims.md took 14 s and 2.1 GB in wasm, a 63 KB one
// failed with "JSON.parse refused". What the board says must grow with the rail, not its pairs:
// sizes and counts are asserted here, times are bench/crowded_claims.py's.
//
//   node wasm/tests/js/crowded.mjs [PKG]   (PKG: a Node build of the package; default pkg/node)
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(process.argv[2] ?? join(here, "../../pkg/node"));
const rail = createRequire(import.meta.url)(join(pkg, "rail_wasm.js"));

const claims = 1500;
let text = "# Claims\n\n";
for (let i = 0; i < claims; i++) {
  text += `t${String(i).padStart(4, "0")} | s${String(i).padStart(4, "0")} | 2026-10-22T14:00Z | paths: src/**\n`;
}
assert.ok(text.length < 80_000);
const texts = { claims: { path: "claims.md", text } };
const facts = { now: "2026-10-22T14:30:00Z" };

const board = rail.board(texts, facts);
const size = JSON.stringify(board).length;
assert.ok(size < 100_000_000, `the board is ${size} bytes of JSON`);
assert.equal(board.claims.length, claims);
assert.equal(board.conflicts.length, 1, "one pattern, one conflict");
assert.equal(board.conflicts[0].claims.length, 6);
assert.equal(board.conflicts[0].claims_unlisted, claims - 6);
for (const claim of board.claims) assert.deepEqual(claim.conflicts, [0]);
assert.equal(board.diagnostics.length, claims);

// Who holds a path: asked alone, every claim (the web board filters by it); of a hundred
// paths, sixteen each and the rest counted.
const [who] = rail.who(texts, facts, ["src/a.ts"]);
assert.equal(who.holders.length, claims);
const many = rail.who(texts, facts, Array.from({ length: 100 }, (_, i) => `src/f${i}.ts`));
assert.ok(JSON.stringify(many).length < 1_000_000);
for (const answer of many) {
  assert.equal(answer.holders.length, 16);
  assert.equal(answer.holders_unlisted, claims - 16);
}

// A session's 200 changed files: each held, sixteen holders named.
const changed = Array.from({ length: 200 }, (_, i) => `src/f${i}.ts`);
const report = rail.scope(texts, facts, "late", changed);
assert.ok(JSON.stringify(report).length < 2_000_000);
for (const file of report.files) {
  assert.equal(file.others.length, 16);
  assert.equal(file.others_unlisted, claims - 16);
}
console.log(`crowded: ${claims} claims of src/**, board ${size} bytes of JSON: ok`);
