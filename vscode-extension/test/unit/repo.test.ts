// Finding the rail like the CLI: the parent of the git common dir, from the main checkout, a
// subfolder or a linked worktree (a `.git` file), by reading `.git` files.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { core } from '../../src/host/core';
import { discover, headBranch, mainCheckout, worktrees } from '../../src/host/repo';
import { git, tempDir, tempRepo } from '../shared/fixtures';

test('from the main checkout and from a subfolder', () => {
  const repo = tempRepo();
  fs.mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
  for (const start of [repo, path.join(repo, 'src', 'deep')]) {
    const found = discover(start);
    assert.ok(found);
    assert.equal(found.worktree, repo);
    assert.equal(found.gitDir, path.join(repo, '.git'));
    assert.equal(found.commonDir, path.join(repo, '.git'));
    assert.equal(mainCheckout(found), repo);
    assert.equal(headBranch(found.gitDir), 'main');
  }
});

test('from a linked worktree (a station): its own git dir, the shared rail', () => {
  const repo = tempRepo();
  const station = path.join(path.dirname(repo), `${path.basename(repo)}-auth`);
  git(repo, 'worktree', 'add', '-q', '-b', 'auth', station);
  try {
    const found = discover(path.join(station));
    assert.ok(found);
    assert.equal(found.worktree, station);
    assert.equal(found.gitDir, path.join(repo, '.git', 'worktrees', path.basename(station)));
    assert.equal(found.commonDir, path.join(repo, '.git'));
    assert.equal(mainCheckout(found), repo, 'the rail is the main checkout');
    assert.equal(headBranch(found.gitDir), 'auth');
    assert.deepEqual(
      worktrees(found).map((w) => [w.path, w.branch]),
      [
        [repo, 'main'],
        [station, 'auth'],
      ],
    );
    // The same answer as git's own.
    assert.equal(git(station, 'rev-parse', '--path-format=absolute', '--git-common-dir').trim(), found.commonDir);
  } finally {
    fs.rmSync(station, { recursive: true, force: true });
  }
});

test('detached HEAD has no branch; outside a repository there is nothing', () => {
  const repo = tempRepo();
  git(repo, 'checkout', '-q', '--detach');
  assert.equal(headBranch(path.join(repo, '.git')), undefined);
  assert.equal(discover(tempDir()), undefined);
});

test('GIT_DIR in the environment defers to git', () => {
  const repo = tempRepo();
  const found = discover(repo, { GIT_DIR: path.join(repo, '.git') });
  assert.ok(found);
  assert.equal(found.commonDir, path.join(repo, '.git'));
});

test("the rail files are nobody's work", () => {
  for (const f of ['claims.md', 'claims.md.lock', 'claims.log', 'rail.yaml', 'claims/a.yaml']) assert.ok(core().isRailFile(f), f);
  for (const f of ['src/claims.md', 'claimsx', 'README.md']) assert.ok(!core().isRailFile(f), f);
});
