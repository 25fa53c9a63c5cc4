// The commands, in one table. Each asks what it needs (or takes it as an argument — from a tree
// item, or from a test or keybinding); reads ask core in-process, changes run the `rail` binary
// (RailContext.run → host/native.ts), and the answer is shown. Commands return what they did, so
// the integration tests can check it.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

import type { BoardPanel } from './boardWebview';
import type { RailContext } from './ctx';
import { repoRelative } from './decorations';
import { core, isMine, type BoardClaim, type Located, type ScopeReport, type Who } from './host/core';
import { sessionChanges } from './host/git';
import { installCli as copyCli, installPlace, onPath, pathAdvice } from './host/install';
import { bundledBinary, type LockStatus } from './host/native';
import { headBranch, mainCheckout } from './host/repo';
import { closeStation as closeFlow } from './host/station';
import { LOG_FILE } from './host/store';

export interface CommandContext {
  rail: RailContext;
  board: BoardPanel;
}

type Command = (c: CommandContext, arg?: unknown) => Promise<unknown>;

/** Arguments commands accept instead of asking (tests, keybindings, other extensions). */
interface ClaimArgs {
  task?: string;
  paths?: string[];
  resources?: string[];
  purpose?: string;
  after?: string[];
  /** New Station: where the worktree goes, and what to branch from. */
  dir?: string;
  base?: string;
  /** Take Over / Break Dead Lock / Close Station: skip the confirmation (already given). */
  confirmed?: boolean;
  force?: boolean;
  /** Close Station: a task, a branch or the station's path. */
  station?: string;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

/** A claim handed over by a tree item (`{ kind: 'claim', claim }`), if that is what `arg` is. */
function claimFromArg(arg: unknown): BoardClaim | undefined {
  // Tree items hand back the node objects our own trees built from core's board, unchanged.
  if (isObject(arg) && arg.kind === 'claim' && isObject(arg.claim)) return arg.claim as unknown as BoardClaim;
  return undefined;
}

function argsOf(arg: unknown): ClaimArgs {
  if (!isObject(arg) || claimFromArg(arg) || arg instanceof vscode.Uri) return {};
  const strings = (v: unknown): string[] | undefined =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
  const out: ClaimArgs = {};
  if (typeof arg.task === 'string') out.task = arg.task;
  const paths = strings(arg.paths);
  if (paths) out.paths = paths;
  const resources = strings(arg.resources);
  if (resources) out.resources = resources;
  const after = strings(arg.after);
  if (after) out.after = after;
  if (typeof arg.purpose === 'string') out.purpose = arg.purpose;
  if (typeof arg.dir === 'string') out.dir = arg.dir;
  if (typeof arg.base === 'string') out.base = arg.base;
  if (arg.confirmed === true) out.confirmed = true;
  if (arg.force === true) out.force = true;
  if (typeof arg.station === 'string') out.station = arg.station;
  return out;
}

/** `a, b ,c` → `['a', 'b', 'c']`. Lists are typed comma-separated, as claims.md writes them. */
function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

async function ask(title: string, prompt: string, placeHolder: string, value = '', required = false): Promise<string | undefined> {
  const answer = await vscode.window.showInputBox({
    title,
    prompt,
    placeHolder,
    value,
    ignoreFocusOut: true,
    validateInput: required ? (v) => (v.trim() ? undefined : 'Required') : undefined,
  });
  return answer?.trim();
}

/** A default for "paths": the folder of the file being edited, as a glob. */
function suggestedPaths(rail: RailContext): string {
  const uri = vscode.window.activeTextEditor?.document.uri;
  const rel = uri ? repoRelative(rail, uri) : undefined;
  if (!rel) return '';
  const dir = path.posix.dirname(rel);
  return dir === '.' ? rel : `${dir}/**`;
}

/** Picks one of `claims` (the only one is taken without asking). */
async function pickClaim(claims: BoardClaim[], title: string): Promise<BoardClaim | undefined> {
  const withTask = claims.filter((c) => c.task !== undefined);
  if (withTask.length === 0) {
    void vscode.window.showInformationMessage(`Rail: nothing to ${title.toLowerCase()}.`);
    return undefined;
  }
  if (withTask.length === 1) return withTask[0];
  const pick = await vscode.window.showQuickPick(
    withTask.map((c) => ({ label: c.task ?? '', description: `${c.session} · ${c.state}`, detail: c.reason, claim: c })),
    { title: `Rail: ${title}`, placeHolder: 'Which task?' },
  );
  return pick?.claim;
}

/**
 * The branch to record on a claim when the session is not named like the branch, so commits on
 * it keep the claim alive. Not the main checkout's branch: its commits never count for leases.
 */
function branchFor(rail: RailContext, session: string): string | null {
  const branch = rail.branch;
  const common = rail.location?.repo?.commonDir;
  const main = common !== undefined ? headBranch(common) : undefined;
  return branch !== undefined && branch !== session && branch !== main ? branch : null;
}

/** The files this session changed since it forked from the main checkout's branch. */
async function changedFiles(rail: RailContext): Promise<string[]> {
  const loc = rail.location;
  if (!loc?.repo) return [];
  const main = headBranch(loc.repo.commonDir);
  const own = headBranch(loc.repo.gitDir);
  const base = main !== undefined && main !== own ? main : undefined;
  const files = await sessionChanges(loc.repo.worktree, base);
  // In the main checkout the rail's own files show up as changes; they are nobody's work.
  const sameDir = fs.realpathSync(loc.repo.worktree) === fs.realpathSync(loc.root);
  return sameDir ? core().workFiles(files) : files;
}

/**
 * What was typed into Claim Task's boxes, kept while the claim has not gone through: a refusal
 * or a bad glob must not cost the user their answers. The next Claim Task starts from them.
 */
let claimDraft: { task: string; paths: string; resources: string; purpose: string } | undefined;

const claimTask: Command = async ({ rail }, arg) => {
  const session = rail.requireSession();
  if (!session) return undefined;
  const a = argsOf(arg);
  let { task, paths, resources, purpose } = a;
  const asked = task === undefined;
  if (task === undefined) {
    const d = claimDraft;
    task = await ask('Rail: Claim Task (1/4)', `Task id — you claim it as ${session}`, 'auth-refresh', d?.task ?? '', true);
    if (!task) return undefined;
    const p = await ask(
      'Rail: Claim Task (2/4)',
      'Paths you will change (comma-separated globs; empty: none)',
      'src/auth/**, docs/auth.md',
      d?.paths ?? suggestedPaths(rail),
    );
    if (p === undefined) return undefined;
    const r = await ask(
      'Rail: Claim Task (3/4)',
      'Resources you will use (comma-separated; empty: none)',
      'port:3000, simulator:iphone-15',
      d?.resources ?? '',
    );
    if (r === undefined) return undefined;
    const why = await ask(
      'Rail: Claim Task (4/4)',
      'Purpose (one line of markdown; empty: none)',
      'refresh tokens before they expire',
      d?.purpose ?? '',
    );
    if (why === undefined) return undefined;
    claimDraft = { task, paths: p, resources: r, purpose: why };
    paths = splitList(p);
    resources = splitList(r);
    purpose = why;
  }
  const claim = {
    task,
    paths: paths ?? [],
    resources: resources ?? [],
    purpose: purpose ? purpose : null,
    lease: rail.config.lease || null,
    after: a.after ?? [],
    branch: branchFor(rail, session),
  };
  const result = await rail.run(`claim ${task}`, (cli) => cli.claim(session, claim));
  if (asked && result?.ok) claimDraft = undefined;
  return result;
};

// The CLI records the files the session touched (git diff of its branch) itself.
const release: Command = async ({ rail }, arg) => {
  const session = rail.requireSession();
  if (!session) return undefined;
  const claim = claimFromArg(arg) ?? (argsOf(arg).task ? undefined : await pickClaim(rail.myClaims(), 'Release'));
  const task = claim?.task ?? argsOf(arg).task;
  if (!task) return undefined;
  return rail.run(`release ${task}`, (cli) => cli.release(session, task));
};

/** Update Claim: new paths, resources or purpose for one of my claims (asked with the current ones filled in). */
const updateClaim: Command = async ({ rail }, arg) => {
  const session = rail.requireSession();
  if (!session) return undefined;
  const a = argsOf(arg);
  const claim = claimFromArg(arg) ?? (a.task ? rail.myClaims().find((c) => c.task === a.task) : await pickClaim(rail.myClaims(), 'Update'));
  const task = claim?.task ?? a.task;
  if (!task) return undefined;
  let { paths, resources, purpose } = a;
  if (paths === undefined && resources === undefined && purpose === undefined) {
    const p = await ask(
      `Rail: Update ${task} (1/3)`,
      'Paths (comma-separated globs; empty: none)',
      'src/auth/**',
      (claim?.paths ?? []).join(', '),
    );
    if (p === undefined) return undefined;
    const r = await ask(
      `Rail: Update ${task} (2/3)`,
      'Resources (comma-separated; empty: none)',
      'port:3000',
      (claim?.resources ?? []).join(', '),
    );
    if (r === undefined) return undefined;
    const why = await ask(
      `Rail: Update ${task} (3/3)`,
      'Purpose (one line of markdown)',
      'refresh tokens before they expire',
      claim?.purpose ?? '',
    );
    if (why === undefined) return undefined;
    paths = splitList(p);
    resources = splitList(r);
    purpose = why;
  }
  const change = {
    ...(paths !== undefined ? { paths } : {}),
    ...(resources !== undefined ? { resources } : {}),
    ...(purpose !== undefined ? { purpose } : {}),
  };
  return rail.run(`update ${task}`, (cli) => cli.update(session, task, change));
};

const renew: Command = async ({ rail }, arg) => {
  const session = rail.requireSession();
  if (!session) return undefined;
  const claim = claimFromArg(arg) ?? (argsOf(arg).task ? undefined : await pickClaim(rail.myClaims(), 'Renew'));
  const task = claim?.task ?? argsOf(arg).task;
  if (!task) return undefined;
  return rail.run(`renew ${task}`, (cli) => cli.renew(session, task));
};

const takeOver: Command = async ({ rail }, arg) => {
  const session = rail.requireSession();
  if (!session) return undefined;
  const a = argsOf(arg);
  const board = rail.snapshot?.board;
  const stale = board?.claims.filter((c) => c.takeable && !isMine(c, session)) ?? [];
  const claim = claimFromArg(arg) ?? (a.task ? stale.find((c) => c.task === a.task) : await pickClaim(stale, 'Take Over'));
  const task = claim?.task ?? a.task;
  if (!task) return undefined;
  if (!a.confirmed) {
    // Show who holds it and why core judged it stale before anything changes.
    const detail = claim
      ? `${claim.session} holds it (claimed ${claim.claimed_at ?? 'at an unknown time'}, ${claim.file}:${claim.line}).\n\nWhy it is stale: ${claim.reason}`
      : 'It is not on the board as a stale claim; Rail will refuse unless it is stale.';
    const ok = await vscode.window.showWarningMessage(`Take over "${task}"?`, { modal: true, detail }, 'Take Over');
    if (ok !== 'Take Over') return undefined;
  }
  return rail.run(`take ${task}`, (cli) => cli.take(session, task, null, branchFor(rail, session)));
};

const showBoard: Command = async ({ rail, board }) => {
  if (!rail.snapshot) await rail.refresh();
  board.show();
  return board.visible ? 'web-board' : undefined;
};

const validate: Command = async ({ rail }) => {
  await rail.refresh();
  const snap = rail.snapshot;
  if (!snap) return undefined;
  const found: Located[] = core().validate(snap.texts);
  const errors = found.filter((d) => d.severity === 'error').length;
  const warnings = found.filter((d) => d.severity === 'warning').length;
  if (found.length === 0) {
    void vscode.window.showInformationMessage('Rail: the claims are valid.');
  } else {
    void vscode.commands.executeCommand('workbench.actions.view.problems');
    void vscode.window.showWarningMessage(`Rail: ${errors} errors, ${warnings} warnings in the rail's files (see Problems).`);
  }
  return found;
};

const checkMyChanges: Command = async ({ rail }) => {
  const session = rail.requireSession();
  if (!session) return undefined;
  await rail.refresh();
  const snap = rail.snapshot;
  if (!snap) return undefined;
  const changed = await changedFiles(rail);
  const report: ScopeReport = core().scope(snap.texts, snap.facts, session, changed);
  rail.output.info(`check (${session}): ${changed.length} changed files`);
  for (const f of report.files) {
    const who = f.others.map((h) => `${h.session} (${h.task ?? 'no task'})`).join(', ');
    rail.output.info(`  ${f.class.padEnd(12)} ${f.path}${who ? ` — held by ${who}` : ''}`);
  }
  if (report.clean) {
    void vscode.window.showInformationMessage(
      `Rail: ${changed.length} changed files, none outside your claim or inside another session's.`,
    );
    return report;
  }
  const message = `Rail: ${report.conflicts.length} changed files are held by other sessions, ${report.out_of_scope.length} are outside your claim.`;
  void vscode.window.showWarningMessage(message, 'Show Files').then(async (pick) => {
    if (pick !== 'Show Files' || !rail.location?.repo) return;
    const worktree = rail.location.repo.worktree;
    const item = await vscode.window.showQuickPick(
      report.files
        .filter((f) => f.class === 'conflict' || f.class === 'out-of-scope')
        .map((f) => ({ label: f.path, description: f.class, detail: f.others.map((h) => `${h.session}: ${h.task ?? ''}`).join(', ') })),
      { title: 'Rail: changes outside your scope' },
    );
    if (item) void vscode.window.showTextDocument(vscode.Uri.file(path.join(worktree, item.label)));
  });
  return report;
};

function describeLock(lock: Extract<LockStatus, { held: true }>): string {
  const r = lock.record;
  const owner = r
    ? `pid ${r.pid} on ${r.host}, session ${r.session || '?'}, \`${r.command}\`, since ${r.started}`
    : 'an unreadable lock file';
  return `${owner}. ${lock.verdict.message}`;
}

/** `rail lock`: who holds the lock and core's verdict; `undefined` when the CLI could not say. */
async function lockStatus(rail: RailContext): Promise<LockStatus | undefined> {
  const cli = rail.native();
  if (!cli) return undefined;
  try {
    const status = await cli.lock();
    rail.noteSpawn(cli);
    return status;
  } catch (e) {
    rail.report('lock', e);
    return undefined;
  }
}

const showLockOwner: Command = async ({ rail }) => {
  const status = await lockStatus(rail);
  if (!status) return undefined;
  if (!status.held) {
    void vscode.window.showInformationMessage('Rail: the lock is free.');
    return null;
  }
  const text = `Rail lock held: ${describeLock(status)}`;
  rail.output.info(text);
  const action = status.verdict.breakable ? 'Break Dead Lock' : 'Force Break…';
  void vscode.window.showInformationMessage(text, action).then((pick) => {
    if (pick) void vscode.commands.executeCommand('rail.breakLock');
  });
  return status;
};

const breakLock: Command = async ({ rail }, arg) => {
  const session = rail.session ?? 'unknown';
  const a = argsOf(arg);
  const status = await lockStatus(rail);
  if (!status) return undefined;
  if (!status.held) {
    void vscode.window.showInformationMessage('Rail: the lock is free; nothing to break.');
    return null;
  }
  let force = false;
  if (!status.verdict.breakable) {
    // Core says the holder may be alive (or cannot be checked): only on explicit confirmation.
    if (!a.force) {
      const ok = await vscode.window.showWarningMessage(
        'Force-break the rail lock?',
        {
          modal: true,
          detail: `${describeLock(status)}\n\nBreaking a live holder's lock lets two writers in at once. Do this only if you know the holder is gone.`,
        },
        'Force Break',
      );
      if (ok !== 'Force Break') return undefined;
    }
    force = true;
  }
  const cli = rail.native();
  if (!cli) return undefined;
  try {
    const broken = await cli.breakLock(session, force);
    rail.noteSpawn(cli);
    const message = broken ? `Rail: broke the lock held by ${broken.holder}: ${broken.reason}` : 'Rail: the lock was already free.';
    rail.output.warn(message);
    void vscode.window.showInformationMessage(message);
    return broken;
  } catch (e) {
    rail.report(`lock --break${force ? ' --force' : ''}`, e);
    return undefined;
  } finally {
    await rail.refresh();
  }
};

const newStation: Command = async ({ rail }, arg) => {
  const loc = rail.location;
  if (!loc?.repo) return undefined;
  const a = argsOf(arg);
  const main = mainCheckout(loc.repo);
  const task = a.task ?? (await ask('Rail: New Station (1/3)', 'Task id — also the new branch and session', 'auth-refresh', '', true));
  if (!task) return undefined;
  // The station's branch is its session, named after the task (as `rail worktree` does).
  const branch = task;
  const defaultDir = path.join(path.dirname(main), `${path.basename(main)}-${branch.replace(/\//g, '-')}`);
  const dir = a.dir ?? (await ask('Rail: New Station (2/3)', 'Where the worktree goes', defaultDir, defaultDir, true));
  if (!dir) return undefined;
  let paths = a.paths;
  if (paths === undefined && a.task === undefined) {
    const p = await ask('Rail: New Station (3/3)', 'Paths the task will change (comma-separated; empty: none)', 'src/auth/**');
    if (p === undefined) return undefined;
    paths = splitList(p);
  }
  // `rail worktree` claims first (a station for a task someone else holds is never created),
  // then adds the worktree, and gives the claim back if that fails.
  const station = {
    task,
    dir,
    base: a.base ?? null,
    paths: paths ?? [],
    resources: a.resources ?? [],
    purpose: a.purpose ?? null,
    lease: rail.config.lease || null,
  };
  const made = await rail.run(`worktree ${task}`, (cli) => cli.worktree(station), false);
  if (made?.ok) {
    void vscode.window.showInformationMessage(`Rail: ${made.message}.`, 'Open Station').then((pick) => {
      if (pick) void vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(made.dir), { forceNewWindow: true });
    });
  }
  return made;
};

/** The station a Sessions tree item stands for (`{ kind: 'session', session }` with a worktree). */
function stationFromArg(arg: unknown): string | undefined {
  if (isObject(arg) && arg.kind === 'session' && isObject(arg.session) && typeof arg.session.worktree === 'string')
    return arg.session.worktree;
  return argsOf(arg).station;
}

/**
 * Close Station: `rail worktree remove` through the shipped binary. Core decides; a refusal is
 * shown with its reasons, and "Force Close…" is offered only where force would do, forcing only
 * after a modal confirmation that says what would be lost (host/station.ts).
 */
const closeStation: Command = async ({ rail }, arg) => {
  const loc = rail.location;
  if (!loc?.repo) return undefined;
  const a = argsOf(arg);
  let station = stationFromArg(arg);
  if (station === undefined) {
    const main = path.resolve(mainCheckout(loc.repo));
    const stations = (rail.snapshot?.board.sessions ?? []).filter((s) => s.worktree && path.resolve(s.worktree) !== main);
    if (stations.length === 0) {
      void vscode.window.showInformationMessage('Rail: there is no station to close (the main checkout is never closed).');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      stations.map((s) => ({ label: s.name, description: s.worktree ?? '', worktree: s.worktree ?? '' })),
      { title: 'Rail: Close Station', placeHolder: 'Which station?' },
    );
    if (!pick) return undefined;
    station = pick.worktree;
  }
  const cli = rail.native();
  if (!cli) return undefined;
  const session = rail.session;
  const dialogs = {
    refused: async (message: string, forceable: boolean): Promise<boolean> => {
      rail.output.warn(`worktree remove ${station}: refused: ${message}`);
      if (!forceable) {
        // Nothing to decide: shown, not waited for.
        void vscode.window.showWarningMessage(`Rail: ${message}`);
        return false;
      }
      const force = 'Force Close…';
      return (await vscode.window.showWarningMessage(`Rail: ${message}`, force)) === force;
    },
    confirmForce: async (question: string, detail: string): Promise<boolean> =>
      (await vscode.window.showWarningMessage(question, { modal: true, detail }, 'Force Close')) === 'Force Close',
  };
  try {
    const closer = { closeStation: (s: string, force: boolean) => cli.closeStation(s, force, session) };
    const result = await closeFlow(closer, station, dialogs, { force: a.force === true, confirmed: a.confirmed === true });
    rail.noteSpawn(cli);
    for (const note of result.notes) {
      rail.output.warn(note);
      void vscode.window.showWarningMessage(`Rail: ${note}`);
    }
    if (result.ok) {
      rail.output.info(`worktree remove ${station}: ${result.message}`);
      void vscode.window.showInformationMessage(`Rail: ${result.message}.`);
    }
    return result;
  } catch (e) {
    rail.report(`worktree remove ${station}`, e);
    return undefined;
  } finally {
    await rail.refresh();
  }
};

const openLog: Command = async ({ rail }) => {
  const root = rail.location?.root;
  if (!root) return undefined;
  const file = path.join(root, LOG_FILE);
  if (!fs.existsSync(file)) {
    void vscode.window.showInformationMessage('Rail: nothing has been logged yet (no claims.log).');
    return undefined;
  }
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
  // The newest events are at the end.
  const last = editor.document.lineCount - 1;
  editor.revealRange(new vscode.Range(last, 0, last, 0));
  return file;
};

/** Refresh: a shared rail is fetched from its remote first (the only place a view fetches on
 * request; file events never do). */
const refresh: Command = async ({ rail }) => {
  await rail.refresh({ fetch: true });
  return rail.snapshot?.board.summary;
};

const whoHolds: Command = async ({ rail }, arg) => {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  const snap = rail.snapshot;
  if (!uri || !snap) return undefined;
  const rel = repoRelative(rail, uri);
  if (!rel) {
    void vscode.window.showInformationMessage('Rail: that file is not in this repository.');
    return undefined;
  }
  const answers: Who[] = core().who(snap.texts, snap.facts, [rel]);
  const holders = answers[0]?.holders ?? [];
  const more = answers[0]?.holders_unlisted ? `; and ${answers[0].holders_unlisted} more` : '';
  const text = holders.length
    ? holders.map((h) => `${h.session} (${h.task ?? 'no task'}, ${h.state}) via ${h.pattern}`).join('; ') + more
    : 'nobody';
  void vscode.window.showInformationMessage(`Rail: ${rel}: ${text}`);
  return answers;
};

/**
 * Install CLI for Terminals and Agents: agents' hooks, git hooks and terminals run `rail` by
 * name, so the binary this package carries is copied where PATH can find it. Returns where it
 * went and whether that folder is on PATH (the tests read it).
 */
const installCli: Command = async ({ rail }, arg) => {
  const source = bundledBinary(rail.extension.extensionPath);
  if (!fs.existsSync(source)) {
    void vscode.window.showErrorMessage(
      `Rail: this copy of the extension carries no rail binary for ${process.platform}-${process.arch}; install the CLI with \`cargo install --path cli\` from the Rail repository.`,
    );
    return undefined;
  }
  const place = installPlace(process.platform, process.env, os.homedir());
  // A copy can fail (a read-only home; on Windows, a rail.exe that is running): say so plainly.
  const copy = (replace: boolean): ReturnType<typeof copyCli> | undefined => {
    try {
      return copyCli(source, place, replace);
    } catch (e) {
      const message = `could not install rail at ${place.file}: ${e instanceof Error ? e.message : String(e)}`;
      rail.output.error(message);
      void vscode.window.showErrorMessage(`Rail: ${message}`);
      return undefined;
    }
  };
  let outcome = copy(false);
  if (!outcome) return undefined;
  if (outcome.kind === 'occupied') {
    const confirmed = isObject(arg) && arg.replace === true;
    const ok = confirmed
      ? 'Replace'
      : await vscode.window.showWarningMessage(
          `${place.file} exists and is not this extension's rail. Replace it?`,
          { modal: true, detail: 'It will be overwritten by the rail binary this extension carries.' },
          'Replace',
        );
    if (ok !== 'Replace') return undefined;
    outcome = copy(true);
    if (!outcome) return undefined;
  }
  const inPath = onPath(place.dir, process.platform, process.env);
  const what = outcome.kind === 'current' ? `rail is already installed at ${outcome.file}` : `installed rail at ${outcome.file}`;
  rail.output.info(what);
  if (inPath) {
    void vscode.window.showInformationMessage(`Rail: ${what}; terminals and agents can run \`rail\`.`);
  } else {
    const advice = pathAdvice(place.dir, process.platform);
    rail.output.warn(advice);
    void vscode.window.showWarningMessage(`Rail: ${what}. ${advice}`, { modal: false });
  }
  return { file: outcome.file, installed: outcome.kind, onPath: inPath };
};

/** Every command, by id (package.json declares the same ids, with their `when` clauses). */
export const COMMANDS: Record<string, Command> = {
  'rail.claimTask': claimTask,
  'rail.release': release,
  'rail.renew': renew,
  'rail.updateClaim': updateClaim,
  'rail.takeOver': takeOver,
  'rail.showBoard': showBoard,
  'rail.validate': validate,
  'rail.checkMyChanges': checkMyChanges,
  'rail.showLockOwner': showLockOwner,
  'rail.breakLock': breakLock,
  'rail.newStation': newStation,
  'rail.closeStation': closeStation,
  'rail.openLog': openLog,
  'rail.refresh': refresh,
  'rail.whoHolds': whoHolds,
  'rail.installCli': installCli,
};
