#!/usr/bin/env node
// `board` on a 10,000-claim rail, natively and through the wasm package in Node.
//
//   node bench/wasm-vs-native/run.mjs [PAIRS]   (build the package first: scripts/build-wasm.sh)
//
// The rail: 9,000 claims.md lines and 1,000 claim files, 5 path patterns each (one claim in 500
// also names a file others name too: some conflicts), a resource on one claim in ten, 200
// sessions with a mix of live, expiring and stale leases, and a 2,000-line log.
// RAIL_BENCH_CLAIMS=N scales it to N claims (a tenth of them claim files, a log of N/5 lines),
// for realistic rails of tens or hundreds of claims.
// The same input (texts + facts, written to a temporary JSON file) goes to both sides. The native
// side is a process that builds the board once per request; the two sides alternate call by
// call, PAIRS times (default 61), which side goes first alternating too. This machine's speed
// drifts by tens of percent from one minute to the next, so each pair's ratio compares two calls
// made a fraction of a second apart; the ratio printed is the median of the pairs' ratios, with
// the middle half of them as its spread. The target is wasm within 2x of native.
// RAIL_BENCH_DUMP=1 also prints every pair (native build, native build + JSON, wasm, ratio).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { benchRail } from "./rail.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const pairs = Number(process.argv[2] ?? 61);
const total = Number(process.env.RAIL_BENCH_CLAIMS ?? 10000);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quartiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor((s.length - 1) / 4)], s[Math.ceil(((s.length - 1) * 3) / 4)]];
};

const input = benchRail(total);
const dir = mkdtempSync(join(tmpdir(), "rail-bench-"));
let native;
try {
  const file = join(dir, "input.json");
  writeFileSync(file, JSON.stringify(input));

  // Native (release profile, as the CLI ships): built first, so no call waits for the compiler.
  const args = ["bench", "-p", "rail-wasm", "--bench", "wasm-vs-native", "--quiet"];
  const built = spawnSync("cargo", [...args, "--no-run"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (built.status !== 0) process.exit(built.status ?? 1);
  native = spawn("cargo", [...args, "--", file], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
  const answers = createInterface({ input: native.stdout })[Symbol.asyncIterator]();
  const nativeCall = async () => {
    native.stdin.write("\n");
    const { value, done } = await answers.next();
    if (done) throw new Error("the native side stopped");
    return JSON.parse(value);
  };

  // wasm in Node: the same call the VS Code extension makes, objects in and out. The previous
  // board stays alive while the next is built, as the extension keeps the one it shows.
  // RAIL_WASM_PKG: another build of the package (e.g. one with names, for a profile).
  const pkg = process.env.RAIL_WASM_PKG ?? join(root, "wasm/pkg/node");
  const wasm = createRequire(import.meta.url)(join(pkg, "rail_wasm.js"));
  let board;
  const wasmCall = () => {
    const t = performance.now();
    board = wasm.board(input.texts, input.facts);
    return performance.now() - t;
  };

  for (let i = 0; i < 3; i++) {
    wasmCall();
    await nativeCall();
  }
  const rows = [];
  for (let i = 0; i < pairs; i++) {
    let n, w;
    if (i % 2 === 0) {
      n = await nativeCall();
      w = wasmCall();
    } else {
      w = wasmCall();
      n = await nativeCall();
    }
    if (board.claims.length !== n.claims) throw new Error(`claims: wasm ${board.claims.length}, native ${n.claims}`);
    rows.push({ build: n.build_ms, json: n.build_json_ms, wasm: w });
  }
  native.stdin.end();
  if (process.env.RAIL_BENCH_DUMP) {
    for (const r of rows) console.log([r.build, r.json, r.wasm].map((x) => x.toFixed(1)).join(" "), (r.wasm / r.json).toFixed(2));
  }

  // For comparison: what a JS host pays just to make objects of the native side's JSON text
  // (the wasm package builds its objects from a packed result instead; see wasm/js/unpack.js).
  const text = JSON.stringify(board);
  const parse = [];
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    JSON.parse(text);
    parse.push(performance.now() - t);
  }

  const ms = (x) => `${x.toFixed(1)} ms`.padStart(10);
  const col = (k) => median(rows.map((r) => r[k]));
  const ratios = (k) => rows.map((r) => r.wasm / r[k]);
  const spread = (xs) => {
    const [lo, hi] = quartiles(xs);
    return `(middle half of pairs: ${lo.toFixed(2)}-${hi.toFixed(2)}x)`;
  };
  console.log(`board of ${board.claims.length} claims (${board.conflicts.length} conflicts), ${pairs} pairs of calls, medians:`);
  console.log(`  native board::build              ${ms(col("build"))}`);
  console.log(`  native board::build + to JSON    ${ms(col("json"))}`);
  console.log(`  wasm board() in Node (objects)   ${ms(col("wasm"))}`);
  console.log(`  for comparison: JSON.parse of the board's JSON (${(text.length / 1e6).toFixed(1)} MB) ${ms(median(parse))}`);
  console.log(`  ratio wasm / native build        ${median(ratios("build")).toFixed(2)}x  ${spread(ratios("build"))}`);
  console.log(`  ratio wasm / native build+JSON   ${median(ratios("json")).toFixed(2)}x  ${spread(ratios("json"))}  (target <= 2x)`);
} finally {
  native?.kill();
  rmSync(dir, { recursive: true, force: true });
}
