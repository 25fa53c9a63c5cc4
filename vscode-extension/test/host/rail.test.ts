// The extension inside a real VS Code extension host (code-server 4.100.3 = VS Code 1.100.3),
// installed from the built .vsix, on the workspace test/shared/workspace.ts prepares. Commands
// run through VS Code's command service; what the views show is read back through the API that
// activate() returns; diagnostics through VS Code's own API.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

import type { RailApi, TreeRow } from '../../src/api';
import type { Board, Located, ScopeReport, Who } from '../../src/host/core';
import type { Broken, LockStatus } from '../../src/host/native';
import { RAIL_BIN, git } from '../shared/fixtures';

/** What the mutating commands return (host/native.ts's Mutation, seen without its union narrowing). */
interface MutateResultLike {
  ok: boolean;
  message?: string;
  refusal?: { kind: string; holder: string | null };
}

/** The board as the CLI sees it right now (`rail board --json`), as `[task, session]` pairs. */
function cliBoard(): [string | undefined, string][] {
  const r = spawnSync(RAIL_BIN, ['--session', 'alice', 'board', '--json'], { cwd: ws(), encoding: 'utf8' });
  // Exit 1 with the board on stdout: the workspace's rail has its broken line on purpose, and
  // the board fails on errors as `rail validate` does.
  assert.ok(r.status === 0 || (r.status === 1 && /the rail has \d+ errors?/.test(r.stderr)), `${r.status}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as Board).claims.map((c) => [c.task, c.session]);
}

function cliHolds(task: string): string | undefined {
  return cliBoard().find(([t]) => t === task)?.[1];
}

const EXTENSION_ID = 'rail.rail-vscode';

function ws(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return folder.uri.fsPath;
}

function find(rows: TreeRow[], label: string): TreeRow | undefined {
  for (const r of rows) {
    if (r.label === label) return r;
    const inner = find(r.children, label);
    if (inner) return inner;
  }
  return undefined;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function claimsMd(): string {
  return fs.readFileSync(path.join(ws(), 'claims.md'), 'utf8');
}

function logText(): string {
  return fs.readFileSync(path.join(ws(), 'claims.log'), 'utf8');
}

suite('Rail in a real VS Code', () => {
  let api: RailApi;

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<RailApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    api = await ext.activate();
    await api.ready;
    assert.ok(api.snapshot(), 'the first board is there');
  });

  test('changes go through the rail binary the .vsix carries', () => {
    const binary = api.railBinary();
    assert.equal(binary?.source, 'bundled');
    const installed = vscode.extensions.getExtension(EXTENSION_ID)?.extensionPath ?? '';
    assert.equal(binary?.path, path.join(installed, 'bin', process.platform === 'win32' ? 'rail.exe' : 'rail'));
    assert.ok(fs.existsSync(binary?.path ?? ''));
    assert.equal(api.terminalPathPrefix(), `${path.dirname(binary?.path ?? '')}${path.delimiter}`, 'terminals find the same rail first');
  });

  test('activates on the workspace, finds the rail and the session', () => {
    assert.equal(api.session(), 'alice', 'rail.session from the user settings');
    // The workspace's .vscode/settings.json says mallory (test/shared/workspace.ts): a
    // repository's settings never say who acts.
    const inspected = vscode.workspace.getConfiguration('rail').inspect<string>('session');
    assert.equal(inspected?.globalValue, 'alice');
    assert.notEqual(api.session(), 'mallory', 'the workspace named the session');
    const stats = api.stats();
    assert.ok(stats.activationMs > 0 && stats.activationMs < 2000, `activation took ${stats.activationMs} ms`);
    assert.equal(api.snapshot()?.board.summary.claims, 6);
  });

  test('the Board view groups claims as core judged them', async () => {
    const rows = await api.tree('board');
    assert.deepEqual(
      rows.map((r) => r.label),
      ['Live', 'Expiring', 'Stale (free to take)', 'Blocked', 'Conflicts'],
    );
    const live = rows[0];
    const auth = live?.children.find((c) => c.label === 'auth-refresh');
    assert.ok(auth, 'auth-refresh is live');
    assert.match(auth.description, /^alice · 1\dm · 1h[45]\dm left$/);
    assert.equal(auth.contextValue, 'rail.claim.mine.live');
    assert.deepEqual(
      auth.children.map((c) => c.label),
      ['src/auth/**', 'port:3000'],
    );
    assert.match(auth.tooltip, /refresh <strong>tokens<\/strong> early/, 'the purpose is in the tooltip, as core rendered it');
    // A purpose's image is its alt text: the hover fetches nothing (issue 41, finding 7).
    const billing = find(rows, 'billing');
    assert.ok(billing?.tooltip.includes('tax build'), billing?.tooltip);
    assert.ok(!billing?.tooltip.includes('example.invalid'), `a remote image in the hover: ${billing?.tooltip}`);
    assert.ok(find(rows[1]?.children ?? [], 'billing'), 'billing is expiring');
    const search = rows[2]?.children.find((c) => c.label === 'search');
    assert.equal(search?.contextValue, 'rail.claim.other.stale.takeable');
    assert.ok(find(rows[3]?.children ?? [], 'docs'), 'docs waits for billing');
    const reindex = find(rows[3]?.children ?? [], 'reindex');
    assert.ok(reindex, 'a stale claim that waits is under Blocked, as on the web board and in the CLI');
    assert.equal(reindex.contextValue, 'rail.claim.other.stale.takeable', 'and may still be taken over');
    assert.ok(!find(rows[2]?.children ?? [], 'reindex'), 'not also under Stale');
    // Every claim is in the group core's column names, nowhere else.
    const board = api.snapshot()?.board;
    const groupOf = new Map(
      rows.slice(0, 4).flatMap((g, i) => g.children.map((c) => [c.label, ['live', 'expiring', 'stale', 'blocked'][i]] as const)),
    );
    for (const claim of board?.claims ?? []) assert.equal(groupOf.get(claim.task ?? `(${claim.file})`), claim.column, claim.task);
    const conflicts = rows[4]?.children.map((c) => c.label).sort();
    assert.deepEqual(conflicts, ['path-overlap', 'resource-clash']);
    assert.ok(find(rows, 'ui'), 'the claim file of frank is on the board');
  });

  test('the Resources and Sessions views', async () => {
    const resources = await api.tree('resources');
    const port = resources.find((r) => r.label === 'port:3000');
    assert.ok(port);
    assert.match(port.description, /alice, bob · clash/);
    assert.deepEqual(port.children.map((c) => c.label).sort(), ['alice', 'bob']);
    assert.ok(resources.find((r) => r.label === 'simulator:iphone-15'));
    const sessions = await api.tree('sessions');
    const alice = sessions.find((s) => s.label === 'alice');
    assert.match(alice?.description ?? '', /^you · 1 live/);
    const station = sessions.find((s) => s.label === 'station');
    assert.match(station?.description ?? '', /no claims · .*-station$/, 'the station worktree is a session');
  });

  test('diagnostics for claims.md are in the Problems panel', async () => {
    const uri = vscode.Uri.file(path.join(ws(), 'claims.md'));
    const diags = await until('diagnostics', () => {
      const d = vscode.languages.getDiagnostics(uri);
      return d.length > 0 ? d : undefined;
    });
    const codes = diags.map((d) => String(d.code)).sort();
    assert.ok(codes.includes('bad-time'), codes.join());
    assert.ok(codes.includes('path-overlap'), codes.join());
    assert.ok(codes.includes('resource-clash'), codes.join());
    assert.ok(codes.includes('blocked'), codes.join());
    const bad = diags.find((d) => d.code === 'bad-time');
    assert.equal(bad?.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(bad?.range.start.line, 6, 'the broken line (zero-based)');
    assert.equal(bad?.source, 'rail');
  });

  test('the status bar shows the session, its claims and the nearest lease end', () => {
    assert.match(api.statusText(), /alice · 1 claim · 1h[45]\dm left/);
  });

  test('files another live session holds are decorated; editing them warns', async () => {
    const tax = vscode.Uri.file(path.join(ws(), 'src/billing/tax.ts'));
    const deco = await api.decoration(tax);
    assert.equal(deco?.badge, '!');
    assert.match(deco?.tooltip ?? '', /held by bob \(billing, expiring\)/);
    assert.equal(await api.decoration(vscode.Uri.file(path.join(ws(), 'README.md'))), undefined);
    assert.equal(await api.decoration(vscode.Uri.file(path.join(ws(), 'src/search/index.ts'))), undefined, 'a stale claim holds nothing');
    assert.match(api.editWarning(tax) ?? '', /src\/billing\/tax\.ts is held by bob/);
    assert.match(api.editWarning(vscode.Uri.file(path.join(ws(), 'README.md'))) ?? '', /outside the paths you claimed \(src\/auth\/\*\*\)/);
    // Typing in an editor triggers it too (once per file).
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(ws(), 'web/app.ts')));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), '// edit\n'));
    await until('the change event to reach the extension', () => (api.editWarned(doc.uri) ? true : undefined));
    assert.equal(api.editWarning(doc.uri), undefined, 'already warned while typing');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    git(ws(), 'checkout', '--', 'web/app.ts'); // whatever the editor did, the file is as committed
  });

  test("another session's work in flight is marked and called out (Behind!)", async () => {
    // Claude Code's agent, its own session, writes a file nobody claims through its hooks: its
    // uncommitted change is work in flight, which alice's editor marks and calls out.
    const rel = 'notes/behind.md';
    const file = path.join(ws(), rel);
    const hook = (event: string): void => {
      const payload = JSON.stringify({
        session_id: '0b2c3d4e-0000-4000-8000-0000000be7a2',
        hook_event_name: event,
        cwd: ws(),
        tool_name: 'Write',
        tool_use_id: 'toolu_behind',
        tool_input: { file_path: file, content: 'x' },
        tool_response: {},
      });
      const env = { ...process.env };
      delete env.RAIL_SESSION;
      const r = spawnSync(RAIL_BIN, ['hook', 'claude'], { cwd: ws(), input: payload, encoding: 'utf8', env });
      assert.equal(r.status, 0, r.stderr);
    };
    hook('PreToolUse');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "the agent's uncommitted note\n");
    hook('PostToolUse');
    try {
      await api.refresh();
      const deco = await until('the in-flight mark', async () => {
        const d = await api.decoration(vscode.Uri.file(file));
        return d?.badge === '↯' ? d : undefined;
      });
      assert.match(deco.tooltip ?? '', /in flight: \S+~claude-000be7a2 .*notes\/behind\.md \(uncommitted, written by its agent/);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(file)));
      await api.refresh();
      const said = await until('the Behind! notification', () => api.behindCalls().find((m) => m.includes(rel)));
      assert.match(said, /^Rail: Behind! \S+~claude-000be7a2 /);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      fs.rmSync(path.join(ws(), 'notes'), { recursive: true, force: true });
      await api.refresh();
    }
  });

  test('Claim Task, Update, Renew, Release through the command service', async () => {
    const claimed = await vscode.commands.executeCommand<MutateResultLike>('rail.claimTask', {
      task: 'api-docs',
      paths: ['docs/api/**'],
      purpose: 'write the API docs',
    });
    assert.equal(claimed?.ok, true, JSON.stringify(claimed));
    assert.match(claimsMd(), /^api-docs \| alice \| \S+ \| paths: docs\/api\/\*\* \| purpose: write the API docs$/m);
    assert.ok(find(await api.tree('board'), 'api-docs'), 'in the tree at once');
    const renewed = await vscode.commands.executeCommand<MutateResultLike>('rail.renew', { task: 'api-docs' });
    assert.equal(renewed?.ok, true);
    assert.match(claimsMd(), /^api-docs \| .* \| renewed: /m);
    assert.equal(cliHolds('api-docs'), 'alice', 'the CLI sees the claim at once');
    const updated = await vscode.commands.executeCommand<MutateResultLike>('rail.updateClaim', {
      task: 'api-docs',
      paths: ['docs/api/**', 'openapi.yaml'],
      purpose: 'the API docs and the spec',
    });
    assert.equal(updated?.ok, true, JSON.stringify(updated));
    assert.match(claimsMd(), /^api-docs \| alice \| .*paths: docs\/api\/\*\*, openapi\.yaml.*purpose: the API docs and the spec/m);
    const rows = await api.tree('board');
    assert.deepEqual(
      find(rows, 'api-docs')?.children.map((c) => c.label),
      ['docs/api/**', 'openapi.yaml'],
      'the tree shows the new paths',
    );
    const released = await vscode.commands.executeCommand<MutateResultLike>('rail.release', { task: 'api-docs' });
    assert.equal(released?.ok, true);
    assert.doesNotMatch(claimsMd(), /^api-docs /m);
    assert.equal(cliHolds('api-docs'), undefined, 'the CLI sees the release at once');
    assert.equal(find(await api.tree('board'), 'api-docs'), undefined, 'gone from the tree');
    assert.match(logText(), /\| claimed \| api-docs \| alice \|/);
    assert.match(logText(), /\| renewed \| api-docs \| alice/);
    assert.match(logText(), /\| released \| api-docs \| alice/);
  });

  test('a refused claim changes nothing and says who holds it', async () => {
    const before = claimsMd();
    const r = await vscode.commands.executeCommand<MutateResultLike>('rail.claimTask', { task: 'billing' });
    assert.equal(r?.ok, false);
    assert.equal(r?.refusal?.kind, 'held');
    assert.match(r?.message ?? '', /billing is held by bob/);
    assert.equal(claimsMd(), before);
  });

  test('a task the CLI holds is refused from the extension, naming the holder', async () => {
    const byCli = spawnSync(RAIL_BIN, ['--session', 'yuri', 'claim', 'cli-held', '--path', 'cli/**'], { cwd: ws(), encoding: 'utf8' });
    assert.equal(byCli.status, 0, byCli.stderr);
    const before = claimsMd();
    const r = await vscode.commands.executeCommand<MutateResultLike>('rail.claimTask', { task: 'cli-held' });
    assert.equal(r?.ok, false);
    assert.equal(r?.refusal?.kind, 'held');
    assert.equal(r?.refusal?.holder, 'yuri');
    assert.match(r?.message ?? '', /^cli-held is held by yuri since \S+ \(\d+s ago\)/, 'the message shown names the holder');
    assert.equal(claimsMd(), before, 'nothing changed');
    assert.equal(cliHolds('cli-held'), 'yuri');
  });

  test("Take Over Stale Claim takes carol's stale search", async () => {
    const r = await vscode.commands.executeCommand<MutateResultLike>('rail.takeOver', { task: 'search', confirmed: true });
    assert.equal(r?.ok, true, JSON.stringify(r));
    assert.match(claimsMd(), /^search \| alice \|/m);
    assert.match(logText(), /\| taken \| search \| alice \| from: carol \| reason: /);
    assert.equal(cliHolds('search'), 'alice', 'the CLI sees the take-over at once');
    const live = (await api.tree('board')).find((g) => g.label === 'Live');
    assert.ok(
      live?.children.find((c) => c.label === 'search'),
      "search is now alice's and live",
    );
  });

  test('a claim written by the CLI shows up by itself (file watcher)', async () => {
    const r = spawnSync(RAIL_BIN, ['--session', 'zed', 'claim', 'from-cli'], { cwd: ws(), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    await until('the watcher to refresh the board', async () => find(await api.tree('board'), 'from-cli'));
  });

  test('a commit on a branch refreshes the board by itself (branch-head watcher)', async () => {
    const station = `${ws()}-station`;
    fs.writeFileSync(path.join(station, 'work.txt'), 'work\n');
    git(station, 'add', 'work.txt');
    git(station, 'commit', '-q', '-m', 'station work');
    await until(
      'the station session to show its commit',
      () => api.snapshot()?.board.sessions.find((s) => s.name === 'station')?.last_commit_at ?? undefined,
    );
  });

  test('Show Lock Owner and Break Dead Lock on a lock left by a dead process', async () => {
    const dead = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim();
    const host = os.hostname();
    const lockFile = path.join(ws(), 'claims.md.lock');
    fs.writeFileSync(
      lockFile,
      `pid: ${dead}\nhost: ${host}\nsession: ghost\ncommand: rail claim ghost\nstarted: 2026-10-22T14:05:03Z\nnonce: 0123456789abcdef\n`,
    );
    const info = await vscode.commands.executeCommand<LockStatus | null>('rail.showLockOwner');
    assert.ok(info?.held, 'held');
    assert.equal(info.record?.pid, Number(dead));
    assert.equal(info.verdict.state, 'dead');
    assert.equal(info.verdict.breakable, true);
    const broken = await vscode.commands.executeCommand<Broken | null>('rail.breakLock');
    assert.equal(broken?.holder, `${dead}@${host}`);
    assert.equal(fs.existsSync(lockFile), false);
    assert.match(logText(), new RegExp(`\\| lock-broken \\| - \\| alice \\| holder: ${dead}@`));
    assert.equal(await vscode.commands.executeCommand('rail.showLockOwner'), null, 'free now');
  });

  test('Install CLI for Terminals and Agents copies the bundled rail into ~/.local/bin', async () => {
    const home = os.homedir();
    const target = path.join(home, '.local', 'bin', 'rail');
    assert.equal(fs.existsSync(target), false, `the test HOME (${home}) starts without it`);
    const r = await vscode.commands.executeCommand<{ file: string; installed: string; onPath: boolean }>('rail.installCli');
    assert.deepEqual(r, { file: target, installed: 'installed', onPath: false });
    const bundled = api.railBinary()?.path ?? '';
    assert.ok(fs.readFileSync(target).equals(fs.readFileSync(bundled)), 'the same binary');
    const version = spawnSync(target, ['--version'], { encoding: 'utf8' });
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^rail /);
    const again = await vscode.commands.executeCommand<{ installed: string }>('rail.installCli');
    assert.equal(again?.installed, 'current', 'a second run finds it current');
    // Someone else's file there is replaced only on confirmation.
    fs.writeFileSync(target, '#!/bin/sh\necho mine\n');
    const replaced = await vscode.commands.executeCommand<{ installed: string }>('rail.installCli', { replace: true });
    assert.equal(replaced?.installed, 'installed');
    assert.ok(fs.readFileSync(target).equals(fs.readFileSync(bundled)));
    fs.rmSync(target);
  });

  test('a broken claim file gets its diagnostic by itself (claims/ watcher)', async () => {
    const file = path.join(ws(), 'claims', 'grace.yaml');
    fs.writeFileSync(file, 'owner: &me grace\npaths: *me\n');
    try {
      const diags = await until('the claim file diagnostic', () => {
        const d = vscode.languages.getDiagnostics(vscode.Uri.file(file));
        return d.some((x) => x.code === 'yaml-unsupported') ? d : undefined;
      });
      assert.equal(diags[0]?.severity, vscode.DiagnosticSeverity.Error);
    } finally {
      fs.rmSync(file);
    }
  });

  test('settings: rail.expiringThreshold and rail.lease', async () => {
    const config = vscode.workspace.getConfiguration('rail');
    const expiringTasks = async (): Promise<string[]> =>
      ((await api.tree('board')).find((g) => g.label === 'Expiring')?.children ?? []).map((c) => c.label);
    try {
      await config.update('expiringThreshold', '3h', vscode.ConfigurationTarget.Global);
      await until('auth-refresh to count as expiring under a 3h threshold', async () =>
        (await expiringTasks()).includes('auth-refresh') ? true : undefined,
      );
      await config.update('expiringThreshold', 'soon', vscode.ConfigurationTarget.Global);
      await until("a bad threshold to fall back to the rail's", async () =>
        (await expiringTasks()).includes('auth-refresh') ? undefined : true,
      );
      await config.update('lease', '45m', vscode.ConfigurationTarget.Global);
      const r = await vscode.commands.executeCommand<MutateResultLike>('rail.claimTask', { task: 'short-lease' });
      assert.equal(r?.ok, true, JSON.stringify(r));
      assert.match(claimsMd(), /^short-lease \| alice \| \S+ \| lease: 45m$/m);
    } finally {
      await config.update('expiringThreshold', undefined, vscode.ConfigurationTarget.Global);
      await config.update('lease', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('rail.path: the binary named there is run; one that is not there is said, and nothing changes', async () => {
    const config = vscode.workspace.getConfiguration('rail');
    try {
      await config.update('path', RAIL_BIN, vscode.ConfigurationTarget.Global);
      await until('rail.path to be read', () => (api.railBinary()?.source === 'setting' ? true : undefined));
      assert.equal(api.railBinary()?.path, RAIL_BIN);
      assert.equal(api.terminalPathPrefix(), `${path.dirname(RAIL_BIN)}${path.delimiter}`);
      const r = await vscode.commands.executeCommand<MutateResultLike>('rail.claimTask', { task: 'via-setting' });
      assert.equal(r?.ok, true, JSON.stringify(r));
      const missing = path.join(ws(), 'no-such-rail');
      await config.update('path', missing, vscode.ConfigurationTarget.Global);
      await until('the bad rail.path to be read', () => (api.railBinary() === undefined ? true : undefined));
      const before = claimsMd();
      const failed = await vscode.commands.executeCommand<MutateResultLike | undefined>('rail.claimTask', { task: 'never' });
      assert.equal(failed, undefined, 'no binary, no claim');
      assert.equal(claimsMd(), before);
    } finally {
      await config.update('path', undefined, vscode.ConfigurationTarget.Global);
    }
    await until('the bundled binary again', () => (api.railBinary()?.source === 'bundled' ? true : undefined));
  });

  test("Validate Claims reports core's diagnostics", async () => {
    const found = await vscode.commands.executeCommand<Located[]>('rail.validate');
    assert.ok(found?.some((d) => d.code === 'bad-time' && d.line === 7));
  });

  test("Check My Changes classifies the session's changes with core's scope", async () => {
    fs.writeFileSync(path.join(ws(), 'src/billing/new.ts'), 'x\n');
    fs.writeFileSync(path.join(ws(), 'src/auth/extra.ts'), 'x\n');
    try {
      const report = await vscode.commands.executeCommand<ScopeReport>('rail.checkMyChanges');
      assert.deepEqual(report?.conflicts, ['src/billing/new.ts']);
      assert.ok(report?.in_scope.includes('src/auth/extra.ts'));
      assert.equal(report?.clean, false);
    } finally {
      fs.rmSync(path.join(ws(), 'src/billing/new.ts'));
      fs.rmSync(path.join(ws(), 'src/auth/extra.ts'));
    }
  });

  test('Who Holds This File?', async () => {
    const who = await vscode.commands.executeCommand<Who[]>('rail.whoHolds', vscode.Uri.file(path.join(ws(), 'src/billing/tax.ts')));
    assert.deepEqual(
      who?.[0]?.holders.map((h) => h.session),
      ['bob'],
    );
  });

  test('Show Board opens the webview', async () => {
    const page = await vscode.commands.executeCommand<string>('rail.showBoard');
    assert.equal(page, 'web-board');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('New Station: claim, then a worktree on a new branch', async () => {
    const dir = `${ws()}-station-2`;
    const r = await vscode.commands.executeCommand<MutateResultLike & { dir?: string }>('rail.newStation', {
      task: 'station-2',
      dir,
      paths: ['src/station2/**'],
    });
    assert.equal(r?.ok, true, JSON.stringify(r));
    assert.ok(fs.existsSync(path.join(dir, '.git')), 'the worktree exists');
    assert.equal(git(dir, 'branch', '--show-current').trim(), 'station-2');
    assert.match(claimsMd(), /^station-2 \| station-2 \| \S+ \| paths: src\/station2\/\*\*$/m);
    assert.equal(cliHolds('station-2'), 'station-2', "the CLI sees the station's claim");
    const refused = await vscode.commands.executeCommand<MutateResultLike>('rail.newStation', {
      task: 'billing',
      dir: `${ws()}-station-3`,
    });
    assert.equal(refused?.ok, false, 'a station for a task bob holds is refused');
    assert.match(refused?.message ?? '', /billing is held by bob/);
    assert.equal(fs.existsSync(`${ws()}-station-3`), false, 'and no worktree is made');
    await until('the station in the Sessions view', async () =>
      (await api.tree('sessions')).find((s) => s.label === 'station-2' && s.description.includes('station-2')),
    );
  });

  test('Close Station: the main checkout is refused without a force offer; a clean station closes', async () => {
    const main = await vscode.commands.executeCommand<{ ok: boolean; refusal?: { forceable: boolean } }>('rail.closeStation', {
      station: ws(),
    });
    assert.equal(main?.ok, false);
    assert.equal(main?.refusal?.forceable, false);
    assert.ok(fs.existsSync(path.join(ws(), '.git')));
    const dir = `${ws()}-station-4`;
    const made = await vscode.commands.executeCommand<MutateResultLike>('rail.newStation', {
      task: 'station-4',
      dir,
      paths: ['src/station4/**'],
    });
    assert.equal(made?.ok, true, JSON.stringify(made));
    // Nothing uncommitted, nothing unmerged: closed at once, no question asked.
    const closed = await vscode.commands.executeCommand<{ ok: boolean; message?: string }>('rail.closeStation', { station: dir });
    assert.equal(closed?.ok, true, JSON.stringify(closed));
    assert.equal(fs.existsSync(dir), false, 'the worktree is gone');
    assert.doesNotMatch(claimsMd(), /^station-4 \|/m, 'its claim is released');
  });

  test('Open Log and Refresh', async () => {
    const file = await vscode.commands.executeCommand<string>('rail.openLog');
    assert.equal(file, path.join(ws(), 'claims.log'));
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const summary = await vscode.commands.executeCommand<{ claims: number }>('rail.refresh');
    assert.ok((summary?.claims ?? 0) >= 6);
  });

  // Last: it turns this workspace's rail into a shared one (docs/shared-rail.md).
  test("shared mode: Refresh fetches another clone's claim, claims land on the remote, a lost remote is stale", async () => {
    const parent = path.dirname(ws());
    const bare = path.join(parent, 'shared.git');
    const other = path.join(parent, 'other-machine');
    const cli = (dir: string, args: string[]): ReturnType<typeof spawnSync> => spawnSync(RAIL_BIN, args, { cwd: dir, encoding: 'utf8' });
    const sharedClaims = (): string => git(parent, '--git-dir', bare, 'show', 'refs/rail/claims:claims.md');
    git(parent, 'init', '-q', '--bare', '-b', 'main', bare);
    git(ws(), 'remote', 'add', 'origin', bare);
    git(ws(), 'push', '-q', 'origin', 'main');
    // This window's rail is published as the shared one, the documented way; then a second machine.
    assert.equal(cli(ws(), ['init', '--remote', 'origin']).status, 0);
    git(parent, 'clone', '-q', bare, other);
    assert.equal(cli(other, ['init', '--remote', 'origin']).status, 0);
    const byOther = cli(other, ['--session', 'zoe', 'claim', 'remote-task', '--path', 'remote/**']);
    assert.equal(byOther.status, 0, String(byOther.stderr));
    assert.doesNotMatch(claimsMd(), /^remote-task /m, "not in this machine's mirror before a fetch");

    await vscode.commands.executeCommand('rail.refresh');
    assert.ok(find(await api.tree('board'), 'remote-task'), "Refresh fetched the other machine's claim");
    assert.match(claimsMd(), /^remote-task \| zoe \|/m, 'and mirrored it');
    assert.match(api.boardNote().description, /^shared via origin, fetched (just now|\d+s ago)$/);
    // No keys on this remote: the Board view, the status bar and the board all say it is
    // unverified, in core's words (issue 42), as the CLI's `rail board` does.
    const unverified =
      "the shared rail on origin is UNVERIFIED: no .rail/allowed-signers is committed on origin's main branch, so anyone who can push to origin can rewrite it unnoticed";
    assert.equal(api.snapshot()?.board.shared?.verified, 'unverified');
    assert.ok(api.snapshot()?.board.shared?.text.startsWith(unverified), api.snapshot()?.board.shared?.text);
    assert.equal(api.boardNote().message, `⚠ ${api.snapshot()?.board.shared?.text}`, 'a warning at the top of the Board view');
    assert.match(api.statusText(), /\$\(cloud\) origin \$\(warning\) unverified$/);
    const tooltip = api.statusTooltip().replace(/&nbsp;/g, ' ');
    assert.match(tooltip, /Shared via origin, fetched (just now|\d+s ago)\./, 'the status bar tooltip');
    assert.ok(tooltip.includes('The shared rail on origin is UNVERIFIED'), tooltip);
    // Each claim names its machine: zoe's is the other clone's, which only it changes.
    const machineOf = (dir: string): string => fs.readFileSync(path.join(dir, '.git', 'rail', 'exchange', 'machine'), 'utf8').trim();
    const zoes = find(await api.tree('board'), 'remote-task');
    const zoeMachine = `${machineOf(other)} (another machine's: only it changes this claim)`;
    assert.ok(
      zoes?.children.some((r) => r.label === zoeMachine && r.description === 'machine'),
      JSON.stringify(zoes),
    );
    // The hover, as markdown (spaces as &nbsp;, punctuation escaped).
    const hover = (zoes?.tooltip ?? '').replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
    assert.ok(hover.includes(`machine: ${zoeMachine}`), hover);

    const claimed = await vscode.commands.executeCommand<MutateResultLike>('rail.claimTask', { task: 'from-window', paths: ['window/**'] });
    assert.equal(claimed?.ok, true, JSON.stringify(claimed));
    // A shared claim records the machine that made it (issue 42).
    assert.match(sharedClaims(), /^from-window \| alice \| \S+ \| machine: \S+ \| paths: window\/\*\*$/m, 'on the remote ref');
    assert.match(claimsMd(), /^from-window \| alice \|/m, 'and in the mirror');
    const mine = find(await api.tree('board'), 'from-window');
    assert.ok(
      mine?.children.some((r) => r.label === `${machineOf(ws())} (this machine)` && r.description === 'machine'),
      JSON.stringify(mine),
    );
    const refused = cli(other, ['--session', 'zoe', 'claim', 'from-window']);
    assert.equal(refused.status, 1, 'the other machine is refused');
    assert.match(String(refused.stderr), /from-window is held by alice/);
    const heldElsewhere = await vscode.commands.executeCommand<MutateResultLike>('rail.claimTask', { task: 'remote-task' });
    assert.equal(heldElsewhere?.ok, false);
    assert.match(heldElsewhere?.message ?? '', /remote-task is held by zoe/);

    // The remote goes away: Refresh keeps the last fetched board and says it is stale.
    git(ws(), 'remote', 'set-url', 'origin', path.join(parent, 'gone.git'));
    try {
      await vscode.commands.executeCommand('rail.refresh');
      const note = api.boardNote();
      const [staleNote, verifiedNote] = note.message.split('\n\n');
      assert.match(staleNote ?? '', /^shared via origin: STALE, could not fetch \(.+\); showing the state fetched (just now|\d+s ago)$/);
      assert.equal(verifiedNote, `⚠ ${api.snapshot()?.board.shared?.text}`, 'and still unverified');
      assert.equal(note.description, 'shared via origin: STALE');
      assert.match(api.statusText(), /\$\(cloud-offline\) origin: stale \$\(warning\) unverified$/);
      assert.ok(find(await api.tree('board'), 'from-window'), 'the last fetched state is still shown');
      const before = claimsMd();
      const offline = await vscode.commands.executeCommand<MutateResultLike | undefined>('rail.claimTask', { task: 'offline' });
      assert.equal(offline, undefined, 'the claim failed');
      assert.equal(claimsMd(), before, 'and changed nothing here');
      assert.doesNotMatch(sharedClaims(), /^offline /m, 'nor there');
    } finally {
      git(ws(), 'remote', 'set-url', 'origin', bare);
    }
    await vscode.commands.executeCommand('rail.refresh');
    assert.match(api.boardNote().description, /^shared via origin, fetched (just now|\d+s ago)$/, 'fresh again once the remote answers');
    assert.equal(api.boardNote().message, `⚠ ${api.snapshot()?.board.shared?.text}`, 'unverified still');
  });
});
