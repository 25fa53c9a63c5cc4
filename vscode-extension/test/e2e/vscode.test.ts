// The extension in a real VS Code: code-server 4.100.3 (VS Code 1.100.3, from npm) serves the
// workbench, the built .vsix is installed into a fresh extensions folder, and Chromium
// (playwright-core driving Debian's /usr/bin/chromium) opens it.
//
// 1. the integration suite (test/host/rail.test.ts) runs inside the extension host, started by
//    the workbench URL's `extensionTestsPath` payload; the page reports the end through
//    `window.codeAutomationExit(code)`, caught with `page.exposeFunction`;
// 2. the same on a rail of 1,000 claims (test/host/perf.test.ts): the measurements;
// 3. the UI as a person uses it: the Rail container, the board, F1 "Rail: Claim Task" answered
//    in the input boxes, the new claim in the tree, the board webview, Problems, Explorer
//    decorations — with screenshots in artifacts/vscode/.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';

import { chromium, type BrowserContext, type Page } from 'playwright-core';

import { EXTENSION_DIR, freePort, REPO_ROOT, tempDir } from '../shared/fixtures';
import { makeBigWorkspace, makeWorkspace } from '../shared/workspace';

const CODE_SERVER = path.join(REPO_ROOT, 'node_modules', '.bin', 'code-server');
const CHROMIUM = process.env.RAIL_CHROMIUM ?? '/usr/bin/chromium';
const VERSION = (JSON.parse(fs.readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8')) as { version: string }).version;
/** This machine's platform package (scripts/test.sh names it), which carries bin/rail. */
const TARGET = process.env.RAIL_VSIX_TARGET ?? 'linux-x64';
const VSIX = path.join(EXTENSION_DIR, `rail-vscode-${VERSION}-${TARGET}.vsix`);
const ARTIFACTS = path.join(REPO_ROOT, 'artifacts', 'vscode');

let root = '';
let port = 0;
let server: ChildProcess | undefined;
let browser: BrowserContext | undefined;
let installedDir = '';

async function healthy(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('code-server did not answer /healthz');
    await new Promise((r) => setTimeout(r, 200));
  }
}

function userSettings(dir: string): void {
  const settings = {
    'rail.session': 'alice',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'git.enabled': false,
    'chat.commandCenter.enabled': false,
    'window.restoreWindows': 'none',
    'files.hotExit': 'off',
    'files.autoSave': 'off',
  };
  fs.mkdirSync(path.join(dir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
}

const t0 = Date.now();
const say = (what: string): void => console.log(`[e2e +${((Date.now() - t0) / 1000).toFixed(1)}s] ${what}`);

before(async () => {
  assert.ok(fs.existsSync(CODE_SERVER), `${CODE_SERVER} missing: npm ci at the repository root installs it`);
  assert.ok(fs.existsSync(VSIX), `${VSIX} missing: scripts/package.sh builds it`);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const f of fs.readdirSync(ARTIFACTS)) if (f.endsWith('.png')) fs.rmSync(path.join(ARTIFACTS, f));
  root = tempDir('rail-vscode-e2e-');
  const userData = path.join(root, 'user-data');
  const extensions = path.join(root, 'extensions');
  const config = path.join(root, 'config.yaml');
  fs.writeFileSync(config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  userSettings(userData);
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions, '--config', config];
  const install = spawnSync(CODE_SERVER, ['--install-extension', VSIX, ...common], { encoding: 'utf8' });
  assert.equal(install.status, 0, `installing the vsix: ${install.stdout}${install.stderr}`);
  // VS Code names the folder after the version, and for a platform package after its target too.
  const folder = fs.readdirSync(extensions).find((f) => f.startsWith(`rail.rail-vscode-${VERSION}`));
  assert.ok(folder, `the extension is in ${extensions}: ${fs.readdirSync(extensions).join(', ')}`);
  installedDir = path.join(extensions, folder);
  assert.ok(fs.existsSync(path.join(installedDir, 'dist', 'rail_wasm_bg.wasm')), 'the vsix carries the wasm');
  fs.accessSync(path.join(installedDir, 'bin', 'rail'), fs.constants.X_OK); // and the rail binary, executable

  port = await freePort();
  const log = fs.openSync(path.join(ARTIFACTS, 'code-server.log'), 'w');
  // A home of its own: Install CLI writes to ~/.local/bin, which must not be the machine's.
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env.RAIL_SESSION; // the window's session comes from its settings
  delete env.RAIL_DIR;
  server = spawn(
    CODE_SERVER,
    [
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      ...common,
    ],
    { detached: true, stdio: ['ignore', log, log], env },
  );
  await healthy(60_000);
  say(`code-server up on port ${port}`);
  browser = await chromium.launchPersistentContext(path.join(root, 'chromium'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  say('tearing down');
  await browser?.close().catch(() => undefined);
  say('browser closed');
  // code-server runs in its own process group (detached): end that group, which we started.
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const gone = server.exitCode !== null || server.signalCode !== null ? Promise.resolve() : new Promise((r) => server?.once('exit', r));
    const killed = setTimeout(() => {
      try {
        if (server?.pid) process.kill(-server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await gone;
    clearTimeout(killed);
  }
  say('code-server stopped');
});

/** Opens the workbench with the extension's tests running in its host; resolves with the exit code. */
async function runInHost(folder: string): Promise<{ code: number; console: string[] }> {
  assert.ok(browser);
  const page = await browser.newPage();
  const console: string[] = [];
  page.on('console', (m) => console.push(m.text()));
  const exited = new Promise<number>((resolve) => {
    void page.exposeFunction('codeAutomationExit', (code: number) => resolve(code));
  });
  const remote = (p: string): string => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', remote(installedDir)],
    ['extensionTestsPath', remote(path.join(EXTENSION_DIR, 'out', 'test', 'host', 'index.js'))],
  ]);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(payload)}`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<number>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the host suite did not finish in 5 minutes')), 300_000);
  });
  try {
    const code = await Promise.race([exited, timeout]);
    return { code, console };
  } finally {
    clearTimeout(timer);
    await page.close().catch(() => undefined);
  }
}

function printResults(file: string): void {
  if (!fs.existsSync(file)) {
    console.log(`(no results file ${file})`);
    return;
  }
  const results = JSON.parse(fs.readFileSync(file, 'utf8')) as { outcomes: { title: string; ok: boolean; error?: string; ms?: number }[] };
  for (const o of results.outcomes) {
    console.log(`  ${o.ok ? 'ok  ' : 'FAIL'} ${o.title}${o.ms !== undefined ? ` (${o.ms} ms)` : ''}`);
    if (o.error) console.log(o.error.replace(/^/gm, '       '));
  }
}

test('the integration suite passes inside the real extension host', async () => {
  const parent = path.join(root, 'suite');
  fs.mkdirSync(parent);
  const ws = makeWorkspace(parent, 'ws');
  const { code, console: log } = await runInHost(ws);
  printResults(path.join(parent, 'host-results-suite.json'));
  if (code !== 0) console.log(log.filter((l) => /rail|Error|fail/i.test(l)).join('\n'));
  assert.equal(code, 0, 'the in-host suite exit code');
});

test('measurements on a rail of 1,000 claims', async () => {
  const parent = path.join(root, 'perf');
  fs.mkdirSync(parent);
  const ws = makeBigWorkspace(parent, 'big');
  const { code } = await runInHost(ws);
  printResults(path.join(parent, 'host-results-perf.json'));
  assert.equal(code, 0, 'the measurement suite exit code');
  const metrics = JSON.parse(fs.readFileSync(path.join(parent, 'metrics.json'), 'utf8')) as Record<string, number>;
  // Every package built (scripts/package.sh), by platform; `universal` carries no binary.
  const vsixBytes: Record<string, number> = {};
  for (const f of fs.readdirSync(EXTENSION_DIR)) {
    const m = new RegExp(`^rail-vscode-${VERSION.replace(/\./g, '\\.')}(?:-(.+))?\\.vsix$`).exec(f);
    if (m) vsixBytes[m[1] ?? 'universal'] = fs.statSync(path.join(EXTENSION_DIR, f)).size;
  }
  const report = { ...metrics, vsixBytes };
  fs.writeFileSync(path.join(ARTIFACTS, 'metrics.json'), JSON.stringify(report, null, 2));
  console.log(`metrics: ${JSON.stringify(report)}`);
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, name) });
}

async function palette(page: Page, command: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${command}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first().waitFor();
  await page.keyboard.press('Enter');
}

/** Answers the next input box: waits for its prompt, types, presses Enter. */
async function answer(page: Page, prompt: string, text: string): Promise<void> {
  await page.locator('.quick-input-widget', { hasText: prompt }).waitFor({ state: 'visible' });
  const input = page.locator('.quick-input-widget input').first();
  await input.fill(text);
  await page.keyboard.press('Enter');
}

test('the UI: Rail container, Claim Task from the palette, the board webview, Problems, decorations', async () => {
  assert.ok(browser);
  const parent = path.join(root, 'ui');
  fs.mkdirSync(parent);
  const ws = makeWorkspace(parent, 'ws');
  const page = await browser.newPage();
  const consoleLines: string[] = [];
  page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
  try {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });

    // The Rail container in the activity bar.
    const railTab = page.locator('.part.activitybar [aria-label^="Rail"]').first();
    await railTab.waitFor({ timeout: 30_000 });
    await railTab.click();
    const boardTree = page.getByRole('tree', { name: 'Board' });
    await boardTree.locator('.monaco-list-row', { hasText: 'auth-refresh' }).waitFor({ timeout: 30_000 });
    await boardTree.locator('.monaco-list-row', { hasText: 'Stale (free to take)' }).waitFor();
    // The list renders only the rows in view: the Conflicts group is below them.
    await boardTree.hover();
    await page.mouse.wheel(0, 2000);
    await boardTree.locator('.monaco-list-row', { hasText: 'resource-clash' }).waitFor();
    await page.mouse.wheel(0, -2000);
    await boardTree.locator('.monaco-list-row', { hasText: 'auth-refresh' }).waitFor();
    await page.locator('.statusbar-item', { hasText: 'alice · 1 claim' }).waitFor();
    // Guard status in the Sessions view: bob's hook was seen, alice's never.
    const sessions = page.getByRole('tree', { name: 'Sessions' });
    await sessions.locator('.monaco-list-row', { hasText: /bob.*guarded: claude \d+m ago/ }).waitFor();
    await sessions.locator('.monaco-list-row', { hasText: /dave.*guarded: codex \d+m ago on laptop-b-1/ }).waitFor();
    await sessions.locator('.monaco-list-row', { hasText: 'alice' }).filter({ hasText: 'no Rail hook seen' }).waitFor();
    await shot(page, '01-board.png');

    // F1 → Rail: Claim Task, answering the four input boxes.
    await palette(page, 'Rail: Claim Task');
    await answer(page, 'Task id', 'ui-task');
    await answer(page, 'Paths you will change', 'src/ui/**');
    await answer(page, 'Resources you will use', 'port:4000');
    await answer(page, 'Purpose', 'claimed from the **UI** test');
    await boardTree.locator('.monaco-list-row', { hasText: 'ui-task' }).waitFor({ timeout: 30_000 });
    await page.locator('.notifications-toasts', { hasText: 'claimed ui-task' }).waitFor({ timeout: 15_000 });
    await page.locator('.statusbar-item', { hasText: 'alice · 2 claims' }).waitFor();
    await shot(page, '02-claimed-from-palette.png');
    assert.match(
      fs.readFileSync(path.join(ws, 'claims.md'), 'utf8'),
      /^ui-task \| alice \| \S+ \| paths: src\/ui\/\*\* \| resources: port:4000 \| purpose: claimed from the \*\*UI\*\* test$/m,
    );

    // A refused claim (bob holds billing) says who holds it, and keeps what was typed.
    await palette(page, 'Rail: Claim Task');
    await answer(page, 'Task id', 'billing');
    await answer(page, 'Paths you will change', 'src/billing/**');
    await answer(page, 'Resources you will use', '');
    await answer(page, 'Purpose', 'typed once, not twice');
    await page.locator('.notifications-toasts', { hasText: 'billing is held by bob' }).waitFor({ timeout: 15_000 });
    await palette(page, 'Rail: Claim Task');
    const taskBox = page.locator('.quick-input-widget', { hasText: 'Task id' });
    await taskBox.waitFor({ state: 'visible' });
    assert.equal(await page.locator('.quick-input-widget input').first().inputValue(), 'billing', 'the task typed before');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Paths you will change' }).waitFor({ state: 'visible' });
    assert.equal(await page.locator('.quick-input-widget input').first().inputValue(), 'src/billing/**', 'the paths typed before');
    await page.keyboard.press('Escape');
    await shot(page, '02b-refused-kept-answers.png');

    // Show Board: the webview page draws the board the host sent it.
    await palette(page, 'Rail: Show Board');
    // Either page (web-viewer's board when it was built, else the extension's own) shows it.
    const board = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
    await board.locator('h1', { hasText: 'Rail' }).waitFor({ timeout: 30_000 });
    await board
      .getByText('ui-task')
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(async (e: unknown) => {
        await shot(page, '03-board-webview-FAILED.png');
        console.log(consoleLines.slice(-40).join('\n'));
        for (const f of page.frames()) {
          const text = await f.evaluate(() => document.body?.innerText.slice(0, 600) ?? '').catch((err: unknown) => `(${String(err)})`);
          console.log(`FRAME ${f.url().slice(0, 160)}\n${text}`);
        }
        throw e;
      });
    await shot(page, '03-board-webview.png');

    // Problems: core's diagnostics for claims.md.
    await palette(page, 'Problems: Focus on Problems View');
    await page
      .locator('.markers-panel .monaco-list-row', { hasText: 'bad-time' })
      .first()
      .waitFor({ timeout: 15_000 })
      .catch(async () => {
        await page.locator('.markers-panel', { hasText: 'claims.md' }).first().waitFor({ timeout: 15_000 });
      });
    await shot(page, '04-problems.png');

    // Explorer: a file bob holds carries the warning badge.
    await page.locator('.part.activitybar [aria-label^="Explorer"]').first().click();
    const explorer = page.locator('.explorer-folders-view');
    await explorer.locator('.monaco-list-row', { hasText: 'src' }).first().click();
    await explorer.locator('.monaco-list-row', { hasText: 'billing' }).first().click();
    const tax = explorer.locator('.monaco-list-row', { hasText: 'tax.ts' }).first();
    await tax.waitFor();
    // VS Code draws a file decoration's badge as the `::after` content of a class it makes for
    // that decoration (`monaco-decoration-itemBadge-…`) on the row's label; several providers'
    // badges (git's `U` too) are drawn together. Rail's is `!`, and the row is warning-coloured.
    const badge = await tax.evaluateHandle((row) => row);
    await page.waitForFunction(
      (row) => {
        const labels = [row, ...Array.from(row.querySelectorAll('*'))];
        return labels.some((el) =>
          Array.from(el.classList).some(
            (c) => c.startsWith('monaco-decoration-itemBadge') && getComputedStyle(el, '::after').content.includes('!'),
          ),
        );
      },
      badge,
      { timeout: 30_000 },
    );
    assert.ok(
      await tax.evaluate((row) =>
        [row, ...Array.from(row.querySelectorAll('*'))].some((el) =>
          Array.from(el.classList).some((c) => c.startsWith('monaco-decoration-itemColor')),
        ),
      ),
      'the held file is coloured',
    );
    // README.md is nobody's: no Rail badge there.
    const beside = explorer.locator('.monaco-list-row', { hasText: 'README.md' }).first();
    await beside.waitFor();
    assert.ok(
      !(await beside.evaluate((row) =>
        [row, ...Array.from(row.querySelectorAll('*'))].some((el) =>
          Array.from(el.classList).some(
            (c) => c.startsWith('monaco-decoration-itemBadge') && getComputedStyle(el, '::after').content.includes('!'),
          ),
        ),
      )),
      'a file nobody else holds has no Rail badge',
    );
    await tax.click();
    await page.locator('.tabs-container .tab', { hasText: 'tax.ts' }).first().waitFor();
    await shot(page, '05-explorer-decoration.png');
  } finally {
    await page.close().catch(() => undefined);
  }
});
