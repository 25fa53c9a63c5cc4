// The context object: owns the extension's state — where the rail is, who we are, the latest
// board — and the one way to change the rail. Features (trees, diagnostics, decorations, status
// bar, webview) subscribe to `onDidChange` and show what the snapshot holds; none of them reads
// files or computes a state itself.
//
// Reads are in-process: the files (host/store.ts, no lock), the facts, and core's board from the
// wasm build. Writes are not: every change runs the `rail` binary (host/native.ts), which owns
// the lock, the journal and the shared remote; the board is read again after it.
//
// A rail shared through a git remote is shown from its mirror in the main checkout, like any
// rail. The mirror is brought up to date by `rail sync` on explicit Refresh and on the periodic
// fetch timer (watchers.ts), and by every change — never on a file event, since the mirror's own
// writes are file events.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

import { readConfig, type RailConfig } from './config';
import {
  core,
  isMine,
  type ActingView,
  type Board,
  type BoardClaim,
  type Facts,
  type FileScope,
  type Hint,
  type InFlight,
  type RailTexts,
} from './host/core';
import { baseFacts, boardWithProcesses, type RailLocation } from './host/facts';
import { forgetGitAnswers } from './host/git';
import { NativeRail, RailError, resolveRail, type FlightFacts } from './host/native';
import { allowProcesses, processesAllowed, RestrictedMode } from './host/trust';
import { discover, headBranch, mainCheckout } from './host/repo';
import { lastSynced, remoteOf, withPushedCommits, type SharedInfo } from './host/shared';
import { CLAIMS_MD, RailStore } from './host/store';

/** One consistent view of the rail: the texts read, the facts observed, core's board. */
export interface Snapshot {
  texts: RailTexts;
  /** The texts as core evaluated them (with `rail.expiringThreshold` applied to rail.yaml). */
  coreTexts: RailTexts;
  facts: Facts;
  board: Board;
  /** When it was taken, and how long reading + evaluating took. */
  at: number;
  ms: number;
  /** Set when the rail is shared through a git remote: which, how fresh, and why it is stale. */
  shared?: SharedInfo;
}

/** What every operation of the CLI answers, done or refused. */
export interface Outcome {
  ok: boolean;
  message: string;
  notes: string[];
  /** Core's plan or refusal, which may carry a hint: what the person can do next. */
  plan?: { hint?: Hint | null };
  refusal?: { hint?: Hint | null };
}

/** A button offered with a message, and what it runs. */
interface Action {
  label: string;
  run: () => Thenable<unknown>;
}

/**
 * Core says what happened and names what can be done next (its `Hint`); the CLI words that as a
 * command line, the extension as buttons that run its own commands.
 */
export function hintActions(hint: Hint | null | undefined): { actions: Action[]; text: string } {
  const command =
    (id: string, arg?: unknown): (() => Thenable<unknown>) =>
    () =>
      vscode.commands.executeCommand(id, arg);
  if (!hint) return { actions: [], text: '' };
  switch (hint.kind) {
    case 'take':
      return { actions: [{ label: 'Take Over…', run: command('rail.takeOver', { task: hint.task }) }], text: '' };
    case 'claim':
    case 'claim-first':
      return { actions: [{ label: 'Claim Task…', run: command('rail.claimTask') }], text: '' };
    case 'renew-or-update':
      return {
        actions: [
          { label: 'Renew', run: command('rail.renew', { task: hint.task }) },
          { label: 'Update Claim…', run: command('rail.updateClaim', { task: hint.task }) },
        ],
        text: '',
      };
    case 'add-paths':
      return {
        actions: [{ label: 'Update Claim…', run: command('rail.updateClaim', hint.task ? { task: hint.task } : undefined) }],
        text: '',
      };
    case 'validate':
      return { actions: [{ label: 'Validate Claims', run: command('rail.validate') }], text: '' };
    case 'force-break':
      return { actions: [{ label: 'Force Break…', run: command('rail.breakLock') }], text: '' };
    case 'merge-driver':
      return { actions: [], text: " Rail's merge driver avoids these (`rail init` sets it up)." };
    case 'force-close':
      // Close Station asks again (modal) before it forces anything.
      return { actions: [{ label: 'Force Close…', run: command('rail.closeStation', { station: hint.station, force: true }) }], text: '' };
    case 'fix-check':
    case 'other-work':
      return { actions: [], text: '' };
  }
}

export interface RefreshOptions {
  /** A shared rail: fetch it from the remote and mirror it first (`rail sync`). */
  fetch?: boolean;
}

export interface Stats {
  /** Time spent in activate(). */
  activationMs: number;
  /** From the start of activate() until the first board was ready. */
  firstBoardMs: number | undefined;
  /** Durations of the latest refreshes (newest last). */
  refreshMs: number[];
  /** How long the latest `rail` children ran, spawn to exit (newest last). */
  spawnMs: number[];
}

export class RailContext implements vscode.Disposable {
  readonly output = vscode.window.createOutputChannel('Rail', { log: true });
  private readonly changed = new vscode.EventEmitter<Snapshot | undefined>();
  /** Fires after every refresh (with `undefined` when no rail is found). */
  readonly onDidChange = this.changed.event;

  config: RailConfig = readConfig();
  location: RailLocation | undefined;
  snapshot: Snapshot | undefined;
  readonly stats: Stats = { activationMs: 0, firstBoardMs: undefined, refreshMs: [], spawnMs: [] };
  private readonly activatedAt: number;

  private running: Promise<void> | undefined;
  private again = false;
  private fetchWanted = false;
  /** When the shared rail was last fetched (or a fetch was tried); 0: not yet. */
  lastFetchAt = 0;
  /** Why the latest fetch of the shared rail failed, for that remote; cleared when one works. */
  private fetchError: { remote: string; message: string } | undefined;
  private scopeCache = new Map<string, FileScope>();
  private warnedBadThreshold = '';
  private lastError = '';
  private lastMissing = '';

  private readonly trustGranted: vscode.Disposable;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.activatedAt = performance.now();
    // Restricted Mode (package.json `capabilities.untrustedWorkspaces`): read and show, run no
    // program — no rail CLI, no git (host/trust.ts says why) — until the workspace is trusted.
    allowProcesses(vscode.workspace.isTrusted);
    this.trustGranted = vscode.workspace.onDidGrantWorkspaceTrust(() => {
      allowProcesses(true);
      this.lastMissing = '';
      this.locate();
      this.fetchWanted = true;
      void this.refresh();
    });
    this.locate();
  }

  dispose(): void {
    this.trustGranted.dispose();
    this.changed.dispose();
    this.output.dispose();
  }

  /** Finds the rail like the CLI: `rail.railDirectory`, else the main checkout of the folder's repo. */
  locate(): void {
    this.config = readConfig();
    const folders = vscode.workspace.workspaceFolders ?? [];
    let found: RailLocation | undefined;
    for (const folder of folders) {
      if (folder.uri.scheme !== 'file') continue;
      const repo = discover(folder.uri.fsPath);
      if (this.config.railDirectory) {
        const root = path.resolve(folder.uri.fsPath, this.config.railDirectory);
        found = repo ? { root, repo } : { root };
        break;
      }
      if (repo) {
        found = { root: mainCheckout(repo), repo };
        break;
      }
      // Not a git checkout, but a rail anyway (claims.md right here): show it.
      if (fs.existsSync(path.join(folder.uri.fsPath, CLAIMS_MD))) {
        found = { root: folder.uri.fsPath };
        break;
      }
    }
    this.location = found;
    void vscode.commands.executeCommand('setContext', 'rail.active', found !== undefined);
    void vscode.commands.executeCommand('setContext', 'rail.inRepo', found?.repo !== undefined);
    this.output.info(found ? `rail: ${found.root}${found.repo ? ` (worktree ${found.repo.worktree})` : ''}` : 'no rail found');
  }

  /**
   * Who acts, as core decides it for every host (`ident::acting`): `rail.session`, else
   * `RAIL_SESSION`, else the folder's branch, each only if it is a valid session name.
   */
  get acting(): ActingView {
    const explicit = this.config.session || process.env.RAIL_SESSION || null;
    const branch = this.location?.repo ? (headBranch(this.location.repo.gitDir) ?? null) : null;
    return core().acting(explicit, branch);
  }

  /** The acting session, if there is one. */
  get session(): string | undefined {
    return this.acting.session ?? undefined;
  }

  /** The branch checked out in the workspace folder (commits on it keep our claims alive). */
  get branch(): string | undefined {
    return this.location?.repo ? headBranch(this.location.repo.gitDir) : undefined;
  }

  markActivated(): void {
    this.stats.activationMs = performance.now() - this.activatedAt;
  }

  /** This session's claims on the current board: its own and those it acts for (core's
   * `acts_for`: the branch's session answers for its agents', `main~claude-…`). */
  myClaims(): BoardClaim[] {
    const me = this.session;
    return this.snapshot?.board.claims.filter((c) => isMine(c, me) && c.task !== undefined) ?? [];
  }

  /**
   * `rail.expiringThreshold` overrides rail.yaml's `expiring` for this window: core reads it from
   * the config text, so the override is a config text with that one line replaced (or added at
   * the end), keeping every other line where it was so diagnostics still point at the right line.
   */
  private withThreshold(texts: RailTexts): RailTexts {
    const value = this.config.expiringThreshold;
    if (!value) return texts;
    const probe = core().validate({ config: { path: 'rail.yaml', text: `expiring: ${value}\n` } });
    if (probe.length > 0) {
      if (this.warnedBadThreshold !== value) {
        this.warnedBadThreshold = value;
        void vscode.window.showWarningMessage(
          `Rail: rail.expiringThreshold "${value}" is not a duration (${probe[0]?.message ?? 'invalid'}); using the rail's setting.`,
        );
      }
      return texts;
    }
    const original = texts.config?.text ?? '';
    const line = `expiring: ${value}`;
    const replaced = original.replace(/^expiring[ \t]*:.*$/m, line);
    const text =
      replaced !== original || /^expiring[ \t]*:/m.test(original)
        ? replaced
        : `${original}${original === '' || original.endsWith('\n') ? '' : '\n'}${line}\n`;
    return { ...texts, config: { path: 'rail.yaml', text, modified: texts.config?.modified ?? null } };
  }

  /**
   * Reads the rail and asks core for the board. Concurrent calls coalesce: one runs, and one more
   * runs after it if anything asked meanwhile, so a burst of file events costs two refreshes.
   * With `fetch`, a shared rail is fetched and mirrored first (once, however many asked).
   */
  refresh(opts: RefreshOptions = {}): Promise<void> {
    if (opts.fetch) this.fetchWanted = true;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.refreshOnce();
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async refreshOnce(): Promise<void> {
    const loc = this.location;
    if (!loc) {
      this.snapshot = undefined;
      this.changed.fire(undefined);
      return;
    }
    const started = performance.now();
    try {
      // Explicit Refresh (and the shared rail's timer) asks git everything again; other
      // refreshes reuse what git said while the files it read are unchanged (host/git.ts).
      const fetch = this.fetchWanted;
      this.fetchWanted = false;
      if (fetch) forgetGitAnswers();
      // Whether the rail is shared is asked alongside the reads, so a local rail pays nothing.
      const shared = remoteOf(loc);
      if (fetch) {
        const remote = await shared;
        if (remote !== undefined && processesAllowed()) await this.sync(loc, remote);
      }
      const store = new RailStore(loc.root);
      // In Restricted Mode no git runs: leases count claim and renewal times only, as on the
      // web board opened from files.
      const commits = processesAllowed();
      const [texts, local, remote, flight] = await Promise.all([
        store.read(),
        baseFacts(loc, { commits, worktrees: true }),
        shared,
        this.inFlight(loc),
      ]);
      const facts1 = remote !== undefined && commits ? await withPushedCommits(loc, remote, local) : local;
      const facts0 = withFlight(facts1, flight, remote);
      const coreTexts = this.withThreshold(texts);
      const { board, facts } = boardWithProcesses(coreTexts, facts0);
      const ms = performance.now() - started;
      this.snapshot = { texts, coreTexts, facts, board, at: Date.now(), ms };
      if (remote !== undefined) {
        const error = this.fetchError?.remote === remote ? this.fetchError.message : undefined;
        this.snapshot.shared = { remote, syncedAt: lastSynced(loc), error };
      }
      this.scopeCache = new Map();
      this.stats.refreshMs.push(ms);
      if (this.stats.refreshMs.length > 50) this.stats.refreshMs.shift();
      this.stats.firstBoardMs ??= performance.now() - this.activatedAt;
      this.updateContextKeys(board, store);
      this.changed.fire(this.snapshot);
      this.lastError = '';
    } catch (e) {
      // A rail that cannot be read (not UTF-8, too big, unreadable): keep the last board, say
      // why once per distinct problem rather than on every file event.
      const message = e instanceof Error ? e.message : String(e);
      this.output.error(`refresh failed: ${message}`);
      if (message !== this.lastError) {
        this.lastError = message;
        void vscode.window.showWarningMessage(`Rail: cannot read the rail: ${message}`);
      }
    }
  }

  /**
   * Work in flight (files changed and not merged), gathered by the bundled CLI — git's status of
   * every station is a process per station, which the CLI runs and core judges. Only in a
   * repository, only when processes may run; a failure is logged and leaves it out (the board
   * then shows claims only, as before).
   */
  private async inFlight(loc: RailLocation): Promise<FlightFacts | undefined> {
    if (!loc.repo || !processesAllowed()) return undefined;
    try {
      const binary = resolveRail({ setting: this.config.path, extensionDir: this.extension.extensionPath });
      return await new NativeRail(binary, loc.repo.worktree, loc.root).flight();
    } catch (e) {
      this.output.warn(`work in flight: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }

  /**
   * `rail sync`: fetch the shared rail and the remote's branches, mirror it. A failure is kept
   * (the views say the board is stale, and why) rather than thrown: the last fetched state is
   * still the best there is to show.
   */
  private async sync(loc: RailLocation, remote: string): Promise<void> {
    const rail = this.native(loc);
    if (!rail) return;
    this.lastFetchAt = Date.now();
    try {
      const { notes } = await rail.sync(this.session);
      this.noteSpawn(rail);
      for (const note of notes) this.output.warn(note);
      if (this.fetchError) this.output.info(`fetched the shared rail from ${remote} again`);
      this.fetchError = undefined;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (this.fetchError?.message !== message) this.output.warn(`could not fetch the shared rail from ${remote}: ${message}`);
      this.fetchError = { remote, message };
    }
  }

  private updateContextKeys(board: Board, store: RailStore): void {
    const me = this.session;
    const set = (key: string, value: boolean): Thenable<unknown> => vscode.commands.executeCommand('setContext', key, value);
    void set(
      'rail.hasMyClaims',
      board.claims.some((c) => isMine(c, me) && c.task !== undefined),
    );
    void set(
      'rail.hasStaleClaims',
      board.claims.some((c) => c.takeable && !isMine(c, me)),
    );
    // Only whether the lock file is there; who holds it and whether it may be broken is `rail lock`'s.
    void set('rail.lockHeld', store.lockPresent());
  }

  /**
   * Other sessions' live work in flight at these repo-relative paths (core's `behind::under`:
   * never this session's own, its agents' or its branch's), each with core's words from the
   * board's In flight groups (where, what kind, how old).
   */
  othersInFlight(paths: readonly string[]): { work: InFlight; words: string }[] {
    const snap = this.snapshot;
    const me = this.session ?? '';
    if (!snap?.facts.in_flight?.length || paths.length === 0) return [];
    const found = core().othersInFlight(snap.facts, me, [...paths]) as InFlight[];
    return found
      .filter((w) => w.standing === 'live')
      .map((work) => {
        const view = snap.board.in_flight.find((v) => v.session === work.session && v.checkout === work.checkout);
        const file = view?.files.find((f) => f.path === work.path);
        const words = `${work.session} ${view?.place ?? work.checkout}: ${work.path} (${file?.kind_text ?? work.kind}, ${file?.age_text ?? ''})`;
        return { work, words };
      });
  }

  /**
   * How core classifies these repo-relative paths for our session (in scope, out of scope,
   * another session's). Cached per snapshot: decorations ask for many files, one at a time.
   */
  classify(paths: readonly string[]): Map<string, FileScope> {
    const out = new Map<string, FileScope>();
    const snap = this.snapshot;
    const session = this.session;
    if (!snap || !session) return out;
    const missing = paths.filter((p) => !this.scopeCache.has(p));
    if (missing.length > 0) {
      const report = core().scope(snap.texts, snap.facts, session, [...missing]);
      for (const f of report.files) this.scopeCache.set(f.path, f);
    }
    for (const p of paths) {
      const f = this.scopeCache.get(p);
      if (f) out.set(p, f);
    }
    return out;
  }

  /** Says why nothing can be done without a session, and how to fix it. */
  requireSession(): string | undefined {
    const acting = this.acting;
    if (!acting.session) {
      const why = this.location?.repo || this.config.session || process.env.RAIL_SESSION ? acting.why : 'this folder is not a git checkout';
      void vscode.window.showErrorMessage(`Rail: no session — ${why}. Set \`rail.session\`.`);
    }
    return acting.session ?? undefined;
  }

  /**
   * The `rail` binary for this rail (`rail.path`, else the bundled one, else PATH), run in the
   * workspace folder. `undefined` after saying, once per distinct problem, why there is none.
   */
  native(loc: RailLocation | undefined = this.location): NativeRail | undefined {
    if (!loc) return undefined;
    if (!processesAllowed()) {
      const message = new RestrictedMode('Changing the rail (the rail CLI)').message;
      if (message !== this.lastMissing) {
        this.lastMissing = message;
        void vscode.window.showWarningMessage(`Rail: ${message}.`, 'Manage Workspace Trust').then((pick) => {
          if (pick) void vscode.commands.executeCommand('workbench.trust.manage');
        });
      }
      return undefined;
    }
    try {
      const binary = resolveRail({ setting: this.config.path, extensionDir: this.extension.extensionPath });
      this.lastMissing = '';
      return new NativeRail(binary, loc.repo?.worktree ?? loc.root, loc.root);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.output.error(message);
      if (message !== this.lastMissing) {
        this.lastMissing = message;
        void vscode.window.showErrorMessage(`Rail: ${message}`);
      }
      return undefined;
    }
  }

  /** Records how long the latest child ran (the measurements). */
  noteSpawn(rail: NativeRail): void {
    this.stats.spawnMs.push(rail.lastRunMs);
    if (this.stats.spawnMs.length > 50) this.stats.spawnMs.shift();
  }

  /**
   * Changes the rail: one operation through the `rail` binary. Shows the outcome (a refusal
   * with the holder core named), logs it, refreshes, and returns it (the integration tests read
   * it). `undefined` when it could not be done at all (the error is shown). `announce: false`:
   * the caller says what was done itself (with buttons of its own).
   */
  async run<R extends Outcome>(label: string, op: (rail: NativeRail) => Promise<R>, announce = true): Promise<R | undefined> {
    const loc = this.location;
    const rail = this.native(loc);
    if (!loc || !rail) return undefined;
    let result: R;
    try {
      result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Rail: ${label}` }, () => op(rail));
      this.noteSpawn(rail);
      // A change on a shared rail went through its remote: the remote answered.
      if (this.snapshot?.shared) this.fetchError = undefined;
    } catch (e) {
      this.report(label, e);
      return undefined;
    } finally {
      await this.refresh();
    }
    if (announce || !result.ok) this.show(label, result);
    else this.output.info(`${label}: ${result.message}`);
    return result;
  }

  /** Says what an operation did: notes, then the plan's message or the refusal. */
  show(label: string, result: Outcome): void {
    for (const note of result.notes) {
      this.output.warn(note);
      void vscode.window.showInformationMessage(`Rail: ${note}`);
    }
    const { actions, text } = hintActions(result.ok ? result.plan?.hint : result.refusal?.hint);
    const message = `Rail: ${result.message}${text}`;
    const offer = (pick: string | undefined): void => {
      void actions.find((a) => a.label === pick)?.run();
    };
    const labels = actions.map((a) => a.label);
    if (result.ok) {
      this.output.info(`${label}: ${result.message}`);
      void vscode.window.showInformationMessage(message, ...labels).then(offer);
    } else {
      this.output.warn(`${label}: refused: ${result.message}`);
      void vscode.window.showWarningMessage(message, ...labels).then(offer);
    }
  }

  /** Says why an operation failed (the CLI's own words; bad input and environment alike). */
  report(label: string, e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    const kind = e instanceof RailError ? ` (exit ${e.code})` : '';
    this.output.error(`${label}${kind}: ${message}`);
    if (e instanceof RailError && e.stderr.trim()) this.output.error(e.stderr.trim());
    void vscode.window.showErrorMessage(`Rail: ${message}`);
  }
}

/**
 * The facts `rail flight --json` gathered, joined to this host's: work in flight, this clone's
 * machine id, and on a shared rail its verification as the CLI knows it. A shared rail whose CLI
 * did not answer (Restricted Mode, a failure) gets only its remote: core then says it cannot tell
 * whether it is verified, never that it is.
 */
export function withFlight(facts: Facts, flight: FlightFacts | undefined, remote: string | undefined): Facts {
  const out: Facts = { ...facts };
  if (flight !== undefined) {
    out.in_flight = flight.in_flight;
    if (flight.machine !== undefined) out.machine = flight.machine;
  }
  if (remote !== undefined) out.shared = flight?.shared?.remote === remote ? flight.shared : { remote };
  return out;
}
