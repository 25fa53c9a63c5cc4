// The page as a person uses it: keyboard, filters (including core's path matching), conflict
// partners, lanes, themes, the embed contract inside a real parent frame, reloading a served rail,
// and screenshots of the main views for a human to look at (artifacts/web-viewer/).

import { after, before, describe, test } from 'node:test';
import {
  assert,
  assertClean,
  browser,
  fixtureDirs,
  join,
  newPage,
  readFixture,
  renders,
  saveArtifact,
  startServers,
  waitRender,
  writeFileSync,
  readFileSync,
} from './helpers.mjs';
import { open, viaEmbed, viaSrc, viaStandalone } from './inputs.mjs';

const demo = readFixture(fixtureDirs().find((f) => f.name === 'own/demo').dir);
let server;
let chromium;
let hostPage = '';

before(async () => {
  server = await startServers((path) => (path === '/host.html' ? { type: 'text/html', body: hostPage } : null));
  // A host like VS Code's webview: frames the board, waits for rail-ready, posts the rail.
  hostPage = `<!doctype html><meta charset=utf-8><title>host</title>
<iframe id=board src="${server.page}/?embed=vscode" style="width:1300px;height:850px"></iframe>
<script>
window.received = [];
addEventListener('message', (e) => { if (e.source === document.getElementById('board').contentWindow) window.received.push(e.data); });
window.send = (data) => document.getElementById('board').contentWindow.postMessage(data, '*');
</script>`;
  chromium = await browser();
});
after(async () => {
  await chromium?.close();
  await server?.close();
});

const text = (page, sel) => page.locator(sel).innerText();

describe('keyboard and filters', () => {
  test('/ filters, Escape clears, arrows move between cards and columns, Enter opens details', async () => {
    const { page, problems } = await newPage(chromium.context);
    await viaEmbed(page, server, demo);
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'search');
    let n = await renders(page);
    await page.keyboard.type('session:session-a');
    n = await waitRender(page, n);
    assert.equal(await text(page, '#match-count'), '2 of 11 claims');
    await page.keyboard.press('Escape');
    n = await waitRender(page, n);
    assert.equal(await page.inputValue('#search'), '');
    assert.equal(await text(page, '#match-count'), '11 claims');

    await page.keyboard.press('Escape'); // leaves the search field
    await page.keyboard.press('b');
    const focused = () =>
      page.evaluate(() => ({
        id: document.activeElement.dataset.claimId,
        column: document.activeElement.closest('.column')?.dataset.column,
      }));
    const first = await focused();
    assert.equal(first.column, 'live');
    await page.keyboard.press('ArrowDown');
    const second = await focused();
    assert.notEqual(second.id, first.id);
    assert.equal(second.column, 'live');
    await page.keyboard.press('ArrowRight');
    assert.equal((await focused()).column, 'expiring');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#detail:not([hidden])');
    const title = await text(page, '#detail h2');
    assert.ok(['billing', 'api-docs'].includes(title), title);
    // Focus styles: the focused card has a visible outline.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(outline, 'none');
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#detail').isHidden(), true);
    await assertClean(page, problems, 'keyboard');
    await page.close();
  });

  test('path: asks core which claims cover a file; is: and the toggles narrow by core’s fields', async () => {
    const { page } = await newPage(chromium.context);
    await viaEmbed(page, server, demo);
    let n = await renders(page);
    await page.fill('#search', 'path:src/auth/token.ts');
    n = await waitRender(page, n);
    // src/auth/** (auth-refresh) covers it by glob; token-store names it.
    assert.deepEqual(await page.locator('.columns .card .card-task').allInnerTexts(), ['auth-refresh', 'token-store']);
    await page.fill('#search', 'is:stale');
    n = await waitRender(page, n);
    assert.deepEqual(await page.locator('.columns .card .card-task').allInnerTexts(), ['search-index']);
    await page.fill('#search', '');
    n = await waitRender(page, n);
    await page.click('#only-conflicts');
    n = await waitRender(page, n);
    assert.equal(await text(page, '#match-count'), '7 of 11 claims');
    assert.equal(await page.locator('.tl-rows .tl-bar').count(), 7);
    await page.click('#only-conflicts');
    n = await waitRender(page, n);
    await page.selectOption('#session-filter', 'session-e');
    n = await waitRender(page, n);
    assert.deepEqual(await page.locator('.columns .card .card-task').allInnerTexts(), ['billing', 'api-docs']);
    await page.close();
  });

  test('hovering a claim in conflict marks the claims on the other side', async () => {
    const { page } = await newPage(chromium.context);
    await viaEmbed(page, server, demo);
    await page.hover('.card:has(.card-task:text-is("auth-refresh"))');
    const partners = await page.locator('.columns .card.partner .card-task').allInnerTexts();
    assert.deepEqual(partners, ['token-store']);
    const bars = await page.locator('.tl-rows .tl-row.partner').count();
    assert.equal(bars, 1);
    await page.close();
  });
});

describe('views and themes', () => {
  test('lanes by session (v): one lane per session with its claims', async () => {
    const { page } = await newPage(chromium.context);
    const board = await viaEmbed(page, server, demo);
    await page.keyboard.press('v');
    await page.waitForSelector('.lane');
    // Nine sessions hold claims: nine lanes, in core's session order, on the page (it scrolls,
    // not the lanes).
    const lanes = await page.locator('.lane .lane-name').allInnerTexts();
    assert.deepEqual(
      lanes,
      board.sessions.filter((s) => s.claims.length > 0).map((s) => s.name),
      'lanes in core’s session order',
    );
    assert.equal(lanes.length, 9);
    // Guard status per lane, as core decided it: a hook seen here, one seen on another machine
    // of a shared rail, none.
    assert.equal(await page.locator('.lane[data-session="session-b"] .lane-guard.guarded').innerText(), 'guarded: codex 5m ago');
    assert.equal(
      await page.locator('.lane[data-session="session-c"] .lane-guard.guarded').innerText(),
      'guarded: claude 12m ago on laptop-b',
    );
    assert.match(await page.locator('.lane[data-session="session-a"] .lane-guard').innerText(), /no Rail hook seen/);
    const aChips = await page.locator('.lane[data-session="session-a"] .chip .chip-task').allInnerTexts();
    assert.deepEqual(aChips.sort(), ['auth-refresh', 'release-notes']);
    await page.locator('.lane[data-session="session-a"] .chip').first().click();
    await page.waitForSelector('#detail:not([hidden])');
    await page.screenshot({ path: saveArtifact('lanes-light.png'), fullPage: false });
    await page.close();
  });

  test('theme toggle (t) and prefers-color-scheme', async () => {
    const { page } = await newPage(chromium.context);
    await page.emulateMedia({ colorScheme: 'light' });
    await viaEmbed(page, server, demo);
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await bg();
    await page.keyboard.press('t');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    const dark = await bg();
    assert.notEqual(dark, light);
    await page.keyboard.press('t');
    assert.equal(await bg(), light);
    await page.keyboard.press('t'); // back to auto
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), undefined);
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await bg(), dark);
    await page.close();
  });

  test('screenshots of the main views', async () => {
    const { page } = await newPage(chromium.context);
    await page.emulateMedia({ colorScheme: 'light' });
    await viaEmbed(page, server, demo);
    await page.screenshot({ path: saveArtifact('board-light.png'), fullPage: true });
    await page.locator('.card .card-task:text-is("token-store")').click();
    await page.waitForSelector('#detail:not([hidden])');
    await page.screenshot({ path: saveArtifact('detail-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: saveArtifact('board-dark.png'), fullPage: true });
    await page.keyboard.press('v');
    await page.screenshot({ path: saveArtifact('lanes-dark.png') });
    await page.close();
    const { page: snap } = await newPage(chromium.context);
    await snap.emulateMedia({ colorScheme: 'light' });
    await viaStandalone(snap, demo);
    await snap.screenshot({ path: saveArtifact('standalone-light.png'), fullPage: true });
    await snap.close();
  });
});

describe('embed contract in a parent frame', () => {
  test('rail-ready, then {type: "rail"} renders; locations post rail-reveal; bad shapes are refused', async () => {
    const { page } = await newPage(chromium.context);
    await page.goto(`${server.rails}/host.html`);
    await page.waitForFunction(() => window.received.some((m) => m.type === 'rail-ready'));
    assert.deepEqual(await page.evaluate(() => window.received[0]), { type: 'rail-ready', version: 1 });
    const frame = page.frameLocator('#board');
    await page.evaluate(({ texts, facts }) => window.send({ type: 'rail', texts, facts, source: 'demo repo' }), demo);
    await frame.locator('html[data-renders]').waitFor({ state: 'attached' });
    assert.equal(await frame.locator('#source').innerText(), 'demo repo');
    assert.equal(await frame.locator('.col-live .col-count').innerText(), '6');
    await frame.locator('#diagnostics-panel button.loc').first().click();
    await page.waitForFunction(() => window.received.some((m) => m.type === 'rail-reveal'));
    const reveal = await page.evaluate(() => window.received.find((m) => m.type === 'rail-reveal'));
    assert.deepEqual(reveal, { type: 'rail-reveal', file: 'claims.md', line: 14, column: 27 });
    await page.evaluate(() => window.send({ type: 'rail', texts: 5, facts: { now: 'x' } }));
    await frame.locator('#banner:not([hidden])').waitFor();
    assert.match(await frame.locator('#banner').innerText(), /host message: texts: expected an object/);
    await page.evaluate(() => window.send({ type: 'something-else' }));
    await page.close();
  });
});

describe('a rail served over HTTP', () => {
  test('Reload (r) and &reload=SECONDS fetch the files again', async () => {
    const { page, problems } = await newPage(chromium.context);
    const { name } = await viaSrc(page, server, demo, '&reload=5');
    assert.equal(await text(page, '.stat-claims .stat-value'), '11');
    const file = join(server.railsRoot, name, 'claims.md');
    writeFileSync(file, `${readFileSync(file, 'utf8')}added | session-z | 2026-10-22T14:55Z\n`);
    let n = await renders(page);
    await page.keyboard.press('r');
    n = await waitRender(page, n);
    assert.equal(await text(page, '.stat-claims .stat-value'), '12');
    writeFileSync(file, `${readFileSync(file, 'utf8')}added-2 | session-z | 2026-10-22T14:56Z\n`);
    await page.waitForFunction(() => document.querySelector('.stat-claims .stat-value').textContent === '13', null, { timeout: 12_000 });
    assert.equal(await text(page, '#facts-note'), 'leases from claim and renewal times only');
    await assertClean(page, problems, 'reload');
    await page.close();
  });

  test('a URL that fails says so', async () => {
    const { page } = await newPage(chromium.context);
    await open(page, `${server.page}/?src=${encodeURIComponent(`${server.rails}/missing/claims.md`)}`);
    await page.waitForSelector('#banner:not([hidden])');
    assert.match(await text(page, '#banner'), /missing\/claims\.md: 404/);
    await page.close();
  });
});
