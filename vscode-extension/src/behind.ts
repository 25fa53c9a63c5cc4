// "Behind!" in the editor (issue 43): when another live session's work in flight — files it
// changed and has not merged — lands under this session's claims or on a file open here, say so
// once, as a notification naming the session, where it works and the file. What counts (whose
// work, live or not) is core's (`othersInFlight`); this only remembers what it already said.

import * as vscode from 'vscode';

import type { RailContext } from './ctx';
import { repoRelative } from './decorations';

export class BehindCalls implements vscode.Disposable {
  /** What was called out, `session|checkout|path`, so each is said once. */
  private readonly said = new Set<string>();
  /** The messages shown, newest last (for the API and the tests). */
  readonly shown: string[] = [];
  private readonly subscription: vscode.Disposable;

  constructor(private readonly ctx: RailContext) {
    this.subscription = ctx.onDidChange(() => this.call());
  }

  dispose(): void {
    this.subscription.dispose();
  }

  /** The paths this session watches: its claims' paths and the files open in editors. */
  private watched(): string[] {
    const mine = this.ctx.myClaims().flatMap((c) => c.paths ?? []);
    const open = vscode.workspace.textDocuments.flatMap((d) => {
      const rel = repoRelative(this.ctx, d.uri);
      return rel === undefined ? [] : [rel];
    });
    return [...new Set([...mine, ...open])];
  }

  private call(): void {
    const found = this.ctx.othersInFlight(this.watched());
    for (const { work, words } of found) {
      const key = `${work.session}|${work.checkout}|${work.path}`;
      if (this.said.has(key)) continue;
      this.said.add(key);
      const message = `Rail: Behind! ${words} — not merged yet. Writing it too means a merge, or losing that change: coordinate with ${work.session}.`;
      this.shown.push(message);
      this.ctx.output.warn(message);
      void vscode.window.showWarningMessage(message);
    }
  }
}
