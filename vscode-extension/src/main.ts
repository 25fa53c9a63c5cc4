// Activation: build the context object, hang every feature off it, register the commands, and
// start the first refresh without waiting for it (the views fill in when it lands).

import * as path from 'node:path';
import * as vscode from 'vscode';

import { readTree, type RailApi } from './api';
import { BoardTree } from './boardTree';
import { BoardPanel } from './boardWebview';
import { COMMANDS, type CommandContext } from './commands';
import { RailContext } from './ctx';
import { BehindCalls } from './behind';
import { HeldFileDecorations } from './decorations';
import { resolveRail } from './host/native';
import { RailDiagnostics } from './diagnostics';
import { EditWarnings } from './editWarnings';
import { ResourcesTree } from './resourcesTree';
import { SessionsTree } from './sessionsTree';
import { SharedBoardNote } from './sharedView';
import { RailStatusBar } from './statusBar';
import { RailWatchers } from './watchers';

/**
 * Integrated terminals get the folder of the `rail` the extension runs (bundled, or `rail.path`)
 * in front of PATH, so `rail board` in a terminal is the same binary as the extension's. `rail`
 * found on PATH already needs nothing.
 */
function shareBinaryWithTerminals(extension: vscode.ExtensionContext, rail: RailContext): void {
  const env = extension.environmentVariableCollection;
  env.clear();
  let dir: string | undefined;
  try {
    const binary = resolveRail({ setting: rail.config.path, extensionDir: extension.extensionPath });
    if (binary.source !== 'path') dir = path.dirname(binary.path);
  } catch {
    dir = undefined; // said when a command needs the binary, not at every start
  }
  if (dir === undefined) return;
  env.description = `Puts the rail CLI the Rail extension uses (${dir}) on PATH.`;
  env.prepend('PATH', `${dir}${path.delimiter}`);
}

export function activate(extension: vscode.ExtensionContext): RailApi {
  const rail = new RailContext(extension);
  const boardTree = new BoardTree(rail);
  const resourcesTree = new ResourcesTree(rail);
  const sessionsTree = new SessionsTree(rail);
  const decorations = new HeldFileDecorations(rail);
  const editWarnings = new EditWarnings(rail);
  const behind = new BehindCalls(rail);
  const statusBar = new RailStatusBar(rail);
  const panel = new BoardPanel(rail);
  const watchers = new RailWatchers(rail);
  const diagnostics = new RailDiagnostics(rail);
  const boardView = vscode.window.createTreeView('rail.board', { treeDataProvider: boardTree, showCollapseAll: true });
  const sharedNote = new SharedBoardNote(rail, boardView);

  extension.subscriptions.push(
    rail,
    decorations,
    editWarnings,
    behind,
    statusBar,
    panel,
    watchers,
    diagnostics,
    boardView,
    sharedNote,
    vscode.window.createTreeView('rail.resources', { treeDataProvider: resourcesTree }),
    vscode.window.createTreeView('rail.sessions', { treeDataProvider: sessionsTree }),
    vscode.window.registerFileDecorationProvider(decorations),
  );

  const commandContext: CommandContext = { rail, board: panel };
  for (const [id, run] of Object.entries(COMMANDS)) {
    extension.subscriptions.push(vscode.commands.registerCommand(id, (arg?: unknown) => run(commandContext, arg)));
  }

  // Settings and folders decide where the rail is and who we are: look again when they change.
  extension.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('rail')) return;
      rail.locate();
      shareBinaryWithTerminals(extension, rail);
      watchers.start();
      void rail.refresh();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      rail.locate();
      watchers.start();
      void rail.refresh();
    }),
  );

  shareBinaryWithTerminals(extension, rail);
  watchers.start();
  const ready = rail.refresh();
  rail.markActivated();

  return {
    ready,
    snapshot: () => rail.snapshot,
    refresh: (opts) => rail.refresh(opts),
    session: () => rail.session,
    stats: () => ({ ...rail.stats, refreshMs: [...rail.stats.refreshMs], spawnMs: [...rail.stats.spawnMs] }),
    tree: (view) => (view === 'board' ? readTree(boardTree) : view === 'resources' ? readTree(resourcesTree) : readTree(sessionsTree)),
    decoration: async (uri) => (await decorations.provideFileDecoration(uri)) ?? undefined,
    editWarning: (uri) => editWarnings.check(uri),
    editWarned: (uri) => editWarnings.said(uri),
    behindCalls: () => [...behind.shown],
    statusText: () => statusBar.item.text,
    statusTooltip: () => {
      const tip = statusBar.item.tooltip;
      return tip === undefined ? '' : typeof tip === 'string' ? tip : tip.value;
    },
    boardNote: () => ({ description: boardView.description ?? '', message: boardView.message ?? '' }),
    railBinary: () => rail.native()?.binary,
    terminalPathPrefix: () => extension.environmentVariableCollection.get('PATH')?.value,
  };
}

export function deactivate(): void {
  // Everything is in extension.subscriptions; VS Code disposes it.
}
