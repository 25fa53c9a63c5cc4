// The native runner (src/host/native.ts), outside VS Code: which binary it runs (rail.path →
// bundled → PATH → a message saying how to get one), and how the CLI's JSON and exit codes become
// typed results — against the real `rail` on real repositories, and against made-up runs for the
// answers a healthy CLI never gives.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import {
  argv,
  bundledBinary,
  NativeRail,
  parseBreak,
  parseLock,
  parseMutation,
  RailError,
  RailNotFound,
  resolveRail,
  runRail,
  type RawRun,
} from '../../src/host/native';
import { deadPid, git, RAIL_BIN, rail, read, tempDir, tempRepo } from '../shared/fixtures';

const ENV: NodeJS.ProcessEnv = { ...process.env };
delete ENV.RAIL_SESSION;
delete ENV.RAIL_DIR;

/** An executable file at `file` (resolution only looks, never runs it). */
function executable(file: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\nexit 0\n');
  fs.chmodSync(file, mode);
  return file;
}

test('resolution order: rail.path, then the bundled binary, then PATH', () => {
  const dir = tempDir();
  const setting = executable(path.join(dir, 'custom', 'rail'));
  const ext = path.join(dir, 'extension');
  const bundled = executable(bundledBinary(ext, 'linux'));
  const onPath = executable(path.join(dir, 'path-bin', 'rail'));
  const env = { PATH: ['/nonexistent', path.join(dir, 'path-bin')].join(':') };
  assert.deepEqual(resolveRail({ setting, extensionDir: ext, env, platform: 'linux' }), { path: setting, source: 'setting' });
  assert.deepEqual(resolveRail({ setting: '  ', extensionDir: ext, env, platform: 'linux' }), { path: bundled, source: 'bundled' });
  fs.rmSync(bundled);
  assert.deepEqual(resolveRail({ setting: '', extensionDir: ext, env, platform: 'linux' }), { path: onPath, source: 'path' });
  fs.chmodSync(onPath, 0o644);
  assert.throws(
    () => resolveRail({ extensionDir: ext, env, platform: 'linux' }),
    (e: unknown) => {
      assert.ok(e instanceof RailNotFound);
      assert.match(e.message, /rail binary was not found/);
      assert.match(e.message, /`rail\.path` is not set and `rail` is not on PATH/);
      assert.match(e.message, /cargo install --path cli/, 'says how to get one');
      return true;
    },
  );
});

test('a rail.path that is wrong is an error of its own, never replaced by another binary', () => {
  const dir = tempDir();
  const ext = path.join(dir, 'extension');
  executable(bundledBinary(ext, 'linux'));
  assert.throws(
    () => resolveRail({ setting: 'bin/rail', extensionDir: ext, platform: 'linux' }),
    /rail\.path must be an absolute path.*"bin\/rail"/,
  );
  assert.throws(
    () => resolveRail({ setting: path.join(dir, 'nope'), extensionDir: ext, platform: 'linux' }),
    /rail\.path is ".*nope", which is not an executable file/,
  );
  const notExecutable = executable(path.join(dir, 'plain'), 0o644);
  assert.throws(() => resolveRail({ setting: notExecutable, extensionDir: ext, platform: 'linux' }), RailNotFound);
  assert.throws(() => resolveRail({ setting: dir, extensionDir: ext, platform: 'linux' }), /not an executable file/, 'a directory');
});

test('Windows: bin\\rail.exe bundled, `Path` split on `;`, no execute bit needed', () => {
  const dir = tempDir();
  const ext = path.join(dir, 'extension');
  assert.equal(bundledBinary(ext, 'win32'), path.join(ext, 'bin', 'rail.exe'));
  const exe = path.join(dir, 'win-bin', 'rail.exe');
  executable(exe, 0o644);
  const env = { Path: ['C:\\nowhere', path.join(dir, 'win-bin')].join(';') };
  assert.deepEqual(resolveRail({ extensionDir: ext, env, platform: 'win32' }), { path: exe, source: 'path' });
  executable(bundledBinary(ext, 'win32'), 0o644);
  assert.equal(resolveRail({ extensionDir: ext, env, platform: 'win32' }).source, 'bundled');
});

test('argv: --json, --rail and --session come first; values never read as options', async () => {
  assert.deepEqual(argv(['claim', '--', 't'], { cwd: '/w', rail: '/r', session: 's' }), [
    '--json',
    '--rail',
    '/r',
    '--session',
    's',
    'claim',
    '--',
    't',
  ]);
  assert.deepEqual(argv(['lock'], { cwd: '/w', rail: '/r' }), ['--json', '--rail', '/r', 'lock']);
  const dir = tempRepo();
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  const r = await native.claim('alice', { task: 'dashes', purpose: '--force is not an option here', paths: ['src/**'] });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.match(
    read(path.join(dir, 'claims.md')),
    /^dashes \| alice \| \S+ \| paths: src\/\*\* \| purpose: --force is not an option here$/m,
  );
});

test("claim: done with core's plan (exit 0), refused with the holder (exit 1)", async () => {
  const dir = tempRepo();
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  const done = await native.claim('alice', {
    task: 'auth',
    paths: ['src/auth/**'],
    resources: ['port:3000'],
    lease: '45m',
    after: ['setup'],
  });
  assert.ok(done.ok, JSON.stringify(done));
  assert.equal(done.plan.op, 'claim');
  assert.equal(done.plan.task, 'auth');
  assert.equal(done.plan.session, 'alice');
  assert.equal(done.message, done.plan.message);
  assert.ok(done.ms > 0, 'the child was timed');
  assert.match(
    read(path.join(dir, 'claims.md')),
    /^auth \| alice \| \S+ \| lease: 45m \| after: setup \| paths: src\/auth\/\*\* \| resources: port:3000$/m,
  );
  const refused = await native.claim('bob', { task: 'auth' });
  assert.ok(!refused.ok);
  assert.equal(refused.refusal.kind, 'held');
  assert.equal(refused.refusal.holder, 'alice');
  assert.match(refused.message, /auth is held by alice/);
  assert.deepEqual(refused.notes, [], 'the refusal itself is not repeated as a note');
  const clash = await native.claim('bob', { task: 'other', resources: ['port:3000'] });
  assert.ok(!clash.ok);
  assert.equal(clash.refusal.kind, 'resource-conflict');
});

test('renew, update, take and release; release lets the CLI list the touched files', async () => {
  const dir = tempRepo();
  const station = `${dir}-st`;
  git(dir, 'worktree', 'add', '-q', '-b', 'st', station);
  try {
    // The extension in the station: cwd is the station, the rail is the main checkout.
    const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, station, dir, ENV);
    assert.ok((await native.claim('st', { task: 'work', paths: ['src/**'] })).ok);
    assert.ok((await native.renew('st', 'work')).ok);
    const updated = await native.update('st', 'work', { paths: ['src/**', 'docs/**'], purpose: 'more' });
    assert.ok(updated.ok, JSON.stringify(updated));
    assert.match(read(path.join(dir, 'claims.md')), /^work \| st \| .*paths: src\/\*\*, docs\/\*\*.*purpose: more/m);
    fs.mkdirSync(path.join(station, 'src'));
    fs.writeFileSync(path.join(station, 'src', 'new.ts'), 'x\n');
    const released = await native.release('st', 'work');
    assert.ok(released.ok, JSON.stringify(released));
    assert.doesNotMatch(read(path.join(dir, 'claims.md')), /^work \|/m);
    assert.match(read(path.join(dir, 'claims.log')), /\| released \| work \| st \| touched: src\/new\.ts/);
    const notYours = await native.take('other', 'nothing-here');
    assert.ok(!notYours.ok);
    assert.equal(notYours.refusal.kind, 'not-claimed');
  } finally {
    git(dir, 'worktree', 'remove', '--force', station);
  }
});

test("bad input is exit 2 and environment exit 3, each a RailError with the CLI's words", async () => {
  const dir = tempRepo();
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  await assert.rejects(native.claim('alice', { task: 'no spaces please' }), (e: unknown) => {
    assert.ok(e instanceof RailError);
    assert.equal(e.code, 2);
    assert.match(e.message, /task/);
    return true;
  });
  await assert.rejects(native.claim('alice', { task: 'ok', lease: 'soon' }), (e: unknown) => e instanceof RailError && e.code === 2);
  const nowhere = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, path.join(dir, 'no-such-dir'), ENV);
  await assert.rejects(nowhere.claim('alice', { task: 'x' }), (e: unknown) => {
    assert.ok(e instanceof RailError);
    assert.equal(e.code, 3);
    assert.match(e.message, /rail directory .*no-such-dir does not exist/);
    return true;
  });
  await assert.rejects(runRail(path.join(dir, 'no-rail-here'), ['board'], { cwd: dir, rail: dir }), (e: unknown) => {
    assert.ok(e instanceof RailError);
    assert.equal(e.code, 3);
    assert.match(e.message, /cannot run .*no-rail-here: spawn .* ENOENT/);
    return true;
  });
});

test('Show Lock Owner and Break Dead Lock through `rail lock`', async () => {
  const dir = tempRepo();
  fs.writeFileSync(path.join(dir, 'claims.md'), '');
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  assert.deepEqual(await native.lock(), { held: false });
  assert.equal(await native.breakLock('alice', false), null, 'nothing to break');
  const host = os.hostname();
  const record = (pid: number): string =>
    `pid: ${pid}\nhost: ${host}\nsession: ghost\ncommand: rail claim ghost\nstarted: 2026-10-22T14:05:03Z\nnonce: 0123456789abcdef\n`;
  const lockFile = path.join(dir, 'claims.md.lock');
  // A live holder (this process): not breakable without force, and the CLI refuses.
  fs.writeFileSync(lockFile, record(process.pid));
  const live = await native.lock();
  assert.ok(live.held);
  assert.equal(live.record?.pid, process.pid);
  assert.equal(live.verdict.breakable, false);
  await assert.rejects(native.breakLock('alice', false), (e: unknown) => e instanceof RailError && e.code === 1);
  assert.ok(fs.existsSync(lockFile), "a live holder's lock stays");
  // A dead holder: breakable, broken once, logged.
  const dead = deadPid();
  fs.writeFileSync(lockFile, record(dead));
  const status = await native.lock();
  assert.ok(status.held);
  assert.equal(status.verdict.state, 'dead');
  assert.equal(status.verdict.breakable, true);
  const broken = await native.breakLock('alice', false);
  assert.equal(broken?.holder, `${dead}@${host}`);
  assert.equal(fs.existsSync(lockFile), false);
  assert.match(read(path.join(dir, 'claims.log')), new RegExp(`\\| lock-broken \\| - \\| alice \\| holder: ${dead}@`));
  // --force breaks a live one.
  fs.writeFileSync(lockFile, record(process.pid));
  assert.equal((await native.breakLock('alice', true))?.holder, `${process.pid}@${host}`);
});

test('New Station through `rail worktree`: one JSON document, done or refused', async () => {
  const dir = tempRepo();
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  const stationDir = `${dir}-station`;
  const made = await native.worktree({ task: 'feature', dir: stationDir, paths: ['src/feature/**'] });
  try {
    assert.ok(made.ok, JSON.stringify(made));
    assert.equal(made.dir, stationDir);
    assert.equal(made.branch, 'feature');
    assert.equal(git(stationDir, 'branch', '--show-current').trim(), 'feature');
    assert.match(read(path.join(dir, 'claims.md')), /^feature \| feature \| \S+ \| paths: src\/feature\/\*\*$/m);
    assert.ok((await native.claim('alice', { task: 'taken' })).ok);
    const refused = await native.worktree({ task: 'taken', dir: `${dir}-other` });
    assert.ok(!refused.ok, 'a station for a task someone else holds');
    assert.match(refused.message, /taken is held by alice/);
    assert.equal(fs.existsSync(`${dir}-other`), false, 'no worktree for a refused claim');
    // The worktree cannot be added (its folder is a file): exit 3, the claim given back.
    const blocker = `${dir}-blocked`;
    fs.writeFileSync(blocker, 'in the way\n');
    await assert.rejects(native.worktree({ task: 'blocked', dir: blocker }), (e: unknown) => {
      assert.ok(e instanceof RailError);
      assert.equal(e.code, 3);
      assert.match(e.message, /creating the worktree/);
      return true;
    });
    assert.doesNotMatch(read(path.join(dir, 'claims.md')), /^blocked \|/m, 'the claim was given back');
    fs.rmSync(blocker);
  } finally {
    if (fs.existsSync(stationDir)) git(dir, 'worktree', 'remove', '--force', stationDir);
  }
});

test('New Station is guarded like `rail worktree`: the agents of the main checkout, nothing committed', async () => {
  const dir = tempRepo();
  const init = rail(dir, ['init', '--agents', '--agent', 'claude,gemini']);
  assert.equal(init.status, 0, init.stderr);
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  const stationDir = `${dir}-guarded`;
  const made = await native.worktree({ task: 'guarded', dir: stationDir, paths: ['src/**'] });
  try {
    assert.ok(made.ok, JSON.stringify(made));
    assert.match(made.message, /guarded for Claude Code, Gemini CLI/);
    assert.match(read(path.join(stationDir, '.claude/settings.local.json')), /hook claude/);
    assert.match(read(path.join(stationDir, '.gemini/settings.json')), /hook gemini/);
    assert.match(read(path.join(stationDir, 'GEMINI.md')), /rail:begin/);
    assert.equal(git(stationDir, 'status', '--porcelain'), '', 'the copies are out of git');
  } finally {
    if (fs.existsSync(stationDir)) git(dir, 'worktree', 'remove', '--force', stationDir);
  }
});

const run = (code: number, stdout: string, stderr = ''): RawRun => ({ code, stdout, stderr, ms: 1 });

test('answers a healthy CLI never gives are errors, not guesses', () => {
  assert.throws(
    () => parseMutation(run(0, 'not json')),
    (e: unknown) => e instanceof RailError && /printed no JSON/.test(e.message),
  );
  assert.throws(() => parseMutation(run(0, '{"ok":true}')), /unexpected document/);
  assert.throws(
    () => parseMutation(run(1, '{"ok":false,"code":1,"error":"refused without a refusal"}')),
    (e: unknown) => e instanceof RailError && e.code === 1 && e.message === 'refused without a refusal',
  );
  assert.throws(
    () => parseMutation(run(3, '', 'rail: lock wait timed out after 10s: held by 42@h\n')),
    (e: unknown) => e instanceof RailError && e.code === 3 && e.message === 'lock wait timed out after 10s: held by 42@h',
  );
  assert.throws(() => parseMutation(run(101, '', '')), /rail exited with code 101 and said nothing/);
  assert.throws(() => parseLock(run(0, '{"held":"maybe"}')), /unexpected document/);
  assert.throws(() => parseBreak(run(0, '{"ok":true}')), /unexpected document/);
});

test('notes: what the CLI said on stderr besides its answer', () => {
  const plan = { op: 'claim', task: 't', session: 's', edits: [], log_line: null, message: 'claimed t', noop: false };
  const done = parseMutation(
    run(0, JSON.stringify({ ok: true, plan }), 'rail: recovered a stale lock held by 7@h: dead\nwarning: unrelated\n'),
  );
  assert.ok(done.ok);
  assert.deepEqual(done.notes, ['recovered a stale lock held by 7@h: dead']);
});
