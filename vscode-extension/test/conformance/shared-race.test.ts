// Shared-rail conformance: the extension's host code (real processes through test/driver.ts) and
// the `rail` CLI, on two clones of one bare remote — by path, and behind git-daemon on 127.0.0.1 —
// racing for the same tasks in shared mode. The remote's compare-and-swap must make them agree:
//
// - exactly one winner per task, and it is the holder on the remote ref;
// - one commit per successful operation (no lost or duplicated commit);
// - every winner logged once (`claimed` lines in the ref's claims.log);
// - nobody failed: every loser was refused (exit 1), none gave up or lost the remote (exit 3);
// - each clone's mirror converges on the shared state after a sync, and validates.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { discover } from '../../src/host/repo';
import { syncShared } from '../../src/host/shared';
import { DRIVER, RAIL_BIN, rail, read, tempDir, waitFor } from '../shared/fixtures';
import { daemonRemote, machines, pathRemote, sharedCommits, sharedFile, type Remote } from '../shared/remotes';

const TASKS = Array.from({ length: 6 }, (_, i) => `task-${i}`);
const PER_KIND = 4;

interface Racer {
  who: string;
  /** `task code` per task tried. */
  lines: string[];
  stderr: string;
  code: number | null;
}

function run(cmd: string, args: string[], cwd: string, who: string): Promise<Racer> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, RAIL_LOCK_TIMEOUT_MS: '60000', RAIL: RAIL_BIN };
    delete env.RAIL_SESSION;
    delete env.RAIL_LOCAL;
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    child.on('close', (code) => resolve({ who, lines: out.split('\n').filter((l) => l), stderr: err, code }));
  });
}

/** Every racer tries every task, each starting at a different one. */
function order(offset: number): string[] {
  return TASKS.map((_, i) => TASKS[(i + offset) % TASKS.length] ?? '');
}

async function race(remote: Remote): Promise<void> {
  const clones = machines(remote, 2, 'rail-shared-race-');
  const base = sharedCommits(remote);
  // A start line: every racer says when it is loaded, then waits for the go file. Otherwise the
  // CLIs, up in milliseconds, would have claimed everything before node had started.
  const marks = tempDir('rail-race-marks-');
  const go = path.join(marks, 'go');
  const racers: Promise<Racer>[] = [];
  clones.forEach((dir, m) => {
    for (let p = 0; p < PER_KIND; p++) {
      const ext = `m${m}-ext${p}`;
      const extArgs = ['--rail', dir, '--session', ext, '--ready', path.join(marks, ext), '--go', go];
      racers.push(run(process.execPath, [DRIVER, ...extArgs, 'race', ...order(p + m * 3)], dir, ext));
      const cli = `m${m}-cli${p}`;
      const script =
        `touch '${path.join(marks, cli)}'; while [ ! -e '${go}' ]; do sleep 0.005; done; ` +
        `for t in ${order(p * 2 + m + 1).join(' ')}; do "$RAIL" --session ${cli} claim "$t" >/dev/null; echo "$t $?"; done`;
      racers.push(run('sh', ['-c', script], dir, cli));
    }
  });
  await waitFor(() => fs.readdirSync(marks).length === racers.length, 60_000, 'every racer to be ready');
  const started = Date.now();
  fs.writeFileSync(go, '');
  const results = await Promise.all(racers);
  const elapsed = Date.now() - started;

  const winners = new Map<string, string[]>();
  let replans = 0;
  for (const r of results) {
    assert.equal(r.code, 0, `${r.who} exited ${r.code}: ${r.stderr}`);
    assert.equal(r.lines.length, TASKS.length, `${r.who} tried every task: ${r.lines.join(', ')}\n${r.stderr}`);
    for (const line of r.lines) {
      const [task = '', code, attempts] = line.split(' ');
      if (attempts !== undefined) replans += Number(attempts) - 1;
      if (code === '0') winners.set(task, [...(winners.get(task) ?? []), r.who]);
      else assert.equal(code, '1', `${r.who}: ${task} was refused, not failed (exit ${code}): ${r.stderr}`);
    }
  }
  const shared = sharedFile(remote, 'claims.md') ?? '';
  const held = new Map(
    shared
      .split('\n')
      .filter((l) => l.startsWith('task-'))
      .map((l) => {
        const [task = '', session = ''] = l.split(' | ');
        return [task, session] as const;
      }),
  );
  assert.equal(held.size, TASKS.length, `one line per task on the remote:\n${shared}`);
  assert.equal(shared.split('\n').filter((l) => l.startsWith('task-')).length, TASKS.length, 'no task twice');
  for (const task of TASKS) {
    const won = winners.get(task) ?? [];
    assert.equal(won.length, 1, `${task}: exactly one winner, got ${won.join(', ') || 'none'}`);
    assert.equal(held.get(task), won[0], `${task}: the winner holds it on the remote`);
  }
  assert.equal(sharedCommits(remote), base + TASKS.length, 'one commit per successful operation');
  const claimed = (sharedFile(remote, 'claims.log') ?? '').split('\n').filter((l) => l.split(' | ')[1] === 'claimed');
  assert.equal(claimed.length, TASKS.length, `every winner logged once:\n${claimed.join('\n')}`);
  for (const task of TASKS) {
    const lines = claimed.filter((l) => l.split(' | ')[2] === task);
    assert.equal(lines.length, 1, `${task} logged once`);
    assert.equal(lines[0]?.split(' | ')[3], held.get(task));
  }
  const kinds = [...winners.values()].map((w) => (w[0]?.includes('ext') ? 'ext' : 'cli'));
  console.log(
    `shared race over ${remote.url.startsWith('git://') ? 'git-daemon' : 'a path'}: 2 clones x (${PER_KIND} extension + ${PER_KIND} CLI processes), ` +
      `${TASKS.length} tasks, ${results.length * TASKS.length} claims tried in ${(elapsed / 1000).toFixed(1)} s; ` +
      `won by ${kinds.filter((k) => k === 'ext').length} extension / ${kinds.filter((k) => k === 'cli').length} CLI processes; ` +
      `the extension processes had ${replans} pushes rejected and planned again`,
  );

  // Each mirror converges on the shared state after a sync: one through the extension's code,
  // one through the CLI.
  const [first, second] = clones;
  assert.ok(first && second);
  const repo = discover(first);
  assert.ok(repo);
  await syncShared({ root: first, repo }, 'origin', 'checker', { command: 'test: sync' });
  assert.equal(rail(second, ['sync']).status, 0);
  for (const dir of clones) {
    assert.equal(read(path.join(dir, 'claims.md')), shared, `${dir} mirrors the shared claims.md`);
    assert.equal(read(path.join(dir, 'claims.log')), sharedFile(remote, 'claims.log'));
    const v = rail(dir, ['validate']);
    assert.equal(v.status, 0, `rail validate: ${v.stdout}${v.stderr}`);
    assert.deepEqual(fs.readdirSync(dir).filter((n) => n.startsWith('claims.md.')), [], 'no lock or journal left');
  }
}

test('shared race over a path remote: extension and CLI processes on 2 clones', async () => {
  await race(pathRemote());
});

test('shared race over git-daemon on 127.0.0.1: extension and CLI processes on 2 clones', async () => {
  const remote = await daemonRemote();
  try {
    await race(remote);
  } finally {
    await remote.stop();
  }
});
