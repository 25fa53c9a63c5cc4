// The lock protocol on real files and real processes: link + flock, verdicts from core, the
// tombstone break of dead owners, timeouts that name the holder, and interplay with the CLI and
// the flock one-liner.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { core, type LockRecord } from '../../src/host/core';
import { acquire, breakOnRequest, inspect, LockTimeout, LOCK_NAME, ownRecord, renderRecord } from '../../src/host/lock';
import { hostname, procStart } from '../../src/host/proc';
import { deadPid, sleep, tempRepo, waitFor, RAIL_BIN } from '../shared/fixtures';

function rail(): string {
  const repo = tempRepo();
  fs.writeFileSync(path.join(repo, 'claims.md'), '# Claims\n\n');
  return repo;
}

function record(over: Partial<LockRecord>): LockRecord {
  return { ...ownRecord({ session: 'other', command: 'rail claim x' }), ...over };
}

function writeLock(dir: string, r: LockRecord | string): void {
  fs.writeFileSync(path.join(dir, LOCK_NAME), typeof r === 'string' ? r : renderRecord(r));
}

function leftovers(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.startsWith(`${LOCK_NAME}.`));
}

test('owner records render as rail-core renders them and parse back', () => {
  for (const command of ['rail claim auth', 'vscode: rail claim a', 'say "hi" # not a comment', '-dash', 'null', '', 'tab\there']) {
    const r = record({ command, session: 'feature/search' });
    assert.deepEqual(core().parseLockRecord(renderRecord(r)), r, command);
  }
  assert.equal(core().parseLockRecord(renderRecord(record({ proc_start: null })))?.proc_start, null);
});

test('acquire links a complete record, flocks claims.md in place, and release undoes both', async () => {
  const dir = rail();
  const inode = fs.statSync(path.join(dir, 'claims.md')).ino;
  const lock = await acquire(dir, { session: 's', command: 'test' }, 1000);
  const held = core().parseLockRecord(fs.readFileSync(path.join(dir, LOCK_NAME), 'utf8'));
  assert.equal(held?.pid, process.pid);
  assert.equal(held?.nonce, lock.nonce);
  assert.equal(held?.proc_start, procStart(process.pid));
  assert.deepEqual(leftovers(dir), [], 'the private record file is gone');
  assert.notEqual(spawnSync('flock', ['-n', 'claims.md', 'true'], { cwd: dir }).status, 0, 'flock is held');
  assert.equal(inspect(dir)?.verdict.state, 'alive');
  lock.release();
  assert.equal(fs.existsSync(path.join(dir, LOCK_NAME)), false);
  assert.equal(spawnSync('flock', ['-n', 'claims.md', 'true'], { cwd: dir }).status, 0, 'flock is free');
  assert.equal(fs.statSync(path.join(dir, 'claims.md')).ino, inode);
});

test('the seed one-liner waits while we hold the lock', async () => {
  const dir = rail();
  const lock = await acquire(dir, { session: 's', command: 'test' }, 1000);
  const oneLiner = spawn(
    'flock',
    ['claims.md', '-c', 'grep -q "^seed |" claims.md || echo "seed | x | $(date -u +%FT%RZ)" >> claims.md'],
    { cwd: dir },
  );
  const done = new Promise<number | null>((r) => oneLiner.on('close', r));
  await sleep(300);
  assert.doesNotMatch(fs.readFileSync(path.join(dir, 'claims.md'), 'utf8'), /^seed /m, 'it waited');
  lock.release();
  assert.equal(await done, 0);
  assert.match(fs.readFileSync(path.join(dir, 'claims.md'), 'utf8'), /^seed \| x \|/m);
});

test('a live holder is never broken: the timeout names pid, host, session, command, alive', async () => {
  const dir = rail();
  writeLock(dir, record({ session: 'alive-one', command: 'rail claim busy' }));
  await assert.rejects(acquire(dir, { session: 's', command: 'test' }, 300), (e: unknown) => {
    assert.ok(e instanceof LockTimeout);
    assert.match(e.message, new RegExp(`${process.pid}@${hostname()}`));
    assert.match(e.message, /alive-one/);
    assert.match(e.message, /rail claim busy/);
    assert.match(e.message, /is alive/);
    assert.equal(e.verdict?.state, 'alive');
    return true;
  });
  assert.ok(fs.existsSync(path.join(dir, LOCK_NAME)));
  assert.deepEqual(leftovers(dir), []);
});

test('a dead owner is broken once, and the lock is ours', async () => {
  const dir = rail();
  const pid = deadPid();
  writeLock(dir, record({ pid, proc_start: null }));
  const lock = await acquire(dir, { session: 's', command: 'test' }, 1000);
  assert.equal(lock.broken.length, 1);
  assert.equal(lock.broken[0]?.holder, `${pid}@${hostname()}`);
  assert.match(lock.broken[0]?.reason ?? '', /is dead/);
  assert.deepEqual(leftovers(dir), [], 'tombstones cleared');
  lock.release();
});

test('a reused pid (another start time) and a zombie count as dead', async () => {
  const dir = rail();
  writeLock(dir, record({ pid: process.pid, proc_start: (procStart(process.pid) ?? 0) + 1 }));
  assert.equal(inspect(dir)?.verdict.state, 'dead');
  // A zombie: python forks a child that exits, and never reaps it.
  const parent = spawn('python3', ['-c', 'import os,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(20)'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const zombie = await new Promise<number>((r) => parent.stdout.once('data', (d: Buffer) => r(Number(String(d).trim()))));
  try {
    await waitFor(() => fs.readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? false, 5000, 'zombie');
    writeLock(dir, record({ pid: zombie, proc_start: null }));
    assert.equal(inspect(dir)?.alive, false);
    assert.equal(inspect(dir)?.verdict.state, 'dead');
  } finally {
    parent.kill('SIGKILL');
  }
});

test('unreadable lock files: young ones wait, abandoned ones are broken', async () => {
  const dir = rail();
  writeLock(dir, '');
  assert.equal(inspect(dir)?.verdict.state, 'young');
  await assert.rejects(acquire(dir, { session: 's', command: 'test' }, 200), LockTimeout);
  const old = new Date(Date.now() - 10_000);
  fs.utimesSync(path.join(dir, LOCK_NAME), old, old);
  assert.equal(inspect(dir)?.verdict.state, 'abandoned');
  const lock = await acquire(dir, { session: 's', command: 'test' }, 1000);
  assert.equal(lock.broken[0]?.holder, 'an unreadable lock file');
  lock.release();
});

test('another host is never broken automatically; a forced break is, and says so', async () => {
  const dir = rail();
  writeLock(dir, record({ host: 'elsewhere' }));
  assert.equal(inspect(dir)?.verdict.state, 'foreign-host');
  await assert.rejects(acquire(dir, { session: 's', command: 'test' }, 200), LockTimeout);
  assert.throws(() => breakOnRequest(dir, false, 's', 'test'), /not breaking it/);
  const broken = breakOnRequest(dir, true, 's', 'test');
  assert.match(broken?.reason ?? '', /^forced: /);
  assert.equal(fs.existsSync(path.join(dir, LOCK_NAME)), false);
});

test('a tombstone whose breaker is alive blocks breaking; a dead breaker is superseded', async () => {
  const dir = rail();
  const dead = record({ pid: deadPid(), proc_start: null, nonce: 'aaaa0000bbbb1111' });
  writeLock(dir, dead);
  const tomb1 = path.join(dir, `${LOCK_NAME}.break.aaaa0000bbbb1111.1`);
  fs.writeFileSync(tomb1, renderRecord(record({})));
  await assert.rejects(acquire(dir, { session: 's', command: 'test' }, 300), LockTimeout, 'a live breaker is at work');
  fs.writeFileSync(tomb1, renderRecord(record({ pid: deadPid(), proc_start: null })));
  const lock = await acquire(dir, { session: 's', command: 'test' }, 1000);
  assert.equal(lock.broken.length, 1);
  assert.deepEqual(leftovers(dir), [], 'tombstones .1 and .2 cleared');
  lock.release();
});

test('a lock held by the CLI: we see it alive, wait, then get it', async () => {
  const dir = rail();
  const cli = spawn(RAIL_BIN, ['--session', 'cli', 'claim', 'slow'], { cwd: dir, env: { ...process.env, RAIL_TEST_HOLD_MS: '800' } });
  const exited = new Promise<number | null>((r) => cli.on('close', r));
  await waitFor(() => fs.existsSync(path.join(dir, LOCK_NAME)), 5000, 'the CLI lock');
  const info = inspect(dir);
  assert.equal(info?.record?.pid, cli.pid);
  assert.equal(info?.alive, true);
  const started = Date.now();
  const lock = await acquire(dir, { session: 's', command: 'test' }, 5000);
  assert.ok(Date.now() - started > 200, 'waited for the CLI');
  assert.match(fs.readFileSync(path.join(dir, 'claims.md'), 'utf8'), /^slow \| cli \|/m, 'the CLI finished first');
  lock.release();
  assert.equal(await exited, 0);
});
