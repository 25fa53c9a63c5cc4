// The context object: owns the extension's state — where the rail is, who we are, the latest
// board — and the one way to change the rail. Features (trees, diagnostics, decorations, status
// bar, webview) subscribe to `onDidChange` and show what the snapshot holds; none of them reads
// files or computes a state itself.
//
// A rail shared through a git remote (host/shared.ts) is shown from its mirror in the main
// checkout, like any rail. The mirror is brought up to date from the remote on explicit Refresh,
// on the periodic fetch timer (watchers.ts) and by every mutation — never on a file event, since
// the mirror's own writes are file events.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

import { readConfig, type RailConfig } from './config';
import {
  core,
  type Board,
  type BoardClaim,
  type Facts,
  type FileScope,
  type RailTexts,
  type Request,
} from './host/core';
import { baseFacts, boardWithProcesses, type RailLocation } from './host/facts';
import { inspect } from './host/lock';
import { mutate, type MutateResult } from './host/mutate';
import { discover, headBranch, mainCheckout } from './host/repo';
import { lastSynced, remoteOf, SharedError, syncShared, withPushedCommits, type SharedInfo } from './host/shared';
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
}

export class RailContext implements vscode.Disposable {
  readonly output = vscode.window.createOutputChannel('Rail', { log: true });
  private readonly changed = new vscode.EventEmitter<Snapshot | undefined>();
  /** Fires after every refresh (with `undefined` when no rail is found). */
  readonly onDidChange = this.changed.event;

  config: RailConfig = readConfig();
  location: RailLocation | undefined;
  snapshot: Snapshot | undefined;
  readonly stats: Stats = { activationMs: 0, firstBoardMs: undefined, refreshMs: [] };
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

  constructor(readonly extension: vscode.ExtensionContext) {
    this.activatedAt = performance.now();
    this.locate();
  }

  dispose(): void {
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

  /** The acting session: `rail.session`, else `RAIL_SESSION`, else the folder's branch. */
  get session(): string | undefined {
    if (this.config.session) return this.config.session;
    const env = process.env.RAIL_SESSION;
    if (env) return env;
    return this.location?.repo ? headBranch(this.location.repo.gitDir) : undefined;
  }

  /** The branch checked out in the workspace folder (commits on it keep our claims alive). */
  get branch(): string | undefined {
    return this.location?.repo ? headBranch(this.location.repo.gitDir) : undefined;
  }

  markActivated(): void {
    this.stats.activationMs = performance.now() - this.activatedAt;
  }

  /** This session's claims on the current board. */
  myClaims(): BoardClaim[] {
    const me = this.session;
    return this.snapshot?.board.claims.filter((c) => c.session === me && c.task !== undefined) ?? [];
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
      // Whether the rail is shared is asked every time (`git config` may change any moment), but
      // alongside the reads, so a local rail pays nothing for it.
      const shared = remoteOf(loc);
      if (this.fetchWanted) {
        this.fetchWanted = false;
        const remote = await shared;
        if (remote !== undefined) await this.sync(loc, remote);
      }
      const store = new RailStore(loc.root);
      const [texts, local, remote] = await Promise.all([store.read(false), baseFacts(loc, { commits: true, worktrees: true }), shared]);
      const facts0 = remote !== undefined ? await withPushedCommits(loc, remote, local) : local;
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
      this.updateContextKeys(board);
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
   * `rail sync`: fetch the shared rail and the remote's branches, mirror it. A failure is kept
   * (the views say the board is stale, and why) rather than thrown: the last fetched state is
   * still the best there is to show.
   */
  private async sync(loc: RailLocation, remote: string): Promise<void> {
    this.lastFetchAt = Date.now();
    try {
      const { notes } = await syncShared(loc, remote, this.session ?? 'sync', { command: 'vscode: rail sync' });
      for (const note of notes) this.output.warn(note);
      if (this.fetchError) this.output.info(`fetched the shared rail from ${remote} again`);
      this.fetchError = undefined;
    } catch (e) {
      const message = e instanceof SharedError ? e.detail : e instanceof Error ? e.message : String(e);
      if (this.fetchError?.message !== message) this.output.warn(`could not fetch the shared rail from ${remote}: ${message}`);
      this.fetchError = { remote, message };
    }
  }

  private updateContextKeys(board: Board): void {
    const me = this.session;
    const set = (key: string, value: boolean): Thenable<unknown> => vscode.commands.executeCommand('setContext', key, value);
    void set('rail.hasMyClaims', board.claims.some((c) => c.session === me && c.task !== undefined));
    void set('rail.hasStaleClaims', board.claims.some((c) => c.state === 'stale' && c.session !== me && c.task !== undefined));
    void set('rail.lockHeld', this.location ? inspect(this.location.root) !== undefined : false);
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
    const s = this.session;
    if (!s) {
      void vscode.window.showErrorMessage(
        'Rail: no session — HEAD is detached or this is not a git checkout. Set `rail.session`.',
      );
    }
    return s;
  }

  /**
   * Changes the rail: one operation under the lock, planned by core. Shows the outcome, logs it,
   * refreshes, and returns it (the integration tests read it).
   */
  async run(request: Request): Promise<MutateResult | undefined> {
    const loc = this.location;
    const session = this.requireSession();
    if (!loc || !session) return undefined;
    const command = `vscode: rail ${request.op} ${request.task}`;
    let result: MutateResult | undefined;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Rail: ${request.op} ${request.task}` },
        () => this.mutate(loc, session, request, command),
      );
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.output.error(`${command}: ${message}`);
      void vscode.window.showErrorMessage(`Rail: ${message}`);
      return undefined;
    } finally {
      await this.refresh();
    }
    for (const note of result.notes) {
      this.output.warn(note);
      void vscode.window.showInformationMessage(`Rail: ${note}`);
    }
    if (result.ok) {
      this.output.info(`${command}: ${result.plan.message}`);
      void vscode.window.showInformationMessage(`Rail: ${result.plan.message}`);
    } else {
      this.output.warn(`${command}: refused: ${result.message}`);
      void vscode.window.showWarningMessage(`Rail: ${result.message}`);
    }
    return result;
  }

  /**
   * One operation through host/mutate (local, or on the shared rail's remote). A shared
   * mutation fetches first, so it also tells whether the remote answers: the views' "stale"
   * follows it.
   */
  async mutate(loc: RailLocation, session: string, request: Request, command: string): Promise<MutateResult> {
    const remote = this.snapshot?.shared?.remote;
    if (remote !== undefined) this.lastFetchAt = Date.now();
    try {
      const result = await mutate(loc, session, request, { command });
      if (remote !== undefined) this.fetchError = undefined;
      return result;
    } catch (e) {
      if (remote !== undefined && e instanceof SharedError && e.kind === 'unreachable') {
        this.fetchError = { remote, message: e.detail };
      }
      throw e;
    }
  }
}
