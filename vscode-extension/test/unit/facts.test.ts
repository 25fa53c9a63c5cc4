// Facts for core, gathered as the CLI gathers them: commit times (own commits only, via
// ahead-behind), process liveness, worktrees, a session's changed files. The resulting board
// matches `rail board --json` on the same rail.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { baseFacts, boardWithProcesses } from '../../src/host/facts';
import { branchCommitTimes, configStamp, forgetGitAnswers, memoized, refsStamp, sessionChanges } from '../../src/host/git';
import { hostname, pidAlive } from '../../src/host/proc';
import { discover } from '../../src/host/repo';
import { RailStore } from '../../src/host/store';
import { deadPid, git, rail, tempRepo } from '../shared/fixtures';

test('commit times: only branches with commits of their own count', async () => {
  const repo = tempRepo();
  git(repo, 'branch', 'fresh');
  git(repo, 'checkout', '-q', '-b', 'busy');
  fs.writeFileSync(path.join(repo, 'x.txt'), 'x');
  git(repo, 'add', 'x.txt');
  git(repo, 'commit', '-q', '-m', 'work');
  git(repo, 'checkout', '-q', 'main');
  const times = await branchCommitTimes(repo, 'main');
  assert.deepEqual(Object.keys(times), ['busy']);
  const unix = Number(git(repo, 'log', '-1', '--format=%ct', 'busy').trim());
  assert.equal(times.busy, new Date(unix * 1000).toISOString().replace(/\.\d+Z$/, 'Z'));
  assert.deepEqual(Object.keys(await branchCommitTimes(repo, undefined)).sort(), ['busy', 'fresh', 'main'], 'no base: plain tips');
});

test('process liveness through kill(pid, 0): self alive, exited dead, nonsense unknown', () => {
  assert.equal(pidAlive(process.pid), true);
  assert.equal(pidAlive(deadPid()), false);
  assert.equal(pidAlive(1), true, 'init exists, though it is not ours to signal (EPERM or not)');
  assert.equal(pidAlive(-1), undefined, 'a process group, not a pid: not asked');
  assert.equal(pidAlive(0), undefined);
  assert.equal(pidAlive(1.5), undefined);
});

test("a session's changes: commits since the fork, edits, untracked files", async () => {
  const repo = tempRepo();
  const station = `${repo}-st`;
  git(repo, 'worktree', 'add', '-q', '-b', 'st', station);
  try {
    fs.writeFileSync(path.join(station, 'committed.ts'), '1');
    git(station, 'add', '.');
    git(station, 'commit', '-q', '-m', 'c');
    fs.writeFileSync(path.join(station, 'README.md'), 'changed\n');
    fs.writeFileSync(path.join(station, 'untracked.ts'), '2');
    assert.deepEqual(await sessionChanges(station, 'main'), ['README.md', 'committed.ts', 'untracked.ts']);
  } finally {
    fs.rmSync(station, { recursive: true, force: true });
  }
});

test('the board from our facts agrees with `rail board --json`', async () => {
  const repo = tempRepo();
  const host = hostname();
  git(repo, 'checkout', '-q', '-b', 'worker');
  fs.writeFileSync(path.join(repo, 'w.txt'), 'w');
  git(repo, 'add', 'w.txt');
  git(repo, 'commit', '-q', '-m', 'w');
  git(repo, 'checkout', '-q', 'main');
  // "now" after the commit: core ignores commits later than now, and a `now` taken before it
  // made this test fail whenever a second boundary fell between the two (often, under load).
  const now = new Date();
  const t = (minAgo: number): string => new Date(now.getTime() - minAgo * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  fs.writeFileSync(
    path.join(repo, 'claims.md'),
    [
      `live | alice | ${t(5)} | paths: src/a/**`,
      `expiring | bob | ${t(110)}`,
      `renewed-by-commit | worker | ${t(300)}`,
      `stale | carol | ${t(300)} | paths: src/a/x.ts`,
      `dead-owner | dave | ${t(1)} | pid: ${deadPid()}@${host}`,
      `alive-owner | erin | ${t(400)} | pid: ${process.pid}@${host}`,
      `blocked | frank | ${t(2)} | after: live`,
      '',
    ].join('\n'),
  );
  const loc = { root: repo, repo: discover(repo) ?? undefined };
  const texts = await new RailStore(repo).read();
  const facts0 = await baseFacts(loc, { commits: true, worktrees: true, now });
  const { board, facts } = boardWithProcesses(texts, facts0);
  assert.ok(facts.processes && Object.keys(facts.processes).length === 2, 'both pids on this host were checked');
  const cli = rail(repo, ['--session', 'alice', 'board', '--json', '--now', now.toISOString()]);
  assert.equal(cli.status, 0, cli.stderr);
  const expected = JSON.parse(cli.stdout) as typeof board;
  const pick = (b: typeof board): unknown =>
    b.claims.map((c) => [c.task, c.state, c.blocked, c.last_commit_at, c.lease_left_text, c.reason]);
  assert.deepEqual(pick(board), pick(expected));
  assert.deepEqual(board.conflicts, expected.conflicts);
  assert.deepEqual(board.sessions, expected.sessions);
  const states = Object.fromEntries(board.claims.map((c) => [c.task, c.state]));
  assert.deepEqual(states, {
    live: 'live',
    expiring: 'expiring',
    'renewed-by-commit': 'live',
    stale: 'stale',
    'dead-owner': 'stale',
    'alive-owner': 'live',
    blocked: 'live',
  });
  assert.equal(spawnSync('true').status, 0);
});

test('git is asked again only when the files its answer depends on change', async () => {
  const repo = tempRepo();
  const common = discover(repo)?.commonDir ?? '';
  let asked = 0;
  const ask = (): Promise<number> => memoized('test:count', refsStamp(common), async () => ++asked);
  assert.equal(await ask(), 1);
  assert.equal(await ask(), 1, 'nothing changed: the kept answer');
  git(repo, 'branch', 'new-branch');
  assert.equal(await ask(), 2, 'a new branch');
  fs.writeFileSync(path.join(repo, 'c.txt'), 'c');
  git(repo, 'add', 'c.txt');
  git(repo, 'commit', '-q', '-m', 'c');
  assert.equal(await ask(), 3, 'a commit moves a ref');
  git(repo, 'pack-refs', '--all');
  assert.equal(await ask(), 4, 'refs packed');
  forgetGitAnswers();
  assert.equal(await ask(), 5, 'forgotten on explicit Refresh');
  const before = configStamp(common);
  git(repo, 'config', 'rail.remote', 'origin');
  assert.notEqual(configStamp(common), before, 'git config changed');
  let failures = 0;
  const failing = (): Promise<number> => memoized('test:fail', 'same', () => Promise.reject(new Error(`no ${++failures}`)));
  await assert.rejects(failing(), /no 1/);
  await assert.rejects(failing(), /no 2/, 'a failure is not kept');
  assert.equal(await memoized('test:none', undefined, async () => 7), 7, 'no stamp: always asked');
});
