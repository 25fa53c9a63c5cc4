// What activate() returns: a small API over the extension's state, so the integration tests (and
// other extensions) can read back exactly what the views show without scraping the UI.

import * as vscode from 'vscode';

import type { RefreshOptions, Snapshot, Stats } from './ctx';
import type { RailBinary } from './host/native';

/** A tree row as VS Code would render it, with its children expanded. */
export interface TreeRow {
  label: string;
  description: string;
  contextValue: string;
  tooltip: string;
  children: TreeRow[];
}

export interface RailApi {
  /** Resolves once the first board is ready (or no rail was found). */
  readonly ready: Promise<void>;
  snapshot(): Snapshot | undefined;
  /** `{ fetch: true }`: a shared rail is fetched from its remote first (as Refresh does). */
  refresh(opts?: RefreshOptions): Promise<void>;
  session(): string | undefined;
  stats(): Stats;
  /** The whole tree of one view, expanded. */
  tree(view: 'board' | 'resources' | 'sessions'): Promise<TreeRow[]>;
  decoration(uri: vscode.Uri): Promise<vscode.FileDecoration | undefined>;
  /** What the edit-time check says about a file right now (and marks it as said). */
  editWarning(uri: vscode.Uri): string | undefined;
  /** Whether the edit-time check has already spoken about a file (it says nothing itself). */
  editWarned(uri: vscode.Uri): boolean;
  /** The "Behind!" notifications shown so far: another session's work in flight under this
   * session's claims or in a file open here. */
  behindCalls(): string[];
  statusText(): string;
  statusTooltip(): string;
  /** What the Board view shows above its tree: its description and message (shared rails). */
  boardNote(): { description: string; message: string };
  /** The `rail` binary changes would run now (`undefined`: none found; the reason is shown). */
  railBinary(): RailBinary | undefined;
  /** What integrated terminals get put in front of PATH (`undefined`: nothing). */
  terminalPathPrefix(): string | undefined;
}

function text(x: string | vscode.TreeItemLabel | vscode.MarkdownString | boolean | undefined): string {
  if (x === undefined || typeof x === 'boolean') return '';
  if (typeof x === 'string') return x;
  if (x instanceof vscode.MarkdownString) return x.value;
  return x.label;
}

/** Walks a tree provider the way the tree view does. */
export async function readTree<T>(provider: vscode.TreeDataProvider<T>, node?: T, depth = 0): Promise<TreeRow[]> {
  const children = (await provider.getChildren(node)) ?? [];
  const rows: TreeRow[] = [];
  for (const child of children) {
    const item = await provider.getTreeItem(child);
    rows.push({
      label: text(item.label),
      description: text(item.description),
      contextValue: item.contextValue ?? '',
      tooltip: text(item.tooltip),
      children:
        depth < 4 && item.collapsibleState !== vscode.TreeItemCollapsibleState.None ? await readTree(provider, child, depth + 1) : [],
    });
  }
  return rows;
}
