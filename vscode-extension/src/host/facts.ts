// The facts core needs besides the texts (cli/src/context.rs): now, this host, commit times per
// branch, liveness of processes named by claims, and the worktrees. Observations only: what they
// mean for a lease is core's business.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { core, type Board, type Facts, type HookSeen, type RailTexts } from './core';
import { branchCommitTimes, memoized, refsStamp } from './git';
import { hostname, pidAlive } from './proc';
import { headBranch, worktrees, type Repo } from './repo';

/** Where a rail is, and the repository it belongs to (absent for a rail directory outside git). */
export interface RailLocation {
  /** The rail directory: where claims.md lives (the main checkout, unless overridden). */
  root: string;
  /** The repository of the workspace folder, if any. */
  repo?: Repo;
}

export interface FactOptions {
  /** Ask git for commit times (they can only extend leases). */
  commits: boolean;
  /** List the worktrees (for the sessions view). */
  worktrees: boolean;
  /** Evaluate at this time instead of the clock (tests). */
  now?: Date;
}

/** Facts without process liveness (which needs to know which pids the claims name). */
export async function baseFacts(loc: RailLocation, opts: FactOptions): Promise<Facts> {
  const facts: Facts = { now: (opts.now ?? new Date()).toISOString(), host: hostname() };
  if (opts.commits && loc.repo) {
    const base = headBranch(loc.repo.commonDir);
    const stamp = refsStamp(loc.repo.commonDir);
    facts.commits = await memoized(`commits:${loc.root}:${base ?? ''}`, stamp, () => branchCommitTimes(loc.root, base));
  }
  if (opts.worktrees && loc.repo) {
    facts.worktrees = worktrees(loc.repo).map((w) => (w.branch === undefined ? { path: w.path } : { path: w.path, branch: w.branch }));
    facts.hooks = hookMarks(loc.repo.commonDir);
  }
  return facts;
}

/** More marks than this are not read (as `rail board` reads them: cli/src/heartbeat.rs). */
const MAX_MARKS = 1000;
const MAX_MARK_BYTES = 4096;

/**
 * Guard status: the mark each Rail hook call leaves for its session in `<common dir>/rail/seen/`,
 * read by core (`hookMark`: a damaged mark, or one under another session's name, counts as none).
 */
export function hookMarks(commonDir: string): Record<string, HookSeen> {
  const dir = path.join(commonDir, 'rail', 'seen');
  const out: Record<string, HookSeen> = {};
  let names: string[];
  try {
    names = fs.readdirSync(dir).slice(0, MAX_MARKS);
  } catch {
    return out;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile() || st.size > MAX_MARK_BYTES) continue;
      const mark = core().hookMark(name, fs.readFileSync(file, 'utf8'));
      if (mark) out[mark.session] = mark.seen;
    } catch {
      // A mark removed or unreadable meanwhile is no mark.
    }
  }
  return out;
}

/**
 * The board for these texts, with every fact it depends on. Claims may name their owner process
 * (`pid: 4242@devbox`); which pids those are is known only once core has read the claims, so the
 * board is built once, and again with their liveness only when a claim on this host names one.
 */
export function boardWithProcesses(texts: RailTexts, facts: Facts): { board: Board; facts: Facts } {
  let board = core().board(texts, facts);
  const processes: Record<string, boolean> = {};
  for (const claim of board.claims) {
    const pid = claim.pid;
    if (pid === undefined) continue;
    const at = pid.indexOf('@');
    // `PID@HOST/START` records the owner's start time; the host is what comes before it.
    if (at < 0 || pid.slice(at + 1).replace(/\/\d+$/, '') !== facts.host) continue;
    const alive = pidAlive(Number(pid.slice(0, at)));
    if (alive !== undefined) processes[pid] = alive;
  }
  if (Object.keys(processes).length > 0) {
    facts = { ...facts, processes };
    board = core().board(texts, facts);
  }
  return { board, facts };
}
