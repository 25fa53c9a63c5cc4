// "Show Board": the whole rail in an editor tab, drawn by the web board (web-viewer/dist,
// bundled into dist/web-board/ by the build) through its `{ type: 'rail', texts, facts }` embed
// contract (web-viewer/README.md). The page evaluates the board with its own copy of the wasm
// core, under a nonce-based CSP with no network access.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

import type { RailContext } from './ctx';

export class BoardPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly ctx: RailContext) {
    this.subscription = ctx.onDidChange(() => this.post());
  }

  get visible(): boolean {
    return this.panel !== undefined;
  }

  dispose(): void {
    this.subscription.dispose();
    this.panel?.dispose();
  }

  show(): void {
    if (this.panel) {
      this.panel.reveal();
      this.post();
      return;
    }
    const distUri = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel('rail.board', 'Rail Board', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [distUri],
    });
    panel.iconPath = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'media', 'rail.svg');
    panel.webview.html = this.webBoardHtml(panel.webview, distUri);
    panel.webview.onDidReceiveMessage((m: unknown) => this.onMessage(m));
    panel.onDidDispose(() => (this.panel = undefined));
    this.panel = panel;
  }

  private onMessage(m: unknown): void {
    if (typeof m !== 'object' || m === null) return;
    const msg = m as { type?: unknown; file?: unknown; line?: unknown; column?: unknown };
    if (msg.type === 'ready' || msg.type === 'rail-ready') this.post();
    else if (msg.type === 'refresh') void this.ctx.refresh();
    else if ((msg.type === 'open' || msg.type === 'rail-reveal') && typeof msg.file === 'string' && typeof msg.line === 'number') {
      this.reveal(msg.file, msg.line, typeof msg.column === 'number' ? msg.column : 1);
    }
  }

  /** Opens a rail file at a one-based line and column. Only files inside the rail directory. */
  private reveal(file: string, line: number, column: number): void {
    const root = this.ctx.location?.root;
    if (!root || path.isAbsolute(file) || file.split(/[\\/]/).includes('..')) return;
    const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
    void vscode.window.showTextDocument(vscode.Uri.file(path.join(root, file)), {
      selection: new vscode.Range(pos, pos),
      viewColumn: vscode.ViewColumn.Beside,
    });
  }

  private post(): void {
    const snap = this.ctx.snapshot;
    if (!this.panel || !snap) return;
    void this.panel.webview.postMessage({
      type: 'rail',
      texts: snap.coreTexts,
      facts: snap.facts,
      source: this.ctx.location?.root ?? null,
    });
  }

  /** web-viewer's page, with its asset URLs and CSP rewritten as its README says. */
  private webBoardHtml(webview: vscode.Webview, distUri: vscode.Uri): string {
    const dir = vscode.Uri.joinPath(distUri, 'web-board');
    const nonce = randomBytes(16).toString('base64');
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data:`,
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}' 'wasm-unsafe-eval'`,
      `connect-src ${webview.cspSource}`,
      "base-uri 'none'",
      "form-action 'none'",
      "require-trusted-types-for 'script'",
      'trusted-types rail-purpose',
    ].join('; ');
    const asset = (name: string): string => webview.asWebviewUri(vscode.Uri.joinPath(dir, name)).toString();
    let html = fs.readFileSync(path.join(dir.fsPath, 'index.html'), 'utf8');
    html = html.replace(
      /<meta http-equiv="Content-Security-Policy"[^>]*>/i,
      `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    );
    html = html.replace('href="app.css"', `href="${asset('app.css')}"`);
    html = html.replace(
      /<script type="module" src="app\.js"><\/script>/,
      `<script type="module" nonce="${nonce}" src="${asset('app.js')}"></script>`,
    );
    html = html.replace(/<head>/i, `<head>\n<meta name="rail-embed" content="vscode">`);
    return html;
  }
}
