#!/usr/bin/env node
// Conformance: every fixture evaluated through the wasm package (Node build) must give the same
// JSON as the native evaluation of the same fixture (rail-tests' `evaluate_fixture`, run by the
// `rail-conformance-native` bin). Both sides are parsed and re-serialized with sorted keys, then
// compared byte for byte.
//
//   node tests/conformance/conformance.mjs [--native BIN] [FIXTURE_ROOT...]
//
// The fixture root defaults to tests/fixtures (the shared corpus). Kind folders are discovered (board, rewrite, merge, parse, yaml); a folder of an unknown kind is reported and
// skipped. What is compared per kind is what the wasm API can compute:
//   board, merge  the whole value;
//   rewrite       everything but `request` (an echo of the input, re-serialized by serde);
//   parse, yaml   the diagnostics (the wasm API exposes a file's diagnostics through `validate`,
//                 not the parser's internal claim lines or YAML tree).
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
        if (isDir(join(kindDir, name))) found.push({ kind, path: join(kindDir, name) });
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

/// rail-tests' `apply_plan`, with the package's `applyEdits`.
function applyPlan(texts, plan) {
  const out = {};
  const claimsPath = texts.claims?.path ?? "claims.md";
  for (const file of plan.edits) {
    const original =
      file.file === claimsPath
        ? texts.claims?.text
        : texts.claim_files.find((f) => f.path === file.file)?.text;
    let base;
    if (original !== undefined) base = original;
    else if (file.create) base = "";
    else return { error: `the plan edits ${file.file} which is missing` };
    if (out[file.file] !== undefined) base = out[file.file];
    try {
      out[file.file] = wasm.applyEdits(base, file.edits);
    } catch (e) {
      return { error: `${file.file}: ${e.message.replace(/^rail: edits: /, "")}` };
    }
  }
  return { files: out };
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
  rewrite(path) {
    const { texts, facts } = loadRailDir(path);
    const session = read(join(path, "session.txt")).trim();
    const request = JSON.parse(read(join(path, "request.json")));
    const outcome = wasm.plan(texts, facts, session, request);
    if ("refusal" in outcome) {
      return {
        session,
        outcome: "refusal",
        plan: null,
        refusal: outcome.refusal,
        files: null,
        apply_error: null,
      };
    }
    const applied = applyPlan(texts, outcome.ok);
    return {
      session,
      outcome: "plan",
      plan: outcome.ok,
      refusal: null,
      files: applied.files ?? null,
      apply_error: applied.error ?? null,
    };
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
  rewrite: ({ request, ...rest }) => rest,
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
const key = (f) => `${f.kind}=${f.path}`;
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
  counts[f.kind] = (counts[f.kind] ?? 0) + 1;
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
