// Restricted Mode (src/host/trust.ts): with processes refused, neither git nor the rail CLI
// starts — from any of the places that start them — and the reads that need no program still
// work; allowed again, both run.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, test } from 'node:test';

import { git } from '../../src/host/git';
import { runRail } from '../../src/host/native';
import { discover } from '../../src/host/repo';
import { RailStore } from '../../src/host/store';
import { allowProcesses, processesAllowed, RestrictedMode } from '../../src/host/trust';
import { RAIL_BIN, tempRepo } from '../shared/fixtures';

afterEach(() => allowProcesses(true));

test('outside VS Code processes are allowed', () => {
  assert.equal(processesAllowed(), true);
});

test('in Restricted Mode no git and no rail run; the files are still read', async () => {
  const repo = tempRepo();
  fs.writeFileSync(path.join(repo, 'claims.md'), 'auth | alice | 2026-10-22T14:05Z\n');
  // A marker proves nothing ran: git's fsmonitor hook would write it if git refreshed the index.
  const marker = path.join(repo, 'ran');
  fs.writeFileSync(path.join(repo, 'hook.sh'), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  await git(repo, ['config', 'core.fsmonitor', path.join(repo, 'hook.sh')]);

  allowProcesses(false);
  await assert.rejects(git(repo, ['diff', '--name-only', 'HEAD']), RestrictedMode);
  await assert.rejects(runRail(RAIL_BIN, ['board'], { cwd: repo, rail: repo }), RestrictedMode);
  // Discovery through git (GIT_DIR set) finds nothing rather than running git.
  assert.equal(discover(repo, { ...process.env, GIT_DIR: path.join(repo, '.git') }), undefined);
  // Discovery from the files and the rail's texts need no program.
  assert.ok(discover(repo, {}));
  const texts = await new RailStore(repo).read();
  assert.match(texts.claims?.text ?? '', /^auth \| alice/);
  assert.equal(fs.existsSync(marker), false, 'nothing ran');

  allowProcesses(true);
  await git(repo, ['diff', '--name-only', 'HEAD']);
  assert.equal(fs.existsSync(marker), true, "trusted, git runs (and with it the repository's fsmonitor)");
  const run = await runRail(RAIL_BIN, ['board'], { cwd: repo, rail: repo });
  assert.equal(run.code, 0, run.stderr);
});
