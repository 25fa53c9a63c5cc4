// flock(2) on claims.md, taken through the flock(1) utility.
//
// Node cannot call flock(2), and the lock protocol needs it: it is what excludes people who still
// use the seed's `flock claims.md -c '…'` one-liner, and what the CLI's readers take
// (docs/lock-protocol.md). So we open claims.md ourselves and hand that descriptor to
// `flock -x -w SECS 3` as its fd 3. A flock belongs to the open file description, not to the
// process that asked for it: once flock(1) has exited, the lock is held by *our* descriptor, and
// it lasts exactly as long as that descriptor stays open — closing it (or this process dying)
// drops it. The same descriptor then writes claims.md in place, like the CLI's `RailLock.claims`.
// (Node opens files with O_CLOEXEC, so no other child process ever inherits the lock.)

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

export class FlockTimeout extends Error {}

function seconds(ms: number): string {
  // flock -w takes fractional seconds; 0 would mean "do not wait at all", so keep a hair above.
  return Math.max(ms / 1000, 0.001).toFixed(3);
}

/** Runs `flock <mode> -w <secs> 3` on `fd`; resolves when the descriptor holds the lock. */
function flockFd(fd: number, mode: '-x' | '-s', timeoutMs: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('flock', [mode, '-w', seconds(timeoutMs), '3'], {
      stdio: ['ignore', 'ignore', 'pipe', fd],
    });
    let err = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (err += chunk));
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new Error('the flock(1) utility (util-linux) is needed to lock claims.md, and it is not on PATH')
          : e,
      ),
    );
    child.once('close', (code) => {
      if (code === 0) resolve();
      else if (code === 1 && err.trim() === '')
        reject(new FlockTimeout(`flock on ${what}: still held by another process after ${timeoutMs} ms`));
      else reject(new Error(`flock on ${what} failed (exit ${code}): ${err.trim()}`));
    });
  });
}

/** An exclusive flock on a file, held through our own open descriptor `fd` until released. */
export class FlockHolder {
  private closed = false;

  private constructor(
    /** Open read-write on the locked file: write through it to keep the inode everyone locks. */
    readonly fd: number,
  ) {}

  /**
   * Opens `file` read-write (creating it if missing, never truncating) and waits up to
   * `timeoutMs` for the exclusive lock; throws FlockTimeout when it does not come.
   */
  static async acquire(file: string, timeoutMs: number): Promise<FlockHolder> {
    const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o666);
    try {
      await flockFd(fd, '-x', timeoutMs, file);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    return new FlockHolder(fd);
  }

  /** Drops the lock (closing the descriptor releases it). */
  release(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

/**
 * Reads a file under a shared flock, as the CLI's readers do, so a write in progress is never
 * seen half done. `undefined` if the file does not exist (a reader never creates claims.md).
 * Past the deadline it reads anyway: a stuck writer must not make the board unreadable.
 */
export async function readShared(file: string, timeoutMs = 10_000): Promise<{ bytes: Buffer; mtime: Date } | undefined> {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    await flockFd(fd, '-s', timeoutMs, file).catch(() => undefined);
    const bytes = fs.readFileSync(fd);
    const mtime = fs.fstatSync(fd).mtime;
    return { bytes, mtime };
  } finally {
    fs.closeSync(fd); // also drops the shared lock
  }
}
