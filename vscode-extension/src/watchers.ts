// Keeps the board current by itself: file watchers on the rail's files and on the branch heads
// (a commit renews its branch's claims), debounced, plus a timer for leases that run out while
// nothing changes on disk. A shared rail is also fetched from its remote on a timer of its own
// (`rail.sharedFetchInterval`): file events never fetch, since mirroring the fetched state writes
// the very files they watch.
//
// Node's fs.watch rather than VS Code's FileSystemWatcher: the rail usually lives outside the
// workspace folder (a station's rail is the main checkout), and `.git` is excluded from VS Code's
// watcher by default — both are exactly the places we must watch.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';

import type { RailContext } from './ctx';

const DEBOUNCE_MS = 150;
/** Ages and lease texts are shown to the minute: look again at least this often. */
const MAX_TICK_MS = 60_000;
/** A shared rail is not fetched more often than this, whatever the setting says. */
const MIN_FETCH_MS = 5_000;

// claims.md.journal: its removal ends every write of the CLI's, so the board a read during a
// write could not settle on (host/store.ts) is read again then.
const RAIL_NAMES = new Set(['claims.md', 'claims.log', 'rail.yaml', 'claims', 'claims.md.lock', 'claims.md.journal']);

export class RailWatchers implements vscode.Disposable {
  private watchers: fs.FSWatcher[] = [];
  private debounce: NodeJS.Timeout | undefined;
  private tick: NodeJS.Timeout | undefined;
  private fetchTimer: NodeJS.Timeout | undefined;
  private claimsDirWatched = false;

  constructor(private readonly ctx: RailContext) {
    ctx.onDidChange(() => {
      this.scheduleTick();
      this.scheduleFetch();
      // claims/ may appear after start (the first claim file): watch it once it exists.
      if (!this.claimsDirWatched && ctx.location) this.watchClaimsDir(ctx.location.root);
    });
  }

  /** (Re)starts watching the current location. */
  start(): void {
    this.stopWatching();
    const loc = this.ctx.location;
    if (!loc) return;
    this.watch(loc.root, false, (name) => RAIL_NAMES.has(name));
    this.watchClaimsDir(loc.root);
    if (loc.repo) {
      const common = loc.repo.commonDir;
      this.watch(common, false, (name) => name === 'packed-refs' || name === 'HEAD');
      this.watch(path.join(common, 'refs', 'heads'), true, () => true);
      // Worktree HEADs: a station switching branch changes whose commits count.
      this.watch(path.join(common, 'worktrees'), true, (name) => path.basename(name) === 'HEAD');
    }
  }

  private watchClaimsDir(root: string): void {
    const dir = path.join(root, 'claims');
    if (fs.existsSync(dir)) this.claimsDirWatched = this.watch(dir, false, () => true);
  }

  private watch(dir: string, recursive: boolean, relevant: (name: string) => boolean): boolean {
    try {
      const w = fs.watch(dir, { recursive, persistent: false }, (_event, name) => {
        if (name === null || relevant(String(name))) this.poke();
      });
      w.on('error', (e) => this.ctx.output.warn(`watching ${dir}: ${e.message}`));
      this.watchers.push(w);
      return true;
    } catch (e) {
      // A missing folder (no branches yet, no worktrees) is normal; the timer still runs.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.ctx.output.warn(`cannot watch ${dir}: ${e instanceof Error ? e.message : String(e)}`);
      }
      return false;
    }
  }

  /** Something changed on disk: refresh once things have settled. */
  poke(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      void this.ctx.refresh();
    }, DEBOUNCE_MS);
  }

  /** Next look: when the soonest lease changes state (core's seconds), at most a minute away. */
  private scheduleTick(): void {
    if (this.tick) clearTimeout(this.tick);
    const board = this.ctx.snapshot?.board;
    let next = MAX_TICK_MS;
    if (board) {
      for (const c of board.claims) {
        const left = c.lease_left_secs;
        if (left === undefined) continue;
        for (const edge of [left, left - board.settings.expiring_secs]) {
          if (edge > 0) next = Math.min(next, edge * 1000 + 500);
        }
      }
    }
    this.tick = setTimeout(() => void this.ctx.refresh(), Math.max(1000, next));
  }

  /**
   * Next fetch of a shared rail: an interval after the last one (a mutation counts, it fetched
   * too), at once if none happened yet. Re-armed on every refresh from the time of the last
   * fetch, so frequent file events do not postpone it.
   */
  private scheduleFetch(): void {
    if (this.fetchTimer) clearTimeout(this.fetchTimer);
    this.fetchTimer = undefined;
    const seconds = this.ctx.config.sharedFetchInterval;
    if (!this.ctx.snapshot?.shared || seconds <= 0) return;
    const every = Math.max(MIN_FETCH_MS, seconds * 1000);
    const last = this.ctx.lastFetchAt;
    const wait = last === 0 ? 0 : Math.max(1000, last + every - Date.now());
    this.fetchTimer = setTimeout(() => void this.ctx.refresh({ fetch: true }), wait);
  }

  private stopWatching(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    this.claimsDirWatched = false;
  }

  dispose(): void {
    this.stopWatching();
    if (this.debounce) clearTimeout(this.debounce);
    if (this.tick) clearTimeout(this.tick);
    if (this.fetchTimer) clearTimeout(this.fetchTimer);
  }
}
