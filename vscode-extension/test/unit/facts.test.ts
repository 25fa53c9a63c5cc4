// Facts for core, gathered as the CLI gathers them: commit times (own commits only, via
// ahead-behind), process liveness, worktrees, a session's changed files. The resulting board
// matches `rail board --json` on the same rail.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { baseFacts, boardWithProcesses } from '../../src/host/facts';
import { branchCommitTimes, configStamp, forgetGitAnswers, memoized, refsStamp, sessionChanges } from '../../src/host/git';
import { hostname, observeProcess, pidAlive, procStat } from '../../src/host/proc';
import { discover } from '../../src/host/repo';
import { RailStore } from '../../src/host/store';
import { deadPid, git, rail, tempDir, tempRepo } from '../shared/fixtures';

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
  assert.equal(pidAlive(2 ** 31), undefined, 'beyond pid_t: no process has it');
});

/**
 * A running program whose name holds spaces and parentheses (`a) b (c) d`): /proc/<pid>/stat
 * writes it in parentheses, so its fields are counted after the last `)`. Killed when the test
 * process exits.
 */
function oddlyNamedProcess(): { pid: number; start: number } {
  const dir = tempDir('rail-comm-');
  const program = path.join(dir, 'a) b (c) d');
  fs.copyFileSync('/bin/sleep', program);
  fs.chmodSync(program, 0o755);
  // libuv's spawn returns once the child has exec'd (or failed to): its name is the program's.
  const child = spawn(program, ['1000'], { stdio: 'ignore' });
  assert.ok(child.pid, 'the program started');
  const pid = child.pid;
  child.unref(); // the test process may end before it: it is killed then
  process.on('exit', () => child.kill('SIGKILL'));
  assert.equal(fs.readFileSync(`/proc/${pid}/comm`, 'utf8'), 'a) b (c) d\n', 'the name the kernel reports');
  // The oracle, read here apart from the code under test: the 22nd field, the 20th after `)`.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const start = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  assert.ok(Number.isSafeInteger(start) && start > 0, stat);
  return { pid, start };
}

test('owner processes as the CLI sees them: start times from /proc, unknown where Node cannot tell', {
  skip: process.platform !== 'linux',
}, () => {
  const odd = oddlyNamedProcess();
  assert.deepEqual(observeProcess(odd.pid, true), { alive: true, start: odd.start });
  const stat = procStat(odd.pid);
  assert.equal(stat?.start, odd.start);
  assert.notEqual(stat?.state, 'Z', 'running or asleep');
  assert.deepEqual(observeProcess(odd.pid, false), { alive: true, start: undefined }, 'no claim recorded a start: not read');
  assert.deepEqual(observeProcess(deadPid(), true), { alive: false, start: undefined });
  // What another OS would let Node tell about the same live process: its liveness, no start.
  for (const platform of ['darwin', 'win32'] as const) {
    assert.deepEqual(observeProcess(odd.pid, true, platform), { alive: true, start: undefined }, platform);
  }
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
  // Start times are read where the CLI reads them too (Linux); elsewhere the claims below that
  // need one are left out.
  const odd = process.platform === 'linux' ? oddlyNamedProcess() : undefined;
  const dead = deadPid();
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
      `dead-owner | dave | ${t(1)} | pid: ${dead}@${host}`,
      `alive-owner | erin | ${t(400)} | pid: ${process.pid}@${host}`,
      `blocked | frank | ${t(2)} | after: live`,
      // Issue 45: a live pid that started at another time than the claim recorded was given a
      // dead owner's pid; the owner is dead, and the claim free at once, here as in the CLI.
      // The same pid with the start it has is the owner: alive, never stale by time.
      ...(odd
        ? [
            `reused-pid | gina | ${t(1)} | pid: ${odd.pid}@${host}/${odd.start + 1}`,
            `owner-started-then | hank | ${t(400)} | pid: ${odd.pid}@${host}/${odd.start}`,
            `no-start-recorded | ivan | ${t(400)} | pid: ${odd.pid}@${host}`,
          ]
        : []),
      '',
    ].join('\n'),
  );
  const loc = { root: repo, repo: discover(repo) ?? undefined };
  const texts = await new RailStore(repo).read();
  const facts0 = await baseFacts(loc, { commits: true, worktrees: true, now });
  const { board, facts } = boardWithProcesses(texts, facts0);
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
    ...(odd ? { 'reused-pid': 'stale', 'owner-started-then': 'live', 'no-start-recorded': 'live' } : {}),
  });
  if (odd) {
    const reason = board.claims.find((c) => c.task === 'reused-pid')?.reason ?? '';
    assert.match(reason, new RegExp(`owner process ${odd.pid}@.*/${odd.start + 1} is dead`), reason);
  }
  // The facts behind it, as the CLI gathers them (cli/src/context.rs `probe_owners`).
  const probed = Object.keys(facts.processes ?? {}).sort();
  const named = [dead, process.pid, ...(odd ? [odd.pid] : [])].map((pid) => `${pid}@${host}`).sort();
  assert.deepEqual(probed, named, 'each pid on this host checked once');
  if (odd) {
    assert.deepEqual(facts.process_starts, { [`${odd.pid}@${host}`]: odd.start }, 'the start read where a claim recorded one');
  }
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
