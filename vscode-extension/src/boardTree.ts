// The Board view: claims grouped as core judged them — Live, Expiring, Stale (free to take),
// Blocked, and the Conflicts with the claims involved. Paths and resources are a claim's children.

import * as vscode from 'vscode';

import { claimDetails, claimTreeItem, detailTreeItem, type DetailNode } from './claimItem';
import type { RailContext } from './ctx';
import type { BoardClaim, Column, Conflict } from './host/core';

type GroupId = Column;

export type BoardNode =
  | { kind: 'group'; group: GroupId; claims: BoardClaim[] }
  | { kind: 'conflicts'; conflicts: Conflict[] }
  | { kind: 'conflict'; conflict: Conflict; index: number }
  | { kind: 'claim'; claim: BoardClaim; id: string }
  | DetailNode;

const GROUPS: { id: GroupId; label: string; icon: string; color: string }[] = [
  { id: 'live', label: 'Live', icon: 'pass', color: 'charts.green' },
  { id: 'expiring', label: 'Expiring', icon: 'watch', color: 'charts.yellow' },
  { id: 'stale', label: 'Stale (free to take)', icon: 'circle-slash', color: 'charts.red' },
  { id: 'blocked', label: 'Blocked', icon: 'debug-pause', color: 'charts.blue' },
];

export class BoardTree implements vscode.TreeDataProvider<BoardNode> {
  private readonly changed = new vscode.EventEmitter<BoardNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly ctx: RailContext) {
    ctx.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(node?: BoardNode): BoardNode[] {
    const board = this.ctx.snapshot?.board;
    if (!board) return [];
    if (!node) {
      const out: BoardNode[] = [];
      for (const g of GROUPS) {
        const claims = board.claims.filter((c) => c.column === g.id);
        if (claims.length > 0) out.push({ kind: 'group', group: g.id, claims });
      }
      if (board.conflicts.length > 0) out.push({ kind: 'conflicts', conflicts: board.conflicts });
      return out;
    }
    switch (node.kind) {
      case 'group':
        return node.claims.map((claim) => ({ kind: 'claim', claim, id: `${node.group}/${claimKey(claim)}` }));
      case 'conflicts':
        return node.conflicts.map((conflict, index) => ({ kind: 'conflict', conflict, index }));
      case 'conflict':
        return node.conflict.claims
          .map((id) => board.claims[id])
          .filter((c): c is BoardClaim => c !== undefined)
          .map((claim) => ({ kind: 'claim', claim, id: `conflict${node.index}/${claimKey(claim)}` }));
      case 'claim':
        return claimDetails(node.claim, node.id);
      case 'detail':
        return [];
    }
  }

  getTreeItem(node: BoardNode): vscode.TreeItem {
    const root = this.ctx.location?.root ?? '';
    switch (node.kind) {
      case 'group': {
        const g = GROUPS.find((x) => x.id === node.group);
        const item = new vscode.TreeItem(g?.label ?? node.group, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `group/${node.group}`;
        item.description = String(node.claims.length);
        item.iconPath = new vscode.ThemeIcon(g?.icon ?? 'circle', new vscode.ThemeColor(g?.color ?? 'foreground'));
        item.contextValue = `rail.group.${node.group}`;
        return item;
      }
      case 'conflicts': {
        const item = new vscode.TreeItem('Conflicts', vscode.TreeItemCollapsibleState.Expanded);
        item.id = 'group/conflicts';
        item.description = String(node.conflicts.length);
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.contextValue = 'rail.group.conflicts';
        return item;
      }
      case 'conflict': {
        const c = node.conflict;
        const item = new vscode.TreeItem(c.kind, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `conflict/${node.index}/${c.kind}/${c.sessions.join(',')}`;
        item.description = c.task ?? c.resource ?? c.overlaps[0]?.example ?? c.sessions.join(' vs ');
        item.tooltip = c.message;
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.contextValue = 'rail.conflict';
        return item;
      }
      case 'claim':
        return claimTreeItem(node.claim, node.id, this.ctx.session, root);
      case 'detail':
        return detailTreeItem(node);
    }
  }
}

/** Stable across refreshes (tree expansion state survives): where the claim is written. */
export function claimKey(claim: BoardClaim): string {
  return `${claim.file}:${claim.line}:${claim.task ?? ''}:${claim.session}`;
}
