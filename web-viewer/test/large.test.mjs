// 10,000 claims: the page renders and filters without freezing, and the DOM stays bounded
// (columns and lanes drawn in chunks near the viewport, a virtualized timeline, paged panels).

import { after, before, test } from 'node:test';
import {
  assert,
  assertClean,
  browser,
  columnOf,
  expectedBoard,
  generateRail,
  newPage,
  renders,
  saveArtifact,
  startServers,
  waitRender,
} from './helpers.mjs';
import { open } from './inputs.mjs';

const N = 10_000;
const NOW = '2026-10-22T15:00:00Z';
const rail = generateRail(N);
let server;
let chromium;

before(async () => {
  server = await startServers((path) => (path === '/gen/claims.md' ? { body: rail } : null));
  chromium = await browser();
});
after(async () => {
  await chromium?.close();
  await server?.close();
});

test(`${N} claims render, scroll and filter with a bounded DOM`, async () => {
  const board = expectedBoard({ claims: { path: 'claims.md', text: rail } }, { now: NOW });
  const { page, problems } = await newPage(chromium.context);
  await page.emulateMedia({ colorScheme: 'light' });
  await open(page, `${server.page}/?src=${encodeURIComponent(`${server.rails}/gen/claims.md`)}&now=${NOW}`);
  await waitRender(page, 0, 60_000);
  const firstRender = await page.evaluate(() => performance.getEntriesByName('rail:rendered')[0].startTime);
  console.log(`# first render of ${N} claims: ${Math.round(firstRender)} ms after navigation`);

  assert.equal(await page.locator('.stat-claims .stat-value').innerText(), String(N));
  for (const column of ['live', 'expiring', 'stale', 'blocked']) {
    const want = board.claims.filter((c) => columnOf(c) === column).length;
    assert.equal(await page.locator(`.col-${column} .col-count`).innerText(), String(want), column);
  }
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  assert.ok(nodes < 5000, `DOM has ${nodes} elements`);
  assert.ok((await page.locator('.columns .card').count()) < 120, 'cards rendered');
  assert.ok((await page.locator('.tl-rows .tl-row').count()) < 60, 'timeline rows rendered');
  await page.screenshot({ path: saveArtifact('board-10k-light.png'), fullPage: false });

  // Scroll the page to the end of the stale column: its last card is drawn there, the cards
  // scrolled past are not, and the DOM stays small.
  const stale = board.claims.filter((c) => columnOf(c) === 'stale');
  await page.evaluate(() => {
    const body = document.querySelector('.col-stale .col-body');
    window.scrollTo(0, body.getBoundingClientRect().bottom + window.scrollY - innerHeight);
  });
  await page.waitForSelector(`.col-stale .card[data-claim-id="${stale[stale.length - 1].id}"]`);
  assert.equal(await page.locator(`.col-stale .card[data-claim-id="${stale[0].id}"]`).count(), 0, 'the first stale card left the DOM');
  assert.ok((await page.evaluate(() => document.getElementsByTagName('*').length)) < 5000);
  await page.evaluate(() => window.scrollTo(0, 0));

  // Typing stays responsive: the page answers between keystrokes, the filter lands after a pause.
  let n = await renders(page);
  await page.focus('#search');
  const t0 = Date.now();
  await page.keyboard.type('task-9999', { delay: 20 });
  n = await waitRender(page, n);
  const filterMs = Date.now() - t0;
  console.log(`# typing and filtering ${N} claims: ${filterMs} ms (including 9 keystrokes at 20 ms)`);
  assert.equal(await page.locator('#match-count').innerText(), `1 of ${N} claims`);

  await page.fill('#search', 'session:session-7');
  n = await waitRender(page, n);
  assert.equal(await page.locator('#match-count').innerText(), `${N / 40} of ${N} claims`);
  await page.fill('#search', '');
  n = await waitRender(page, n);

  // The lanes view stays bounded too.
  await page.keyboard.press('Escape');
  await page.keyboard.press('v');
  await page.waitForSelector('.lane');
  assert.ok((await page.evaluate(() => document.getElementsByTagName('*').length)) < 5000);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: saveArtifact('lanes-10k-dark.png'), fullPage: false });
  await page.keyboard.press('v');
  // The first screen only: the whole page of 10,000 cards is far taller than a screenshot can be.
  await page.screenshot({ path: saveArtifact('board-10k-dark.png'), fullPage: false });
  await assertClean(page, problems, '10k');
  await page.close();
});
