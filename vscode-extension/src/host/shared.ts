// One rail across machines, on a git remote (docs/shared-rail.md; the CLI's cli/src/shared.rs).
//
// The rail's state lives on the remote at `refs/rail/claims`. A push that is not a fast-forward
// is rejected by every git server: an atomic compare-and-swap, and all Rail needs. A mutation
// fetches the ref, lets core plan on exactly that state, commits the result on top and pushes it
// without force. Rejected: someone else's commit landed first, so fetch and plan again (now maybe
// a refusal naming the new holder), after a jittered backoff. Unreachable: fail, and change
// nothing anywhere. After a success the main checkout's files mirror the new state, written
// under the local lock and journal like every other write, so the board, the CLI's reads and the
// seed one-liner all see it.
//
// No vscode import here: the extension and the conformance driver (test/driver.ts) run this same
// code, so the shared race test exercises exactly what the extension does.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { core, type Facts, type Plan, type RailTexts, type Request } from './core';
import { baseFacts, boardWithProcesses, type RailLocation } from './facts';
import { git } from './git';
import { lockAndRecover, type LockOptions } from './locked';
import type { MutateResult } from './mutate';
import { commitFiles, fetchShared, FETCHED_REF, pushShared, readCommit, RemoteError, remoteCommitTimes } from './remote';
import { CLAIMS_DIR, CLAIMS_MD, CONFIG_FILE, LOG_FILE, RailStore } from './store';

/** The stamp the CLI and the extension both write when the mirror was last synced. */
const SYNCED_STAMP = 'rail-synced';

/** A shared-rail operation that could not be done; nothing was changed. */
export class SharedError extends Error {
  constructor(
    /** `unreachable`: the remote did not answer; `busy`: retries ran out; `git`: anything else. */
    readonly kind: 'unreachable' | 'busy' | 'git',
    message: string,
    /** What git said, without the explanation around it (for "could not fetch: …"). */
    readonly detail: string = message,
  ) {
    super(message);
  }
}

/** A state of the shared rail: its commit (absent before the first operation) and its files. */
export interface SharedSnapshot {
  commit: string | undefined;
  files: Map<string, string>;
}

/**
 * The remote this rail is shared through, if any — found exactly like the CLI: `RAIL_LOCAL=1`
 * turns shared mode off; else `git config rail.remote`; else rail.yaml's `remote:`.
 */
export async function remoteOf(loc: RailLocation, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (env.RAIL_LOCAL === '1') return undefined;
  try {
    const configured = (await git(loc.root, ['config', '--get', 'rail.remote'])).trim();
    if (configured) return configured;
  } catch {
    // Not set (exit 1), or not a git repository: rail.yaml may still name one.
  }
  let text: string;
  try {
    text = fs.readFileSync(path.join(loc.root, CONFIG_FILE), 'utf8');
  } catch {
    return undefined;
  }
  return core().parseConfig(text).remote ?? undefined;
}

/** Where git runs: the workspace's worktree (its remotes and refs), else the rail directory. */
function repoDir(loc: RailLocation): string {
  return loc.repo?.worktree ?? loc.root;
}

/** How long a mutation keeps retrying rejected pushes: `RAIL_SHARED_TIMEOUT_MS`, else 60 s. */
export function sharedTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const ms = Number(env.RAIL_SHARED_TIMEOUT_MS);
  return Number.isFinite(ms) && ms >= 0 && env.RAIL_SHARED_TIMEOUT_MS !== '' ? ms : 60_000;
}

/** The remote's files as core reads a rail. No rail.yaml: it is not part of the shared state
 * (the CLI plans without it too, so every machine plans the same way on the same state). */
function textsOf(files: ReadonlyMap<string, string>): RailTexts {
  const file = (p: string): { path: string; text: string; modified: null } | undefined => {
    const text = files.get(p);
    return text === undefined ? undefined : { path: p, text, modified: null };
  };
  const texts: RailTexts = { claim_files: [] };
  const claims = file(CLAIMS_MD);
  if (claims) texts.claims = claims;
  const log = file(LOG_FILE);
  if (log) texts.log = log;
  for (const p of [...files.keys()].sort()) {
    if (p.startsWith(`${CLAIMS_DIR}/`)) texts.claim_files?.push({ path: p, text: files.get(p) ?? '', modified: null });
  }
  return texts;
}

/** Commit times merged: the later of the two per branch (a branch may be local and pushed). */
export function mergeCommitTimes(facts: Facts, extra: Record<string, string>): Facts {
  const commits: Record<string, string> = { ...(facts.commits ?? {}) };
  for (const [branch, time] of Object.entries(extra)) {
    const have = commits[branch];
    if (have === undefined || Date.parse(have) < Date.parse(time)) commits[branch] = time;
  }
  return { ...facts, commits };
}

/**
 * Facts for a shared rail: leases run on the branches as pushed to the remote (remote-tracking
 * refs, commits not on the remote's main branch) together with the local branches — the local
 * facts `facts`, with the pushed branches' commit times merged in.
 */
export async function withPushedCommits(loc: RailLocation, remote: string, facts: Facts): Promise<Facts> {
  return mergeCommitTimes(facts, await remoteCommitTimes(repoDir(loc), remote));
}

/** The files of a shared state that the mirror may write: the rail's own, nothing else. */
function isMirrored(file: string): boolean {
  return file === CLAIMS_MD || file === LOG_FILE || /^claims\/[^/]+\.ya?ml$/.test(file);
}

/**
 * Writes a shared state into the main checkout: under the local lock, through the journal,
 * claims.md in place. Files the shared state does not have (local claim files) are left alone.
 * Returns notes for the user (a stale local lock broken on the way, a crash recovered).
 */
export async function mirror(loc: RailLocation, session: string, snapshot: SharedSnapshot, opts: LockOptions): Promise<string[]> {
  const store = new RailStore(loc.root);
  const { lock, notes } = await lockAndRecover(store, session, opts);
  try {
    const local = await store.read(true);
    const files = new Map([...snapshot.files].filter(([file]) => isMirrored(file)));
    store.replace(lock.claimsFd, local, files);
  } finally {
    lock.release();
  }
  return notes;
}

function stampPath(loc: RailLocation): string | undefined {
  return loc.repo ? path.join(loc.repo.commonDir, SYNCED_STAMP) : undefined;
}

/** Records that the local mirror was synced with the remote now (read by the CLI too). */
function markSynced(loc: RailLocation): void {
  const file = stampPath(loc);
  if (file === undefined) return;
  try {
    fs.writeFileSync(file, new Date().toISOString());
  } catch {
    // Only the "fetched … ago" text depends on it.
  }
}

/** When the local mirror was last synced with the remote (by the extension or the CLI). */
export function lastSynced(loc: RailLocation): Date | undefined {
  const file = stampPath(loc);
  if (file === undefined) return undefined;
  try {
    const t = Date.parse(fs.readFileSync(file, 'utf8').trim());
    return Number.isFinite(t) ? new Date(t) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One shared-rail operation at a time per repository in this process: a refresh's sync that
 * fetched an older state must not mirror it over a newer state a mutation just pushed. (Other
 * processes race as the CLI does; the next sync repairs the mirror.)
 */
const queues = new Map<string, Promise<void>>();
async function exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(key) ?? Promise.resolve();
  let done = (): void => undefined;
  const mine = new Promise<void>((r) => (done = r));
  const tail = before.then(() => mine);
  queues.set(key, tail);
  await before;
  try {
    return await work();
  } finally {
    done();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

function unreachable(remote: string, e: unknown): never {
  if (e instanceof RemoteError && e.kind === 'unreachable') {
    throw new SharedError(
      'unreachable',
      `the shared rail's remote (${remote}) is unreachable, nothing was changed: ${e.message}`,
      e.message,
    );
  }
  if (e instanceof RemoteError) throw new SharedError('git', e.message);
  throw e;
}

async function fetchSnapshot(dir: string, remote: string, branches: boolean): Promise<SharedSnapshot> {
  try {
    const commit = await fetchShared(dir, remote, branches);
    return { commit, files: await readCommit(dir, commit) };
  } catch (e) {
    return unreachable(remote, e);
  }
}

/**
 * Like `rail sync`: fetches the shared rail and the remote's branches (for leases), and mirrors
 * it into the main checkout. Throws SharedError when the remote cannot be reached (the mirror is
 * left as last fetched).
 */
export async function syncShared(
  loc: RailLocation,
  remote: string,
  session: string,
  opts: LockOptions,
): Promise<{ snapshot: SharedSnapshot; notes: string[] }> {
  const dir = repoDir(loc);
  return exclusive(dir, async () => {
    const snapshot = await fetchSnapshot(dir, remote, true);
    markSynced(loc);
    const notes = await mirror(loc, session, snapshot, opts);
    return { snapshot, notes };
  });
}

/** A plan's edits applied to a shared state: the changed files' new texts, log line appended. */
function applyPlan(files: ReadonlyMap<string, string>, plan: Plan): Map<string, string> {
  const changed = new Map<string, string>();
  for (const fe of plan.edits) {
    if (fe.edits.length === 0) continue;
    changed.set(fe.file, core().applyEdits(files.get(fe.file) ?? '', fe.edits));
  }
  if (plan.log_line !== null) {
    let log = files.get(LOG_FILE) ?? '';
    if (log !== '' && !log.endsWith('\n')) log += '\n';
    changed.set(LOG_FILE, `${log}${plan.log_line}\n`);
  }
  return changed;
}

/** Jittered exponential backoff between rounds, as the CLI's: 20 ms doubling to 640 ms. */
function backoffMs(attempt: number): number {
  const cap = 20 << Math.min(attempt, 5);
  return 10 + Math.floor(Math.random() * cap);
}

/**
 * A mutation of the shared rail. Exactly one of any number of racing machines wins a task: the
 * remote accepts only fast-forwards, so a second writer is rejected and plans again on the state
 * that won. Throws SharedError when the remote cannot be reached (nothing changed, locally or on
 * the remote) or when it kept changing for longer than `RAIL_SHARED_TIMEOUT_MS`.
 */
export async function mutateShared(
  loc: RailLocation,
  remote: string,
  session: string,
  request: Request,
  opts: LockOptions,
): Promise<MutateResult> {
  const dir = repoDir(loc);
  return exclusive(dir, async () => {
    const deadline = Date.now() + sharedTimeoutMs();
    const notes: string[] = [];
    // The mirror is best effort once the remote has spoken: the operation's truth is the remote.
    const mirrorQuietly = async (snapshot: SharedSnapshot, what: string): Promise<void> => {
      try {
        notes.push(...(await mirror(loc, session, snapshot, opts)));
      } catch (e) {
        notes.push(`${what}, but the local copy was not updated: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
    for (let attempt = 1; ; attempt++) {
      // A take judges the holder's lease, which runs on the branches as pushed: fetch those too.
      const snapshot = await fetchSnapshot(dir, remote, request.op === 'take');
      const texts = textsOf(snapshot.files);
      const [local, branchTimes] = await Promise.all([
        baseFacts(loc, { commits: true, worktrees: false }),
        remoteCommitTimes(dir, remote),
      ]);
      const facts = boardWithProcesses(texts, mergeCommitTimes(local, branchTimes)).facts;
      const outcome = core().plan(texts, facts, session, request);
      if ('refusal' in outcome) {
        // The refusal is about the shared state: show that state locally too.
        await mirrorQuietly(snapshot, 'refused on the shared rail');
        return { ok: false, message: outcome.refusal.message, refusal: outcome.refusal, notes, attempts: attempt };
      }
      const plan = outcome.ok;
      if (plan.noop) {
        await mirrorQuietly(snapshot, 'nothing to change');
        return { ok: true, plan, notes, attempts: attempt };
      }
      const changed = applyPlan(snapshot.files, plan);
      let pushed: 'done' | 'rejected';
      let commit: string;
      try {
        commit = await commitFiles(dir, snapshot.commit, changed, `rail: ${plan.op} ${plan.task} by ${plan.session}`);
        pushed = await pushShared(dir, remote, commit);
      } catch (e) {
        return unreachable(remote, e);
      }
      if (pushed === 'done') {
        await git(dir, ['update-ref', FETCHED_REF, commit]).catch(() => undefined);
        markSynced(loc);
        const files = new Map([...snapshot.files, ...changed]);
        await mirrorQuietly({ commit, files }, `done on ${remote}`);
        return { ok: true, plan, notes, attempts: attempt };
      }
      if (Date.now() >= deadline) {
        throw new SharedError(
          'busy',
          `gave up after ${attempt} attempts: the shared rail kept changing under us (other machines are busy); try again`,
        );
      }
      await new Promise((r) => setTimeout(r, backoffMs(attempt)));
    }
  });
}

/** What the views say about a shared rail. */
export interface SharedInfo {
  remote: string;
  /** When the local mirror was last synced (by us or the CLI); `undefined`: never. */
  syncedAt: Date | undefined;
  /** Why the latest fetch failed; `undefined` when it worked. */
  error: string | undefined;
}

/**
 * The line the Board view and the status bar show for a shared rail: where it is shared, how old
 * the shown state is, and — when the last fetch failed — that it is stale and why. Core words it
 * (`rail_core::freshness`), as it does for the CLI's reads.
 */
export function describeShared(info: SharedInfo, now: Date = new Date()): { text: string; stale: boolean } {
  return core().describeFreshness({
    remote: info.remote,
    fetched_at: info.syncedAt?.toISOString() ?? null,
    now: now.toISOString(),
    fetch_error: info.error ?? null,
  });
}
