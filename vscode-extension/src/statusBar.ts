// The status bar: your session, how many claims you hold and the nearest lease end (core's
// `lease_left_text` of your claim with the least left), and for a shared rail its remote — or
// that what it shows is stale because the remote could not be fetched — and, as a warning, that
// it is not verified (core's board `shared`). Clicking it opens the board.

import * as vscode from 'vscode';

import type { RailContext } from './ctx';
import { describeShared } from './host/shared';

export class RailStatusBar implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem('rail.status', vscode.StatusBarAlignment.Left, 50);

  constructor(private readonly ctx: RailContext) {
    this.item.name = 'Rail';
    this.item.command = 'rail.showBoard';
    ctx.onDidChange(() => this.update());
  }

  update(): void {
    const snap = this.ctx.snapshot;
    if (!snap) {
      this.item.hide();
      return;
    }
    const session = this.ctx.session;
    const mine = this.ctx.myClaims();
    const nearest = mine
      .filter((c) => c.lease_left_secs !== undefined)
      .sort((a, b) => (a.lease_left_secs ?? 0) - (b.lease_left_secs ?? 0))[0];
    const parts = [session ?? 'no session'];
    parts.push(mine.length === 1 ? '1 claim' : `${mine.length} claims`);
    if (nearest) parts.push(nearest.lease_text);
    const shared = snap.shared ? describeShared(snap.shared) : undefined;
    // How far the shared rail is proven (core's words); unverified is a warning.
    const verified = snap.board.shared;
    if (snap.shared) {
      const where = shared?.stale ? `$(cloud-offline) ${snap.shared.remote}: stale` : `$(cloud) ${snap.shared.remote}`;
      parts.push(verified?.warning ? `${where} $(warning) ${verified.verified}` : where);
    }
    const warn = mine.some((c) => c.state !== 'live') || shared?.stale === true || verified?.warning === true;
    this.item.text = `$(${warn ? 'watch' : 'checklist'}) ${parts.join(' · ')}`;
    this.item.backgroundColor = warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendText(`Rail — session ${session ?? '(none)'}\n\n`);
    if (shared) tip.appendText(`${shared.text.charAt(0).toUpperCase()}${shared.text.slice(1)}.\n\n`);
    if (verified) tip.appendText(`${verified.text.charAt(0).toUpperCase()}${verified.text.slice(1)}.\n\n`);
    for (const c of mine) tip.appendText(`${c.task ?? '(no task)'}: ${c.state}, ${c.reason}\n\n`);
    tip.appendText(`${snap.board.summary.claims} claims on the rail · ${snap.board.summary.conflicts} conflicts. Click for the board.`);
    this.item.tooltip = tip;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
