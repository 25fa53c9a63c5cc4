// Cross-host races on one rail: the extension (its native runner, src/host/native.ts — exactly
// what the extension's commands call), the `rail` CLI run directly, and the seed's
// `flock claims.md -c '…'` one-liner, all started at once as real processes.
//
// - one task, many claimants: exactly one holder, whoever wins; every Rail loser refused (exit 1);
// - many tasks: nothing lost, every claim and log line there, claims.md valid;
// - a `rail` SIGKILLed while it holds the lock (held open by RAIL_TEST_HOLD_MS): the racers that
//   find its lock break it exactly once (one `lock-broken` in the log), and all get through.
//
// No sleeps: the victim is killed once its lock file names it and its flock is seen taken
// (`flock -n` fails), and it is reaped before the race starts.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { NativeRail, RailError } from '../../src/host/native';
import { RAIL_BIN, linesStarting, rail, read, tempRepo, waitFor } from '../shared/fixtures';

/** A `rail` with fault injection compiled in (a debug build; the release binary has none). */
const FAULT_BIN = process.env.RAIL_FAULT_BIN ?? path.join(path.dirname(path.dirname(RAIL_BIN)), 'debug', 'rail');

const ENV: NodeJS.ProcessEnv = { ...process.env, RAIL_LOCK_TIMEOUT_MS: '60000' };
delete ENV.RAIL_SESSION;
delete ENV.RAIL_TEST_HOLD_MS;

type Kind = 'ext' | 'cli' | 'seed';

interface Outcome {
  who: string;
  kind: Kind;
  session: string;
  code: number | null;
  detail: string;
}

/** The extension's way: its runner, bound to the rail as the extension binds it. */
async function extClaim(dir: string, session: string, task: string): Promise<Outcome> {
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  const who = `ext:${session}`;
  try {
    const r = await native.claim(session, { task });
    return { who, kind: 'ext', session, code: r.ok ? 0 : 1, detail: r.message };
  } catch (e) {
    return { who, kind: 'ext', session, code: e instanceof RailError ? e.code : -1, detail: String(e) };
  }
}

/** The one-liner people already use: claim the task if nobody has it. */
function seedLine(task: string, session: string): string {
  return `grep -q "^${task} |" claims.md || echo "${task} | ${session} | $(date -u +%FT%RZ)" >> claims.md`;
}

function processClaim(kind: 'cli' | 'seed', dir: string, session: string, task: string): Promise<Outcome> {
  const [cmd, args] =
    kind === 'cli' ? [RAIL_BIN, ['--session', session, 'claim', task]] : ['flock', ['claims.md', '-c', seedLine(task, session)]];
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: dir, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.on('close', (code) => resolve({ who: `${kind}:${session}`, kind, session, code, detail: stderr }));
  });
}

function claimant(kind: Kind, dir: string, session: string, task: string): Promise<Outcome> {
  return kind === 'ext' ? extClaim(dir, session, task) : processClaim(kind, dir, session, task);
}

function freshRail(): string {
  const dir = tempRepo('rail-race-');
  fs.writeFileSync(path.join(dir, 'claims.md'), '# Claims\n\n');
  return dir;
}

function assertValid(dir: string): void {
  const v = rail(dir, ['validate']);
  assert.equal(v.status, 0, `rail validate: ${v.stdout}${v.stderr}`);
  const leftovers = fs.readdirSync(dir).filter((n) => n.startsWith('claims.md.'));
  assert.deepEqual(leftovers, [], 'no lock, tombstone, temp file or journal left');
}

function logLines(dir: string, event: string): string[] {
  const file = path.join(dir, 'claims.log');
  return fs.existsSync(file)
    ? read(file)
        .split('\n')
        .filter((l) => l.split(' | ')[1] === event)
    : [];
}

test('one task, 8 extension runners + 8 CLIs + 4 one-liners: exactly one holder', async () => {
  for (let round = 0; round < 3; round++) {
    const dir = freshRail();
    const runs: Promise<Outcome>[] = [];
    for (let i = 0; i < 8; i++) {
      runs.push(claimant('ext', dir, `ext-${i}`, 'hot'));
      runs.push(claimant('cli', dir, `cli-${i}`, 'hot'));
      if (i < 4) runs.push(claimant('seed', dir, `seed-${i}`, 'hot'));
    }
    const results = await Promise.all(runs);
    const lines = linesStarting(path.join(dir, 'claims.md'), 'hot |');
    assert.equal(lines.length, 1, `round ${round}: one line for the task:\n${read(path.join(dir, 'claims.md'))}`);
    const holder = lines[0]?.split(' | ')[1] ?? '';
    const railWinners = results.filter((r) => r.kind !== 'seed' && r.code === 0);
    if (holder.startsWith('seed')) {
      assert.equal(railWinners.length, 0, 'the one-liner won; Rail refused everyone');
      assert.equal(logLines(dir, 'claimed').length, 0);
    } else {
      assert.deepEqual(
        railWinners.map((r) => r.session),
        [holder],
        'the one winner holds it',
      );
      assert.equal(logLines(dir, 'claimed').length, 1);
    }
    for (const r of results.filter((x) => x.kind !== 'seed' && x.code !== 0)) {
      assert.equal(r.code, 1, `${r.who} was refused, not failed: ${r.detail}`);
      assert.match(r.detail, new RegExp(`hot is held by ${holder}`), `${r.who}'s refusal names the holder`);
    }
    for (const r of results.filter((x) => x.kind === 'seed')) assert.equal(r.code, 0, `${r.who}: ${r.detail}`);
    assertValid(dir);
  }
});

test('24 tasks, extension runners, CLIs and one-liners interleaved: nothing lost', async () => {
  const dir = freshRail();
  const runs: Promise<Outcome>[] = [];
  for (let i = 0; i < 8; i++) {
    for (const kind of ['ext', 'cli', 'seed'] as const) runs.push(claimant(kind, dir, `${kind}-${i}`, `task-${kind}-${i}`));
  }
  const results = await Promise.all(runs);
  for (const r of results) assert.equal(r.code, 0, `${r.who}: ${r.detail}`);
  for (let i = 0; i < 8; i++) {
    for (const kind of ['ext', 'cli', 'seed']) {
      assert.equal(linesStarting(path.join(dir, 'claims.md'), `task-${kind}-${i} | ${kind}-${i} |`).length, 1, `task-${kind}-${i}`);
    }
  }
  assert.equal(logLines(dir, 'claimed').length, 16, 'one log line per Rail claim (the one-liner logs nothing)');
  assertValid(dir);
});

/** Is claims.md flocked by someone right now? (`flock -n` gives up at once with exit 1.) */
function flockHeld(dir: string): boolean {
  return spawnSync('flock', ['-n', 'claims.md', 'true'], { cwd: dir }).status === 1;
}

/** A `rail` that takes the lock, is SIGKILLed while holding it, and leaves its lock file behind. */
async function killedHolder(dir: string): Promise<number> {
  const child = spawn(FAULT_BIN, ['--session', 'victim', 'claim', 'victim-task'], {
    cwd: dir,
    env: { ...ENV, RAIL_TEST_HOLD_MS: '60000' },
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.once('close', r));
  const lockFile = path.join(dir, 'claims.md.lock');
  await waitFor(
    () => fs.existsSync(lockFile) && read(lockFile).includes(`pid: ${child.pid}\n`) && flockHeld(dir),
    15_000,
    'the victim to hold the lock file and the flock',
  );
  child.kill('SIGKILL');
  await exited; // reaped: its pid is gone
  assert.ok(fs.existsSync(lockFile), 'the dead holder left its lock');
  assert.equal(flockHeld(dir), false, 'its flock died with it');
  return child.pid ?? 0;
}

test('racing through the lock of a SIGKILLed rail: exactly one waiter breaks it', async () => {
  for (let round = 0; round < 4; round++) {
    const dir = freshRail();
    const pid = await killedHolder(dir);
    const runs: Promise<Outcome>[] = [];
    for (let i = 0; i < 6; i++) {
      runs.push(claimant('ext', dir, `ext-${i}`, `t-ext-${i}`));
      runs.push(claimant('cli', dir, `cli-${i}`, `t-cli-${i}`));
      if (i < 2) runs.push(claimant('seed', dir, `seed-${i}`, `t-seed-${i}`));
    }
    // And one task everybody wants, through the same dead lock.
    for (const kind of ['ext', 'cli', 'seed'] as const) runs.push(claimant(kind, dir, `${kind}-hot`, 'hot'));
    const results = await Promise.all(runs);
    const hot = linesStarting(path.join(dir, 'claims.md'), 'hot |');
    assert.equal(hot.length, 1, `round ${round}: one holder of hot`);
    for (const r of results) {
      const lostHot = r.session.endsWith('-hot') && r.kind !== 'seed' && r.code === 1;
      assert.ok(r.code === 0 || lostHot, `round ${round}: ${r.who}: exit ${r.code}: ${r.detail}`);
    }
    const broken = logLines(dir, 'lock-broken');
    assert.equal(broken.length, 1, `round ${round}: one lock-broken:\n${broken.join('\n')}`);
    assert.match(broken[0] ?? '', new RegExp(`holder: ${pid}@`));
    const railHot = hot[0]?.split(' | ')[1]?.startsWith('seed') ? 0 : 1;
    assert.equal(logLines(dir, 'claimed').length, 12 + railHot, 'every Rail racer claimed');
    for (let i = 0; i < 2; i++) assert.equal(linesStarting(path.join(dir, 'claims.md'), `t-seed-${i} | seed-${i} |`).length, 1);
    assert.equal(linesStarting(path.join(dir, 'claims.md'), 'victim-task |').length, 0, 'the victim never wrote');
    assertValid(dir);
  }
});

test('the CLI binaries under test exist', () => {
  assert.ok(fs.existsSync(RAIL_BIN), `${RAIL_BIN} (scripts/test.sh builds it)`);
  assert.ok(fs.existsSync(FAULT_BIN), `${FAULT_BIN}, the debug build with fault injection (scripts/test.sh builds it)`);
});
