#!/usr/bin/env node
// Checks the built package from the JavaScript side, as its users load it:
//   1. pkg/node (CommonJS) answers, and throws only `Error`s starting with "rail: " for
//      values no Rust test can make (Proxies, getters that throw, symbols, frozen objects...);
//      after every such call the module still works (no trap left it broken);
//   2. pkg/web (ES module + initSync) gives the same answers;
//   3. results (serde_json's text, made values by JSON.parse) are what JSON.parse makes of
//      native output: strings outside ASCII, a "__proto__" key, and the same answers where the
//      host forbids making functions from text (a webview's content security policy) and where
//      Node cannot require() an ES module (the Node build is plain CommonJS);
//   4. the .d.ts of both builds type-check against a typed usage file, and no exported function
//      takes or returns `any`;
//   5. the write path's old exports are gone from both builds (plans, the lock and the log are
//      the `rail` binary's; see src/lib.rs).
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  // Text outside ASCII comes back whole, and so does a byte order mark at a string's start.
  const purpose = "\u{feff}tâche — ça 😀 \u{10ffff}";
  const rich = mod.board({ claims: { path: "claims.md", text: `auth | s | 2026-10-22T14:05Z | purpose: ${purpose}\n` } }, facts);
  assert.equal(rich.claims[0].purpose, purpose, `${label}: text outside ASCII`);
  const scope = mod.scope(texts, facts, "session-b", ["src/auth/a.ts"]);
  assert.deepEqual(scope.conflicts, ["src/auth/a.ts"], label);
  assert.deepEqual(mod.positionAt("ç😀x", 6), { line: 0, character: 3 }, label);
  checks += 3;
  return JSON.stringify(board);
}

// 5. The write path left the wasm: checked on each build as it is loaded.
const removed = ["plan", "applyEdits", "assessLock", "parseLockRecord", "renderLockRecord", "renderLogLine"];
function writePathGone(mod, label) {
  for (const name of removed) {
    assert.equal(mod[name], undefined, `${label}: ${name} is still exported`);
  }
  checks++;
}

// 1. Exotic values through the real glue.
writePathGone(node, "node");
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
  validate: (x) => node.validate(x),
  merge: (x) => node.merge(x, "", x),
  who: (x) => node.who(texts, facts, x),
  scope: (x) => node.scope(texts, facts, x, x),
  scopeChanged: (x) => node.scope(texts, facts, "session-b", x),
  parseConfig: (x) => node.parseConfig(x),
  describeFreshness: (x) => node.describeFreshness(x),
  isRailFile: (x) => node.isRailFile(x),
  hookMarks: (x) => node.hookMarks(x, x),
  acting: (x) => node.acting(x, x),
  workFiles: (x) => node.workFiles(x),
  ownerProbes: (x) => node.ownerProbes(x, x),
  ownerProbesFacts: (x) => node.ownerProbes(["4242@devbox/900"], x),
  sharedRemote: (x) => node.sharedRemote(x),
  sharedRemoteField: (x) => node.sharedRemote({ git_config: x, config_text: x }),
  handedFile: (x) => node.handedFile(x),
  railFilesIn: (x) => node.railFilesIn(x),
  commitTimes: (x) => node.commitTimes(x, x),
  forEachRefFormat: (x) => node.forEachRefFormat(x),
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

// 2. The browser build (ES modules: its folder marked so), instantiated synchronously in Node.
const tmp = mkdtempSync(join(tmpdir(), "rail-wasm-web-"));
try {
  cpSync(join(wasmDir, "pkg/web"), tmp, { recursive: true });
  writeFileSync(join(tmp, "package.json"), '{ "type": "module" }\n');
  const web = await import(pathToFileURL(join(tmp, "rail_wasm.js")).href);
  web.initSync({ module: readFileSync(join(wasmDir, "pkg/web/rail_wasm_bg.wasm")) });
  assert.equal(smoke(web, "web"), baseline);
  writePathGone(web, "web");
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// 3. Results. A log line's details are a map whose keys the user wrote.
const logged = {
  ...texts,
  log: {
    path: "claims.log",
    text: "2026-10-22T14:05:00Z | claimed | auth | session-a | __proto__: polluted | note: é😀\n",
  },
};
const details = node.board(logged, facts).log[0].details;
assert.deepEqual(Object.keys(details), ["__proto__", "note"]);
assert.equal(Object.getPrototypeOf(details), Object.prototype, "a key does not set the prototype");
assert.equal(Object.getOwnPropertyDescriptor(details, "__proto__")?.value, "polluted");
assert.deepEqual(details, JSON.parse('{"__proto__":"polluted","note":"é😀"}'));
checks += 4;
// The same answers from a Node that may not make functions from text (as in a webview with a
// content security policy) and from one that cannot require() ES modules.
const answers = `
  const m = require(${JSON.stringify(join(wasmDir, "pkg/node/rail_wasm.js"))});
  const [texts, logged, facts] = ${JSON.stringify([texts, logged, facts])};
  process.stdout.write(JSON.stringify([m.board(texts, facts), m.board(logged, facts), m.validate(logged),
    m.merge("a\\n", "a\\nb\\n", "c\\na\\n")]));`;
const plain = execFileSync(process.execPath, ["-e", answers], { encoding: "utf8" });
for (const flag of ["--disallow-code-generation-from-strings", "--no-experimental-require-module"]) {
  const there = execFileSync(process.execPath, [flag, "-e", answers], { encoding: "utf8" });
  assert.equal(there, plain, `answers under ${flag}`);
  checks++;
}

// Git's files, read as the CLI reads them (rail_core::gitdir).
assert.equal(node.gitFile("head", "ref: refs/heads/feature/x\n"), "feature/x");
assert.equal(node.gitFile("head", "0123456789abcdef0123456789abcdef01234567\n"), null);
assert.equal(node.gitFile("dot-git", "gitdir: ../.git/worktrees/a\n"), "../.git/worktrees/a");
assert.throws(() => node.gitFile("index", ""), /^Error: rail: kind: /);
assert.equal(node.gitFilesSuffice(".git"), true);
assert.equal(node.gitFilesSuffice("repo.git"), false);
assert.deepEqual(node.askGitEnv(), ["GIT_DIR", "GIT_COMMON_DIR"]);
checks += 7;

// 4. Types.
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
