// The real-agent end-to-end suite: each pinned agent, driven headless by the scripted model
// (fake-model.mjs), in a throw-away repository guarded by `rail init --hooks --agents`.
// Every step is judged from the file system and from the tool results the agent sent back to
// the model, never from the agent's own summary. RAIL_E2E_ALLOW_ALL=1 puts a `rail` first on
// PATH whose `hook` allows everything: the suite must then fail.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startModel } from './fake-model.mjs';

const rail = process.env.RAIL_BIN;
const agentBin = JSON.parse(process.env.RAIL_E2E_AGENTS); // {claude: "/…/claude"}
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'rail-e2e-'));
const binDir = path.join(tmpRoot, 'bin');
fs.mkdirSync(binDir);
const allowAll = process.env.RAIL_E2E_ALLOW_ALL === '1';
if (allowAll) {
  fs.writeFileSync(path.join(binDir, 'rail'), `#!/bin/sh\n[ "$1" = hook ] && { cat >/dev/null; exit 0; }\nexec '${rail}' "$@"\n`, {
    mode: 0o755,
  });
} else {
  fs.symlinkSync(rail, path.join(binDir, 'rail'));
}
const PATH = `${binDir}:${process.env.PATH}`;

const sh = (cwd, cmd, args, env = {}) => execFileSync(cmd, args, { cwd, env: { ...process.env, PATH, ...env }, encoding: 'utf8' });
const git = (cwd, ...args) => sh(cwd, 'git', args);

// A fresh repository: a claimed file of session `other`, rail hooks and agent configs.
function repo(name, agent) {
  const dir = path.join(tmpRoot, `${agent}-${name}`);
  fs.mkdirSync(path.join(dir, 'owned'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'e2e@example.com');
  git(dir, 'config', 'user.name', 'e2e');
  fs.writeFileSync(path.join(dir, 'owned/a.txt'), 'original\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'init');
  sh(dir, 'rail', ['init', '--hooks']);
  sh(dir, 'rail', ['init', '--agents', '--agent', agent]);
  if (allowAll) pointHooksAt(dir, path.join(binDir, 'rail'));
  sh(dir, 'rail', ['claim', 'owned-work', '--session', 'other', '--path', 'owned/**', '--purpose', 'e2e']);
  return dir;
}

// A station made after the agent configs were committed.
function committedStation(name, agent) {
  const main = repo(name, agent);
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'agent configs');
  const station = path.join(tmpRoot, `${agent}-${name}-station`);
  sh(main, 'rail', ['worktree', 'mine', '--dir', station, '--path', 'free/**', '--purpose', 'e2e']);
  return { main, station };
}

// README "Using it" order: `rail init --hooks`, `rail init --agents`, then `rail worktree`, with
// nothing committed in between (issue 27): the station gets its agent files from Rail.
function readmeStation(name, agent) {
  const main = repo(name, agent);
  const station = path.join(tmpRoot, `${agent}-${name}-station`);
  sh(main, 'rail', ['worktree', 'mine', '--dir', station, '--path', 'free/**', '--purpose', 'e2e']);
  if (allowAll) pointHooksAt(station, path.join(binDir, 'rail'));
  return { main, station };
}

// A worktree another tool made (where Claude Code's `--worktree NAME` puts one), then guarded
// with `rail worktree guard`; nothing committed.
function foreignWorktree(name, agent) {
  const main = repo(name, agent);
  const wt = path.join(main, '.claude/worktrees/fix');
  git(main, 'worktree', 'add', '-q', '-b', 'worktree-fix', wt);
  const before = sh(main, 'rail', ['worktree', 'list']);
  sh(main, 'rail', ['worktree', 'guard', wt]);
  if (allowAll) pointHooksAt(wt, path.join(binDir, 'rail'));
  return { main, station: wt, before };
}

// `rail init --agents` writes the hook command with the path of the rail that ran it: in the
// allow-all mode the agents' configs are pointed at the allowing wrapper instead.
function pointHooksAt(dir, wrapper) {
  const files = [
    '.claude/settings.json',
    '.claude/settings.local.json',
    '.codex/hooks.json',
    '.gemini/settings.json',
    '.github/hooks/rail.json',
  ];
  for (const f of files.map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f))) {
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replaceAll(rail, wrapper));
  }
}

const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null);

// One agent's driver: how it is run headless against the model on `port`.
const drivers = {
  claude: {
    file: (p, content) => ({ tool: 'Write', input: { file_path: p, content } }),
    shell: (command) => ({ tool: 'Bash', input: { command, description: 'e2e' } }),
    run(cwd, port) {
      return runAgent(
        agentBin.claude,
        ['-p', 'do the task', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'],
        cwd,
        {
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
          ANTHROPIC_API_KEY: 'dummy',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          IS_SANDBOX: '1',
          HOME: path.join(tmpRoot, 'home-claude'),
        },
      );
    },
  },
};

drivers.gemini = {
  file: (p, content) => ({ tool: 'write_file', input: { file_path: p, content } }),
  shell: (command) => ({ tool: 'run_shell_command', input: { command } }),
  run(cwd, port) {
    const home = path.join(tmpRoot, 'home-gemini');
    fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(home, '.gemini/settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    return runAgent(agentBin.gemini, ['-p', 'do the task', '--yolo', '--output-format', 'stream-json'], cwd, {
      GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
      GEMINI_API_KEY: 'dummy',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      HOME: home,
    });
  },
};

function runAgent(bin, args, cwd, env) {
  fs.mkdirSync(env.HOME, { recursive: true });
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd, env: { ...process.env, PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

// A scenario: where the agent runs, the script it is given, and the checks afterwards.
// Each check returns [name, ok, detail].
const denied = (r) => r && /other/.test(r.text) && /owned/.test(r.text) && /hook|blocked/i.test(r.text);
const scenarios = [
  {
    name: "main checkout: file tool into other's claim denied",
    setup: (agent) => ({ cwd: repo('main-file', agent) }),
    script: (d, cwd) => [d.file(path.join(cwd, 'owned/new.txt'), 'written\n')],
    checks: ({ cwd }, results) => [
      ['file not created', read(path.join(cwd, 'owned/new.txt')) === null],
      ['deny reason reached the model', denied(results[0]), results[0]?.text],
    ],
  },
  {
    name: "main checkout: shell write into other's claim denied",
    setup: (agent) => ({ cwd: repo('main-shell', agent) }),
    script: (d) => [d.shell('echo hacked > owned/a.txt')],
    checks: ({ cwd }, results) => [
      ['file unchanged', read(path.join(cwd, 'owned/a.txt')) === 'original\n'],
      ['deny reason reached the model', denied(results[0]), results[0]?.text],
    ],
  },
  {
    name: 'main checkout: unclaimed file stays writable',
    setup: (agent) => ({ cwd: repo('main-free', agent) }),
    script: (d, cwd) => [d.file(path.join(cwd, 'free.txt'), 'mine\n'), d.shell('echo more >> free.txt')],
    checks: ({ cwd }, results) => [
      ['both writes landed', read(path.join(cwd, 'free.txt')) === 'mine\nmore\n'],
      ['no denial sent back', results.length === 2 && !results.some((r) => /blocked|denied|hook error/i.test(r.text)), results],
    ],
  },
  {
    name: 'station with committed configs: file and shell denied, own path writable; session end releases',
    setup: (agent) => {
      const { main, station } = committedStation('station', agent);
      return { cwd: station, main };
    },
    script: (d, cwd) => [
      d.file(path.join(cwd, 'owned/new.txt'), 'written\n'),
      d.shell('echo hacked > owned/a.txt'),
      d.file(path.join(cwd, 'free/ok.txt'), 'ok\n'),
    ],
    checks: ({ cwd, main }, results) => [
      ['file-tool write absent', read(path.join(cwd, 'owned/new.txt')) === null],
      ['shell write absent', read(path.join(cwd, 'owned/a.txt')) === 'original\n'],
      ['file-tool deny reached the model', denied(results[0]), results[0]?.text],
      ['shell deny reached the model', denied(results[1]), results[1]?.text],
      ['own path written', read(path.join(cwd, 'free/ok.txt')) === 'ok\n'],
      [
        "session end released the station's claim",
        !/\| *mine *\|/.test(read(path.join(main, 'claims.md')) ?? ''),
        read(path.join(main, 'claims.md')),
      ],
      ["other's claim kept", /owned-work/.test(read(path.join(main, 'claims.md')) ?? '')],
    ],
  },
  {
    name: "station made in the README's order (nothing committed): file and shell denied, own path writable",
    setup: (agent) => {
      const { main, station } = readmeStation('readme', agent);
      return { cwd: station, main };
    },
    script: (d, cwd) => [
      d.file(path.join(cwd, 'owned/new.txt'), 'written\n'),
      d.shell('echo hacked > owned/a.txt'),
      d.file(path.join(cwd, 'free/ok.txt'), 'ok\n'),
    ],
    checks: ({ cwd, main }, results) => [
      ['file-tool write absent', read(path.join(cwd, 'owned/new.txt')) === null],
      ['shell write absent', read(path.join(cwd, 'owned/a.txt')) === 'original\n'],
      ['file-tool deny reached the model', denied(results[0]), results[0]?.text],
      ['shell deny reached the model', denied(results[1]), results[1]?.text],
      ['own path written', read(path.join(cwd, 'free/ok.txt')) === 'ok\n'],
      [
        "Rail's copies invisible to git in the station",
        git(cwd, 'status', '--porcelain', '--untracked-files=all') === '?? free/ok.txt\n',
        git(cwd, 'status', '--porcelain', '--untracked-files=all'),
      ],
      ["other's claim kept", /owned-work/.test(read(path.join(main, 'claims.md')) ?? '')],
    ],
  },
  {
    name: 'worktree another tool made, guarded with `rail worktree guard`: file and shell denied',
    setup: (agent) => {
      const { main, station, before } = foreignWorktree('foreign', agent);
      return { cwd: station, main, before };
    },
    script: (d, cwd) => [d.file(path.join(cwd, 'owned/new.txt'), 'written\n'), d.shell('echo hacked > owned/a.txt')],
    checks: ({ cwd, before }, results) => [
      ['listed as unguarded before', /UNGUARDED: /.test(before), before],
      ['file-tool write absent', read(path.join(cwd, 'owned/new.txt')) === null],
      ['shell write absent', read(path.join(cwd, 'owned/a.txt')) === 'original\n'],
      ['file-tool deny reached the model', denied(results[0]), results[0]?.text],
      ['shell deny reached the model', denied(results[1]), results[1]?.text],
    ],
  },
];

const agents = Object.keys(agentBin);
let passed = 0;
let total = 0;
const model = await startModel();
for (const agent of agents) {
  const d = drivers[agent];
  for (const sc of scenarios) {
    const ctx = sc.setup(agent);
    model.state.script = sc.script(d, ctx.cwd);
    model.state.results = [];
    const run = await d.run(ctx.cwd, model.port);
    for (const [name, ok, detail] of sc.checks(ctx, model.state.results)) {
      total++;
      if (ok) passed++;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${agent}: ${sc.name}: ${name}`);
      if (process.env.RAIL_E2E_VERBOSE === '1') console.log(`     ${JSON.stringify(detail ?? null)}`);
      if (!ok) console.log(`     got: ${JSON.stringify(detail ?? null)}\n     agent exit ${run.code}, last output: ${run.out.slice(-600)}`);
    }
  }
}
model.close();
if (process.env.RAIL_E2E_KEEP !== '1') fs.rmSync(tmpRoot, { recursive: true, force: true });
console.log(`agents e2e: ${passed}/${total} passed`);
process.exit(passed === total ? 0 : 1);
