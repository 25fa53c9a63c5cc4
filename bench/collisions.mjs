// Collisions (issue 43, item 6): N agent sessions — the four real agent programs of the
// real-agent suite (Claude Code, Codex CLI, Copilot CLI, Gemini CLI), each driven by the scripted
// model of tests/agents/fake-model.mjs — given overlapping tasks on one repository, all at once,
// in one shared checkout and in stations, with Rail and without (without: no hook installed).
// Counted from the repository afterwards, never from what an agent says:
// - lost edits: a write that landed and whose content is in no commit of any branch and in no
//   checkout at the end, on a file another session also wrote, unless the next write of that
//   file in that checkout was its own session's (a session rewriting its own uncommitted file
//   replaced no one's work: counted apart, as rewritten by itself); one whose content Rail kept
//   (<common dir>/rail/after/aside/) counts apart, as set aside;
// - swept commits: a session's commit holding a file whose committed content another session
//   wrote;
// - tasks worked twice: a task that two or more sessions wrote files for;
// - wall time, from the agents' start to the last one's exit.
// Each session's "model" works its tasks in order: (with claims) a task `rail ready` lists, then
// `rail claim TASK --path …` (refused: on to the next task); each file of the task read (Claude
// Code's Read; the others' whole-file edits need none) and rewritten whole with content naming
// the session and the task; a write refused or failing is tried again once, then the task is
// dropped; `git status --short`, then `git add -A && git commit` (`--commit own`: `git add` and
// `git commit -- FILES` of the task's files only; a `git add -A` commit Rail refuses for taking
// another session's work is followed by what the refusal says: `git commit -- FILES`); (with
// claims) `rail done TASK` (rail.yaml's check is `true`), else `rail release TASK`. Every reply
// is held `--think` ms (a model's time).
// Run: node bench/collisions.mjs [--sessions 4] [--think 2000] [--runs 1] [--commit all|own]
//        [--agents claude,codex,copilot,gemini] [--only shared-none,…] [--rail PATH] [--json]
// The agents come from the real-agent suite's cache (scripts/test-agents.sh installs them).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startModel } from '../tests/agents/fake-model.mjs';

const ROOT = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const { values: opt } = parseArgs({
  options: {
    sessions: { type: 'string', default: '4' },
    think: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '1' },
    agents: { type: 'string', default: 'claude,codex,copilot,gemini' },
    rail: { type: 'string' },
    only: { type: 'string' },
    commit: { type: 'string', default: 'all' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

// The binary measured: --rail, else this tree's release build (built first), as bench/common.py.
function railBinary() {
  if (opt.rail) return path.resolve(opt.rail);
  execFileSync('cargo', ['build', '--quiet', '--release', '-p', 'rail-cli'], { cwd: ROOT, stdio: 'inherit' });
  return path.join(ROOT, 'target/release/rail');
}

// The pinned agents, where scripts/test-agents.sh installs them.
const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'rail-e2e');
const pinned = {
  claude: 'agents-claude-code-2.1.332/node_modules/.bin/claude',
  codex: 'agents-codex-0.171.0/node_modules/.bin/codex',
  copilot: 'agents-copilot-1.0.102/node_modules/.bin/copilot',
  gemini: 'agents-gemini-cli-0.61.0/node_modules/.bin/gemini',
};
const agentBin = Object.fromEntries(Object.entries(pinned).map(([a, p]) => [a, path.join(cache, p)]));
for (const [a, bin] of Object.entries(agentBin)) {
  if (!fs.existsSync(bin)) throw new Error(`${a} not installed at ${bin}: run scripts/test-agents.sh once`);
}

const rail = railBinary();
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'rail-collisions-'));
const binDir = path.join(tmpRoot, 'bin');
fs.mkdirSync(binDir);
fs.symlinkSync(rail, path.join(binDir, 'rail'));
const PATH = `${binDir}:${process.env.PATH}`;
const sh = (cwd, cmd, args) => execFileSync(cmd, args, { cwd, env: { ...process.env, PATH }, encoding: 'utf8', stdio: 'pipe' });
const git = (cwd, ...args) => sh(cwd, 'git', args);

// The repository: five one-line files; six tasks, overlapping in their files.
const FILES = ['src/auth/token.ts', 'src/auth/session.ts', 'src/api/routes.ts', 'src/api/errors.ts', 'src/db/pool.ts'];
const TASKS = [
  { name: 'token-expiry', files: ['src/auth/token.ts'] },
  { name: 'session-refresh', files: ['src/auth/session.ts', 'src/auth/token.ts'] },
  { name: 'rate-limit', files: ['src/api/routes.ts'] },
  { name: 'error-codes', files: ['src/api/errors.ts', 'src/api/routes.ts'] },
  { name: 'pool-size', files: ['src/db/pool.ts'] },
  { name: 'db-retry', files: ['src/db/pool.ts', 'src/api/errors.ts'] },
];
// Session i's three tasks, starting two further along the list than session i-1's.
const tasksOf = (i) => [0, 1, 2].map((k) => TASKS[(2 * i + k) % TASKS.length]);
const AGENTS = opt.agents.split(',').filter((a) => pinned[a]);

// A whole-file patch for Codex's and Copilot's apply_patch.
const lines = (text, mark) =>
  text
    .split('\n')
    .slice(0, -1)
    .map((l) => `${mark}${l}\n`)
    .join('');
const patchOver = (p, before, after) => ({
  tool: 'apply_patch',
  custom: true,
  input: `*** Begin Patch\n*** Update File: ${p}\n@@\n${lines(before, '-')}${lines(after, '+')}*** End Patch\n`,
});

const run = (bin, args, cwd, env) =>
  new Promise((resolve) => {
    fs.mkdirSync(env.HOME, { recursive: true });
    // Codex runs commands in a login shell whose profile resets PATH: `rail` (git's pre-commit
    // hook runs it by name) is put on it, as a user's own is.
    fs.writeFileSync(path.join(env.HOME, '.bash_profile'), `export PATH='${binDir}':"$PATH"\n`);
    const own = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CODEX_|COPILOT_|GEMINI_CLI_|CLAUDE_CONFIG_DIR$)/.test(k)),
    );
    const child = spawn(bin, args, { cwd, env: { ...own, PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
  });

// Each agent as the real-agent suite drives it (tests/agents/run.mjs has the reasons).
const drivers = {
  claude: {
    read: (p) => ({ tool: 'Read', input: { file_path: p } }),
    rewrite: (p, _before, content) => ({ tool: 'Write', input: { file_path: p, content } }),
    shell: (command) => ({ tool: 'Bash', input: { command, description: 'bench' } }),
    start: (cwd, port, home) =>
      run(agentBin.claude, ['-p', 'do the task', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'], cwd, {
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
        ANTHROPIC_API_KEY: 'dummy',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        IS_SANDBOX: '1',
        HOME: home,
      }),
  },
  codex: {
    rewrite: patchOver,
    shell: (command) => ({ tool: 'exec_command', input: { cmd: command } }),
    start(cwd, port, home, main) {
      const codexHome = path.join(home, '.codex');
      fs.mkdirSync(codexHome, { recursive: true });
      fs.writeFileSync(
        path.join(codexHome, 'config.toml'),
        `model = "gpt-5.5"\nmodel_provider = "b"\nsandbox_mode = "danger-full-access"\napproval_policy = "never"\n` +
          `[model_providers.b]\nname = "b"\nbase_url = "http://127.0.0.1:${port}/v1"\nwire_api = "responses"\nenv_key = "RAIL_BENCH_KEY"\n` +
          `[projects.${JSON.stringify(main)}]\ntrust_level = "trusted"\n`,
      );
      return run(agentBin.codex, ['exec', '--json', '--dangerously-bypass-hook-trust', 'do the task'], cwd, {
        HOME: home,
        CODEX_HOME: codexHome,
        RAIL_BENCH_KEY: 'dummy',
      });
    },
  },
  copilot: {
    rewrite: patchOver,
    shell: (command) => ({ tool: 'bash', input: { command, description: 'bench' } }),
    start: (cwd, port, home) =>
      run(agentBin.copilot, ['-p', 'do the task', '--allow-all-tools', '--output-format', 'json', '--trust-folder'], cwd, {
        HOME: home,
        COPILOT_HOME: path.join(home, '.copilot'),
        COPILOT_OFFLINE: 'true',
        COPILOT_PROVIDER_TYPE: 'openai',
        COPILOT_PROVIDER_WIRE_API: 'responses',
        COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${port}/v1`,
        COPILOT_PROVIDER_API_KEY: 'dummy',
        COPILOT_MODEL: 'gpt-5.4',
      }),
  },
  gemini: {
    rewrite: (p, _before, content) => ({ tool: 'write_file', input: { file_path: p, content } }),
    shell: (command) => ({ tool: 'run_shell_command', input: { command } }),
    start(cwd, port, home) {
      fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
      fs.writeFileSync(
        path.join(home, '.gemini/settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
      );
      return run(agentBin.gemini, ['-p', 'do the task', '--yolo', '--output-format', 'stream-json'], cwd, {
        GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
        GEMINI_API_KEY: 'dummy',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        HOME: home,
      });
    },
  },
};

// A write the agent did not make: Rail's denial (every Rail reason starts "Rail:"), or the
// agent's own tool failing (Claude Code's stale-read check, a patch whose lines are not there).
// Copilot CLI shows a hook's exit 2 without its reason ("hook exited with code 2").
const refused = (text) =>
  /Rail: |Denied by preToolUse hook|blocked by PreToolUse hook|Tool execution blocked|PreToolUse:\w+ hook error/.test(text);
const failed = (text) =>
  /modified since read|has not been read|Failed to apply|failed to find|verification failed|"error"|tool_use_error/i.test(text);

// The session's scripted model: a generator yielding tool calls and given back each result's
// text, replayed as the fake model asks for step N (its `script` as a function).
function* work(d, me, cwd, tasks, { claims, commit }, writes) {
  for (const t of tasks) {
    if (claims) {
      // Rail's way to pick work: a task `rail ready` lists, then claimed (refused: the next).
      const ready = yield d.shell('rail ready');
      if (!new RegExp(`\\b${t.name}\\b`).test(ready)) continue;
      const r = yield d.shell(`rail claim ${t.name} ${t.files.map((f) => `--path ${f}`).join(' ')} --purpose bench`);
      if (!/claimed /.test(r)) continue;
    }
    let dropped = false;
    for (const f of t.files) {
      const abs = path.join(cwd, f);
      const content = `export const v = "${t.name} by ${me}";\n`;
      let done = false;
      for (let attempt = 0; attempt < 2 && !done; attempt++) {
        if (d.read) yield d.read(abs);
        const before = fs.readFileSync(abs, 'utf8');
        const r = yield d.rewrite(abs, before, content);
        const landed = fs.readFileSync(abs, 'utf8') === content || !(refused(r) || failed(r));
        if (landed) writes.push({ session: me, task: t.name, file: f, content, checkout: cwd });
        else {
          writes.refused = (writes.refused ?? 0) + 1;
          writes.refusedBy = { ...writes.refusedBy, [me]: (writes.refusedBy?.[me] ?? 0) + 1 };
        }
        done = landed;
      }
      if (!done) {
        dropped = true;
        break;
      }
    }
    if (!dropped) {
      // The session looks over its change before committing it, as agents do.
      yield d.shell('git status --short');
      const add =
        commit === 'own'
          ? `git add ${t.files.join(' ')} && git commit -q -m "${t.name} by ${me}" -- ${t.files.join(' ')}`
          : `git add -A && git commit -q -m "${t.name} by ${me}"`;
      const r = yield d.shell(add);
      // Refused for sweeping another session's work in: what the refusal says, as a model
      // reading it does — only its own files.
      if (commit === 'all' && /commit only your own files/.test(r)) {
        yield d.shell(`git commit -q -m "${t.name} by ${me}" -- ${t.files.join(' ')}`);
      }
    }
    // `rail done`: the gate (rail.yaml `check: "true"`), then released and ticked on the backlog.
    if (claims) yield d.shell(dropped ? `rail release ${t.name}` : `rail done ${t.name} || rail release ${t.name}`);
  }
}

// Each reply held `--think` ms, as a model takes its time: the window in which another session
// acts between a session's read, its write and its commit.
function scripted(gen) {
  const think = Number(opt.think);
  const calls = [];
  let finished = false;
  let first = true;
  return (step, results) => {
    while (!finished && calls.length <= step) {
      const r = first ? gen.next() : gen.next(results.at(-1)?.text ?? '');
      first = false;
      if (r.done) finished = true;
      else calls.push({ ...r.value, after: new Promise((resolve) => setTimeout(resolve, think)) });
    }
    return calls[step];
  };
}

function newRepo(name, withRail) {
  const dir = path.join(tmpRoot, name);
  fs.mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'bench@example.com');
  git(dir, 'config', 'user.name', 'bench');
  for (const f of FILES) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), 'export const v = "original";\n');
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'init');
  if (withRail) {
    sh(dir, 'rail', ['init', '--hooks']);
    // The tasks on the backlog, and a check for `rail done` that always passes.
    fs.appendFileSync(path.join(dir, 'claims.md'), TASKS.map((t) => `- [ ] ${t.name}\n`).join(''));
    fs.writeFileSync(path.join(dir, 'rail.yaml'), 'check: "true"\n');
    for (const a of AGENTS) sh(dir, 'rail', ['init', '--agents', '--agent', a]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '--no-verify', '-m', 'rail and agent configs');
  }
  return dir;
}

// The configurations measured: where the sessions work, Rail or not, claims or not.
const CONFIGS = [
  { id: 'shared-none', where: 'one checkout', rail: false, claims: false },
  { id: 'shared-rail', where: 'one checkout', rail: true, claims: false },
  { id: 'shared-claims', where: 'one checkout', rail: true, claims: true },
  { id: 'stations-none', where: 'stations', rail: false, claims: false },
  { id: 'stations-claims', where: 'stations', rail: true, claims: true },
];

let measured = 0;
async function measure(cfg, n) {
  const id = `${cfg.id}-${++measured}`;
  const main = newRepo(id, cfg.rail);
  const sessions = Array.from({ length: n }, (_, i) => ({ me: `s${i}-${AGENTS[i % AGENTS.length]}`, agent: AGENTS[i % AGENTS.length], i }));
  for (const s of sessions) {
    s.cwd = main;
    if (cfg.where === 'stations') {
      s.cwd = path.join(tmpRoot, `${id}-${s.me}`);
      if (cfg.rail) sh(main, 'rail', ['worktree', s.me, '--dir', s.cwd, '--purpose', 'bench']);
      else git(main, 'worktree', 'add', '-q', '-b', s.me, s.cwd);
    }
  }
  const writes = [];
  const models = await Promise.all(sessions.map(() => startModel()));
  const started = performance.now();
  const runs = sessions.map((s, k) => {
    const d = drivers[s.agent];
    models[k].state.script = scripted(work(d, s.me, s.cwd, tasksOf(s.i), { claims: cfg.claims, commit: opt.commit }, writes));
    return d.start(s.cwd, models[k].port, path.join(tmpRoot, `home-${id}-${s.me}`), main);
  });
  const exits = await Promise.all(runs);
  const wall = (performance.now() - started) / 1000;
  if (opt.verbose) {
    sessions.forEach((s, k) => {
      console.error(`--- ${s.me} (exit ${exits[k].code})`);
      for (const r of models[k].state.results) console.error(`  ${r.text.slice(0, 300).replaceAll('\n', ' | ')}`);
    });
  }
  for (const m of models) m.close();
  return { cfg, ...count(main, sessions, writes), wall, exits: exits.map((e) => e.code) };
}

// Every (commit, file, content) on any branch, and each commit's author session (its message).
function history(main) {
  const out = [];
  const log = git(main, 'log', '--all', '--format=%H %s', '--name-only', '--no-renames');
  for (const block of log.split(/\n(?=[0-9a-f]{40} )/)) {
    const [head, ...files] = block.trim().split('\n').filter(Boolean);
    const [hash, ...subject] = head.split(' ');
    for (const f of files) {
      const r = spawnSync('git', ['show', `${hash}:${f}`], { cwd: main, encoding: 'utf8' });
      out.push({ hash, by: / by (\S+)$/.exec(subject.join(' '))?.[1], file: f, content: r.status === 0 ? r.stdout : null });
    }
  }
  return out;
}

function count(main, sessions, writes) {
  const commits = history(main);
  const onDisk = new Set(sessions.flatMap((s) => FILES.map((f) => `${f}\0${fs.readFileSync(path.join(s.cwd, f), 'utf8')}`)));
  const committed = new Set(commits.map((c) => `${c.file}\0${c.content}`));
  const writers = (f) => new Set(writes.filter((w) => w.file === f).map((w) => w.session));
  // What Rail's after-tool check put back keeps its copy in <common dir>/rail/after/aside/.
  const asideDir = path.join(main, '.git/rail/after/aside');
  const aside = new Set(
    fs.existsSync(asideDir) ? fs.readdirSync(asideDir).map((f) => fs.readFileSync(path.join(asideDir, f), 'utf8')) : [],
  );
  // Who wrote a file next in the same checkout, after writes[i] (in the order the writes
  // landed): a session rewriting its own uncommitted file replaced no one's work.
  const nextWriter = (i) => writes.slice(i + 1).find((n) => n.file === writes[i].file && n.checkout === writes[i].checkout)?.session;
  const vanished = writes
    .map((w, i) => ({ w, by: nextWriter(i) }))
    .filter(({ w }) => !committed.has(`${w.file}\0${w.content}`) && !onDisk.has(`${w.file}\0${w.content}`) && writers(w.file).size > 1);
  const gone = vanished.filter(({ w, by }) => by !== w.session).map(({ w }) => w);
  const ownRewrites = vanished.filter(({ w, by }) => by === w.session).map(({ w }) => w);
  const lost = gone.filter((w) => !aside.has(w.content));
  const setAside = gone.filter((w) => aside.has(w.content));
  const sweptHashes = new Set(
    commits
      .filter((c) => c.by && / by (\S+)";$/m.exec(c.content ?? '')?.[1] && !(c.content ?? '').includes(`by ${c.by}"`))
      .map((c) => c.hash),
  );
  const twice = TASKS.filter((t) => new Set(writes.filter((w) => w.task === t.name).map((w) => w.session)).size > 1);
  return {
    writes: writes.length,
    refused: writes.refused ?? 0,
    refusedBy: writes.refusedBy ?? {},
    lost: lost.length,
    aside: setAside.length,
    asideDetail: setAside.map((w) => `${w.session} ${w.file} (${w.task})`),
    swept: sweptHashes.size,
    commits: new Set(commits.filter((c) => c.by).map((c) => c.hash)).size,
    twice: twice.length,
    lostDetail: lost.map((w) => `${w.session} ${w.file} (${w.task})`),
    ownRewrites: ownRewrites.length,
    ownRewriteDetail: ownRewrites.map((w) => `${w.session} ${w.file} (${w.task})`),
    sweptDetail: [...sweptHashes],
  };
}

const n = Number(opt.sessions);
const chosen = CONFIGS.filter((c) => !opt.only || opt.only.split(',').includes(c.id));
const rows = [];
// Each configuration `--runs` times, the counts and times summed.
for (const cfg of chosen) {
  let sum = null;
  for (let k = 0; k < Number(opt.runs); k++) {
    const r = await measure(cfg, n);
    if (!opt.json) console.error(`${cfg.id}: ${JSON.stringify({ ...r, cfg: undefined })}`);
    sum = sum
      ? Object.fromEntries(Object.entries(sum).map(([key, v]) => [key, typeof v === 'number' ? v + (r[key] ?? 0) : v]))
      : { ...r, refused: r.refused ?? 0 };
  }
  rows.push(sum);
}
if (!opt.keep) fs.rmSync(tmpRoot, { recursive: true, force: true });
if (opt.json) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  console.log(
    `${n} sessions (${AGENTS.join(', ')}), ${TASKS.length} tasks, 3 each, think ${opt.think} ms, commit habit: ${opt.commit}, ${opt.runs} run(s) summed\n`,
  );
  console.log(
    '| where | Rail | claims | writes landed | writes refused | lost edits | set aside | rewritten by itself | commits | swept commits | tasks worked twice | wall time (a run) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.cfg.where} | ${r.cfg.rail ? 'yes' : 'no'} | ${r.cfg.claims ? 'yes' : 'no'} | ${r.writes} | ${r.refused ?? 0} | ${r.lost} | ${r.aside} | ${r.ownRewrites} | ${r.commits} | ${r.swept} | ${r.twice} | ${(r.wall / Number(opt.runs)).toFixed(1)} s |`,
    );
  }
}
