// Real temporary git repositories and the `rail` CLI, for tests that run the host code against
// real files and real processes (no mocked file system).

import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The repository root (vscode-extension/..), from out/test/<dir>/file.js or test/<dir>/file.ts. */
export const REPO_ROOT = (() => {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'Cargo.toml')) || !fs.existsSync(path.join(dir, 'vscode-extension'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find the repository root above ${__dirname}`);
    dir = up;
  }
  return dir;
})();

export const EXTENSION_DIR = path.join(REPO_ROOT, 'vscode-extension');

/**
 * The CLI under test: the release build scripts/test.sh makes, the one the .vsix carries (the
 * extension runs it; the tests race it).
 */
export const RAIL_BIN =
  process.env.RAIL_BIN ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(REPO_ROOT, 'target'), 'release', 'rail');

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

/** A fresh repository on branch `main` with one commit; removed when the process exits. */
export function tempRepo(prefix = 'rail-test-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 't');
  git(dir, 'config', 'user.email', 't@t');
  git(dir, 'config', 'commit.gpgsign', 'false');
  fs.writeFileSync(path.join(dir, 'README.md'), 'test repo\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'init');
  cleanup.push(dir);
  return dir;
}

/** A scratch directory (not a repository), removed when the process exits. */
export function tempDir(prefix = 'rail-tmp-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanup.push(dir);
  return dir;
}

const cleanup: string[] = [];
process.on('exit', () => {
  if (process.env.RAIL_KEEP_TMP) return;
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the `rail` CLI in `dir`. */
export function rail(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(RAIL_BIN, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
}

export function read(file: string): string {
  return fs.readFileSync(file, 'utf8');
}

/** Lines of a file that start with `prefix`. */
export function linesStarting(file: string, prefix: string): string[] {
  if (!fs.existsSync(file)) return [];
  return read(file)
    .split('\n')
    .filter((l) => l.startsWith(prefix));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls until `check` is true or `timeoutMs` passes. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A pid that certainly belonged to a process that has exited (and been reaped). */
export function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(String(r.stdout).trim());
}

/** A TCP port on 127.0.0.1 that was free a moment ago (for code-server, git-daemon). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}
