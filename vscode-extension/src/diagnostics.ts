// The Problems panel: core's diagnostics for claims.md, the claim files, the log and rail.yaml —
// parse errors and, on every line involved, conflicts and blocks. Ranges come from core as
// zero-based lines and UTF-16 columns, which is what VS Code counts, so they are used as they are.

import * as path from 'node:path';
import * as vscode from 'vscode';

import type { RailContext } from './ctx';
import type { Located, Severity } from './host/core';

function severity(s: Severity): vscode.DiagnosticSeverity {
  switch (s) {
    case 'error':
      return vscode.DiagnosticSeverity.Error;
    case 'warning':
      return vscode.DiagnosticSeverity.Warning;
    case 'info':
      return vscode.DiagnosticSeverity.Information;
  }
}

export function toDiagnostic(d: Located): vscode.Diagnostic {
  const r = d.range;
  const diag = new vscode.Diagnostic(
    new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character),
    d.message,
    severity(d.severity),
  );
  diag.code = d.code;
  diag.source = 'rail';
  return diag;
}

export class RailDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('rail');

  constructor(private readonly ctx: RailContext) {
    ctx.onDidChange(() => this.update());
  }

  update(): void {
    const snap = this.ctx.snapshot;
    const root = this.ctx.location?.root;
    this.collection.clear();
    if (!snap || !root) return;
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const d of snap.board.diagnostics) {
      const list = byFile.get(d.file) ?? [];
      list.push(toDiagnostic(d));
      byFile.set(d.file, list);
    }
    this.collection.set([...byFile].map(([file, list]) => [vscode.Uri.file(path.join(root, file)), list]));
  }

  dispose(): void {
    this.collection.dispose();
  }
}
