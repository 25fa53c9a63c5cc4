// Facts about processes on this machine: who we are, and whether a process a claim names
// (`pid: 4242@devbox/1234567`) still runs and when it started. Observations for core, never
// verdicts: which processes to look at is core's (`ownerProbes`), and whether a live process is
// the claim's owner too (a pid reused by a later process is not).
//
// What the extension can see, platform by platform — the same as the `rail` CLI
// (cli/src/sys/) where Node can tell it, unknown where it cannot, never guessed:
//
//   Linux     liveness by `kill(pid, 0)`, a zombie counts as dead, and the start time (clock
//             ticks since boot, field 22 of /proc/<pid>/stat): all as the CLI reads them.
//   macOS     liveness by `kill(pid, 0)`. Not a zombie's state, nor the start time: the CLI asks
//             `proc_pidinfo` (microseconds since the epoch), which Node cannot call, and `ps`
//             gives whole seconds in another unit. A zombie counts as alive, and a pid reused by
//             a later process counts as the owner.
//   Windows   liveness by `process.kill(pid, 0)` (Node opens the process). Not the creation time
//             (`GetProcessTimes`, 100 ns units since 1601: beyond what a JS number holds
//             exactly, so even read it could not be passed on unchanged): a reused pid counts as
//             the owner.

import * as fs from 'node:fs';
import * as os from 'node:os';

/** This machine's name, as lock records and `pid@host` claim fields spell it (uname nodename). */
export function hostname(): string {
  return os.hostname();
}

/** What this host saw of one process; `undefined`: could not be told. */
export interface ProcessSeen {
  alive: boolean | undefined;
  /** When it started, as the OS counts it (the unit of a claim's `PID@HOST/START`). */
  start: number | undefined;
}

/** Where the kernel's view of processes can be read as the CLI reads it. */
const procfs = (platform: NodeJS.Platform): boolean => platform === 'linux' || platform === 'android';

/**
 * Looks at one owner process, as the CLI's `probe_owners` does: its liveness and, when asked
 * (`wantsStart`: a claim recorded a start time) and it lives, its start time. `platform` is the
 * OS whose rules apply (this one; tests pass another to see what it cannot tell).
 */
export function observeProcess(pid: number, wantsStart: boolean, platform: NodeJS.Platform = process.platform): ProcessSeen {
  const alive = pidAlive(pid, platform);
  const start = alive === true && wantsStart && procfs(platform) ? procStat(pid)?.start : undefined;
  return { alive, start };
}

/**
 * Is `pid` alive on this host? `process.kill(pid, 0)` asks without signalling, on every platform
 * Node runs on (Windows included): no such process → dead; it exists (even if owned by another
 * user: EPERM) → alive — unless, on Linux, /proc says it is a zombie (exited, not yet reaped),
 * which is dead, as for the CLI. Anything else cannot be told, and is `undefined`. A pid no
 * process can have (0, which `kill` takes as our own process group; negative ones, process
 * groups; beyond a signed 32-bit `pid_t`) is never asked about.
 */
export function pidAlive(pid: number, platform: NodeJS.Platform = process.platform): boolean | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid > 0x7fff_ffff) return undefined;
  try {
    process.kill(pid, 0);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    if (code !== 'EPERM') return undefined;
  }
  // Unreadable stat (a hardened /proc): not known to be a zombie, so alive, as for the CLI.
  return procfs(platform) ? procStat(pid)?.state !== 'Z' : true;
}

/**
 * Fields of /proc/<pid>/stat: the state (field 3) and the start time (field 22). The command
 * name (field 2) is in parentheses and may itself hold spaces and `)` (a program named
 * `a) b (c`), so the fields are counted after the *last* `)`, as the CLI counts them.
 */
export function procStat(pid: number): { state: string; start: number | undefined } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text
    .slice(close + 1)
    .split(/\s+/)
    .filter((f) => f !== '');
  const state = fields[0];
  if (state === undefined) return undefined;
  const raw = fields[19];
  const start = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
  return { state, start: start !== undefined && Number.isSafeInteger(start) ? start : undefined };
}
