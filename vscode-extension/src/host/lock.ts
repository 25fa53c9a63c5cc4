// The rail lock (docs/lock-protocol.md), the same protocol as the CLI (cli/src/lock.rs), so the
// extension, the CLI and the seed's flock one-liner exclude each other:
//
// 1. A complete owner record goes to a private file, which is hard-linked to `claims.md.lock`:
//    link(2) fails if the lock exists, so exactly one process creates it, never half written.
// 2. Then flock(claims.md, LOCK_EX), through flock(1) (see flock.ts).
// 3. A lock whose owner is dead (core's verdict, from the facts we observe) is broken by exactly
//    one waiter: to break lock N, a waiter first creates the tombstone `claims.md.lock.break.N.1`
//    exclusively, re-reads the lock and unlinks it only if it is still N. Nobody but the
//    tombstone holder can remove N, so the unlink removes N and nothing else. A tombstone whose
//    creator died is superseded by `…N.2`, and so on.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { core, type LockRecord, type LockVerdict } from './core';
import { FlockHolder, FlockTimeout } from './flock';
import { formatTime } from './logline';
import { hostname, pidAlive, procStart } from './proc';
import { CLAIMS_MD } from './store';

export const LOCK_NAME = 'claims.md.lock';

/** What the holder of a lock is doing, for its owner record. */
export interface Owner {
  session: string;
  command: string;
}

/** A stale lock this acquisition broke on the way (for the log and the user). */
export interface Broken {
  holder: string;
  reason: string;
}

/** Waited too long. `verdict` says who holds the lock (absent when a plain flock user does). */
export class LockTimeout extends Error {
  constructor(
    message: string,
    readonly verdict?: LockVerdict,
  ) {
    super(message);
  }
}

/** A held rail lock. Write claims.md through `claimsFd`; call `release()` when done. */
export interface HeldLock {
  readonly nonce: string;
  readonly claimsFd: number;
  readonly broken: readonly Broken[];
  release(): void;
}

/** The owner record's text: rail-core renders it, so every host writes the same bytes. */
export function renderRecord(r: LockRecord): string {
  return core().renderLockRecord(r);
}

export function ownRecord(owner: Owner): LockRecord {
  return {
    pid: process.pid,
    host: hostname(),
    session: owner.session,
    // One line, printable: it is shown to whoever waits for us.
    command: owner.command.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 200),
    started: formatTime(new Date()),
    nonce: randomBytes(8).toString('hex'),
    proc_start: procStart(process.pid) ?? null,
  };
}

/** `4242@devbox`, as the log and messages name a holder. */
export function holderName(r: LockRecord): string {
  return `${r.pid}@${r.host}`;
}

/** A lock (or tombstone) file as found on disk. */
interface Observed {
  record: LockRecord | null;
  text: string;
  dev: bigint;
  ino: bigint;
  mtimeNs: bigint;
  mtimeMs: number;
  size: bigint;
}

function observe(file: string): Observed | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    let text = '';
    try {
      text = fs.readFileSync(fd, 'utf8');
    } catch {
      text = '';
    }
    return {
      record: core().parseLockRecord(text),
      text,
      dev: st.dev,
      ino: st.ino,
      mtimeNs: st.mtimeNs,
      mtimeMs: Number(st.mtimeMs),
      size: st.size,
    };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Names this particular lock, not just "a lock": the record's nonce, or for an unreadable file
 * its inode and modification time — the same name the CLI gives it, so both break it through
 * the same tombstone.
 */
function lockKey(o: Observed): string {
  if (o.record) return [...o.record.nonce].map((c) => (/^[A-Za-z0-9]$/.test(c) ? c : '_')).slice(0, 64).join('');
  return `ino${o.ino}-${o.mtimeNs}`;
}

function sameLock(a: Observed, b: Observed): boolean {
  if (a.dev !== b.dev || a.ino !== b.ino) return false;
  if (a.record && b.record) return a.record.nonce === b.record.nonce;
  if (!a.record && !b.record) return a.mtimeNs === b.mtimeNs && a.size === b.size;
  return false;
}

/** What we observed about the owner, for core: is it alive here (only asked on this host)? */
function ownerAlive(o: Observed, host: string): boolean | undefined {
  if (!o.record || o.record.host !== host) return undefined;
  return pidAlive(o.record.pid, o.record.proc_start);
}

/** Core's verdict on a found lock. The extension never decides this itself. */
function verdictOf(o: Observed, host: string): LockVerdict {
  return core().assessLock(o.text, {
    now: new Date().toISOString(),
    host,
    owner_alive: ownerAlive(o, host) ?? null,
    file_age_ms: Math.max(0, Date.now() - o.mtimeMs),
  });
}

/** Who holds the lock now, as shown by "Show Lock Owner": record, verdict and what we saw. */
export interface LockInfo {
  record: LockRecord | null;
  verdict: LockVerdict;
  /** Whether the owner process is alive on this host; `undefined` if it could not be checked. */
  alive: boolean | undefined;
}

export function inspect(dir: string): LockInfo | undefined {
  const host = hostname();
  const o = observe(path.join(dir, LOCK_NAME));
  if (!o) return undefined;
  return { record: o.record, verdict: verdictOf(o, host), alive: ownerAlive(o, host) };
}

/** Breaks the lock seen as `seen`, race-free. True if this call removed it. */
function breakLock(dir: string, seen: Observed, me: LockRecord, host: string): boolean {
  const lockPath = path.join(dir, LOCK_NAME);
  const key = lockKey(seen);
  const tomb = (generation: number): string => path.join(dir, `${LOCK_NAME}.break.${key}.${generation}`);
  let generation = 1;
  let mine: string;
  for (;;) {
    const candidate = tomb(generation);
    let fd: number;
    try {
      fd = fs.openSync(candidate, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Someone is breaking this lock. Supersede them only if they died doing it.
      const other = observe(candidate);
      if (!other) continue; // vanished: try the same generation again
      const state = verdictOf(other, host).state;
      if (state === 'dead' || state === 'abandoned') {
        generation += 1;
        if (generation > 64) return false;
        continue;
      }
      return false;
    }
    try {
      fs.writeSync(fd, renderRecord(me));
    } finally {
      fs.closeSync(fd);
    }
    mine = candidate;
    break;
  }
  // Only the tombstone holder may remove the lock `seen`: check it is still that lock.
  let removed = false;
  const now = observe(lockPath);
  if (now && sameLock(now, seen)) {
    try {
      fs.unlinkSync(lockPath);
      removed = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  // Clear every tombstone of this key: the lock they were about is gone or changed.
  for (let g = 1; g <= generation; g++) fs.rmSync(tomb(g), { force: true });
  fs.rmSync(mine, { force: true });
  return removed;
}

function describeHolder(o: Observed): string {
  return o.record ? holderName(o.record) : 'an unreadable lock file';
}

/**
 * Breaks the current lock on request ("Break Dead Lock"): only a lock core says may be broken,
 * unless `force`. Returns what was broken, `undefined` if the lock was free; throws with the
 * reason when it refuses.
 */
export function breakOnRequest(dir: string, force: boolean, session: string, command: string): Broken | undefined {
  const host = hostname();
  const seen = observe(path.join(dir, LOCK_NAME));
  if (!seen) return undefined;
  const verdict = verdictOf(seen, host);
  if (!verdict.breakable && !force) {
    throw new Error(`the lock is ${verdict.message}; not breaking it without being asked to force it`);
  }
  const me = ownRecord({ session, command });
  if (!breakLock(dir, seen, me, host)) {
    throw new Error('the lock changed or another process is breaking it; look again');
  }
  return {
    holder: describeHolder(seen),
    reason: force && !verdict.breakable ? `forced: ${verdict.message}` : verdict.message,
  };
}

/** Exponential backoff with jitter: 1 ms doubling to 50 ms, never past the deadline. */
class Backoff {
  private next = 1;

  async sleep(deadline: number): Promise<void> {
    const wait = this.next / 2 + Math.random() * (this.next + 1);
    const left = Math.max(0, deadline - Date.now());
    this.next = Math.min(this.next * 2, 50);
    await new Promise((r) => setTimeout(r, Math.max(0.2, Math.min(wait, left))));
  }
}

/** Takes the rail lock in `dir`, waiting up to `timeoutMs`. */
export async function acquire(dir: string, owner: Owner, timeoutMs: number): Promise<HeldLock> {
  const deadline = Date.now() + timeoutMs;
  const host = hostname();
  const me = ownRecord(owner);
  const lockPath = path.join(dir, LOCK_NAME);
  const tmp = path.join(dir, `${LOCK_NAME}.${me.nonce}.tmp`);
  {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, renderRecord(me));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  const broken: Broken[] = [];
  const backoff = new Backoff();
  try {
    for (;;) {
      try {
        fs.linkSync(tmp, lockPath);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const seen = observe(lockPath);
      if (!seen) continue; // released meanwhile: try again at once
      const verdict = verdictOf(seen, host);
      if (verdict.breakable && breakLock(dir, seen, me, host)) {
        broken.push({ holder: describeHolder(seen), reason: verdict.message });
        continue;
      }
      if (Date.now() >= deadline) {
        throw new LockTimeout(`timed out waiting for the rail lock ${lockPath}: ${verdict.message}`, verdict);
      }
      await backoff.sleep(deadline);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }

  // The lock file is ours. Now exclude flock users of claims.md as well, by the same deadline.
  const releaseLockFile = (): void => {
    const now = observe(lockPath);
    if (now?.record?.nonce === me.nonce) fs.rmSync(lockPath, { force: true });
  };
  let flock: FlockHolder;
  try {
    flock = await FlockHolder.acquire(path.join(dir, CLAIMS_MD), Math.max(0, deadline - Date.now()));
  } catch (e) {
    releaseLockFile();
    if (e instanceof FlockTimeout) {
      throw new LockTimeout(
        `timed out waiting for flock on ${path.join(dir, CLAIMS_MD)} (another process, e.g. a \`flock claims.md …\` one-liner, holds it)`,
      );
    }
    throw e;
  }
  return {
    nonce: me.nonce,
    claimsFd: flock.fd,
    broken,
    release(): void {
      // Remove the lock file only if it is still ours (a forced break may have replaced it).
      try {
        releaseLockFile();
      } finally {
        flock.release();
      }
    },
  };
}
