// One rail across machines, on a git remote (docs/shared-rail.md), as the board reads it.
//
// Every change and every fetch goes through the `rail` binary (`rail claim …`, `rail sync`:
// host/native.ts), which talks to the remote and mirrors the shared state into the main
// checkout. What is left here is reading: whether the rail is shared, when the mirror was last
// synced, the pushed branches' commit times for leases, and core's words for how fresh it is.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { core, type Facts } from './core';
import type { RailLocation } from './facts';
import { configStamp, git, memoized, refsStamp, remoteCommitTimes } from './git';
import { discover } from './repo';
import { CONFIG_FILE } from './store';

/**
 * The remote this rail is shared through, if any — core decides (`sharedRemote`, as for the
 * CLI): `RAIL_LOCAL=1` turns shared mode off; else `git config rail.remote`; else rail.yaml's
 * `remote:`. This host only reads the three.
 */
export async function remoteOf(loc: RailLocation, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const names = core().constants();
  // `git config` runs in the rail directory: its repository's config decides (asked again only
  // when a config file changes).
  const repo = loc.repo !== undefined && loc.repo.worktree === loc.root ? loc.repo : discover(loc.root, env);
  const configured = await memoized(`remote:${loc.root}`, configStamp(repo?.commonDir), async () => {
    try {
      return await git(loc.root, ['config', '--get', names.remote_key]);
    } catch {
      return null; // Not set (exit 1), or not a git repository: rail.yaml may still name one.
    }
  });
  let configText: string | null = null;
  try {
    configText = fs.readFileSync(path.join(loc.root, CONFIG_FILE), 'utf8');
  } catch {
    // No rail.yaml.
  }
  const remote = core().sharedRemote({ rail_local: env[names.local_env] ?? null, git_config: configured, config_text: configText });
  return remote ?? undefined;
}

/** Where git runs: the workspace's worktree (its remotes and refs), else the rail directory. */
function repoDir(loc: RailLocation): string {
  return loc.repo?.worktree ?? loc.root;
}

/**
 * Facts for a shared rail: leases run on the branches as pushed to the remote (remote-tracking
 * refs, commits not on the remote's main branch) together with the local branches — the local
 * facts `facts`, with the pushed branches' commit times beside them (`pushed_commits`; core
 * counts the later of the two per branch).
 */
export async function withPushedCommits(loc: RailLocation, remote: string, facts: Facts): Promise<Facts> {
  const dir = repoDir(loc);
  const stamp = loc.repo ? refsStamp(loc.repo.commonDir) : undefined;
  const pushed = await memoized(`pushed:${dir}:${remote}`, stamp, () => remoteCommitTimes(dir, remote));
  return { ...facts, pushed_commits: pushed };
}

/** The stamp `rail` leaves in git's common dir when it last synced the mirror (core's name). */
function stampPath(loc: RailLocation): string | undefined {
  return loc.repo ? path.join(loc.repo.commonDir, core().constants().synced_stamp) : undefined;
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
