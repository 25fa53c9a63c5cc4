// The git commands the extension runs, the same ones the CLI runs (cli/src/git/mod.rs): commit times
// for leases (local and pushed branches) and the session's changed files for Check My Changes.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { core } from './core';
import { processesAllowed, RestrictedMode } from './trust';

export class GitError extends Error {}

/** Runs git in `dir`; stdout on success, a readable error otherwise. */
export function git(dir: string, args: string[]): Promise<string> {
  if (!processesAllowed()) return Promise.reject(new RestrictedMode('git'));
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd: dir, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const why = stderr.trim() || err.message;
        reject(new GitError(`git ${args.join(' ')} failed: ${why}`));
      } else {
        resolve(stdout);
      }
    });
  });
}

/**
 * The commit times that count for leases, for the refs under `prefix`: git lists the refs
 * (`for-each-ref`), core decides which rows count (`commitTimes`: branches with commits not on
 * `base`, no remote `HEAD`) — the rule the CLI applies, from core, not written again here.
 * `fallback`: if git cannot compare with `base` (older than 2.41), list plain tips instead.
 */
async function commitTimes(dir: string, prefix: string, base: string | undefined, fallback: boolean): Promise<Record<string, string>> {
  const rows = (b: string | undefined): Promise<string> => git(dir, ['for-each-ref', core().forEachRefFormat(b ?? null), prefix]);
  let out: string;
  try {
    out = await rows(base);
  } catch {
    if (base === undefined || !fallback) return {};
    try {
      out = await rows(undefined);
    } catch {
      return {};
    }
  }
  return core().commitTimes(out, prefix);
}

/**
 * Time of the last commit each local branch has of its own, as RFC 3339: the tip's commit time
 * for branches with commits not on `base` (the main checkout's branch), so a branch just cut from
 * `base` does not inherit `base`'s activity. One `git for-each-ref`, as the CLI runs it.
 */
export function branchCommitTimes(dir: string, base: string | undefined): Promise<Record<string, string>> {
  return commitTimes(dir, 'refs/heads/', base, true);
}

function nulList(text: string): string[] {
  return text.split('\0').filter((s) => s.length > 0);
}

/**
 * Everything a session changed: commits on its branch since it forked from `base`, plus
 * uncommitted and untracked files in its worktree (what `rail check` and `rail release` use).
 */
export async function sessionChanges(worktree: string, base: string | undefined): Promise<string[]> {
  let fork: string | undefined;
  if (base !== undefined) {
    try {
      fork = (await git(worktree, ['merge-base', '--end-of-options', 'HEAD', base])).trim() || undefined;
    } catch {
      fork = undefined;
    }
  }
  let diff: string;
  if (fork !== undefined) {
    diff = await git(worktree, ['diff', '--name-only', '-z', '--no-renames', fork]);
  } else {
    // No base: uncommitted changes only (HEAD may not exist yet in a new repository).
    diff = await git(worktree, ['diff', '--name-only', '-z', '--no-renames', 'HEAD']).catch(() => '');
  }
  const untracked = await git(worktree, ['ls-files', '--others', '--exclude-standard', '-z']);
  return [...new Set([...nulList(diff), ...nulList(untracked)])].sort();
}

/**
 * Time of the last commit of each branch as the remote has it (the remote-tracking refs), for
 * the branches with commits not on the remote's main branch: on a shared rail a session keeps its
 * claim across machines by pushing. One `git for-each-ref` with `ahead-behind`; nothing if that
 * fails.
 */
export async function remoteCommitTimes(dir: string, remote: string): Promise<Record<string, string>> {
  let base = `${remote}/main`;
  try {
    base = (await git(dir, ['symbolic-ref', '--short', `refs/remotes/${remote}/HEAD`])).trim() || base;
  } catch {
    // No remote HEAD recorded (a clone of an empty remote, a remote added later): assume main.
  }
  return commitTimes(dir, `refs/remotes/${remote}/`, base, false);
}

// ---------------------------------------------------------------------------------------------
// Answers git gives from files that have not changed are asked once.
//
// A refresh follows every change of claims.md, yet what git says — commit times per branch,
// whether the rail is shared — depends only on the repository's refs and config. Each answer is
// kept with a stamp of the files it depends on (paths, sizes, mtimes) and asked again only when
// the stamp changes, so a steady-state refresh starts no process at all. Explicit Refresh
// forgets everything (`forgetGitAnswers`).

const answers = new Map<string, { stamp: string; value: Promise<unknown> }>();

/** `compute()` again only when `stamp` differs from the last one under `key` (`undefined`: always). */
export function memoized<T>(key: string, stamp: string | undefined, compute: () => Promise<T>): Promise<T> {
  if (stamp === undefined) return compute();
  const have = answers.get(key);
  if (have && have.stamp === stamp) return have.value as Promise<T>;
  const value = compute();
  answers.set(key, { stamp, value });
  // A failed answer is not kept: the next call asks again.
  value.catch(() => {
    if (answers.get(key)?.value === value) answers.delete(key);
  });
  return value;
}

export function forgetGitAnswers(): void {
  answers.clear();
}

function fileStamp(file: string): string {
  try {
    const s = fs.statSync(file, { bigint: true });
    return `${s.size}:${s.mtimeNs}:${s.ino}`;
  } catch {
    return '-';
  }
}

function walkRefs(dir: string, rel: string, out: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walkRefs(p, `${rel}/${e.name}`, out);
    else out.push(`${rel}/${e.name}=${fileStamp(p)}`);
  }
}

/**
 * The state of a repository's branches as files: HEAD, packed-refs and every loose ref under
 * refs/heads and refs/remotes. `undefined` when refs are not plain files (the reftable backend):
 * then git is asked every time.
 */
export function refsStamp(commonDir: string): string | undefined {
  if (!fs.existsSync(path.join(commonDir, 'refs', 'heads'))) return undefined;
  const parts = [`HEAD=${fileStamp(path.join(commonDir, 'HEAD'))}`, `packed-refs=${fileStamp(path.join(commonDir, 'packed-refs'))}`];
  walkRefs(path.join(commonDir, 'refs', 'heads'), 'refs/heads', parts);
  walkRefs(path.join(commonDir, 'refs', 'remotes'), 'refs/remotes', parts);
  return parts.join('\n');
}

/** The git configuration files `git config` reads for a repository, as a stamp. */
export function configStamp(commonDir: string | undefined): string {
  const home = os.homedir();
  const files = [
    commonDir === undefined ? undefined : path.join(commonDir, 'config'),
    path.join(home, '.gitconfig'),
    path.join(process.env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'git', 'config'),
  ];
  return files.map((f) => (f === undefined ? 'none' : `${f}=${fileStamp(f)}`)).join('\n');
}
