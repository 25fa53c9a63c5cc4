// The facts core needs besides the texts (cli/src/context/): now, this host, commit times per
// branch, liveness and start times of the processes claims name, and the worktrees.
// Observations only: what they mean for a lease is core's business.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { core, type Board, type Facts, type HookSeen, type RailTexts } from './core';
import { branchCommitTimes, memoized, refsStamp } from './git';
import { hostname, observeProcess } from './proc';
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

/**
 * Guard status: the mark each Rail hook call leaves for its session in `<common dir>/rail/seen/`,
 * and on a shared rail the other machines' marks `rail` keeps from its fetches in
 * `<common dir>/rail/seen-shared/<machine>`, read by core (`hookMarks`: a damaged mark, or one
 * under another session's name, counts as none; a session's newest mark wins). Where they are and
 * how much of them is read are core's, as `rail board` reads them.
 */
export function hookMarks(commonDir: string): Record<string, HookSeen> {
  const limits = core().constants().marks;
  const read = (folder: string, max: number): Array<[string, string]> => {
    const dir = path.join(commonDir, 'rail', folder);
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => !n.startsWith('.'));
    } catch {
      return [];
    }
    const out: Array<[string, string]> = [];
    for (const name of names.slice(0, limits.max_files)) {
      const file = path.join(dir, name);
      try {
        const st = fs.lstatSync(file);
        if (st.isFile() && st.size <= max) out.push([name, fs.readFileSync(file, 'utf8')]);
      } catch {
        // A mark removed or unreadable meanwhile is no mark.
      }
    }
    return out;
  };
  return core().hookMarks(read(limits.dir, limits.max_bytes), read(limits.shared_dir, limits.max_shared_bytes));
}

/**
 * The board for these texts, with every fact it depends on. Claims may name their owner process
 * (`pid: 4242@devbox/1234567`); which processes to look at is core's answer over the claims
 * (`ownerProbes`: each of this host's once, and its start time where a claim recorded one),
 * known only once core has read them, so the board is built once, and again with what this host
 * saw of those processes — liveness in `processes`, start times in `process_starts`, exactly
 * the facts the CLI supplies (cli/src/context.rs) — only when a claim names one here.
 */
export function boardWithProcesses(texts: RailTexts, facts: Facts): { board: Board; facts: Facts } {
  let board = core().board(texts, facts);
  const pids = board.claims.flatMap((claim) => (claim.pid === undefined ? [] : [claim.pid]));
  const probes = pids.length > 0 ? core().ownerProbes(pids, facts) : [];
  const processes: Record<string, boolean> = { ...(facts.processes ?? {}) };
  const starts: Record<string, number> = { ...(facts.process_starts ?? {}) };
  let seen = 0;
  for (const probe of probes) {
    const { alive, start } = observeProcess(probe.pid, probe.wants_start);
    if (alive === undefined) continue;
    seen++;
    processes[probe.key] = alive;
    if (start !== undefined) starts[probe.key] = start;
  }
  if (seen > 0) {
    facts = { ...facts, processes, process_starts: starts };
    board = core().board(texts, facts);
  }
  return { board, facts };
}
