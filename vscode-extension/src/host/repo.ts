// Where the rail is, found like the `rail` CLI finds it (cli/src/git/repo.rs): from any worktree, the
// main checkout is the parent of the git common dir, and claims.md lives there, so every station
// shares one rail. Found by reading `.git` files (a `.git` directory, or a `gitdir:` file in a
// linked worktree and then its `commondir`) rather than spawning git on every activation;
// unusual setups (GIT_DIR in the environment, a bare or separate common dir) ask git. What each
// file says, and when the files are not enough, is core's (rail_core::gitdir, through the wasm),
// the same answer the CLI gets; this module reads the files and resolves the paths.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { core } from './core';
import { processesAllowed } from './trust';

export interface Repo {
  /** The worktree's top directory (the folder the session works in). */
  worktree: string;
  /** This worktree's own git dir (`.git`, or `.git/worktrees/<name>`). */
  gitDir: string;
  /** The git dir all worktrees share. */
  commonDir: string;
}

/** The main checkout: the parent of the common dir. */
export function mainCheckout(repo: Repo): string {
  return path.dirname(repo.commonDir);
}

/** The branch a git dir's HEAD points to; `undefined` when HEAD is detached or unreadable. */
export function headBranch(gitDir: string): string | undefined {
  let head: string;
  try {
    head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8');
  } catch {
    return undefined;
  }
  return core().gitFile('head', head) ?? undefined;
}

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function readGitdirFile(dotGit: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(dotGit, 'utf8');
  } catch {
    return undefined;
  }
  const target = core().gitFile('dot-git', text);
  if (target === null) return undefined;
  return path.isAbsolute(target) ? target : path.join(path.dirname(dotGit), target);
}

function commonDirOf(gitDir: string): string {
  let text: string;
  try {
    text = fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8');
  } catch {
    return gitDir;
  }
  const target = core().gitFile('commondir', text);
  if (target === null) return gitDir;
  return realpath(path.isAbsolute(target) ? target : path.join(gitDir, target));
}

/** Finds the repository containing `start`; `undefined` outside any git repository. */
export function discover(start: string, env: NodeJS.ProcessEnv = process.env): Repo | undefined {
  if (
    core()
      .askGitEnv()
      .some((name) => env[name] !== undefined)
  )
    return discoverWithGit(start);
  let dir = realpath(start);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(dotGit);
    } catch {
      stat = undefined;
    }
    if (stat) {
      const gitDir = stat.isDirectory() ? dotGit : readGitdirFile(dotGit);
      if (gitDir === undefined) return undefined;
      const realGitDir = realpath(gitDir);
      const commonDir = commonDirOf(realGitDir);
      if (!core().gitFilesSuffice(path.basename(commonDir))) return discoverWithGit(start);
      return { worktree: dir, gitDir: realGitDir, commonDir };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function gitPath(start: string, args: string[]): string | undefined {
  if (!processesAllowed()) return undefined; // Restricted Mode: only what the files say
  try {
    return execFileSync('git', args, { cwd: start, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).replace(/\n$/, '');
  } catch {
    return undefined;
  }
}

function discoverWithGit(start: string): Repo | undefined {
  const worktree = gitPath(start, ['rev-parse', '--show-toplevel']);
  const gitDir = gitPath(start, ['rev-parse', '--path-format=absolute', '--git-dir']);
  const commonDir = gitPath(start, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (worktree === undefined || gitDir === undefined || commonDir === undefined) return undefined;
  return { worktree, gitDir, commonDir };
}

export interface WorktreeInfo {
  path: string;
  branch?: string;
  /** Its own git dir, whose HEAD says which branch it has checked out. */
  gitDir: string;
}

/** Every worktree of the repository, main checkout first, read from the common dir's files. */
export function worktrees(repo: Repo): WorktreeInfo[] {
  const main: WorktreeInfo = { path: mainCheckout(repo), gitDir: repo.commonDir };
  const mainBranch = headBranch(repo.commonDir);
  if (mainBranch !== undefined) main.branch = mainBranch;
  const out = [main];
  let names: string[];
  try {
    names = fs.readdirSync(path.join(repo.commonDir, 'worktrees')).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    const gitDir = path.join(repo.commonDir, 'worktrees', name);
    let text: string;
    try {
      text = fs.readFileSync(path.join(gitDir, 'gitdir'), 'utf8');
    } catch {
      continue;
    }
    const dotGit = core().gitFile('worktree-gitdir', text);
    if (dotGit === null) continue;
    const info: WorktreeInfo = { path: path.dirname(dotGit), gitDir };
    const branch = headBranch(gitDir);
    if (branch !== undefined) info.branch = branch;
    out.push(info);
  }
  return out;
}
