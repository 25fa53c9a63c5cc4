// Facts about processes on this machine: who we are, and whether a recorded owner still runs.
// These are observations for core (lock verdicts, claims with `pid:`), never verdicts themselves.

import * as fs from 'node:fs';
import * as os from 'node:os';

/** This machine's name, as lock records and `pid@host` claim fields spell it (uname nodename). */
export function hostname(): string {
  return os.hostname();
}

/** Fields of /proc/<pid>/stat after the command name (which may itself contain spaces and ')'). */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  return stat.slice(close + 1).trim().split(/\s+/);
}

/**
 * The kernel's start time of a process (clock ticks since boot, field 22 of /proc/<pid>/stat), so
 * a pid reused by a later process is not taken for the recorded owner.
 */
export function procStart(pid: number): number | undefined {
  const field = statFields(pid)?.[19];
  if (field === undefined) return undefined;
  const n = Number(field);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Is `pid` alive on this host? A zombie (killed, not yet reaped) is dead; a pid now used by a
 * process that started at another time than `started` is dead. `undefined` if it cannot be told.
 */
export function pidAlive(pid: number, started?: number | null): boolean | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    if (code !== 'EPERM') return undefined; // EPERM: it exists, owned by someone else
  }
  const fields = statFields(pid);
  if (fields?.[0] === 'Z') return false;
  if (started !== undefined && started !== null) {
    const actual = procStart(pid);
    if (actual !== undefined && actual !== started) return false;
  }
  return true;
}
