// Shared-rail races: on two clones of one bare remote — by path, and behind git-daemon on
// 127.0.0.1 — the extension's runner (src/host/native.ts, as its commands call it) and `rail`
// run directly by a shell, all started at once, each claiming the same tasks in shared mode. The
// remote's compare-and-swap must make them agree:
//
// - exactly one winner per task, and it is the holder on the remote ref;
// - at most one commit per successful operation (a machine's leader may batch them);
// - every winner logged once (`claimed` lines in the ref's claims.log);
// - nobody failed: every loser was refused (exit 1), none gave up or lost the remote (exit 3);
// - each clone's mirror converges on the shared state after a sync (one through the runner).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { NativeRail, RailError } from '../../src/host/native';
import { RAIL_BIN, rail, read } from '../shared/fixtures';
import { daemonRemote, machines, pathRemote, sharedCommits, sharedFile, type Remote } from '../shared/remotes';

const TASKS = Array.from({ length: 6 }, (_, i) => `task-${i}`);
const PER_KIND = 4;

const ENV: NodeJS.ProcessEnv = { ...process.env, RAIL_LOCK_TIMEOUT_MS: '60000', RAIL: RAIL_BIN };
delete ENV.RAIL_SESSION;
delete ENV.RAIL_LOCAL;

interface Racer {
  who: string;
  /** `task code` per task tried. */
  lines: string[];
  detail: string;
}

/** Every racer tries every task, each starting at a different one. */
function order(offset: number): string[] {
  return TASKS.map((_, i) => TASKS[(i + offset) % TASKS.length] ?? '');
}

/** The extension's way: one runner, the tasks in turn, as a user clicking Claim Task would. */
async function extRacer(dir: string, who: string, tasks: string[]): Promise<Racer> {
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  const lines: string[] = [];
  let detail = '';
  for (const task of tasks) {
    try {
      const r = await native.claim(who, { task });
      lines.push(`${task} ${r.ok ? 0 : 1}`);
    } catch (e) {
      lines.push(`${task} ${e instanceof RailError ? e.code : -1}`);
      detail += `${task}: ${String(e)}\n`;
    }
  }
  return { who, lines, detail };
}

function cliRacer(dir: string, who: string, tasks: string[]): Promise<Racer> {
  const script = `for t in ${tasks.join(' ')}; do "$RAIL" --session ${who} claim "$t" >/dev/null; echo "$t $?"; done`;
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', script], { cwd: dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    child.on('close', () => resolve({ who, lines: out.split('\n').filter((l) => l), detail: err }));
  });
}

async function race(remote: Remote): Promise<void> {
  const clones = machines(remote, 2, 'rail-shared-race-');
  const base = sharedCommits(remote);
  const racers: Promise<Racer>[] = [];
  clones.forEach((dir, m) => {
    for (let p = 0; p < PER_KIND; p++) {
      racers.push(extRacer(dir, `m${m}-ext${p}`, order(p + m * 3)));
      racers.push(cliRacer(dir, `m${m}-cli${p}`, order(p * 2 + m + 1)));
    }
  });
  const results = await Promise.all(racers);

  const winners = new Map<string, string[]>();
  for (const r of results) {
    assert.equal(r.lines.length, TASKS.length, `${r.who} tried every task: ${r.lines.join(', ')}\n${r.detail}`);
    for (const line of r.lines) {
      const [task = '', code] = line.split(' ');
      if (code === '0') winners.set(task, [...(winners.get(task) ?? []), r.who]);
      else assert.equal(code, '1', `${r.who}: ${task} was refused, not failed (exit ${code}): ${r.detail}`);
    }
  }
  const shared = sharedFile(remote, 'claims.md') ?? '';
  const lines = shared.split('\n').filter((l) => l.startsWith('task-'));
  const held = new Map(lines.map((l) => [l.split(' | ')[0] ?? '', l.split(' | ')[1] ?? ''] as const));
  assert.equal(lines.length, TASKS.length, `one line per task on the remote:\n${shared}`);
  for (const task of TASKS) {
    const won = winners.get(task) ?? [];
    assert.equal(won.length, 1, `${task}: exactly one winner, got ${won.join(', ') || 'none'}`);
    assert.equal(held.get(task), won[0], `${task}: the winner holds it on the remote`);
  }
  // One machine's queued operations may share a commit (its leader serves them in one round),
  // so commits are at most one per success; the log below says each happened exactly once.
  const added = sharedCommits(remote) - base;
  assert.ok(added >= 1 && added <= TASKS.length, `${added} commits for ${TASKS.length} successful claims`);
  const claimed = (sharedFile(remote, 'claims.log') ?? '').split('\n').filter((l) => l.split(' | ')[1] === 'claimed');
  assert.equal(claimed.length, TASKS.length, `every winner logged once:\n${claimed.join('\n')}`);
  for (const task of TASKS) {
    const logged = claimed.filter((l) => l.split(' | ')[2] === task);
    assert.equal(logged.length, 1, `${task} logged once`);
    assert.equal(logged[0]?.split(' | ')[3], held.get(task));
  }

  // Each mirror converges on the shared state after a sync: one through the runner, one the CLI.
  const [first, second] = clones;
  assert.ok(first && second);
  await new NativeRail({ path: RAIL_BIN, source: 'path' }, first, first, ENV).sync('checker');
  assert.equal(rail(second, ['sync']).status, 0);
  for (const dir of clones) {
    assert.equal(read(path.join(dir, 'claims.md')), shared, `${dir} mirrors the shared claims.md`);
    assert.equal(read(path.join(dir, 'claims.log')), sharedFile(remote, 'claims.log'));
    const v = rail(dir, ['validate']);
    assert.equal(v.status, 0, `rail validate: ${v.stdout}${v.stderr}`);
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.startsWith('claims.md.')),
      [],
      'no lock or journal left',
    );
  }
}

test('shared race over a path remote: extension runners and CLIs on 2 clones', async () => {
  await race(pathRemote());
});

test('shared race over git-daemon on 127.0.0.1: extension runners and CLIs on 2 clones', async () => {
  const remote = await daemonRemote();
  try {
    await race(remote);
  } finally {
    await remote.stop();
  }
});
