// Edit-time warnings: when you start editing a file another live session holds, a warning says
// who holds it; when a file is outside your own claim's paths, a softer hint says so. Both come
// from core's scope classification; each is shown once per file until the answer changes.

import * as vscode from 'vscode';

import type { RailContext } from './ctx';
import { holdersText, repoRelative } from './decorations';

export class EditWarnings implements vscode.Disposable {
  private readonly shown = new Map<string, string>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly ctx: RailContext) {
    this.subscription = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length > 0) this.check(e.document.uri);
    });
  }

  dispose(): void {
    this.subscription.dispose();
  }

  /** Has something been said about this file (without saying anything)? For tests. */
  said(uri: vscode.Uri): boolean {
    const rel = repoRelative(this.ctx, uri);
    return rel !== undefined && this.shown.has(rel);
  }

  /** Looks at one edited file; returns what was said (for tests), or undefined. */
  check(uri: vscode.Uri): string | undefined {
    if (!this.ctx.config.editWarnings) return undefined;
    const rel = repoRelative(this.ctx, uri);
    if (rel === undefined) return undefined;
    const scope = this.ctx.classify([rel]).get(rel);
    if (!scope) return undefined;
    const signature = `${scope.class}|${holdersText(scope)}`;
    if (this.shown.get(rel) === signature) return undefined;
    this.shown.set(rel, signature);
    if (scope.class === 'conflict') {
      const message = `Rail: ${rel} is held by ${holdersText(scope)}. Editing it may collide with their work.`;
      this.ctx.output.warn(message);
      void vscode.window.showWarningMessage(message, 'Show Board').then((pick) => {
        if (pick === 'Show Board') void vscode.commands.executeCommand('rail.showBoard');
      });
      return message;
    }
    if (scope.class === 'out-of-scope') {
      const message = `Rail: ${rel} is outside the paths you claimed (${this.ctx
        .myClaims()
        .flatMap((c) => c.paths ?? [])
        .join(', ')}).`;
      this.ctx.output.info(message);
      // A hint, not an alarm: it goes away by itself.
      vscode.window.setStatusBarMessage(`$(info) ${message}`, 10_000);
      return message;
    }
    return undefined;
  }
}
