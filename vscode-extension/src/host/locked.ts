// Taking the rail lock for a write (cli/src/cmd/mutate.rs): wait for the lock, note any stale
// lock broken on the way, finish a crashed writer's journal. Shared by the local mutation flow
// (mutate.ts) and by the shared rail's mirror (shared.ts), which writes the main checkout's files
// through the same lock and journal as every other write.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { core } from './core';
import { acquire, type HeldLock } from './lock';
import { renderLogLine } from './logline';
import type { RailStore } from './store';

export interface LockOptions {
  /** What the lock's owner record says we are doing, e.g. `vscode: rail claim auth-refresh`. */
  command: string;
  /** Lock wait; default `RAIL_LOCK_TIMEOUT_MS`, else rail.yaml's `lock_timeout`. */
  timeoutMs?: number;
}

/** The lock wait: explicit, else `RAIL_LOCK_TIMEOUT_MS` (tests), else rail.yaml's
 * `lock_timeout` (read by core; 10 s when it says nothing). */
export function lockTimeoutMs(root: string, explicit?: number): number {
  if (explicit !== undefined) return explicit;
  const env = Number(process.env.RAIL_LOCK_TIMEOUT_MS);
  if (Number.isFinite(env) && env > 0) return env;
  let text = '';
  try {
    text = fs.readFileSync(path.join(root, 'rail.yaml'), 'utf8');
  } catch {
    // No rail.yaml: the defaults.
  }
  return core().parseConfig(text).lock_timeout * 1000;
}

/** Takes the lock and finishes a crashed write; returns the lock and the log lines to write. */
export async function lockAndRecover(
  store: RailStore,
  session: string,
  opts: LockOptions,
): Promise<{ lock: HeldLock; logLines: string[]; notes: string[] }> {
  const lock = await acquire(store.root, { session, command: opts.command }, lockTimeoutMs(store.root, opts.timeoutMs));
  const logLines: string[] = [];
  const notes: string[] = [];
  try {
    for (const b of lock.broken) {
      notes.push(`recovered a stale lock held by ${b.holder}: ${b.reason}`);
      logLines.push(renderLogLine(new Date(), 'lock-broken', null, session, { holder: b.holder, reason: b.reason }));
    }
    const recovered = store.recover(lock.claimsFd);
    if (recovered !== undefined) {
      notes.push(recovered);
      logLines.push(renderLogLine(new Date(), 'recovered', null, session, { note: recovered }));
    }
  } catch (e) {
    lock.release();
    throw e;
  }
  return { lock, logLines, notes };
}
