// Close Station outside VS Code: the exchange of host/station.ts (refusal shown, "Force Close…"
// offered only where core says force would do, forcing only after the modal yes) against the real
// `rail` binary on real repositories and worktrees, with scripted answers for the two dialogs.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { NativeRail } from '../../src/host/native';
import { closeStation, forceDetail, type CloseDialogs } from '../../src/host/station';
import { git, RAIL_BIN, read, tempDir, tempRepo } from '../shared/fixtures';

const ENV: NodeJS.ProcessEnv = { ...process.env };
delete ENV.RAIL_SESSION;
delete ENV.RAIL_DIR;
delete ENV.RAIL_NOW;

/** Dialogs that answer as scripted and record what they were asked. */
function scripted(answers: { force: boolean; confirm: boolean }): CloseDialogs & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    refused: async (message, forceable) => {
      asked.push(`refused${forceable ? '+force' : ''}: ${message}`);
      return answers.force;
    },
    confirmForce: async (question, detail) => {
      asked.push(`confirm: ${question}\n${detail}`);
      return answers.confirm;
    },
  };
}

/** A repository with a station for `task` (made by `rail worktree`, so it holds the claim). */
async function withStation(task: string): Promise<{ dir: string; station: string; native: NativeRail }> {
  const dir = tempRepo();
  const station = path.join(tempDir(), task);
  const native = new NativeRail({ path: RAIL_BIN, source: 'path' }, dir, dir, ENV);
  const made = await native.worktree({ task, dir: station, paths: [`${task}/**`] });
  assert.ok(made.ok, JSON.stringify(made));
  return { dir, station, native };
}

const closer = (native: NativeRail) => ({ closeStation: (s: string, force: boolean) => native.closeStation(s, force, 'lead') });

test('a dirty station: refused, Force Close offered; nothing forced without the modal yes', async () => {
  const { dir, station, native } = await withStation('auth');
  fs.writeFileSync(path.join(station, 'draft.txt'), 'unsaved\n');
  // Declines the offer, then declines the confirmation: the station and its file stay.
  for (const answers of [
    { force: false, confirm: true },
    { force: true, confirm: false },
  ]) {
    const dialogs = scripted(answers);
    const result = await closeStation(closer(native), 'auth', dialogs);
    assert.equal(result.ok, false);
    assert.match(dialogs.asked[0] ?? '', /^refused\+force: station .* is not removed: 1 file uncommitted \(draft\.txt\)/);
    assert.equal(dialogs.asked.length, answers.force ? 2 : 1, 'the modal comes only after Force Close was picked');
    assert.equal(read(path.join(station, 'draft.txt')), 'unsaved\n');
    assert.match(read(path.join(dir, 'claims.md')), /^auth \| auth \|/m);
  }
  // Both yes: forced, logged, the claim released.
  const dialogs = scripted({ force: true, confirm: true });
  const result = await closeStation(closer(native), 'auth', dialogs);
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.closed.forced, true);
  assert.deepEqual(result.closed.released, ['auth']);
  assert.match(dialogs.asked[1] ?? '', /Force close the station auth\?\nUncommitted changes in 1 file will be deleted:\n {2}draft\.txt/);
  assert.ok(!fs.existsSync(station));
  assert.doesNotMatch(read(path.join(dir, 'claims.md')), /^auth \|/m);
  assert.match(read(path.join(dir, 'claims.log')), /\| station-removed \| auth \| lead \| .*forced: 1 file uncommitted \(draft\.txt\)/);
});

test('the main checkout: refused, no force offered, no confirmation asked', async () => {
  const { dir, native } = await withStation('auth');
  const dialogs = scripted({ force: true, confirm: true });
  const result = await closeStation(closer(native), dir, dialogs);
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.refusal.forceable, false);
  assert.deepEqual(result.refusal.blockers, [{ kind: 'main-checkout' }]);
  assert.equal(dialogs.asked.length, 1);
  assert.match(dialogs.asked[0] ?? '', /^refused: .* it is the main checkout/);
  assert.ok(fs.existsSync(path.join(dir, '.git')));
});

test('a merged station closes at once; the list shows each station first', async () => {
  const { dir, station, native } = await withStation('auth');
  const listed = await native.worktrees();
  assert.equal(listed.base, 'main');
  assert.deepEqual(
    listed.stations.map((s) => [s.main, s.branch, s.state]),
    [
      [true, 'main', 'unclaimed'],
      [false, 'auth', 'live'],
    ],
  );
  fs.mkdirSync(path.join(station, 'auth'));
  fs.writeFileSync(path.join(station, 'auth', 'a.ts'), 'a\n');
  git(station, 'add', '.');
  git(station, 'commit', '-qm', 'a');
  git(dir, 'merge', '-q', 'auth');
  const dialogs = scripted({ force: false, confirm: false });
  const result = await closeStation(closer(native), station, dialogs);
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.closed.branch_deleted, true);
  assert.equal(result.closed.forced, false);
  assert.deepEqual(dialogs.asked, [], 'nothing to ask');
  assert.ok(!fs.existsSync(station));
  assert.deepEqual(
    (await native.worktrees()).stations.map((s) => s.branch),
    ['main'],
  );
});

test("a hint's Force Close goes straight to the confirmation; unmerged commits keep the branch", async () => {
  const { dir, station, native } = await withStation('auth');
  fs.writeFileSync(path.join(station, 'x.ts'), 'x\n');
  git(station, 'add', '.');
  git(station, 'commit', '-qm', 'x');
  const dialogs = scripted({ force: false, confirm: true });
  const result = await closeStation(closer(native), 'auth', dialogs, { force: true });
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(dialogs.asked.length, 1);
  assert.match(dialogs.asked[0] ?? '', /^confirm: .*\n1 commit is not in main: the branch is kept, with them\./);
  assert.equal(result.closed.branch_deleted, false);
  assert.match(result.closed.branch_kept ?? '', /1 commit not in main/);
  assert.match(git(dir, 'branch', '--list', 'auth'), /auth/);
});

test('forceDetail words each blocker', () => {
  const files = Array.from({ length: 12 }, (_, i) => `f${i}`);
  const detail = forceDetail([{ kind: 'dirty', files }, { kind: 'no-base' }]);
  assert.match(detail, /^Uncommitted changes in 12 files will be deleted:\n {2}f0\n/);
  assert.match(detail, /… and 2 more/);
  assert.match(detail, /cannot tell whether its commits are merged/);
  assert.match(detail, /Its claims are released\. This is recorded in the log\.$/);
});
