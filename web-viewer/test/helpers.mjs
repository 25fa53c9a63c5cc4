// Shared by the browser tests: the fixture rails, the board core computes for them (through the
// Node build of the same wasm, so the expectation is core's and never re-derived here), servers,
// Chromium, and readers of what the page shows.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch } from '../scripts/lib/chromium.mjs';
import { serveStatic } from '../scripts/lib/static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const PKG = join(here, '..');
export const REPO = join(PKG, '..');
export const DIST = join(PKG, 'dist');
export const ARTIFACTS = join(REPO, 'artifacts', 'web-viewer');
const require = createRequire(import.meta.url);
export const core = require(join(REPO, 'wasm', 'pkg', 'node', 'rail_wasm.js'));

const SHARED_FIXTURES = join(REPO, 'tests', 'fixtures', 'board');
const OWN_FIXTURES = join(here, 'fixtures');

/** Every scenario folder: the shared corpus (tests/fixtures/board) and this package's own. */
export function fixtureDirs() {
  const list = (root) =>
    existsSync(root)
      ? readdirSync(root)
          .filter((d) => statSync(join(root, d)).isDirectory() && existsSync(join(root, d, 'facts.json')))
          .sort()
          .map((d) => ({ name: d, dir: join(root, d) }))
      : [];
  return [...list(SHARED_FIXTURES), ...list(OWN_FIXTURES).map((f) => ({ ...f, name: `own/${f.name}` }))];
}

/** A scenario folder as files (rail path, text, modified) plus core's texts and facts. */
export function readFixture(dir) {
  const modified = existsSync(join(dir, 'modified.json')) ? JSON.parse(readFileSync(join(dir, 'modified.json'), 'utf8')) : {};
  const files = [];
  const add = (path) => {
    const full = join(dir, path);
    if (!existsSync(full)) return;
    const file = { path, full, text: readFileSync(full, 'utf8') };
    if (modified[path]) file.modified = modified[path];
    files.push(file);
  };
  add('claims.md');
  if (existsSync(join(dir, 'claims'))) for (const f of readdirSync(join(dir, 'claims')).sort()) add(`claims/${f}`);
  add('claims.log');
  add('rail.yaml');
  const facts = JSON.parse(readFileSync(join(dir, 'facts.json'), 'utf8'));
  return { files, texts: textsOf(files), facts };
}

export function textsOf(files) {
  const text = (f) => (f.modified ? { path: f.path, text: f.text, modified: f.modified } : { path: f.path, text: f.text });
  const texts = { claim_files: files.filter((f) => f.path.startsWith('claims/')).map(text) };
  for (const f of files) {
    if (f.path === 'claims.md') texts.claims = text(f);
    if (f.path === 'claims.log') texts.log = text(f);
    if (f.path === 'rail.yaml') texts.config = text(f);
  }
  return texts;
}

/** Facts a browser has on its own: the time only. */
export const browserOnly = (facts) => Object.keys(facts).every((k) => k === 'now');

/** Copies a fixture's files to a temp folder with each file's mtime set to its `modified`
 * (as the CLI would see them), for the picker and the HTTP server (Last-Modified). */
export function materialize(fixture, into = mkdtempSync(join(tmpdir(), 'rail-web-fixture-'))) {
  for (const f of fixture.files) {
    const target = join(into, f.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.text);
    const t = f.modified ? new Date(f.modified) : new Date('2026-01-01T00:00:00Z');
    utimesSync(target, t, t);
  }
  return into;
}

export function expectedBoard(texts, facts) {
  return core.board(texts, facts);
}

export const columnOf = (claim) => claim.column;

/** The page origin (dist) and a second origin for rails (CORS), like a git host's raw files. */
export async function startServers(extraRail = null) {
  const page = await serveStatic({ mounts: { '/': DIST } });
  const railsRoot = mkdtempSync(join(tmpdir(), 'rail-web-rails-'));
  const rails = await serveStatic({ mounts: { '/': railsRoot }, cors: true, extra: extraRail });
  return {
    page: page.url,
    rails: rails.url,
    railsRoot,
    close: async () => {
      await page.close();
      await rails.close();
    },
  };
}

export async function browser() {
  return launch();
}

/** A page that records errors, dialogs and CSP violations. */
export async function newPage(context) {
  const page = await context.newPage();
  const problems = { errors: [], dialogs: [], console: [] };
  page.on('pageerror', (e) => problems.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.console.push(m.text());
  });
  page.on('dialog', async (d) => {
    problems.dialogs.push(d.message());
    await d.dismiss();
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI}`));
  });
  return { page, problems };
}

/** Waits until the board rendered more often than `after` times. */
export async function waitRender(page, after = 0, timeout = 20_000) {
  await page.waitForFunction((n) => Number(document.documentElement.dataset.renders ?? 0) > n, after, { timeout });
  return Number(await page.evaluate(() => document.documentElement.dataset.renders));
}

export const renders = (page) => page.evaluate(() => Number(document.documentElement.dataset.renders ?? 0));

/** What the page shows, read from the DOM. */
export async function shown(page) {
  return page.evaluate(() => {
    const ids = (root, sel) =>
      Array.from(root.querySelectorAll(sel), (el) => Number(el.getAttribute('data-claim-id'))).sort((a, b) => a - b);
    const columns = {};
    for (const col of document.querySelectorAll('.column')) {
      columns[col.dataset.column] = {
        count: col.querySelector('.col-count').textContent,
        cards: ids(col, '.card'),
      };
    }
    const summary = {};
    for (const s of document.querySelectorAll('.stat')) summary[s.dataset.stat] = Number(s.querySelector('.stat-value').textContent);
    return {
      columns,
      summary,
      conflictCards: ids(document, '.columns .card.has-conflict'),
      bars: document.querySelectorAll('.tl-rows .tl-bar').length,
      barIds: ids(document, '.tl-rows .tl-row'),
      nowMarked: document.querySelector('.tl-axis .tl-now-marker') !== null && !document.querySelector('.tl-nowline').hidden,
      nowLabel: document.querySelector('.tl-now-label')?.textContent ?? null,
      diagnostics: Array.from(document.querySelectorAll('#diagnostics-panel li.diag'), (li) => li.textContent),
      banner: document.getElementById('banner').hidden ? null : document.getElementById('banner').textContent,
      factsNote: document.getElementById('facts-note').textContent,
    };
  });
}

const SEVERITY = { error: 0, warning: 1, info: 2 };

/** The page shows exactly core's board: columns, conflicts on both sides, bars, diagnostics. */
export async function assertShows(page, board, label) {
  const s = await shown(page);
  assert.equal(s.banner, null, `${label}: error banner`);
  for (const key of Object.keys(board.summary)) assert.equal(s.summary[key], board.summary[key], `${label}: summary ${key}`);
  for (const column of ['live', 'expiring', 'stale', 'blocked']) {
    const want = board.claims
      .filter((c) => columnOf(c) === column)
      .map((c) => c.id)
      .sort((a, b) => a - b);
    assert.equal(s.columns[column].count, String(want.length), `${label}: ${column} count`);
    if (want.length <= 8) assert.deepEqual(s.columns[column].cards, want, `${label}: ${column} cards`);
  }
  if (board.claims.length <= 30) {
    const conflicted = board.claims
      .filter((c) => (c.conflicts ?? []).length > 0)
      .map((c) => c.id)
      .sort((a, b) => a - b);
    assert.deepEqual(s.conflictCards, conflicted, `${label}: conflict highlights`);
    for (const c of board.conflicts)
      for (const id of c.claims) assert.ok(s.conflictCards.includes(id), `${label}: both sides of "${c.message}"`);
    const timed = board.claims
      .filter((c) => c.lease_end && (c.lease_start || c.claimed_at))
      .map((c) => c.id)
      .sort((a, b) => a - b);
    assert.equal(s.bars, timed.length, `${label}: timeline bars`);
    assert.deepEqual(s.barIds, timed, `${label}: timeline bar claims`);
  }
  assert.ok(s.nowMarked, `${label}: now is marked on the timeline`);
  const diags = [...board.diagnostics]
    .sort((a, b) => SEVERITY[a.severity] - SEVERITY[b.severity])
    .slice(0, 200)
    .map((d) => `${d.file}:${d.line}:${d.column}: ${d.severity}[${d.code}]: ${d.message}`);
  assert.deepEqual(s.diagnostics, diags, `${label}: diagnostics`);
  return s;
}

/** No script ran that should not have, no dialog opened, no CSP violation, no page error. */
export async function assertClean(page, problems, label) {
  assert.deepEqual(problems.errors, [], `${label}: page errors`);
  assert.deepEqual(problems.dialogs, [], `${label}: dialogs`);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, `${label}: injected script ran`);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], `${label}: CSP violations`);
}

/** Fills the standalone template as the CLI does: JSON with every `<` written \u003c. */
export function fillStandalone(texts, facts, dir = mkdtempSync(join(tmpdir(), 'rail-web-standalone-'))) {
  const template = readFileSync(join(DIST, 'standalone.html'), 'utf8');
  const json = JSON.stringify({ texts, facts }).replace(/</g, '\\u003c');
  const file = join(dir, 'board.html');
  writeFileSync(
    file,
    template.replace('__RAIL_DATA__', () => json),
  );
  return pathToFileURL(file).href;
}

export function saveArtifact(name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

export { generateRail } from '../scripts/lib/gen-rail.mjs';

export { assert, copyFileSync, join, mkdtempSync, tmpdir, writeFileSync, readFileSync, existsSync };
