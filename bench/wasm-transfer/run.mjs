#!/usr/bin/env node
// How the board crosses from wasm to JavaScript: rail-wasm's way (serde_json text made a value
// by JSON.parse) against serde-wasm-bindgen's own serializer, on the same board, at 100, 1,000
// and 10,000 claims (issue 29, item 6; the packed stream + JS unpacker this replaced was
// measured with it too: wasm/README.md has all three, and commit 2c9481f runs them).
//
//   node bench/wasm-transfer/run.mjs [ROUNDS] [CLAIMS...]     (default 41 rounds; 100 1000 10000)
//
// Builds its own copy of the package with the `transfer-bench` feature (the extra exports are
// never in the shipped package) under target/wasm-transfer-bench, with the package's profile,
// flags and wasm-opt pass, then in one Node process, per rail size: checks the three ways give
// the same value (deep equality), and times ROUNDS rounds of three calls — the board built and
// dropped (`boardCompute`), `board`, `boardSerde` — in an order
// that rotates each round, so drift over the run falls on every way alike. A way's transfer cost
// is, per round, its time less the round's compute-only time; printed are medians and, for the
// ratios, the middle half of the rounds.
import { spawnSync } from "node:child_process";
import { deepStrictEqual } from "node:assert";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchRail } from "../wasm-vs-native/rail.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const rounds = Number(process.argv[2] ?? 41);
const sizes = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [100, 1000, 10000];

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`bench: ${cmd} ${args.join(" ")} failed`);
    process.exit(r.status ?? 1);
  }
}

function capture(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8" });
  if (r.status !== 0) {
    console.error(`bench: ${cmd} ${args.join(" ")} failed\n${r.stderr}`);
    process.exit(r.status ?? 1);
  }
  return r.stdout.trim();
}

// The package as scripts/build-wasm.sh makes it (profile `wasm`, the inliner flag, wasm-bindgen
// for Node, wasm-opt -Oz), with the bench's exports added.
const targetDir = join(root, "target/wasm-transfer-bench");
const pkg = join(targetDir, "pkg");
console.error("bench: building rail-wasm with --features transfer-bench (profile wasm)");
run("cargo", ["build", "-p", "rail-wasm", "--target", "wasm32-unknown-unknown", "--profile", "wasm", "--features", "transfer-bench", "--quiet"], {
  CARGO_TARGET_DIR: targetDir,
  RUSTFLAGS: `${process.env.RUSTFLAGS ? `${process.env.RUSTFLAGS} ` : ""}-Cllvm-args=-inline-threshold=50`,
});
rmSync(pkg, { recursive: true, force: true });
mkdirSync(pkg, { recursive: true });
run("wasm-bindgen", [
  join(targetDir, "wasm32-unknown-unknown/wasm/rail_wasm.wasm"),
  "--out-dir",
  pkg,
  "--target",
  "nodejs",
  "--remove-name-section",
  "--remove-producers-section",
]);
const wasmOpt = capture(join(root, "scripts/wasm-tools.sh"), ["wasm-opt"]);
run(wasmOpt, ["-Oz", join(pkg, "rail_wasm_bg.wasm"), "-o", join(pkg, "rail_wasm_bg.opt.wasm")]);
run("mv", [join(pkg, "rail_wasm_bg.opt.wasm"), join(pkg, "rail_wasm_bg.wasm")]);
const wasm = createRequire(import.meta.url)(join(pkg, "rail_wasm.js"));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quartiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor((s.length - 1) / 4)], s[Math.ceil(((s.length - 1) * 3) / 4)]];
};

const ways = {
  compute: (i) => wasm.boardCompute(i.texts, i.facts),
  board: (i) => wasm.board(i.texts, i.facts),
  serde: (i) => wasm.boardSerde(i.texts, i.facts),
};
const names = Object.keys(ways);

console.log(`rail-wasm board transfer, ${rounds} rounds per size (module ${statSync(join(pkg, "rail_wasm_bg.wasm")).size} bytes with the bench exports)`);
for (const size of sizes) {
  const input = benchRail(size);
  // The same value both ways, or the comparison means nothing.
  const board = ways.board(input);
  deepStrictEqual(ways.serde(input), board, "boardSerde differs from board");
  for (let i = 0; i < 3; i++) for (const n of names) ways[n](input);

  const times = Object.fromEntries(names.map((n) => [n, []]));
  // The value a host keeps alive while the next is built, as the extension keeps the board it shows.
  let kept;
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const n = names[(r + k) % names.length];
      const t = performance.now();
      kept = ways[n](input);
      times[n].push(performance.now() - t);
    }
  }
  if (kept === undefined) throw new Error("no result");
  const transfer = (n) => times[n].map((t, r) => t - times.compute[r]);
  const ms = (x) => `${x.toFixed(2)} ms`.padStart(11);
  console.log(`\n${board.claims.length} claims (${board.conflicts.length} conflicts, ${(JSON.stringify(board).length / 1e6).toFixed(2)} MB as JSON), medians:`);
  console.log(`  board built, count returned        ${ms(median(times.compute))}`);
  for (const [n, label] of [
    ["board", "board (serde_json + JSON.parse) "],
    ["serde", "boardSerde (serde-wasm-bindgen)  "],
  ]) {
    console.log(`  ${label}  ${ms(median(times[n]))}   transfer ${ms(median(transfer(n)))}`);
  }
  const ratios = times.serde.map((t, r) => t / times.board[r]);
  const [lo, hi] = quartiles(ratios);
  console.log(`  serde / board, whole call             ${median(ratios).toFixed(2)}x  (middle half of rounds ${lo.toFixed(2)}-${hi.toFixed(2)}x)`);
}
