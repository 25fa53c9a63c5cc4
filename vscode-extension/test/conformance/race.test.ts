// Lock conformance: the extension's lock and mutation code (run as real processes through
// test/driver.ts) racing the `rail` CLI and the seed's flock one-liner on one rail.
//
// - one task, many claimants: exactly one holder, whoever wins;
// - many tasks: nothing lost, every claim and log line there, claims.md valid;
// - a holder SIGKILLed while it holds the lock (an extension process or the CLI): the racers
//   that find its lock break it exactly once (one `lock-broken` in the log) and all get through.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { DRIVER, RAIL_BIN, linesStarting, rail, read, tempRepo, waitFor } from '../shared/fixtures';

const ENV = { ...process.env, RAIL_LOCK_TIMEOUT_MS: '60000' };

interface Outcome {
  who: string;
  code: number | null;
  stderr: string;
}

/** Starts one claimant: the extension (driver), the CLI, or the one-liner. Resolves on exit. */
function claimant(kind: 'ext' | 'cli' | 'seed', dir: string, session: string, task: string): Promise<Outcome> {
  const [cmd, args] =
    kind === 'ext'
      ? [process.execPath, [DRIVER, '--rail', dir, '--session', session, 'claim', task]]
      : kind === 'cli'
        ? [RAIL_BIN, ['--session', session, 'claim', task]]
        : [
            'flock',
            ['claims.md', '-c', `grep -q "^${task} |" claims.md || echo "${task} | ${session} | $(date -u +%FT%RZ)" >> claims.md`],
          ];
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: dir, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.on('close', (code) => resolve({ who: `${kind}:${session}`, code, stderr }));
  });
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
  return fs.existsSync(file) ? read(file).split('\n').filter((l) => l.split(' | ')[1] === event) : [];
}

test('one task, 8 extension processes + 8 CLIs + 4 one-liners: exactly one holder', async () => {
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
    const railWinners = results.filter((r) => !r.who.startsWith('seed') && r.code === 0);
    if (holder.startsWith('seed')) {
      assert.equal(railWinners.length, 0, 'the one-liner won; Rail refused everyone');
      assert.equal(logLines(dir, 'claimed').length, 0);
    } else {
      assert.deepEqual(railWinners.map((r) => r.who.split(':')[1]), [holder], 'the one winner holds it');
      assert.equal(logLines(dir, 'claimed').length, 1);
    }
    for (const r of results.filter((x) => !x.who.startsWith('seed') && x.code !== 0)) {
      assert.equal(r.code, 1, `${r.who} was refused, not failed: ${r.stderr}`);
    }
    assertValid(dir);
  }
});

test('16 tasks, extension and CLI interleaved: nothing lost', async () => {
  const dir = freshRail();
  const runs: Promise<Outcome>[] = [];
  for (let i = 0; i < 8; i++) {
    runs.push(claimant('ext', dir, `ext-${i}`, `task-ext-${i}`));
    runs.push(claimant('cli', dir, `cli-${i}`, `task-cli-${i}`));
  }
  const results = await Promise.all(runs);
  for (const r of results) assert.equal(r.code, 0, `${r.who}: ${r.stderr}`);
  for (let i = 0; i < 8; i++) {
    for (const kind of ['ext', 'cli']) {
      assert.equal(linesStarting(path.join(dir, 'claims.md'), `task-${kind}-${i} | ${kind}-${i} |`).length, 1);
    }
  }
  assert.equal(logLines(dir, 'claimed').length, 16);
  assertValid(dir);
});

/** A holder that takes the lock, is SIGKILLed while holding it, and leaves it behind. */
async function killedHolder(kind: 'ext' | 'cli', dir: string): Promise<number> {
  const child =
    kind === 'ext'
      ? spawn(process.execPath, [DRIVER, '--rail', dir, '--session', 'victim', '--hold-ms', '30000', 'claim', 'victim-task'], {
          env: ENV,
          stdio: 'ignore',
        })
      : spawn(RAIL_BIN, ['--session', 'victim', 'claim', 'victim-task'], {
          cwd: dir,
          env: { ...ENV, RAIL_TEST_HOLD_MS: '30000' },
          stdio: 'ignore',
        });
  const lockFile = path.join(dir, 'claims.md.lock');
  await waitFor(() => fs.existsSync(lockFile) && read(lockFile).includes(`pid: ${child.pid}\n`), 15_000, 'the victim to hold the lock');
  // It holds the lock file; give it the moment to take the flock as well, then kill it.
  await new Promise((r) => setTimeout(r, 150));
  const exited = new Promise((r) => child.on('close', r));
  child.kill('SIGKILL');
  await exited; // reaped: its pid is gone
  assert.ok(fs.existsSync(lockFile), 'the dead holder left its lock');
  return child.pid ?? 0;
}

test('racing through the lock of a SIGKILLed holder: exactly one waiter breaks it', async () => {
  for (let round = 0; round < 6; round++) {
    const victim: 'ext' | 'cli' = round % 2 === 0 ? 'ext' : 'cli';
    const dir = freshRail();
    const pid = await killedHolder(victim, dir);
    const runs: Promise<Outcome>[] = [];
    for (let i = 0; i < 8; i++) {
      runs.push(claimant('ext', dir, `ext-${i}`, `t-ext-${i}`));
      runs.push(claimant('cli', dir, `cli-${i}`, `t-cli-${i}`));
    }
    const results = await Promise.all(runs);
    for (const r of results) assert.equal(r.code, 0, `round ${round} (${victim} killed): ${r.who}: ${r.stderr}`);
    const broken = logLines(dir, 'lock-broken');
    assert.equal(broken.length, 1, `round ${round} (${victim} killed): one lock-broken:\n${broken.join('\n')}`);
    assert.match(broken[0] ?? '', new RegExp(`holder: ${pid}@`));
    assert.equal(logLines(dir, 'claimed').length, 16, 'every racer claimed');
    assert.equal(linesStarting(path.join(dir, 'claims.md'), 'victim-task |').length, 0, 'the victim never wrote');
    assertValid(dir);
  }
});

test('the CLI binary under test exists', () => {
  assert.ok(fs.existsSync(RAIL_BIN), `${RAIL_BIN} (scripts/test.sh builds it)`);
});
