// How one claim looks in a tree (the Board and Sessions views share it). Every word shown comes
// from core's board: the state, the age and lease texts, the reason, the purpose.

import * as path from 'node:path';
import * as vscode from 'vscode';

import { isMine, type BoardClaim } from './host/core';

/** A detail row under a claim: one path, resource or dependency. */
export interface DetailNode {
  kind: 'detail';
  id: string;
  label: string;
  description?: string;
  icon: string;
  tooltip?: string;
}

/** The icon for a claim: its state, or that it waits or lost a duplicate. */
function icon(claim: BoardClaim): vscode.ThemeIcon {
  if (!claim.holds) return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.errorForeground'));
  if (claim.column === 'blocked') return new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('charts.blue'));
  switch (claim.state) {
    case 'live':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('charts.green'));
    case 'expiring':
      return new vscode.ThemeIcon('watch', new vscode.ThemeColor('charts.yellow'));
    case 'stale':
      return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('charts.red'));
  }
}

/** `alice · 12m · 1h48m left` — core's texts, joined. */
export function claimDescription(claim: BoardClaim): string {
  const parts = [claim.session];
  if (claim.age_text !== undefined) parts.push(claim.age_text);
  parts.push(claim.lease_text);
  if (!claim.holds) parts.push('duplicate');
  return parts.join(' · ');
}

/** Text for a hover that renders HTML: markdown's tokens escaped, and `<`, `>` and `&` too. */
function plain(md: vscode.MarkdownString, text: string): vscode.MarkdownString {
  return md.appendText(text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;')));
}

/**
 * The hover: who, what state and why, the purpose, where it is written. The purpose is core's
 * rendering (`purpose_html`: raw HTML escaped, unsafe links and every image dropped), never
 * the text from claims.md as markdown — that handed VS Code a remote image
 * (`![x](https://host/p.png?repo=…)`) to fetch when the hover opened (issue 41, finding 7).
 */
export function claimTooltip(claim: BoardClaim): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = false;
  md.supportHtml = true;
  md.appendMarkdown(`**`);
  plain(md, claim.task ?? '(paths and resources only)').appendMarkdown(`** — `);
  plain(md, `${claim.session}, ${claim.state}`);
  plain(md.appendMarkdown('\n\n'), claim.reason);
  if (claim.purpose_html) md.appendMarkdown('\n\n---\n\n').appendMarkdown(claim.purpose_html);
  if (claim.blocked_by?.length) plain(md.appendMarkdown('\n\n'), `waiting for: ${claim.blocked_by.join(', ')}`);
  if (claim.machine_text) plain(md.appendMarkdown('\n\n'), `machine: ${claim.machine_text}`);
  plain(md.appendMarkdown('\n\n'), `${claim.file}:${claim.line}${claim.also ? ` (+ ${claim.also})` : ''}`);
  return md;
}

/**
 * The `viewItem` context value that gates the inline and context-menu commands:
 * `rail.claim.<mine|other>.<state>[.notask][.takeable]` — Release/Renew for mine, Take Over for
 * others' claims core marked takeable.
 */
export function claimContext(claim: BoardClaim, session: string | undefined): string {
  const who = isMine(claim, session) ? 'mine' : 'other';
  return `rail.claim.${who}.${claim.state}${claim.task === undefined ? '.notask' : ''}${claim.takeable ? '.takeable' : ''}`;
}

export function claimTreeItem(claim: BoardClaim, id: string, session: string | undefined, railRoot: string): vscode.TreeItem {
  const hasDetails =
    (claim.paths?.length ?? 0) + (claim.resources?.length ?? 0) + (claim.after?.length ?? 0) > 0 || claim.machine_text !== undefined;
  const item = new vscode.TreeItem(
    claim.task ?? `(${claim.file})`,
    hasDetails ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
  );
  item.id = id;
  item.description = claimDescription(claim);
  item.tooltip = claimTooltip(claim);
  item.iconPath = icon(claim);
  item.contextValue = claimContext(claim, session);
  // Clicking a claim shows the line it is written on.
  const line = Math.max(0, claim.line - 1);
  item.command = {
    command: 'vscode.open',
    title: 'Open Claim',
    arguments: [
      vscode.Uri.file(path.join(railRoot, claim.file)),
      { selection: new vscode.Range(line, 0, line, 0), preview: true } satisfies vscode.TextDocumentShowOptions,
    ],
  };
  return item;
}

/** The rows under a claim: on a shared rail its machine (core's words: this one, or another's),
 * then its paths, resources and the tasks it waits for. */
export function claimDetails(claim: BoardClaim, parentId: string): DetailNode[] {
  const out: DetailNode[] = [];
  if (claim.machine_text !== undefined)
    out.push({
      kind: 'detail',
      id: `${parentId}/machine`,
      label: claim.machine_text,
      icon: claim.elsewhere ? 'remote' : 'vm',
      description: 'machine',
    });
  for (const p of claim.paths ?? [])
    out.push({ kind: 'detail', id: `${parentId}/path:${p}`, label: p, icon: 'file-submodule', description: 'path' });
  for (const r of claim.resources ?? [])
    out.push({ kind: 'detail', id: `${parentId}/res:${r}`, label: r, icon: 'plug', description: 'resource' });
  for (const a of claim.after ?? []) {
    const waiting = claim.blocked_by?.includes(a) ?? false;
    out.push({
      kind: 'detail',
      id: `${parentId}/after:${a}`,
      label: a,
      icon: waiting ? 'debug-pause' : 'pass',
      description: waiting ? 'waiting for it' : 'after (released)',
    });
  }
  return out;
}

export function detailTreeItem(node: DetailNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  if (node.description !== undefined) item.description = node.description;
  if (node.tooltip !== undefined) item.tooltip = node.tooltip;
  item.iconPath = new vscode.ThemeIcon(node.icon);
  item.contextValue = 'rail.detail';
  return item;
}
