// The Resources view: who holds which port, lock or simulator (core's `resources`), clashes first
// marked. A resource's children are its holders.

import * as vscode from 'vscode';

import type { RailContext } from './ctx';
import type { ResourceUse } from './host/core';

type ResourceNode = { kind: 'resource'; resource: ResourceUse } | { kind: 'holder'; resource: ResourceUse; index: number };

/** An icon for the conventional `kind:` prefixes; anything else is a generic token. */
function kindIcon(kind: string): string {
  switch (kind) {
    case 'port':
      return 'plug';
    case 'simulator':
    case 'emulator':
    case 'device':
      return 'device-mobile';
    case 'checkout':
    case 'lock':
      return 'lock';
    case 'db':
    case 'database':
      return 'database';
    default:
      return 'symbol-constant';
  }
}

export class ResourcesTree implements vscode.TreeDataProvider<ResourceNode> {
  private readonly changed = new vscode.EventEmitter<ResourceNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly ctx: RailContext) {
    ctx.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(node?: ResourceNode): ResourceNode[] {
    const board = this.ctx.snapshot?.board;
    if (!board) return [];
    if (!node) return board.resources.map((resource) => ({ kind: 'resource', resource }));
    if (node.kind === 'resource') return node.resource.holders.map((_, index) => ({ kind: 'holder', resource: node.resource, index }));
    return [];
  }

  getTreeItem(node: ResourceNode): vscode.TreeItem {
    const r = node.resource;
    if (node.kind === 'resource') {
      const item = new vscode.TreeItem(r.name, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `resource/${r.name}`;
      const sessions = [...new Set(r.holders.map((h) => h.session))];
      item.description = `${sessions.join(', ')}${r.clash ? ' · clash' : ''}`;
      item.iconPath = r.clash
        ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
        : new vscode.ThemeIcon(kindIcon(r.kind));
      item.tooltip = r.clash ? `${r.name} is exclusive but held by ${sessions.join(' and ')}` : `${r.name}: held by ${sessions.join(', ')}`;
      item.contextValue = r.clash ? 'rail.resource.clash' : 'rail.resource';
      return item;
    }
    const h = r.holders[node.index];
    const item = new vscode.TreeItem(h?.session ?? '?', vscode.TreeItemCollapsibleState.None);
    item.id = `resource/${r.name}/${node.index}`;
    if (h) {
      item.description = `${h.task ?? 'no task'} · ${h.state}${h.shared ? ' · shared' : ''}`;
      item.iconPath = new vscode.ThemeIcon('account');
    }
    item.contextValue = 'rail.resource.holder';
    return item;
  }
}
