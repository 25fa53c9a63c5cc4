// The real-agent end-to-end suite: each pinned agent (Claude Code, Codex CLI, Copilot CLI,
// Gemini CLI), driven headless by the scripted model (fake-model.mjs), in a throw-away
// repository guarded by `rail init --hooks --agents`.
// Every step is judged from the file system and from the tool results the agent sent back to
// the model, never from the agent's own summary. RAIL_E2E_ALLOW_ALL=1 puts a `rail` first on
// PATH whose `hook` allows everything: the suite must then fail.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { startModel, until } from './fake-model.mjs';

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

// The agents that tell their hooks their version, and the version each is pinned at (from the
// cache folder scripts/test-agents.sh installs it in: agents-<package>-<version>).
const namesVersion = new Set(['claude', 'copilot']);
const pinnedVersion = (agent) => /-(\d[\d.]*)\/node_modules\//.exec(agentBin[agent] ?? '')?.[1];

// One agent's driver: how it is run headless against the model on `port`.
const drivers = {
  claude: {
    file: (p, content) => ({ tool: 'Write', input: { file_path: p, content } }),
    // An existing file's whole content replaced (`before`: what the session read there).
    rewrite: (p, _before, content) => ({ tool: 'Write', input: { file_path: p, content } }),
    // Its Write refuses a file that exists and the session has not Read.
    read: (p) => ({ tool: 'Read', input: { file_path: p } }),
    shell: (command) => ({ tool: 'Bash', input: { command, description: 'e2e' } }),
    // `home`: a HOME of its own (two runs of the agent at once, each with its own model).
    env: (port, { home } = {}) => ({
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      ANTHROPIC_API_KEY: 'dummy',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      IS_SANDBOX: '1',
      HOME: path.join(tmpRoot, home ?? 'home-claude'),
    }),
    // `worktree`: started as `claude --worktree NAME`, which runs Rail's WorktreeCreate hook.
    run(cwd, env, { worktree } = {}) {
      const args = ['-p', 'do the task', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'];
      return runAgent(agentBin.claude, worktree ? [...args, '--worktree', worktree] : args, cwd, env);
    },
  },
};

drivers.gemini = {
  file: (p, content) => ({ tool: 'write_file', input: { file_path: p, content } }),
  rewrite: (p, _before, content) => ({ tool: 'write_file', input: { file_path: p, content } }),
  shell: (command) => ({ tool: 'run_shell_command', input: { command } }),
  // Trust: GEMINI_CLI_TRUST_WORKSPACE (`--skip-trust` alone loads no project hook); untrusted:
  // `--skip-trust` only, as a user who thinks that is enough.
  env(port, { untrusted, home: own } = {}) {
    const home = path.join(tmpRoot, own ?? (untrusted ? 'home-gemini-untrusted' : 'home-gemini'));
    fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(home, '.gemini/settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    const env = { GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`, GEMINI_API_KEY: 'dummy', HOME: home };
    if (!untrusted) env.GEMINI_CLI_TRUST_WORKSPACE = 'true';
    return env;
  },
  run(cwd, env, { untrusted } = {}) {
    const args = ['-p', 'do the task', '--yolo', '--output-format', 'stream-json'];
    return runAgent(agentBin.gemini, untrusted ? [...args, '--skip-trust'] : args, cwd, env);
  },
};

// Codex's file tool is its freeform apply_patch (offered to a gpt-5 model name); its shell tool
// is exec_command. The patch names the file by its absolute path, as Codex resolves it.
// A whole-file rewrite of an existing file as an update hunk (Copilot's apply_patch refuses to
// Add a file that exists): every line of `before` out, every line of `after` in.
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

const patch = (p, content) => ({
  tool: 'apply_patch',
  custom: true,
  input: `*** Begin Patch\n*** Add File: ${p}\n${content
    .split('\n')
    .slice(0, -1)
    .map((l) => `+${l}\n`)
    .join('')}*** End Patch\n`,
});

// The main checkout of the repository `cwd` is in (a station's project is its main checkout).
const mainOf = (cwd) => path.dirname(path.resolve(cwd, git(cwd, 'rev-parse', '--path-format=absolute', '--git-common-dir').trim()));

drivers.codex = {
  file: patch,
  rewrite: patchOver,
  shell: (command) => ({ tool: 'exec_command', input: { cmd: command } }),
  // Its own CODEX_HOME: the model provider on 127.0.0.1 and, unless untrusted, project trust for
  // the main checkout (which covers its stations). Hook trust is granted per run with
  // --dangerously-bypass-hook-trust (`codex exec` has no /hooks review), except in the hook-trust
  // scenarios (`hookTrust`), which run without it in a home of their own.
  env(port, { untrusted, cwd, hookTrust, home: own } = {}) {
    const home = path.join(
      tmpRoot,
      own ?? (hookTrust ? `home-codex-review-${hookTrust}` : untrusted ? 'home-codex-untrusted' : 'home-codex'),
    );
    const codexHome = path.join(home, '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    const trust = untrusted ? '' : `[projects.${JSON.stringify(mainOf(cwd))}]\ntrust_level = "trusted"\n`;
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      `model = "gpt-5.5"\nmodel_provider = "e2e"\nsandbox_mode = "danger-full-access"\napproval_policy = "never"\n` +
        `[model_providers.e2e]\nname = "e2e"\nbase_url = "http://127.0.0.1:${port}/v1"\nwire_api = "responses"\nenv_key = "RAIL_E2E_KEY"\n${trust}`,
    );
    return { HOME: home, CODEX_HOME: codexHome, RAIL_E2E_KEY: 'dummy' };
  },
  run(cwd, env, { hookTrust } = {}) {
    const bypass = hookTrust ? [] : ['--dangerously-bypass-hook-trust'];
    return runAgent(agentBin.codex, ['exec', '--json', ...bypass, 'do the task'], cwd, env);
  },
};

// Trusts every hook Codex finds for `cwd` that is not trusted yet, the way its /hooks review does:
// its app server's `hooks/list` (each hook's key and Codex's own hash of it), then
// `config/batchWrite` of `hooks.state` into the user config.toml. Returns the hooks it trusted.
async function codexTrustsHooks(env, cwd) {
  const child = spawn(agentBin.codex, ['app-server'], { cwd, env: agentEnv(env), stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  let id = 0;
  const call = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  try {
    await call('initialize', { clientInfo: { name: 'rail-e2e', version: '0' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'initialized' })}\n`);
    const list = await call('hooks/list', { cwds: [cwd] });
    const hooks = (list.result?.data ?? [])
      .flatMap((d) => d.hooks)
      .filter((h) => h.trustStatus === 'untrusted' || h.trustStatus === 'modified');
    const value = Object.fromEntries(hooks.map((h) => [h.key, { trusted_hash: h.currentHash }]));
    const wrote = await call('config/batchWrite', { edits: [{ keyPath: 'hooks.state', value, mergeStrategy: 'upsert' }] });
    return wrote.result?.status === 'ok' ? hooks : [];
  } finally {
    child.kill();
  }
}

// Copilot CLI in its BYOK mode with the OpenAI provider (Responses API): its file tool is the
// same freeform apply_patch, its shell tool `bash`. Trusted with --trust-folder (not persisted).
drivers.copilot = {
  file: patch,
  rewrite: patchOver,
  shell: (command) => ({ tool: 'bash', input: { command, description: 'e2e' } }),
  env(port, { untrusted, home: own } = {}) {
    const home = path.join(tmpRoot, own ?? (untrusted ? 'home-copilot-untrusted' : 'home-copilot'));
    return {
      HOME: home,
      COPILOT_HOME: path.join(home, '.copilot'),
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_WIRE_API: 'responses',
      COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${port}/v1`,
      COPILOT_PROVIDER_API_KEY: 'dummy',
      COPILOT_MODEL: 'gpt-5.4',
    };
  },
  run(cwd, env, { untrusted } = {}) {
    const args = ['-p', 'do the task', '--allow-all-tools', '--output-format', 'json'];
    return runAgent(agentBin.copilot, untrusted ? args : [...args, '--trust-folder'], cwd, env);
  },
};

// The environment an agent (and `rail doctor` judging it) runs with: the driver's, over this
// process's less any agent setting of the machine's own (a CODEX_HOME, COPILOT_HOME or Gemini
// trust variable there would make the agent read other files than the driver wrote).
function agentEnv(env) {
  const own = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CODEX_|COPILOT_|GEMINI_CLI_|CLAUDE_CONFIG_DIR$)/.test(k)));
  return { ...own, PATH, ...env };
}

function runAgent(bin, args, cwd, env) {
  fs.mkdirSync(env.HOME, { recursive: true });
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd, env: agentEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
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
      [
        'claims.log: Stop renewed the claim, then session end released it',
        stopThenEnd(read(path.join(main, 'claims.log'))),
        read(path.join(main, 'claims.log')),
      ],
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
  {
    name: '`claude --worktree hooked` starts in a Rail station (WorktreeCreate): its branch, its claim, its guard',
    agents: ['claude'],
    // README order, nothing committed: the station's hooks come from Rail's guard.
    setup: (agent) => {
      const main = repo('wt', agent);
      return { cwd: main, main, worktree: 'hooked', station: `${main}-hooked` };
    },
    script: (d, cwd) => {
      const station = `${cwd}-hooked`;
      return [
        d.shell(`git rev-parse --show-toplevel --abbrev-ref HEAD && grep '^hooked |' '${path.join(cwd, 'claims.md')}'`),
        d.file(path.join(station, 'owned/new.txt'), 'written\n'),
        d.shell('echo hacked > owned/a.txt'),
        d.file(path.join(station, 'mine.txt'), 'mine\n'),
      ];
    },
    checks: ({ main, station }, results) => {
      const where = results[0]?.text ?? '';
      const listed = JSON.parse(sh(main, 'rail', ['worktree', 'list', '--json'])).stations ?? [];
      const row = listed.find((s) => s.path === station);
      const log = read(path.join(main, 'claims.log')) ?? '';
      const lines = log.split('\n');
      const claimed = lines.findIndex((l) => /\| claimed \| hooked \| hooked\b/.test(l));
      // Its session over, the station holds the agent's untracked mine.txt: prune keeps it.
      const pruned = JSON.parse(sh(main, 'rail', ['--json', 'worktree', 'prune'])).report;
      const prunedKept = pruned.kept.find((k) => k.path === station)?.reasons.map((r) => r.kind);
      return [
        ['the agent worked in the station, on its branch', where.includes(`${station}\nhooked\n`), where],
        ["the task's claim was held by the station's session while it worked", /^hooked \| hooked \|/m.test(where), where],
        [
          'the station is where Rail puts it, on branch hooked, listed guarded by `rail worktree list`',
          fs.existsSync(station) &&
            git(station, 'rev-parse', '--abbrev-ref', 'HEAD').trim() === 'hooked' &&
            row?.branch === 'hooked' &&
            row?.guard?.missing?.length === 0,
          row,
        ],
        ['no .claude/worktrees in the main checkout', !fs.existsSync(path.join(main, '.claude/worktrees'))],
        ['file-tool write absent', read(path.join(station, 'owned/new.txt')) === null],
        ['shell write absent', read(path.join(station, 'owned/a.txt')) === 'original\n'],
        ['file-tool deny reached the model', denied(results[1]), results[1]?.text],
        ['shell deny reached the model', denied(results[2]), results[2]?.text],
        ['own write landed', read(path.join(station, 'mine.txt')) === 'mine\n'],
        [
          'claims.log: claimed by the station, then released at session end',
          claimed >= 0 && lines.slice(claimed + 1).some((l) => /\| released \| hooked \| hooked\b/.test(l)),
          log,
        ],
        ["other's claim kept", /owned-work/.test(read(path.join(main, 'claims.md')) ?? '')],
        [
          '`rail worktree prune` after the session keeps the station for the file it left uncommitted',
          JSON.stringify(prunedKept) === '["dirty"]' && pruned.removed.length === 0 && read(path.join(station, 'mine.txt')) === 'mine\n',
          pruned,
        ],
      ];
    },
  },
  {
    name: '`claude --worktree NAME` for a task another session holds: refused, the agent does not start',
    agents: ['claude'],
    setup: (agent) => {
      const main = repo('wt-held', agent);
      sh(main, 'rail', ['claim', 'taken', '--session', 'other', '--purpose', 'e2e']);
      return { cwd: main, main, worktree: 'taken', station: `${main}-taken` };
    },
    script: (d, cwd) => [d.file(path.join(cwd, 'never.txt'), 'x\n')],
    checks: ({ main, station }, results, run) => [
      ['claude exits non-zero', run.code !== 0, run.code],
      [
        "Rail's reason, naming the holder, is what it says",
        /WorktreeCreate hook failed: .*Rail: .*other/s.test(run.out),
        run.out.slice(-600),
      ],
      ['no station, no branch', !fs.existsSync(station) && git(main, 'branch', '--list', 'taken') === ''],
      ['the model was never asked to act', results.length === 0 && read(path.join(main, 'never.txt')) === null, results],
      ["the holder's claim kept", /^taken \| other \|/m.test(read(path.join(main, 'claims.md')) ?? '')],
    ],
  },
  {
    // Claude Code's own worktree (no Rail hook made it): `.claude/worktrees/NAME` on branch
    // worktree-NAME, locked by Claude Code with its session's pid, the lock left when it exits.
    name: "`claude --worktree fix` without Rail's hooks: `rail worktree prune` keeps its worktree while the session runs and while it holds work, removes it once merged and clean",
    agents: ['claude'],
    setup: () => {
      const main = path.join(tmpRoot, 'claude-prune');
      fs.mkdirSync(main);
      git(main, 'init', '-q', '-b', 'main');
      git(main, 'config', 'user.email', 'e2e@example.com');
      git(main, 'config', 'user.name', 'e2e');
      git(main, 'commit', '-q', '--allow-empty', '-m', 'init');
      sh(main, 'rail', ['init']);
      git(main, 'add', '-A');
      git(main, 'commit', '-q', '-m', 'rail init');
      return { cwd: main, main, worktree: 'fix', wt: path.join(main, '.claude/worktrees/fix') };
    },
    script: (d, cwd) => [d.shell('rail worktree prune --json'), d.file(path.join(cwd, '.claude/worktrees/fix/wip.txt'), 'wip\n')],
    checks: ({ main, wt }, results) => {
      const during = results[0]?.text ?? '';
      const existed = fs.existsSync(wt);
      const prune = () => JSON.parse(sh(main, 'rail', ['--json', 'worktree', 'prune'])).report;
      const keptFor = (report) => (report.kept.find((k) => k.path === wt)?.reasons ?? []).map((r) => r.kind);
      const lockedBefore = git(main, 'worktree', 'list', '--porcelain');
      const afterExit = prune();
      const exists1 = fs.existsSync(path.join(wt, 'wip.txt'));
      git(wt, 'add', 'wip.txt');
      git(wt, 'commit', '-q', '-m', 'wip');
      const committed = prune();
      const exists2 = fs.existsSync(path.join(wt, 'wip.txt'));
      git(main, 'merge', '-q', 'worktree-fix');
      const merged = prune();
      const log = read(path.join(main, 'claims.log')) ?? '';
      return [
        [
          'inside the running session: kept, as its directory, its process and its live Claude Code lock',
          /"removed": \[\]/.test(during) &&
            /"kind": "here"/.test(during) &&
            /"kind": "locked-by-session"/.test(during) &&
            /"kind": "processes"/.test(during) &&
            existed,
          during,
        ],
        ['Claude Code left its session lock after it exited', /locked claude session fix \(pid \d+/.test(lockedBefore), lockedBefore],
        [
          "after the session: kept for its untracked file, the gone session's lock no reason",
          JSON.stringify(keptFor(afterExit)) === '["dirty"]' && exists1,
          afterExit,
        ],
        ['committed, not merged: kept for its commit', JSON.stringify(keptFor(committed)) === '["unmerged"]' && exists2, committed],
        [
          'merged and clean: removed, its bytes counted, its branch deleted, the removal logged with the lock lifted',
          merged.removed.some((r) => r.path === wt && r.bytes > 0) &&
            merged.freed_bytes > 0 &&
            !fs.existsSync(wt) &&
            git(main, 'branch', '--list', 'worktree-fix') === '' &&
            log.split('\n').some((l) => /\| station-removed \|/.test(l) && l.includes(wt) && /unlocked: Claude Code session pid/.test(l)),
          { merged, log },
        ],
      ];
    },
  },
  {
    name: "Stop renews the station's claim: its time moves (rail.yaml `on_stop: nothing`, so session end keeps it)",
    setup: (agent) => {
      const main = repo('stop', agent);
      fs.writeFileSync(path.join(main, 'rail.yaml'), 'on_stop: nothing\n');
      git(main, 'add', '-A');
      git(main, 'commit', '-q', '-m', 'agent configs, on_stop: nothing');
      const station = path.join(tmpRoot, `${agent}-stop-station`);
      // The claim is made ten minutes ago, so a renewal now moves its time.
      const at = new Date(Date.now() - 600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      sh(main, 'rail', ['worktree', 'mine', '--dir', station, '--path', 'free/**', '--purpose', 'e2e'], { RAIL_NOW: at });
      return { cwd: station, main, at };
    },
    script: (d, cwd) => [d.file(path.join(cwd, 'free/ok.txt'), 'ok\n')],
    checks: ({ cwd, main, at }, _results, run) => {
      const line = (read(path.join(main, 'claims.md')) ?? '').split('\n').find((l) => /^mine \| mine \|/.test(l));
      const renewed = /renewed: (\S+)/.exec(line ?? '')?.[1];
      const sessions = JSON.parse(sh(main, 'rail', ['board', '--json'])).sessions ?? [];
      const mine = sessions.find((x) => x.name === 'mine');
      return [
        ['own path written', read(path.join(cwd, 'free/ok.txt')) === 'ok\n'],
        ['the claim is still held after session end (on_stop: nothing)', line !== undefined, read(path.join(main, 'claims.md'))],
        ["Stop renewed it: its time moved past the claim's", renewed !== undefined && renewed > at, { at, line }],
        ["rail board --json: the station's session guarded by this agent's hook", mine?.hook?.agent === run.agent && !mine.unguarded, mine],
        // Claude Code and the Copilot CLI name their version to their hooks; Codex and Gemini don't.
        [
          'the guard mark names the agent version where the agent gives it',
          Boolean(mine?.hook) && mine.hook.version === (namesVersion.has(run.agent) ? pinnedVersion(run.agent) : undefined),
          { hook: mine?.hook, pinned: pinnedVersion(run.agent) },
        ],
      ];
    },
  },
  {
    name: 'a shell write by a program outside the table (python3 -c) is caught after the tool and put back',
    setup: (agent) => ({ cwd: repo('after', agent) }),
    script: (d) => [d.shell(`python3 -c "open('owned/a.txt', 'w').write('hacked by python')"`)],
    checks: ({ cwd }, results) => {
      const log = read(path.join(cwd, 'claims.log')) ?? '';
      return [
        ["the owner's content is back", read(path.join(cwd, 'owned/a.txt')) === 'original\n', read(path.join(cwd, 'owned/a.txt'))],
        [
          'the after-tool report reached the model',
          /owned\/a\.txt is claimed by other/.test(results[0]?.text ?? '') && /previous content is back/.test(results[0]?.text ?? ''),
          results[0]?.text,
        ],
        [
          'claims.log: a bypass line for the file, put back',
          log.split('\n').some((l) => /\| bypass \|/.test(l) && /path: owned\/a\.txt/.test(l) && /fix: put back/.test(l)),
          log,
        ],
      ];
    },
  },
  {
    // A tool call that fails after it wrote (a non-zero exit) must be checked too: some agents
    // send a failed call to another after-tool event than a successful one.
    name: 'a shell write that then fails (python3 -c …; exit 3) is caught after the tool and put back',
    setup: (agent) => ({ cwd: repo('after-fail', agent) }),
    script: (d) => [d.shell(`python3 -c "open('owned/a.txt', 'w').write('hacked, then failed')"; exit 3`)],
    checks: ({ cwd }, results) => [
      ["the owner's content is back", read(path.join(cwd, 'owned/a.txt')) === 'original\n', read(path.join(cwd, 'owned/a.txt'))],
      ['the after-tool report reached the model', /owned\/a\.txt is claimed by other/.test(results[0]?.text ?? ''), results[0]?.text],
    ],
  },
  {
    name: "untrusted project: no Rail hook runs, and `rail doctor` (reading the agent's own config) exits 1 naming the trust fix",
    // Claude Code's headless mode has no folder trust that gates hooks.
    agents: ['codex', 'copilot', 'gemini'],
    setup: (agent) => ({ cwd: repo('untrusted', agent), untrusted: true }),
    script: (d) => [d.shell('echo unguarded > owned/a.txt')],
    checks: ({ cwd }, results, run) => {
      const doctor = railDoctor(cwd, run);
      const said = `${doctor.stdout}${doctor.stderr}`;
      return [
        [
          'as expected untrusted, the write went through unjudged',
          read(path.join(cwd, 'owned/a.txt')) === 'unguarded\n' && !denied(results[0]),
          results[0]?.text,
        ],
        ['rail doctor exits 1', doctor.status === 1, { status: doctor.status, said }],
        ['rail doctor names the folder and its trust fix', said.includes(cwd) && trustFix[run.agent].test(said), said],
      ];
    },
  },
  {
    name: "trusted project, Rail's hooks not trusted, `codex exec` without the bypass: Codex skips them without a word, and `rail doctor` exits 1 naming hook trust",
    agents: ['codex'],
    setup: (agent) => ({ cwd: repo('unreviewed', agent), hookTrust: 'none' }),
    script: (d) => [d.shell('echo unguarded > owned/a.txt')],
    checks: ({ cwd }, results, run) => {
      const doctor = railDoctor(cwd, run);
      const said = `${doctor.stdout}${doctor.stderr}`;
      return [
        [
          'as Codex behaves, the write went through unjudged, and its output says nothing of hooks',
          read(path.join(cwd, 'owned/a.txt')) === 'unguarded\n' && !denied(results[0]) && !/hook/i.test(run.out.replaceAll(tmpRoot, '')),
          { result: results[0]?.text, out: run.out.slice(-300) },
        ],
        ['rail doctor exits 1', doctor.status === 1, { status: doctor.status, said }],
        [
          'rail doctor names the untrusted hooks and /hooks',
          /has not trusted Rail's hooks/.test(said) && /PreToolUse, PostToolUse, Stop, SessionEnd/.test(said) && /\/hooks/.test(said),
          said,
        ],
      ];
    },
  },
  {
    name: "Rail's hooks trusted as Codex's /hooks review trusts them (its app server): `codex exec` without the bypass is denied, and `rail doctor` finds nothing",
    agents: ['codex'],
    setup: (agent) => ({ cwd: repo('reviewed', agent), hookTrust: 'codex' }),
    prepare: async (ctx, env) => {
      ctx.trusted = await codexTrustsHooks(env, ctx.cwd);
    },
    script: (d) => [d.shell('echo hacked > owned/a.txt')],
    checks: ({ cwd, trusted }, results, run) => {
      const doctor = railDoctor(cwd, run, '--json');
      let findings = null;
      try {
        findings = JSON.parse(doctor.stdout).findings;
      } catch {}
      return [
        [
          "Codex listed Rail's four hooks as untrusted, and trusted them",
          trusted.length === 4 && trusted.every((h) => / hook codex$/.test(h.command)),
          trusted.map((h) => [h.key, h.trustStatus]),
        ],
        ['file unchanged', read(path.join(cwd, 'owned/a.txt')) === 'original\n'],
        ['deny reason reached the model', denied(results[0]), results[0]?.text],
        [
          'rail doctor: exit 0, nothing for Codex (its hash of each hook is the one Codex wrote)',
          doctor.status === 0 && Array.isArray(findings) && findings.length === 0,
          { status: doctor.status, out: doctor.stdout, err: doctor.stderr },
        ],
      ];
    },
  },
  // Issue 44: an agent team drives the rail. The lead creates task "alpha" (`paths: alpha/**`)
  // in its task list, sees it in `rail ready`, and spawns a teammate (its own script, chosen by
  // its prompt) that sets the task in progress (its claim), writes a file outside the claim and
  // tries to complete it (Rail's gate refuses, the reason reaches the model), removes that file
  // and completes it (allowed: the claim released, the backlog entry ticked).
  {
    name: 'agent team: a task on the backlog, claimed by its teammate, gated at completion',
    agents: ['claude'],
    env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1', CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' },
    setup: (agent) => {
      const cwd = repo('team', agent);
      fs.writeFileSync(path.join(cwd, 'rail.yaml'), 'check: test -f alpha/a.txt\n');
      git(cwd, 'add', '-A');
      git(cwd, 'commit', '-q', '-m', 'agent configs and the check');
      return { cwd };
    },
    script: (d) => [
      { tool: 'ToolSearch', input: { query: 'select:TaskCreate,TaskUpdate,TaskList' } },
      { tool: 'TaskCreate', input: { subject: 'alpha', description: 'paths: alpha/**' } },
      d.shell('rail ready'),
      {
        tool: 'Agent',
        input: { description: 'alpha worker', prompt: 'TEAMMATE-ALPHA: take task 1 and finish it', name: 'mate', run_in_background: false },
      },
    ],
    scripts: (d, cwd) => [
      {
        when: 'TEAMMATE-ALPHA',
        script: [
          { tool: 'ToolSearch', input: { query: 'select:TaskUpdate' } },
          { tool: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } },
          d.file(path.join(cwd, 'beta.txt'), 'outside\n'),
          d.file(path.join(cwd, 'alpha/a.txt'), 'inside\n'),
          { tool: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
          d.shell('rm beta.txt'),
          { tool: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
        ],
      },
    ],
    checks: ({ cwd }, results) => {
      const log = read(path.join(cwd, 'claims.log')) ?? '';
      const claims = read(path.join(cwd, 'claims.md')) ?? '';
      const mate = (step) => results.find((r) => r.id === `toolu_s0step${step}`);
      const lead = (step) => results.find((r) => r.id === `toolu_step${step}`);
      const claimer = /\| claimed \| alpha \| (\S+) \|/.exec(log)?.[1];
      return [
        ['the task went on the backlog from TaskCreated', /\| planned \| alpha \| main~claude-[a-z0-9]{8} \|/.test(log), log],
        ['`rail ready` listed it', /alpha/.test(lead(2)?.text ?? ''), lead(2)?.text],
        [
          "the teammate's in_progress claimed it as the teammate's session",
          /^main~claude-[a-z0-9]{8}~sub-[a-z0-9]{8}$/.test(claimer ?? ''),
          log,
        ],
        ['the claim took the paths from the description', /\| claimed \| alpha \| \S+ \|.*paths: alpha\/\*\*/.test(log), log],
        [
          'the gate refused the completion, its reason naming the file outside the claim reached the model',
          /beta\.txt/.test(mate(4)?.text ?? '') && /alpha is not done/.test(mate(4)?.text ?? ''),
          mate(4)?.text,
        ],
        ['the refusal is logged as out of scope', /\| done \| alpha \| \S+ \|.*verdict: out-of-scope/.test(log), log],
        ['the second completion passed the gate', /\| done \| alpha \| \S+ \|.*verdict: passed/.test(log), log],
        ['the claim is released and the backlog entry ticked', !/^alpha \|/m.test(claims) && /^- \[x\] alpha \|/m.test(claims), claims],
        ["the teammate's second completion was not refused", !/not done/.test(mate(6)?.text ?? 'missing'), mate(6)?.text],
      ];
    },
  },
];

// Issue 44: two Claude Code processes at once in one checkout on `main`, no RAIL_SESSION, each
// with a model of its own. A claims alpha/** from its shell, then waits in a shell command on a
// FIFO the runner opens only after B is done; B, started once A's claim is on the rail, is
// denied A's path (naming A's session), claims beta/** and ends. Then: two sessions were on the
// board, B's end released B's claim and left A's; A, let go, writes its own path and its end
// releases its claim.
async function twoClaudeSessions() {
  const d = drivers.claude;
  const cwd = repo('two-sessions', 'claude');
  const gate = path.join(tmpRoot, 'two-sessions.fifo');
  execFileSync('mkfifo', [gate]);
  const models = [await startModel(), await startModel()];
  models[0].state.script = [
    d.shell('rail claim alpha --path "alpha/**" --purpose e2e'),
    { tool: 'Bash', input: { command: `cat '${gate}' > /dev/null`, description: 'e2e wait', timeout: 600000 } },
    d.file(path.join(cwd, 'alpha/a.txt'), 'a\n'),
  ];
  models[1].state.script = [
    d.file(path.join(cwd, 'alpha/b.txt'), 'b\n'),
    d.shell('rail claim beta --path "beta/**" --purpose e2e'),
    d.file(path.join(cwd, 'beta/b.txt'), 'b\n'),
  ];
  for (const m of models) m.state.results = [];
  const env = (i) => ({ ...d.env(models[i].port), HOME: path.join(tmpRoot, `home-claude-${i}`) });
  const claims = () => read(path.join(cwd, 'claims.md')) ?? '';
  const holder = (task) => new RegExp(`^${task} \\| (\\S+) \\|`, 'm').exec(claims())?.[1];
  const a = d.run(cwd, env(0));
  // Waits for A's claim to be on the rail: claims.md is replaced on every write, so its
  // directory is watched (and read once first, in case the claim landed before the watch).
  await new Promise((resolve) => {
    const watcher = fs.watch(cwd, () => {
      if (holder('alpha')) {
        watcher.close();
        resolve();
      }
    });
    if (holder('alpha')) {
      watcher.close();
      resolve();
    }
    // A that ends without claiming fails the checks below rather than hanging the suite.
    a.then(() => {
      watcher.close();
      resolve();
    });
  });
  const aSession = holder('alpha');
  const b = await d.run(cwd, env(1));
  const afterB = claims();
  const board = JSON.parse(sh(cwd, 'rail', ['board', '--json']));
  fs.writeFileSync(gate, 'go\n');
  const aRun = await a;
  for (const m of models) m.close();
  const bResults = models[1].state.results;
  const log = read(path.join(cwd, 'claims.log')) ?? '';
  const bSession = /\| claimed \| beta \| (\S+) \|/.exec(log)?.[1];
  const live = board.sessions.filter((x) => x.live > 0).map((x) => x.name);
  const esc = (t) => (t ?? '').replace(/[.*+?^${}()|[\]\\~]/g, '\\$&');
  return [
    ["A's claim is its own session, main~claude-<id>", /^main~claude-[a-z0-9]{8}$/.test(aSession ?? ''), aSession],
    [
      "B's claim is another session of its own",
      /^main~claude-[a-z0-9]{8}$/.test(bSession ?? '') && bSession !== aSession,
      { aSession, bSession },
    ],
    [
      "B was denied A's path, naming A",
      read(path.join(cwd, 'alpha/b.txt')) === null && (bResults[0]?.text ?? '').includes(aSession),
      bResults[0]?.text,
    ],
    ['B wrote its own path', read(path.join(cwd, 'beta/b.txt')) === 'b\n', bResults],
    [
      "B's end released B's claim and left A's",
      !/^beta \|/m.test(afterB) && new RegExp(`^alpha \\| ${esc(aSession)} \\|`, 'm').test(afterB),
      afterB,
    ],
    ["the board shows A's session live after B's end", live.includes(aSession), live],
    ['A, let go, wrote its own path', read(path.join(cwd, 'alpha/a.txt')) === 'a\n', { code: aRun.code, out: aRun.out.slice(-400) }],
    ["A's end released A's claim; other's claim kept", !/^alpha \|/m.test(claims()) && /owned-work/.test(claims()), claims()],
    ['both agents exited 0', aRun.code === 0 && b.code === 0, { a: aRun.code, b: b.code, bOut: b.out.slice(-400) }],
  ];
}

// Issue 43: two runs of the same agent program in ONE checkout (no station, no claim), each its
// own session with a model of its own. Beta's agent writes src/auth/token.ts (allowed: nobody
// claims it) and its model holds its next step, so beta stays live with the change uncommitted;
// alpha's agent then writes the same file: denied before it runs, in that agent's own form, the
// model reading beta's session and the file, beta's bytes untouched. Beta's agent commits (its
// model let go), and stays live; alpha's next write (its model let go) goes through. The steps
// wait on tool results the models record, never on time.
const overwrite = 'one checkout, two sessions: a write over the other session’s uncommitted file is denied';
// How each agent shows its hook's denial to the model (docs/testing.md).
const denialForm = {
  claude: /PreToolUse:Write hook error/,
  codex: /blocked by PreToolUse hook/,
  copilot: /Denied by preToolUse hook/,
  gemini: /Tool execution blocked/,
};

// The sessions whose work in flight (<git common dir>/rail/flight/<session>) holds `rel`.
function inFlight(cwd, rel) {
  const dir = path.join(cwd, '.git/rail/flight');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).filter((f) => f.isFile()) : [];
  return files
    .map((f) => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, f.name), 'utf8'));
      } catch {
        return null;
      }
    })
    .filter((f) => f?.entries?.some((e) => e.path === rel))
    .map((f) => f.session);
}

// A promise and the function that settles it.
function gate() {
  let open;
  const promise = new Promise((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

async function oneCheckoutOverwrite(agent) {
  const d = drivers[agent];
  const cwd = repo('overwrite', agent);
  const rel = 'src/auth/token.ts';
  const file = path.join(cwd, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const original = 'export const token = "v1";\n';
  fs.writeFileSync(file, original);
  git(cwd, 'add', rel);
  git(cwd, 'commit', '-q', '--no-verify', '-m', 'token');
  const betaText = 'export const token = "v2"; // beta\'s fix\n';
  const alphaText = 'export const token = "v3"; // alpha\'s rewrite\n';
  const [commit, again, end] = [gate(), gate(), gate()];
  const reads = d.read ? [d.read(file)] : [];
  const w = reads.length; // the step that writes
  const [beta, alpha] = [await startModel(), await startModel()];
  beta.state.script = [
    ...reads,
    d.rewrite(file, original, betaText),
    { ...d.shell(`git add ${rel} && git commit -q -m "beta: token fix"`), after: commit.promise },
    { after: end.promise },
  ];
  // Denied its write, alpha's agent commits everything (`git add -A`), as agents often do: the
  // commit would take beta's uncommitted fix, and is denied before it runs (Gemini CLI's shell
  // runs git with its hooks off: the pre-commit hook alone would never see it).
  alpha.state.script = [
    ...reads,
    d.rewrite(file, betaText, alphaText),
    d.shell('git add -A && git commit -q -m "alpha: everything"'),
    { ...d.rewrite(file, betaText, alphaText), after: again.promise },
  ];
  // Codex runs its commands in a login shell, whose profile resets PATH: this `rail` (which git's
  // pre-commit hook runs by name) is put on it there, as a user's own `rail` is.
  const env = (m, who) => {
    const e = d.env(m.port, { cwd, home: `home-${agent}-${who}` });
    fs.mkdirSync(e.HOME, { recursive: true });
    fs.writeFileSync(path.join(e.HOME, '.bash_profile'), `export PATH='${binDir}':"$PATH"\n`);
    return e;
  };
  const betaRun = d.run(cwd, env(beta, 'beta'));
  // Each wait also ends if that agent exits early (the checks then say what is missing).
  await Promise.race([until(beta, () => beta.state.results.length > w), betaRun]);
  const afterBeta = read(file);
  const betas = inFlight(cwd, rel);
  const alphaRun = d.run(cwd, env(alpha, 'alpha'));
  await Promise.race([until(alpha, () => alpha.state.results.length > w), alphaRun]);
  const afterDenial = read(file);
  const denial = alpha.state.results[w]?.text ?? '';
  await Promise.race([until(alpha, () => alpha.state.results.length > w + 1), alphaRun]);
  const sweep = alpha.state.results[w + 1]?.text ?? '';
  const headAfterSweep = spawnSync('git', ['log', '-1', '--format=%s'], { cwd, encoding: 'utf8' }).stdout.trim();
  commit.open();
  await Promise.race([until(beta, () => beta.state.results.length > w + 1), betaRun]);
  const committed = spawnSync('git', ['show', `HEAD:${rel}`], { cwd, encoding: 'utf8' }).stdout;
  again.open();
  const a = await alphaRun;
  const afterAlpha = read(file);
  const second = alpha.state.results[w + 2]?.text ?? '';
  end.open();
  const b = await betaRun;
  for (const m of [beta, alpha]) m.close();
  const log = read(path.join(cwd, 'claims.log')) ?? '';
  const refused = log.split('\n').find((l) => /\| refused \|/.test(l) && /in flight/.test(l)) ?? '';
  const betaSession = betas[0] ?? '(none)';
  return [
    [
      "beta's write went through its hooks and is its work in flight",
      afterBeta === betaText && betas.length === 1,
      { afterBeta, betas, result: beta.state.results[w]?.text },
    ],
    [
      `alpha's write was denied in ${agent}'s own form, the model reading beta's session and the file`,
      denialForm[agent].test(denial) && denial.includes(betaSession) && denial.includes(rel),
      { denial, betaSession },
    ],
    ["beta's content intact on disk after the denial", afterDenial === betaText, afterDenial],
    [
      `alpha's \`git add -A && git commit\` was denied before it ran, naming beta's session and the file`,
      /PreToolUse:\w+ hook error|blocked by PreToolUse hook|Denied by preToolUse hook|Tool execution blocked/.test(sweep) &&
        sweep.includes(betaSession) &&
        sweep.includes(rel) &&
        headAfterSweep === 'token',
      { sweep, headAfterSweep },
    ],
    [
      'the denial logged for alpha, a session of its own',
      refused !== '' && !refused.includes(`| ${betaSession} |`) && refused.includes(rel),
      refused || log,
    ],
    [
      "beta's commit holds beta's content",
      committed === betaText,
      { committed, result: beta.state.results[w + 1]?.text, betaOut: b.out.slice(-600) },
    ],
    [
      "after beta's commit, alpha's write went through",
      afterAlpha === alphaText && !denialForm[agent].test(second),
      { afterAlpha, second },
    ],
    [
      'both agents exited 0',
      a.code === 0 && b.code === 0,
      { alpha: a.code, beta: b.code, alphaOut: a.out.slice(-400), betaOut: b.out.slice(-400) },
    ],
  ];
}

// `rail doctor` with the agent's environment, so it reads the trust files the agent read.
function railDoctor(cwd, run, ...args) {
  return spawnSync('rail', ['doctor', ...args], { cwd, env: agentEnv(run.env), encoding: 'utf8' });
}

// What `rail doctor` names as each agent's trust fix.
const trustFix = {
  codex: /trust_level = "trusted"/,
  copilot: /trusted_folders/,
  gemini: /TRUST_FOLDER/,
};

// claims.log: the station's claim renewed (Stop) and, after that, released (session end).
function stopThenEnd(log) {
  const lines = (log ?? '').split('\n');
  const renewed = lines.findIndex((l) => /\| renewed \| mine \| mine\b/.test(l));
  return renewed >= 0 && lines.slice(renewed + 1).some((l) => /\| released \| mine \| mine\b/.test(l));
}

// RAIL_E2E_ONLY=codex (or a comma list) drives only those agents; RAIL_E2E_SCENARIO=TEXT only
// the scenarios whose name holds TEXT.
const only = process.env.RAIL_E2E_ONLY?.split(',').filter(Boolean);
const scenarioText = process.env.RAIL_E2E_SCENARIO;
const agents = Object.keys(agentBin).filter((a) => !only || only.includes(a));
let passed = 0;
let total = 0;
const model = await startModel();
for (const agent of agents) {
  const d = drivers[agent];
  for (const sc of scenarios.filter(
    (sc) => (!sc.agents || sc.agents.includes(agent)) && (!scenarioText || sc.name.includes(scenarioText)),
  )) {
    const ctx = sc.setup(agent);
    model.state.script = sc.script(d, ctx.cwd);
    model.state.scripts = sc.scripts ? sc.scripts(d, ctx.cwd) : [];
    model.state.results = [];
    const env = { ...d.env(model.port, ctx), ...(sc.env ?? {}) };
    if (sc.prepare) await sc.prepare(ctx, env);
    const run = await d.run(ctx.cwd, env, ctx);
    for (const [name, ok, detail] of sc.checks(ctx, model.state.results, { ...run, env, agent })) {
      total++;
      if (ok) passed++;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${agent}: ${sc.name}: ${name}`);
      if (process.env.RAIL_E2E_VERBOSE === '1') console.log(`     ${JSON.stringify(detail ?? null)}`);
      if (!ok) console.log(`     got: ${JSON.stringify(detail ?? null)}\n     agent exit ${run.code}, last output: ${run.out.slice(-600)}`);
    }
  }
}
const twoSessions = 'two sessions at once in one checkout on main';
if (agents.includes('claude') && (!scenarioText || twoSessions.includes(scenarioText))) {
  for (const [name, ok, detail] of await twoClaudeSessions()) {
    total++;
    if (ok) passed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} claude: ${twoSessions}: ${name}`);
    if (!ok || process.env.RAIL_E2E_VERBOSE === '1') console.log(`     got: ${JSON.stringify(detail ?? null)}`);
  }
}
if (!scenarioText || overwrite.includes(scenarioText)) {
  for (const agent of agents) {
    for (const [name, ok, detail] of await oneCheckoutOverwrite(agent)) {
      total++;
      if (ok) passed++;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${agent}: ${overwrite}: ${name}`);
      if (!ok || process.env.RAIL_E2E_VERBOSE === '1') console.log(`     got: ${JSON.stringify(detail ?? null)}`);
    }
  }
}
model.close();
if (process.env.RAIL_E2E_KEEP !== '1') fs.rmSync(tmpRoot, { recursive: true, force: true });
console.log(`agents e2e: ${passed}/${total} passed`);
process.exit(passed === total ? 0 : 1);
