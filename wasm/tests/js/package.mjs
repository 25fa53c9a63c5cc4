#!/usr/bin/env node
// Checks the built package from the JavaScript side, as its users load it:
//   1. pkg/node (CommonJS) answers, and throws only `Error`s starting with "rail: " for
//      values no Rust test can make (Proxies, getters that throw, symbols, frozen objects...);
//      after every such call the module still works (no trap left it broken);
//   2. pkg/web (ES module + initSync) gives the same answers;
//   3. the .d.ts of both builds type-check against a typed usage file, and no exported function
//      takes or returns `any`.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import assert from "node:assert/strict";

const here = dirname(fileURLToPath(import.meta.url));
const wasmDir = resolve(here, "../..");
const require = createRequire(import.meta.url);
const node = require(join(wasmDir, "pkg/node/rail_wasm.js"));

const texts = {
  claims: {
    path: "claims.md",
    text: "# Claims\n\nauth | session-a | 2026-10-22T14:05Z | paths: src/auth/**\n",
  },
};
const facts = { now: "2026-10-22T15:00:00Z" };
let checks = 0;

function smoke(mod, label) {
  const board = mod.board(texts, facts);
  assert.equal(board.claims[0].task, "auth", label);
  assert.equal(board.sessions[0].worktree, null, `${label}: absent values are null`);
  assert.ok(!("pid" in board.claims[0]), `${label}: a claim leaves out its empty fields`);
  // Results cross as ASCII JSON (json.rs escapes the rest): text outside ASCII comes back whole.
  const purpose = "tâche — ça 😀 \u{10ffff}";
  const rich = mod.board({ claims: { path: "claims.md", text: `auth | s | 2026-10-22T14:05Z | purpose: ${purpose}\n` } }, facts);
  assert.equal(rich.claims[0].purpose, purpose, `${label}: text outside ASCII`);
  const outcome = mod.plan(texts, facts, "session-b", { op: "claim", task: "auth" });
  assert.equal(outcome.refusal.kind, "held", label);
  assert.deepEqual(mod.positionAt("ç😀x", 6), { line: 0, character: 3 }, label);
  checks += 3;
  return JSON.stringify(board);
}

// 1. Exotic values through the real glue.
const baseline = smoke(node, "node");
const throwing = {
  get claims() {
    throw new TypeError("getter says no");
  },
};
const proxy = new Proxy(
  {},
  {
    get() {
      throw new RangeError("proxy says no");
    },
    has() {
      return true;
    },
    ownKeys() {
      return ["claims"];
    },
    getOwnPropertyDescriptor() {
      return { enumerable: true, configurable: true, value: 1 };
    },
  },
);
const exotic = [
  undefined,
  null,
  0,
  -0,
  NaN,
  Infinity,
  2n ** 64n,
  Symbol("x"),
  () => 1,
  "",
  "\uD800",
  "a".repeat(1 << 20),
  [],
  [Symbol("y")],
  {},
  Object.freeze({ claims: Object.freeze({ path: 1, text: {} }) }),
  Object.create(null),
  new Date(0),
  new Map([["claims", 1]]),
  new Uint8Array(4),
  throwing,
  proxy,
];
const calls = {
  board: (x) => node.board(x, x),
  boardFacts: (x) => node.board(texts, x),
  plan: (x) => node.plan(texts, facts, x, x),
  planRequest: (x) => node.plan(texts, facts, "session-b", x),
  validate: (x) => node.validate(x),
  merge: (x) => node.merge(x, "", x),
  who: (x) => node.who(texts, facts, x),
  scope: (x) => node.scope(texts, facts, x, x),
  parseLockRecord: (x) => node.parseLockRecord(x),
  assessLock: (x) => node.assessLock("", x),
  applyEdits: (x) => node.applyEdits("abc", x),
  renderMarkdown: (x) => node.renderMarkdown(x),
  positionAt: (x) => node.positionAt("abc", x),
  offsetAt: (x) => node.offsetAt("abc", x),
  rangeOf: (x) => node.rangeOf(x, x),
};
for (const [name, call] of Object.entries(calls)) {
  for (const value of exotic) {
    try {
      call(value);
    } catch (e) {
      assert.ok(e instanceof Error, `${name}: threw a non-Error ${String(e)}`);
      assert.ok(!(e instanceof WebAssembly.RuntimeError), `${name}: trapped: ${e.message}`);
      // An exception thrown by the caller's own getter or proxy passes through unchanged.
      const own = e.message === "getter says no" || e.message === "proxy says no";
      assert.ok(own || e.message.startsWith("rail: "), `${name}: unexpected error ${e.message}`);
    }
    checks++;
  }
  // Still healthy after all of it.
  assert.equal(smoke(node, `node after ${name}`), baseline);
}

// 2. The browser build, instantiated synchronously in Node.
const tmp = mkdtempSync(join(tmpdir(), "rail-wasm-web-"));
try {
  copyFileSync(join(wasmDir, "pkg/web/rail_wasm.js"), join(tmp, "rail_wasm.mjs"));
  const web = await import(pathToFileURL(join(tmp, "rail_wasm.mjs")).href);
  web.initSync({ module: readFileSync(join(wasmDir, "pkg/web/rail_wasm_bg.wasm")) });
  assert.equal(smoke(web, "web"), baseline);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// 3. Types.
for (const build of ["node", "web"]) {
  const dts = readFileSync(join(wasmDir, `pkg/${build}/rail_wasm.d.ts`), "utf8");
  const anyFns = dts
    .split("\n")
    .filter((l) => /export function \w+\(/.test(l) && /\bany\b/.test(l));
  assert.deepEqual(anyFns, [], `pkg/${build}/rail_wasm.d.ts: functions typed any`);
  checks++;
}
const tsc = execFileSync(join(wasmDir, "..", "scripts/wasm-tools.sh"), ["tsc"], {
  encoding: "utf8",
}).trim();
const project = mkdtempSync(join(tmpdir(), "rail-wasm-types-"));
try {
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        skipLibCheck: false,
        types: [],
      },
      files: [join(here, "usage.ts")],
    }),
  );
  execFileSync(tsc, ["-p", project], { stdio: "inherit" });
  checks++;
} finally {
  rmSync(project, { recursive: true, force: true });
}

console.log(`package checks: ${checks} passed (pkg/node, pkg/web, .d.ts)`);
