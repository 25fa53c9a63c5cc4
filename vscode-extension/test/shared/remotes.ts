// Remotes and machines for the shared-rail tests: a bare repository served by path or by
// `git-daemon` on 127.0.0.1, and clones of it standing for machines (each with its own main
// checkout, rail mirror and remote-tracking refs).

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

import { freePort, git, rail, tempDir } from './fixtures';

export interface Remote {
  /** What clones use as `origin`: a path, or a `git://127.0.0.1:<port>/rail.git` URL. */
  url: string;
  /** The bare repository itself (to look at the shared ref behind everyone's back). */
  bare: string;
  /** Stops the server (a daemon); a path remote cannot be stopped. Waits until it is gone. */
  stop(): Promise<void>;
}

function bareRepo(): { parent: string; bare: string } {
  const parent = tempDir('rail-remote-');
  const bare = path.join(parent, 'rail.git');
  git(parent, 'init', '-q', '--bare', '-b', 'main', bare);
  return { parent, bare };
}

export function pathRemote(): Remote {
  const { bare } = bareRepo();
  return { url: bare, bare, stop: () => Promise.resolve() };
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

const daemons = new Set<ChildProcess>();
process.on('exit', () => {
  for (const d of daemons) d.kill('SIGKILL');
});

/**
 * A bare repository behind `git-daemon` on 127.0.0.1, pushes enabled. The `git-daemon` binary
 * itself (from `git --exec-path`), not the `git daemon` wrapper: killing the wrapper would leave
 * the real server running.
 */
export async function daemonRemote(): Promise<Remote> {
  const { parent, bare } = bareRepo();
  const port = await freePort();
  const execPath = execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim();
  const daemon = spawn(
    path.join(execPath, 'git-daemon'),
    ['--reuseaddr', '--export-all', '--enable=receive-pack', '--listen=127.0.0.1', `--port=${port}`, `--base-path=${parent}`, parent],
    { stdio: 'ignore' },
  );
  daemons.add(daemon);
  const deadline = Date.now() + 10_000;
  while (!(await connects(port))) {
    if (Date.now() > deadline) throw new Error('git-daemon did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `git://127.0.0.1:${port}/rail.git`,
    bare,
    stop: async () => {
      if (!daemons.has(daemon)) return;
      daemons.delete(daemon);
      const gone = new Promise((r) => daemon.once('close', r));
      daemon.kill('SIGKILL');
      await gone;
    },
  };
}

/** A file of the shared rail as the remote has it; `undefined` when there is none. */
export function sharedFile(remote: Remote, file: string): string | undefined {
  try {
    return execFileSync('git', ['--git-dir', remote.bare, 'show', `refs/rail/claims:${file}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return undefined;
  }
}

/** How many commits the shared ref has (one per successful operation, plus the first). */
export function sharedCommits(remote: Remote): number {
  return Number(execFileSync('git', ['--git-dir', remote.bare, 'rev-list', '--count', 'refs/rail/claims'], { encoding: 'utf8' }).trim());
}

/**
 * `n` clones standing for machines, each set up with `rail init --remote origin` (the documented
 * way; the first publishes its rail as the first shared state). Returns their main checkouts.
 */
export function machines(remote: Remote, n: number, prefix = 'rail-machine-'): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const dir = tempDir(prefix);
    // (quietly: cloning the still empty remote warns about exactly that)
    execFileSync('git', ['clone', '-q', remote.url, '.'], { cwd: dir, stdio: 'ignore' });
    git(dir, 'config', 'user.name', `machine-${i}`);
    git(dir, 'config', 'user.email', 'm@e.invalid');
    git(dir, 'config', 'commit.gpgsign', 'false');
    if (i === 0) {
      git(dir, 'symbolic-ref', 'HEAD', 'refs/heads/main');
      git(dir, 'commit', '-q', '--allow-empty', '-m', 'init');
      git(dir, 'push', '-q', 'origin', 'HEAD:main');
    } else {
      git(dir, 'pull', '-q', 'origin', 'main');
    }
    const init = rail(dir, ['init', '--remote', 'origin']);
    if (init.status !== 0) throw new Error(`rail init --remote origin in ${dir}: ${init.stderr}`);
    out.push(dir);
  }
  return out;
}

export function readIf(file: string): string | undefined {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}
