// The mutation flow (cli/src/cmd/mutate.rs): take the lock, log any stale lock broken on the way,
// finish a crashed write, read the files, let core plan, apply the plan's edits and log line,
// release the lock. A refusal changes nothing but (at most) the log lines about locks recovered.
//
// No vscode import here: the extension and the conformance driver (test/driver.ts) run this same
// code, so the lock conformance test exercises exactly what the extension does.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { core, type Plan, type RailTexts, type Refusal, type Request } from './core';
import { baseFacts, boardWithProcesses, type RailLocation } from './facts';
import { acquire, breakOnRequest, type Broken, type HeldLock } from './lock';
import { renderLogLine } from './logline';
import { RailStore } from './store';

export interface MutateOptions {
  /** What the lock's owner record says we are doing, e.g. `vscode: rail claim auth-refresh`. */
  command: string;
  /** Lock wait; default `RAIL_LOCK_TIMEOUT_MS`, else 10 s. */
  timeoutMs?: number;
  /** Hold the lock this long before planning (tests kill a holder mid-operation). */
  holdMs?: number;
}

export type MutateResult =
  | { ok: true; plan: Plan; notes: string[] }
  | { ok: false; message: string; refusal?: Refusal; notes: string[] };

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
async function lockAndRecover(
  store: RailStore,
  session: string,
  opts: MutateOptions,
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

/** Where a merge left conflict markers in claims.md (core's diagnostic), if it did. */
function conflictMarkerLine(texts: RailTexts): number | undefined {
  const marker = core()
    .validate(texts)
    .find((d) => d.file === 'claims.md' && d.code === 'conflict-marker');
  return marker?.line;
}

/** Runs one operation for `session` under the lock. Throws only on environment failures. */
export async function mutate(
  loc: RailLocation,
  session: string,
  request: Request,
  opts: MutateOptions,
): Promise<MutateResult> {
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
