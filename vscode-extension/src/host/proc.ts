// Facts about processes on this machine: who we are, and whether a process a claim names
// (`pid: 4242@devbox`) still runs. Observations for core, never verdicts.

import * as os from 'node:os';

/** This machine's name, as lock records and `pid@host` claim fields spell it (uname nodename). */
export function hostname(): string {
  return os.hostname();
}

/**
 * Is `pid` alive on this host? `process.kill(pid, 0)` asks without signalling, on every platform
 * Node runs on (Windows included): no such process → dead; it exists (even if owned by another
 * user: EPERM) → alive. Anything else cannot be told, and is `undefined` — never guessed. What
 * this cannot see: a zombie (exited, not yet reaped by its parent) counts as alive until reaped,
 * and a pid reused by a later process counts as the claim's owner (claims record no start time).
 */
export function pidAlive(pid: number): boolean | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    if (code === 'EPERM') return true;
    return undefined;
  }
}
