// Says on the Board view that the rail is shared, and how fresh it is: the view's description
// reads "shared via origin, fetched 20s ago"; when the last fetch failed, the view's message says
// the board is stale and why ("shared via origin: STALE, could not fetch (…); showing the state
// fetched 5m ago"); and when the shared rail is unverified (no keys), not proven, or this
// machine cannot sign, core's sentence saying so, as a warning in the view's message.
// A local rail shows none of it.

import type * as vscode from 'vscode';

import type { BoardNode } from './boardTree';
import type { RailContext } from './ctx';
import { describeShared } from './host/shared';

export class SharedBoardNote implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly ctx: RailContext,
    private readonly view: vscode.TreeView<BoardNode>,
  ) {
    this.subscription = ctx.onDidChange(() => this.update());
  }

  update(): void {
    const shared = this.ctx.snapshot?.shared;
    if (!shared) {
      this.view.description = undefined;
      this.view.message = undefined;
      return;
    }
    const { text, stale } = describeShared(shared);
    this.view.description = stale ? `shared via ${shared.remote}: STALE` : text;
    // How far the shared rail is proven, in core's words: a warning at the top of the view when
    // it is unverified (or not proven, or this machine cannot sign).
    const verified = this.ctx.snapshot?.board.shared;
    const warning = verified?.warning ? `⚠ ${verified.text}` : undefined;
    const message = [stale ? text : undefined, warning].filter((m) => m !== undefined).join('\n\n');
    this.view.message = message === '' ? undefined : message;
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
