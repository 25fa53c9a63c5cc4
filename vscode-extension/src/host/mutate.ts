// The mutation flow (cli/src/cmd/mutate.rs): take the lock, log any stale lock broken on the way,
// finish a crashed write, read the files, let core plan, apply the plan's edits and log line,
// release the lock. A refusal changes nothing but (at most) the log lines about locks recovered.
// A rail shared through a git remote (shared.ts) goes through the remote instead, exactly as the
// CLI does: the same `mutate()` serves both, so no caller can forget the shared case.
//
// No vscode import here: the extension and the conformance driver (test/driver.ts) run this same
// code, so the lock conformance test exercises exactly what the extension does.

import { core, type Plan, type RailTexts, type Refusal, type Request } from './core';
import { baseFacts, boardWithProcesses, type RailLocation } from './facts';
import { breakOnRequest, type Broken } from './lock';
import { lockAndRecover, type LockOptions } from './locked';
import { renderLogLine } from './logline';
import { mutateShared, remoteOf } from './shared';
import { RailStore } from './store';

export interface MutateOptions extends LockOptions {
  /** Hold the lock this long before planning (tests kill a holder mid-operation). */
  holdMs?: number;
}

export type MutateResult = (
  | { ok: true; plan: Plan; notes: string[] }
  | { ok: false; message: string; refusal?: Refusal; notes: string[] }
) & {
  /** Shared rail: rounds of fetch, plan and push it took (each extra one: a rejected push). */
  attempts?: number;
};

/** Where a merge left conflict markers in claims.md (core's diagnostic), if it did. */
function conflictMarkerLine(texts: RailTexts): number | undefined {
  const marker = core()
    .validate(texts)
    .find((d) => d.file === 'claims.md' && d.code === 'conflict-marker');
  return marker?.line;
}

/**
 * Runs one operation for `session`: under the local lock, or on the shared rail's remote when the
 * rail is shared (then the main checkout's files are mirrored afterwards). Throws only on
 * environment failures (a lock that never came, a remote that cannot be reached: `SharedError`).
 */
export async function mutate(
  loc: RailLocation,
  session: string,
  request: Request,
  opts: MutateOptions,
): Promise<MutateResult> {
  const remote = await remoteOf(loc);
  if (remote !== undefined) return mutateShared(loc, remote, session, request, opts);
  const store = new RailStore(loc.root);
  const { lock, logLines, notes } = await lockAndRecover(store, session, opts);
  try {
    if (opts.holdMs) await new Promise((r) => setTimeout(r, opts.holdMs));
    const texts = await store.read(true);
    const markerLine = conflictMarkerLine(texts);
    if (markerLine !== undefined) {
      store.apply(lock.claimsFd, texts, [], logLines);
      return {
        ok: false,
        message: `claims.md:${markerLine} has a merge conflict marker; resolve it before changing the rail (rail's merge driver avoids these: \`rail init\`)`,
        notes,
      };
    }
    const facts = boardWithProcesses(texts, await baseFacts(loc, { commits: true, worktrees: false })).facts;
    const outcome = core().plan(texts, facts, session, request);
    if ('ok' in outcome) {
      const plan = outcome.ok;
      if (plan.log_line !== null) logLines.push(plan.log_line);
      store.apply(lock.claimsFd, texts, plan.edits, logLines);
      return { ok: true, plan, notes };
    }
    store.apply(lock.claimsFd, texts, [], logLines);
    return { ok: false, message: outcome.refusal.message, refusal: outcome.refusal, notes };
  } finally {
    lock.release();
  }
}

/**
 * Breaks the lock on request (only a dead or abandoned one unless `force`), then records it in
 * the log under the lock like every other log line. Returns what was broken, `undefined` if the
 * lock was free.
 */
export async function breakLockAndLog(
  loc: RailLocation,
  session: string,
  force: boolean,
  opts: MutateOptions,
): Promise<Broken | undefined> {
  const broken = breakOnRequest(loc.root, force, session, opts.command);
  if (!broken) return undefined;
  const store = new RailStore(loc.root);
  const { lock, logLines } = await lockAndRecover(store, session, opts);
  try {
    logLines.push(renderLogLine(new Date(), 'lock-broken', null, session, { holder: broken.holder, reason: broken.reason }));
    store.apply(lock.claimsFd, await store.read(true), [], logLines);
  } finally {
    lock.release();
  }
  return broken;
}
