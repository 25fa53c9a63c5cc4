// Explorer decorations: a file another live session holds gets a badge and a warning colour.
// Core decides (its `scope` classification: `conflict` = a holding claim of another session
// covers the file); this provider only maps files to repo-relative paths and batches the asks,
// since the Explorer requests decorations one file at a time.

import * as path from 'node:path';
import * as vscode from 'vscode';

import type { RailContext } from './ctx';
import { core, type FileScope } from './host/core';

/** The path core speaks of (relative to the worktree, `/`-separated), or undefined if outside it. */
export function repoRelative(ctx: RailContext, uri: vscode.Uri): string | undefined {
  const worktree = ctx.location?.repo?.worktree ?? ctx.location?.root;
  if (!worktree || uri.scheme !== 'file') return undefined;
  const rel = path.relative(worktree, uri.fsPath);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const posix = rel.split(path.sep).join('/');
  // The rail's own files are nobody's work: core says which they are.
  if (posix === '.git' || posix.startsWith('.git/') || core().isRailFile(posix)) return undefined;
  return posix;
}

/** `bob (billing, live)` for each other session holding the file (core lists the first few and
 * counts the rest). */
export function holdersText(scope: FileScope): string {
  const listed = scope.others.map((h) => `${h.session} (${h.task ?? 'no task'}, ${h.state}) via ${h.pattern}`).join('; ');
  return scope.others_unlisted ? `${listed}; and ${scope.others_unlisted} more` : listed;
}

export class HeldFileDecorations implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri | vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private pending = new Map<string, ((s: FileScope | undefined) => void)[]>();
  private scheduled = false;

  constructor(private readonly ctx: RailContext) {
    ctx.onDidChange(() => this.changed.fire(undefined));
  }

  dispose(): void {
    this.changed.dispose();
  }

  provideFileDecoration(uri: vscode.Uri): Promise<vscode.FileDecoration | undefined> | undefined {
    const rel = repoRelative(this.ctx, uri);
    if (rel === undefined || !this.ctx.snapshot) return undefined;
    return this.lookup(rel).then((scope) => {
      // Another live session's work in flight: "Behind!" — its change is not merged yet.
      const flying = this.ctx.othersInFlight([rel]);
      const held = scope?.class === 'conflict';
      if (!held && flying.length === 0) return undefined;
      const said = [
        ...(held && scope ? [`held by ${holdersText(scope)}`] : []),
        ...(flying.length > 0 ? [`in flight: ${flying.map((f) => f.words).join('; ')}`] : []),
      ];
      const decoration = new vscode.FileDecoration(
        held ? '!' : '↯',
        `Rail: ${said.join('; ')}`,
        new vscode.ThemeColor('list.warningForeground'),
      );
      decoration.propagate = false;
      return decoration;
    });
  }

  /** Queues a path; all paths asked for in one tick go to core in one call. */
  private lookup(rel: string): Promise<FileScope | undefined> {
    return new Promise((resolve) => {
      const waiting = this.pending.get(rel) ?? [];
      waiting.push(resolve);
      this.pending.set(rel, waiting);
      if (!this.scheduled) {
        this.scheduled = true;
        setTimeout(() => this.flush(), 0);
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    let scopes: Map<string, FileScope>;
    try {
      scopes = this.ctx.classify([...batch.keys()]);
    } catch (e) {
      this.ctx.output.error(`decorations: ${e instanceof Error ? e.message : String(e)}`);
      scopes = new Map();
    }
    for (const [rel, resolvers] of batch) for (const r of resolvers) r(scopes.get(rel));
  }
}
