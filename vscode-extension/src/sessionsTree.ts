// The Sessions view: every session core knows — from claims and from worktrees (stations) — with
// its worktree, branch and claims.

import * as path from 'node:path';
import * as vscode from 'vscode';

import { claimKey } from './boardTree';
import { claimDetails, claimTreeItem, detailTreeItem, type DetailNode } from './claimItem';
import type { RailContext } from './ctx';
import type { BoardClaim, SessionView } from './host/core';
import { mainCheckout } from './host/repo';

type SessionNode = { kind: 'session'; session: SessionView } | { kind: 'claim'; claim: BoardClaim; id: string } | DetailNode;

export class SessionsTree implements vscode.TreeDataProvider<SessionNode> {
  private readonly changed = new vscode.EventEmitter<SessionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly ctx: RailContext) {
    ctx.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(node?: SessionNode): SessionNode[] {
    const board = this.ctx.snapshot?.board;
    if (!board) return [];
    if (!node) return board.sessions.map((session) => ({ kind: 'session', session }));
    if (node.kind === 'session') {
      return node.session.claims
        .map((id) => board.claims[id])
        .filter((c): c is BoardClaim => c !== undefined)
        .map((claim) => ({ kind: 'claim', claim, id: `session/${node.session.name}/${claimKey(claim)}` }));
    }
    if (node.kind === 'claim') return claimDetails(node.claim, node.id);
    return [];
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    if (node.kind === 'claim') return claimTreeItem(node.claim, node.id, this.ctx.session, this.ctx.location?.root ?? '');
    if (node.kind === 'detail') return detailTreeItem(node);
    const s = node.session;
    const me = s.name === this.ctx.session;
    const item = new vscode.TreeItem(
      s.name,
      s.claims.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `session/${s.name}`;
    const counts = [s.live ? `${s.live} live` : '', s.expiring ? `${s.expiring} expiring` : '', s.stale ? `${s.stale} stale` : ''].filter(
      Boolean,
    );
    // Guard status in core's words: which agent's Rail hook was last seen for the session, and
    // whether that was since it made its claims.
    const guard = s.hook || s.unguarded ? s.guard_text : '';
    item.description = [me ? 'you' : '', counts.join(', ') || 'no claims', guard, s.worktree ?? ''].filter(Boolean).join(' · ');
    const tip = [`session ${s.name}`, `branch ${s.branch}`];
    if (s.hook) {
      tip.push(`Rail hook of ${s.hook.agent}${s.hook.version ? ` ${s.hook.version}` : ''} last seen ${s.hook.seen_at}`);
      if (s.unguarded) tip.push(s.guard_text);
    } else if (s.unguarded) {
      tip.push('no Rail hook seen for this session: its agent may write anywhere unguarded (rail init --agents)');
    }
    if (s.worktree) tip.push(`worktree ${s.worktree}`);
    if (s.last_commit_at) tip.push(`last own commit ${s.last_commit_at}`);
    item.tooltip = tip.join('\n');
    item.iconPath = s.unguarded
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
      : new vscode.ThemeIcon(s.worktree ? 'repo' : 'account');
    // A station may be closed; the main checkout (where the rail lives) never is.
    const repo = this.ctx.location?.repo;
    const main = repo ? path.resolve(mainCheckout(repo)) : undefined;
    const station = s.worktree !== null && s.worktree !== undefined && path.resolve(s.worktree) !== main;
    item.contextValue = station ? 'rail.session.station' : s.worktree ? 'rail.session.worktree' : 'rail.session';
    return item;
  }
}
