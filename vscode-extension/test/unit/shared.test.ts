// The shared rail (docs/shared-rail.md) from the extension's host code, on real clones of a real
// bare repository (by path, and behind git-daemon on 127.0.0.1), next to the `rail` CLI:
//
// - shared mode is detected exactly like the CLI (git config, rail.yaml, RAIL_LOCAL=1);
// - a claim lands on the remote ref and in the local mirror, and another clone's CLI sees it;
// - a rejected push is planned again: on a new state it succeeds, on a taken task it refuses;
// - a remote that dies between fetch and push changes nothing, locally or remotely, and a sync
//   with the remote down leaves the last fetched state, described as stale;
// - leases count the commits other machines pushed.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import type { RailLocation } from '../../src/host/facts';
import { mutate, type MutateResult } from '../../src/host/mutate';
import { discover } from '../../src/host/repo';
import {
  describeShared,
  lastSynced,
  remoteOf,
  SharedError,
  syncShared,
  withPushedCommits,
} from '../../src/host/shared';
import { git, rail, read, sleep, tempRepo } from '../shared/fixtures';
import { daemonRemote, machines, pathRemote, readIf, sharedCommits, sharedFile, type Remote } from '../shared/remotes';

function at(dir: string): RailLocation {
  const repo = discover(dir);
  assert.ok(repo, `${dir} is a repository`);
  return { root: dir, repo };
}

function claim(dir: string, session: string, task: string, paths: string[] = []): Promise<MutateResult> {
  return mutate(at(dir), session, { op: 'claim', task, paths, resources: [] }, { command: `test: claim ${task}` });
}

/** Runs `work` with an environment variable set (the host code reads the test hooks from it). */
async function withEnv<T>(name: string, value: string, work: () => Promise<T>): Promise<T> {
  const before = process.env[name];
  process.env[name] = value;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
}

function claimLine(text: string | undefined, task: string): string | undefined {
  return text?.split('\n').find((l) => l.startsWith(`${task} |`));
}

test('shared mode is found like the CLI finds it: git config, rail.yaml, RAIL_LOCAL=1', async () => {
  const dir = tempRepo();
  const loc = at(dir);
  assert.equal(await remoteOf(loc), undefined, 'a local rail');
  fs.writeFileSync(path.join(dir, 'rail.yaml'), 'remote: upstream\n');
  assert.equal(await remoteOf(loc), 'upstream', 'rail.yaml remote:');
  git(dir, 'config', 'rail.remote', 'origin');
  assert.equal(await remoteOf(loc), 'origin', 'git config wins over rail.yaml');
  assert.equal(await remoteOf(loc, { ...process.env, RAIL_LOCAL: '1' }), undefined, 'RAIL_LOCAL=1 turns it off');
  const outside = fs.mkdtempSync(path.join(path.dirname(dir), 'rail-nogit-'));
  try {
    fs.writeFileSync(path.join(outside, 'rail.yaml'), 'remote: origin\n');
    assert.equal(await remoteOf({ root: outside }), 'origin', 'rail.yaml outside git');
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

test('a claim from the extension lands on the remote and in the mirror; another clone\'s CLI sees it and is refused', async () => {
  const remote = pathRemote();
  const [a, b] = machines(remote, 2);
  assert.ok(a && b);
  const commits = sharedCommits(remote);
  const inodeBefore = fs.statSync(path.join(a, 'claims.md')).ino;
  const r = await claim(a, 'alice', 'auth', ['src/auth/**']);
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.match(claimLine(sharedFile(remote, 'claims.md'), 'auth') ?? '', /^auth \| alice \| \S+ \| paths: src\/auth\/\*\*$/);
  assert.match(sharedFile(remote, 'claims.log') ?? '', /\| claimed \| auth \| alice \|/);
  assert.equal(sharedCommits(remote), commits + 1, 'one commit for one operation');
  assert.equal(read(path.join(a, 'claims.md')), sharedFile(remote, 'claims.md'), 'the mirror is the shared state');
  assert.equal(read(path.join(a, 'claims.log')), sharedFile(remote, 'claims.log'));
  assert.equal(fs.statSync(path.join(a, 'claims.md')).ino, inodeBefore, 'claims.md rewritten in place');
  assert.deepEqual(fs.readdirSync(a).filter((n) => n.startsWith('claims.md.')), [], 'no lock or journal left');
  assert.ok(lastSynced(at(a)), 'the sync stamp is written (<common dir>/rail-synced)');
  const commitMessage = git(remote.bare, 'log', '-1', '--format=%s', 'refs/rail/claims').trim();
  assert.equal(commitMessage, 'rail: claim auth by alice');

  // The other machine's CLI: refused, naming the holder; its board (after a fetch) shows alice.
  const refused = rail(b, ['--session', 'bob', 'claim', 'auth']);
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /auth is held by alice/);
  const board = rail(b, ['--session', 'bob', 'board', '--fetch', '--json']);
  assert.equal(board.status, 0, board.stderr);
  const claims = (JSON.parse(board.stdout) as { claims: { task: string; session: string }[] }).claims;
  assert.deepEqual(claims.map((c) => [c.task, c.session]), [['auth', 'alice']]);
  assert.equal(sharedCommits(remote), commits + 1, 'the refusal committed nothing');

  // Release and renew go through the remote too.
  const renewed = await mutate(at(a), 'alice', { op: 'renew', task: 'auth' }, { command: 'test: renew' });
  assert.equal(renewed.ok, true);
  const released = await mutate(at(a), 'alice', { op: 'release', task: 'auth', touched: [] }, { command: 'test: release' });
  assert.equal(released.ok, true);
  assert.equal(claimLine(sharedFile(remote, 'claims.md'), 'auth'), undefined);
  assert.equal(claimLine(read(path.join(a, 'claims.md')), 'auth'), undefined);
  assert.equal(sharedCommits(remote), commits + 3);
  const cliClaim = rail(b, ['--session', 'bob', 'claim', 'auth']);
  assert.equal(cliClaim.status, 0, cliClaim.stderr);
});

test('a claim the CLI made elsewhere: the extension is refused with holder, age and lease, and mirrors it', async () => {
  const remote = pathRemote();
  const [a, b] = machines(remote, 2);
  assert.ok(a && b);
  const byCli = rail(b, ['--session', 'bob', 'claim', 'billing']);
  assert.equal(byCli.status, 0, byCli.stderr);
  assert.equal(claimLine(read(path.join(a, 'claims.md')), 'billing'), undefined, 'not yet in a\'s mirror');
  const commits = sharedCommits(remote);
  const r = await claim(a, 'alice', 'billing');
  assert.equal(r.ok, false);
  assert.ok(!r.ok);
  assert.equal(r.refusal?.kind, 'held');
  assert.equal(r.refusal?.holder, 'bob');
  assert.ok(r.refusal?.age_secs !== null && r.refusal?.lease_left_secs !== null, 'age and lease left are known');
  assert.match(r.message, /billing is held by bob/);
  assert.equal(sharedCommits(remote), commits, 'a refusal commits nothing');
  assert.match(claimLine(read(path.join(a, 'claims.md')), 'billing') ?? '', /^billing \| bob \|/, 'the refusal mirrored the shared state');
});

test('a rejected push is planned again: a new state succeeds, a task taken meanwhile is refused', async () => {
  const remote = pathRemote();
  const [a, b] = machines(remote, 2);
  assert.ok(a && b);
  const commits = sharedCommits(remote);
  // a fetches and plans, then waits before its push; meanwhile b's CLI lands another claim.
  const started = Date.now();
  const [r1] = await withEnv('RAIL_TEST_BEFORE_PUSH_MS', '700', () =>
    Promise.all([
      claim(a, 'alice', 'one'),
      sleep(150).then(() => assert.equal(rail(b, ['--session', 'bob', 'claim', 'two']).status, 0)),
    ]),
  );
  assert.equal(r1.ok, true, JSON.stringify(r1));
  assert.ok(Date.now() - started >= 1400, 'two pushes: the first was rejected, the second landed');
  const shared = sharedFile(remote, 'claims.md');
  assert.match(claimLine(shared, 'one') ?? '', /^one \| alice \|/);
  assert.match(claimLine(shared, 'two') ?? '', /^two \| bob \|/);
  assert.equal(sharedCommits(remote), commits + 2, 'the rejected commit never landed');
  assert.equal(read(path.join(a, 'claims.md')), shared, 'the mirror has both');

  // The same, but b takes the very task a is about to push: a's second plan refuses.
  const [r2] = await withEnv('RAIL_TEST_BEFORE_PUSH_MS', '700', () =>
    Promise.all([
      claim(a, 'alice', 'three'),
      sleep(150).then(() => assert.equal(rail(b, ['--session', 'bob', 'claim', 'three']).status, 0)),
    ]),
  );
  assert.equal(r2.ok, false, JSON.stringify(r2));
  assert.equal(r2.ok ? undefined : r2.refusal?.holder, 'bob');
  assert.match(claimLine(sharedFile(remote, 'claims.md'), 'three') ?? '', /^three \| bob \|/);
  assert.equal(sharedCommits(remote), commits + 3);
  assert.equal((sharedFile(remote, 'claims.log') ?? '').split('\n').filter((l) => / \| claimed \| three \| /.test(l)).length, 1);
});

test('git-daemon stopped between fetch and push: the claim fails, nothing changes anywhere; sync says stale', async () => {
  const remote: Remote = await daemonRemote();
  try {
    const [a] = machines(remote, 1);
    assert.ok(a);
    const before = await claim(a, 'alice', 'before');
    assert.equal(before.ok, true, JSON.stringify(before));
    const localBefore = read(path.join(a, 'claims.md'));
    const logBefore = read(path.join(a, 'claims.log'));
    const sharedBefore = sharedFile(remote, 'claims.md');
    const syncedBefore = lastSynced(at(a));
    const commits = sharedCommits(remote);

    const started = Date.now();
    const during = withEnv('RAIL_TEST_BEFORE_PUSH_MS', '1200', () => claim(a, 'alice', 'during'));
    const outcome = during.then(
      () => undefined,
      (e: unknown) => e,
    );
    await sleep(400);
    await remote.stop();
    const error = await outcome;
    assert.ok(error instanceof SharedError, `failed with SharedError: ${String(error)}`);
    assert.equal(error.kind, 'unreachable');
    assert.match(error.message, /remote \(origin\) is unreachable, nothing was changed/);
    assert.ok(Date.now() - started < 15_000, 'no endless retries on an unreachable remote');
    assert.equal(read(path.join(a, 'claims.md')), localBefore, 'no local change');
    assert.equal(read(path.join(a, 'claims.log')), logBefore, 'nothing logged locally');
    assert.equal(sharedFile(remote, 'claims.md'), sharedBefore, 'no remote change');
    assert.equal(sharedCommits(remote), commits);

    // A refresh's sync with the remote down: the last fetched state stays, described as stale.
    await assert.rejects(syncShared(at(a), 'origin', 'alice', { command: 'test: sync' }), (e: unknown) => {
      assert.ok(e instanceof SharedError && e.kind === 'unreachable');
      return true;
    });
    assert.equal(read(path.join(a, 'claims.md')), localBefore);
    assert.equal(lastSynced(at(a))?.getTime(), syncedBefore?.getTime(), 'the stamp says when it last worked');
    const shown = describeShared({ remote: 'origin', syncedAt: lastSynced(at(a)), error: 'fatal: unable to connect to 127.0.0.1:\nConnection refused' });
    assert.equal(shown.stale, true);
    assert.match(shown.text, /^shared via origin: STALE, could not fetch \(fatal: unable to connect to 127\.0\.0\.1: Connection refused\); showing the state fetched (just now|\d+s ago)$/);
    // And the next mutation fails the same way, at once.
    await assert.rejects(claim(a, 'alice', 'after'), (e: unknown) => e instanceof SharedError && e.kind === 'unreachable');
    assert.equal(read(path.join(a, 'claims.md')), localBefore);
  } finally {
    await remote.stop();
  }
});

test('sync: another machine\'s claims come into the mirror; local claim files are left alone', async () => {
  const remote = await daemonRemote();
  try {
    const [a, b] = machines(remote, 2);
    assert.ok(a && b);
    assert.equal(rail(b, ['--session', 'bob', 'claim', 'from-b', '--path', 'b/**']).status, 0);
    fs.mkdirSync(path.join(a, 'claims'), { recursive: true });
    fs.writeFileSync(path.join(a, 'claims', 'local.yaml'), 'owner: local\ntask: mine\n');
    const { snapshot } = await syncShared(at(a), 'origin', 'alice', { command: 'test: sync' });
    assert.ok(snapshot.commit);
    assert.equal(read(path.join(a, 'claims.md')), sharedFile(remote, 'claims.md'));
    assert.match(claimLine(read(path.join(a, 'claims.md')), 'from-b') ?? '', /^from-b \| bob \|/);
    assert.equal(read(path.join(a, 'claims', 'local.yaml')), 'owner: local\ntask: mine\n');
    const age = Date.now() - (lastSynced(at(a))?.getTime() ?? 0);
    assert.ok(age >= 0 && age < 10_000, `just synced (${age} ms ago)`);
    assert.match(describeShared({ remote: 'origin', syncedAt: lastSynced(at(a)), error: undefined }).text, /^shared via origin, fetched (just now|\d+s ago)$/);
  } finally {
    await remote.stop();
  }
});

test('leases count commits pushed from other machines (remote-tracking branches)', async () => {
  const remote = pathRemote();
  const [a, b] = machines(remote, 2);
  assert.ok(a && b);
  git(a, 'checkout', '-q', '-b', 'alice');
  fs.writeFileSync(path.join(a, 'work.txt'), 'w\n');
  git(a, 'add', 'work.txt');
  git(a, 'commit', '-q', '-m', 'work');
  git(a, 'push', '-q', 'origin', 'alice');
  const unix = Number(git(a, 'log', '-1', '--format=%ct').trim());
  await syncShared(at(b), 'origin', 'bob', { command: 'test: sync' });
  const facts = await withPushedCommits(at(b), 'origin', { now: new Date().toISOString() });
  assert.deepEqual(Object.keys(facts.commits ?? {}), ['alice'], 'main has no commits of its own');
  assert.equal(facts.commits?.alice, new Date(unix * 1000).toISOString().replace(/\.\d+Z$/, 'Z'));
  const merged = await withPushedCommits(at(b), 'origin', { now: '', commits: { alice: '2999-01-01T00:00:00Z', other: '2000-01-01T00:00:00Z' } });
  assert.deepEqual(merged.commits, { alice: '2999-01-01T00:00:00Z', other: '2000-01-01T00:00:00Z' }, 'the later time wins');
});

test('the shared status line comes from core', () => {
  const now = new Date('2026-10-22T14:05:20Z');
  assert.deepEqual(describeShared({ remote: 'origin', syncedAt: new Date('2026-10-22T14:05:00Z'), error: undefined }, now), {
    text: 'shared via origin, fetched 20s ago',
    stale: false,
  });
  assert.deepEqual(describeShared({ remote: 'origin', syncedAt: undefined, error: undefined }, now), {
    text: 'shared via origin, not fetched yet',
    stale: false,
  });
  assert.deepEqual(describeShared({ remote: 'origin', syncedAt: new Date('2026-10-22T14:00:20Z'), error: 'boom' }, now), {
    text: 'shared via origin: STALE, could not fetch (boom); showing the state fetched 5m ago',
    stale: true,
  });
  assert.equal(
    describeShared({ remote: 'origin', syncedAt: undefined, error: 'boom' }, now).text,
    'shared via origin: STALE, could not fetch (boom); nothing was fetched yet',
  );
});

test('the extension\'s first claim on a remote without a shared rail publishes it', async () => {
  const remote = pathRemote();
  const dir = tempRepo();
  git(dir, 'remote', 'add', 'origin', remote.url);
  git(dir, 'push', '-q', 'origin', 'main');
  git(dir, 'config', 'rail.remote', 'origin');
  assert.equal(sharedFile(remote, 'claims.md'), undefined, 'no shared rail yet');
  const r = await claim(dir, 'alice', 'first');
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.match(claimLine(sharedFile(remote, 'claims.md'), 'first') ?? '', /^first \| alice \|/);
  assert.equal(sharedCommits(remote), 1);
  assert.equal(readIf(path.join(dir, 'claims.md')), sharedFile(remote, 'claims.md'));
});
