// The shared rail (docs/shared-rail.md) as the extension sees it, on real clones of a real bare
// repository (by path, and behind git-daemon on 127.0.0.1), next to the `rail` CLI:
//
// - shared mode is detected exactly like the CLI (git config, rail.yaml, RAIL_LOCAL=1);
// - the extension's changes (its native runner, as its commands call it) land on the remote ref
//   and in the local mirror, and another clone's CLI sees them and is refused;
// - a claim another machine's CLI holds refuses the extension with holder, age and lease;
// - `rail sync` through the runner brings other machines' claims in; with the remote gone it
//   fails as an environment error (exit 3), and the board says stale in core's words;
// - leases count the commits other machines pushed (core counts the later of a branch's local
//   and pushed commit).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { core } from '../../src/host/core';
import type { RailLocation } from '../../src/host/facts';
import { NativeRail, RailError } from '../../src/host/native';
import { discover } from '../../src/host/repo';
import { describeShared, lastSynced, remoteOf, withPushedCommits } from '../../src/host/shared';
import { git, RAIL_BIN, rail, read, tempRepo } from '../shared/fixtures';
import { daemonRemote, machines, pathRemote, sharedCommits, sharedFile } from '../shared/remotes';

function at(dir: string): RailLocation {
  const repo = discover(dir);
  assert.ok(repo, `${dir} is a repository`);
  return { root: dir, repo };
}

const ENV: NodeJS.ProcessEnv = { ...process.env };
delete ENV.RAIL_SESSION;
delete ENV.RAIL_LOCAL;

/** The runner as the extension binds it to a workspace folder whose rail is its main checkout. */
function native(dir: string): NativeRail {
  return new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
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
  git(dir, 'config', 'rail.remote', '');
  assert.equal(await remoteOf(loc), 'upstream', 'a blank rail.remote is unset, as for the CLI');
  git(dir, 'config', 'rail.remote', 'origin');
  assert.equal(await remoteOf(loc), 'origin', 'git config wins over rail.yaml');
  assert.equal(await remoteOf(loc, { ...process.env, RAIL_LOCAL: '1' }), undefined, 'RAIL_LOCAL=1 turns it off');
  assert.equal(await remoteOf(loc, { ...process.env, RAIL_LOCAL: '0' }), 'origin', 'only 1 does');
  const outside = fs.mkdtempSync(path.join(path.dirname(dir), 'rail-nogit-'));
  try {
    fs.writeFileSync(path.join(outside, 'rail.yaml'), 'remote: origin\n');
    assert.equal(await remoteOf({ root: outside }), 'origin', 'rail.yaml outside git');
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

test("the extension's changes go through the remote; another clone's CLI sees them and is refused", async () => {
  const remote = pathRemote();
  const [a, b] = machines(remote, 2);
  assert.ok(a && b);
  const commits = sharedCommits(remote);
  const r = await native(a).claim('alice', { task: 'auth', paths: ['src/auth/**'] });
  assert.equal(r.ok, true, JSON.stringify(r));
  // The claim records the machine that made it (issue 42: only that machine changes it).
  const machine = fs.readFileSync(path.join(a, '.git', 'rail', 'exchange', 'machine'), 'utf8').trim();
  const line = claimLine(sharedFile(remote, 'claims.md'), 'auth') ?? '';
  assert.match(line, /^auth \| alice \| \S+ \| machine: \S+ \| paths: src\/auth\/\*\*$/);
  assert.ok(line.includes(`| machine: ${machine} |`), line);
  assert.equal(sharedCommits(remote), commits + 1, 'one commit for one operation');
  assert.equal(read(path.join(a, 'claims.md')), sharedFile(remote, 'claims.md'), 'the mirror is the shared state');
  assert.ok(lastSynced(at(a)), 'the sync stamp is there (<common dir>/rail-synced)');

  const refused = rail(b, ['--session', 'bob', 'claim', 'auth']);
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /auth is held by alice/);

  const renewed = await native(a).renew('alice', 'auth');
  assert.equal(renewed.ok, true, JSON.stringify(renewed));
  const released = await native(a).release('alice', 'auth');
  assert.equal(released.ok, true, JSON.stringify(released));
  assert.equal(claimLine(sharedFile(remote, 'claims.md'), 'auth'), undefined);
  assert.equal(claimLine(read(path.join(a, 'claims.md')), 'auth'), undefined);
  assert.equal(sharedCommits(remote), commits + 3);
});

test('a claim the CLI made elsewhere refuses the extension with holder, age and lease', async () => {
  const remote = pathRemote();
  const [a, b] = machines(remote, 2);
  assert.ok(a && b);
  assert.equal(rail(b, ['--session', 'bob', 'claim', 'billing']).status, 0);
  const commits = sharedCommits(remote);
  const r = await native(a).claim('alice', { task: 'billing' });
  assert.ok(!r.ok, JSON.stringify(r));
  assert.equal(r.refusal.kind, 'held');
  assert.equal(r.refusal.holder, 'bob');
  assert.ok(r.refusal.age_secs !== null && r.refusal.lease_left_secs !== null, 'age and lease left are known');
  assert.match(r.message, /billing is held by bob/);
  assert.equal(sharedCommits(remote), commits, 'a refusal commits nothing');
});

test('sync through the runner; with the remote gone it fails (exit 3), changes nothing, and reads as stale', async () => {
  const remote = await daemonRemote();
  try {
    const [a, b] = machines(remote, 2);
    assert.ok(a && b);
    assert.equal(rail(b, ['--session', 'bob', 'claim', 'from-b', '--path', 'b/**']).status, 0);
    const synced = await native(a).sync('alice');
    assert.equal(synced.remote, 'origin');
    assert.ok(synced.commit);
    assert.match(claimLine(read(path.join(a, 'claims.md')), 'from-b') ?? '', /^from-b \| bob \|/);
    const syncedAt = lastSynced(at(a));
    assert.match(describeShared({ remote: 'origin', syncedAt, error: undefined }).text, /^shared via origin, fetched (just now|\d+s ago)$/);

    await remote.stop();
    const before = read(path.join(a, 'claims.md'));
    let error: unknown;
    await native(a)
      .sync('alice')
      .catch((e: unknown) => (error = e));
    assert.ok(error instanceof RailError, `sync failed with a RailError: ${String(error)}`);
    assert.equal(error.code, 3, 'an environment failure');
    assert.equal(read(path.join(a, 'claims.md')), before, 'the mirror keeps the last fetched state');
    assert.equal(lastSynced(at(a))?.getTime(), syncedAt?.getTime(), 'the stamp says when it last worked');
    const shown = describeShared({ remote: 'origin', syncedAt, error: error.message });
    assert.equal(shown.stale, true);
    assert.match(shown.text, /^shared via origin: STALE, could not fetch \(.+\); showing the state fetched (just now|\d+s ago)$/);

    let claimError: unknown;
    await native(a)
      .claim('alice', { task: 'offline' })
      .catch((e: unknown) => (claimError = e));
    assert.ok(claimError instanceof RailError && claimError.code === 3, `the claim failed: ${String(claimError)}`);
    assert.match(claimError.message, /unreachable, nothing was changed/);
    assert.equal(read(path.join(a, 'claims.md')), before, 'and changed nothing');
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
  await native(b).sync('bob');
  const pushedAt = new Date(unix * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  const now = new Date(Math.max(Date.now(), (unix + 1) * 1000));
  const facts = await withPushedCommits(at(b), 'origin', { now: now.toISOString() });
  assert.deepEqual(facts.pushed_commits, { alice: pushedAt }, 'main has no commits of its own');
  assert.equal(facts.commits, undefined, "this clone's own branches are read apart");
  // Core counts the later of a branch's local and pushed commits (`Facts::last_commit`): a claim
  // of alice's 3 hours old lives on the commit she pushed, not on this clone's older one.
  const hoursAgo = (h: number): string => new Date(now.getTime() - h * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const texts = { claims: { path: 'claims.md', text: `work | alice | ${hoursAgo(3)}\n` } };
  const local = { ...facts, pushed_commits: {}, commits: { alice: hoursAgo(4) } };
  const claim = (f: typeof facts) => core().board(texts, f).claims[0];
  assert.equal(claim(local)?.state, 'stale', 'by the local commit alone');
  const both = { ...facts, commits: { alice: hoursAgo(4) } };
  assert.deepEqual([claim(both)?.state, claim(both)?.last_commit_at], ['live', pushedAt], 'the pushed one counts');
  const latest = new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString().replace(/\.\d+Z$/, 'Z'); // after the push
  assert.equal(claim({ ...facts, commits: { alice: latest } })?.last_commit_at, latest, 'and a later local one');
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
