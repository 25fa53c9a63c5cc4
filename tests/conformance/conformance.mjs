#!/usr/bin/env node
// Conformance: every fixture evaluated through the wasm package (Node build) must give the same
// JSON as the native evaluation of the same fixture (rail-tests' `evaluate_fixture`, run by the
// `rail-conformance-native` bin). Both sides are parsed and re-serialized with sorted keys, then
// compared byte for byte.
//
//   node tests/conformance/conformance.mjs [--native BIN] [FIXTURE_ROOT...]
//
// The fixture root defaults to tests/fixtures (the shared corpus). Kind folders are discovered
// (board, rewrite, merge, parse, yaml); a folder of an unknown kind is reported and skipped.
// What is compared per kind is what the wasm API can compute:
//   board, merge  the whole value;
//   rewrite       the board of the rail the request starts from (natively: the `board`
//                 evaluation of the same folder). The plan itself is not compared: the wasm
//                 package no longer plans (the extension changes the rail by running the `rail`
//                 binary, so a plan is only ever computed natively), and the fixture runner
//                 (tests/tests/fixtures.rs) checks every plan and its applied files natively;
//   parse, yaml   the diagnostics (the wasm API exposes a file's diagnostics through `validate`,
//                 not the parser's internal claim lines or YAML tree);
//   owners        for every board fixture, the owner processes a host would probe (before it
//                 observed any: the fixture's `processes` left out): natively
//                 over the evaluation's claims (as the CLI asks), through wasm `ownerProbes`
//                 over the board's claims' `pid` fields (as the VS Code extension asks).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);

const args = process.argv.slice(2);
let nativeBin = join(
  process.env.CARGO_TARGET_DIR ?? join(root, "target"),
  "debug",
  "rail-conformance-native",
);
const roots = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--native") nativeBin = args[++i];
  else roots.push(resolve(args[i]));
}
if (roots.length === 0) roots.push(join(root, "tests/fixtures"));

const wasm = require(join(root, "wasm/pkg/node/rail_wasm.js"));

// ---------------------------------------------------------------------------------------------
// Discovery (the same layout rail-tests' `list` reads).

const byteOrder = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const entries = (dir) => (existsSync(dir) ? readdirSync(dir).sort(byteOrder) : []);
const isDir = (p) => existsSync(p) && statSync(p).isDirectory();
const isFile = (p) => existsSync(p) && statSync(p).isFile();

function discover(fixtureRoot) {
  const found = [];
  for (const kind of entries(fixtureRoot)) {
    const kindDir = join(fixtureRoot, kind);
    if (!isDir(kindDir)) continue;
    if (kind === "parse" || kind === "yaml") {
      const ext = kind === "parse" ? ".md" : ".yaml";
      for (const sub of ["valid", "invalid"]) {
        for (const name of entries(join(kindDir, sub))) {
          if (name.endsWith(ext)) found.push({ kind, path: join(kindDir, sub, name) });
        }
      }
    } else if (EVALUATE[kind]) {
      for (const name of entries(kindDir)) {
        if (!isDir(join(kindDir, name))) continue;
        found.push({ kind, path: join(kindDir, name) });
        if (kind === "board") found.push({ kind: "owners", path: join(kindDir, name) });
      }
    } else {
      console.log(`SKIP ${relative(root, kindDir)}: no wasm evaluation for kind "${kind}"`);
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The wasm side: the same inputs as rail-tests' loader, through the package's exports.

const DEFAULT_NOW = "2026-10-22T15:00:00Z";
const read = (p) => readFileSync(p, "utf8");
const readOpt = (p) => (isFile(p) ? read(p) : undefined);

function loadRailDir(dir) {
  const modified = JSON.parse(readOpt(join(dir, "modified.json")) ?? "{}");
  const file = (name) => {
    const text = readOpt(join(dir, name));
    return text === undefined ? undefined : { path: name, text };
  };
  const claimFiles = [];
  for (const name of entries(join(dir, "claims"))) {
    if (!(name.endsWith(".yaml") || name.endsWith(".yml"))) continue;
    const path = `claims/${name}`;
    const entry = { path, text: read(join(dir, "claims", name)) };
    if (modified[path] !== undefined) entry.modified = modified[path];
    claimFiles.push(entry);
  }
  const texts = { claim_files: claimFiles };
  for (const [key, name] of [
    ["claims", "claims.md"],
    ["log", "claims.log"],
    ["config", "rail.yaml"],
  ]) {
    const f = file(name);
    if (f) texts[key] = f;
  }
  const facts = JSON.parse(readOpt(join(dir, "facts.json")) ?? JSON.stringify({ now: DEFAULT_NOW }));
  return { texts, facts };
}

const EVALUATE = {
  board(path) {
    const { texts, facts } = loadRailDir(path);
    return wasm.board(texts, facts);
  },
  merge(path) {
    const f = (n) => read(join(path, n));
    return wasm.merge(f("base.md"), f("ours.md"), f("theirs.md"));
  },
  // A rewrite folder is a rail folder plus session.txt and request.json: its rail is one more
  // board input (claim files, refusal situations) for wasm and native to agree on.
  rewrite(path) {
    return EVALUATE.board(path);
  },
  // Before any process was observed: the fixture's `processes` are what a host found after.
  owners(path) {
    const { texts, facts } = loadRailDir(path);
    const before = { ...facts, processes: {} };
    const pids = wasm.board(texts, before).claims.flatMap((c) => (c.pid ? [c.pid] : []));
    return wasm.ownerProbes(pids, before);
  },
  parse(path) {
    const texts = { claims: { path: "claims.md", text: read(path) } };
    return { diagnostics: wasm.validate(texts) };
  },
  yaml(path) {
    const texts = { claim_files: [{ path: `claims/${basename(path)}`, text: read(path) }] };
    return { diagnostics: wasm.validate(texts) };
  },
};

/// The part of the native value the wasm side computes (see the header).
const PROJECT = {
  board: (v) => v,
  merge: (v) => v,
  rewrite: (v) => v,
  owners: (v) => v,
  parse: (v) => ({ diagnostics: v.diagnostics }),
  yaml: (v) => ({ diagnostics: v.diagnostics }),
};

/// JSON with object keys sorted at every level, so key order never matters.
function stable(value) {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
      : v,
  );
}

// ---------------------------------------------------------------------------------------------

const fixtures = roots.flatMap(discover);
if (fixtures.length === 0) {
  console.error(`conformance: no fixtures under ${roots.map((r) => relative(root, r)).join(", ")}`);
  process.exit(1);
}
/// The native evaluation a fixture is compared with (see the header for rewrite).
const NATIVE_KIND = { rewrite: "board" };
const key = (f) => `${NATIVE_KIND[f.kind] ?? f.kind}=${f.path}`;
const native = spawnSync(nativeBin, fixtures.map(key), {
  encoding: "utf8",
  maxBuffer: 1 << 30,
});
if (native.status !== 0) {
  console.error(`conformance: ${nativeBin} failed (${native.error ?? native.status})\n${native.stderr}`);
  process.exit(1);
}
const nativeValues = JSON.parse(native.stdout);

let failed = 0;
const counts = {};
for (const f of fixtures) {
  const name = relative(root, f.path);
  const want = stable(PROJECT[f.kind](nativeValues[key(f)]));
  let got;
  try {
    got = stable(EVALUATE[f.kind](f.path));
  } catch (e) {
    got = `threw ${e?.stack ?? e}`;
  }
  const label = f.kind === "rewrite" ? "rewrite (their rails' boards)" : f.kind;
  counts[label] = (counts[label] ?? 0) + 1;
  if (got !== want) {
    failed++;
    let at = 0;
    while (at < got.length && got[at] === want[at]) at++;
    console.log(`FAIL ${name}: wasm and native differ at character ${at}`);
    console.log(`  native: …${want.slice(Math.max(0, at - 80), at + 120)}`);
    console.log(`  wasm:   …${got.slice(Math.max(0, at - 80), at + 120)}`);
  }
}
const summary = Object.entries(counts)
  .map(([k, n]) => `${n} ${k}`)
  .join(", ");
console.log(
  `conformance: ${fixtures.length - failed}/${fixtures.length} fixtures identical through wasm and native (${summary})`,
);
process.exit(failed === 0 ? 0 : 1);
