// The board's layout at 500, 1,400 and 3,200 px, read from the DOM's geometry in Chromium: nothing
// is cut (no ellipsis, no clipped chip, no box that scrolls inside itself), every claim of the
// fixture — the conflicting and duplicate ones too — is on the page and visible, a conflict names
// the claims on its other side, an empty column takes little room, the width is used at 500 px
// (one column) and at 3,200 px (everything on the first screen), and a snapshot shows no
// file-open controls. Screenshots go to artifacts/web-viewer/layout-*.png.
//
// The fixture (test/fixtures/layout) has a duplicate task, overlapping paths, a resource clash,
// a claim in two conflicts, long paths, long resource and session names, ten live claims and an
// empty Blocked column.

import { after, before, describe, test } from 'node:test';
import { assert, assertClean, browser, fixtureDirs, newPage, readFixture, saveArtifact, startServers } from './helpers.mjs';
import { open, viaStandalone } from './inputs.mjs';

const fixture = readFixture(fixtureDirs().find((f) => f.name === 'own/layout').dir);
const WIDTHS = [500, 1400, 3200];
const HEIGHT = 900;
let chromium;
let server;

before(async () => {
  chromium = await browser();
  server = await startServers();
});
after(async () => {
  await chromium?.close();
  await server?.close();
});

/** Every element that cuts its own content: an ellipsis, a clipped or scrolling overflow. The
 * card's purpose is a preview clamped to a few lines on purpose (the details show it whole). */
function cutElements() {
  const ALLOWED = ['.card-purpose', '.sr-only'];
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.getClientRects().length === 0 || el.closest('[hidden]')) continue;
    if (ALLOWED.some((sel) => el.closest(sel))) continue;
    const cs = getComputedStyle(el);
    const clipsX = cs.overflowX !== 'visible';
    const clipsY = cs.overflowY !== 'visible';
    const wide = el.scrollWidth > el.clientWidth + 1;
    const tall = el.scrollHeight > el.clientHeight + 1;
    const what = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${el.textContent.trim().slice(0, 60)}"`;
    if (cs.textOverflow === 'ellipsis' && wide) out.push(`ellipsis: ${what}`);
    else if (clipsX && wide) out.push(`overflow-x ${cs.overflowX}: ${what} (${el.scrollWidth} > ${el.clientWidth})`);
    if (clipsY && tall) out.push(`overflow-y ${cs.overflowY}: ${what} (${el.scrollHeight} > ${el.clientHeight})`);
  }
  // Content wider than the page (a chip running out of its card and off the screen).
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) out.push(`page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
  // A card or lane whose content runs out of it, even where nothing clips it.
  for (const box of document.querySelectorAll('.card, .lane, .chip')) {
    const r = box.getBoundingClientRect();
    for (const child of box.querySelectorAll('*')) {
      if (child.getClientRects().length === 0 || child.closest('.card-purpose')) continue;
      const c = child.getBoundingClientRect();
      if (c.right > r.right + 1 || c.left < r.left - 1) {
        out.push(`runs out of its ${box.className.split(' ')[0]}: "${child.textContent.trim().slice(0, 60)}"`);
        break;
      }
    }
  }
  return out;
}

/** Where each claim's card (or lane chip) is on the page, whether it is the element seen there
 * once the page (and only the page) is scrolled to it, and its text. */
function claimBoxes(selector) {
  const root = document.documentElement;
  return Array.from(document.querySelectorAll(selector), (el) => {
    const at = el.getBoundingClientRect();
    window.scrollTo(0, at.top + root.scrollTop - innerHeight / 3);
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 20));
    return {
      id: Number(el.dataset.claimId),
      text: el.innerText,
      seen: hit !== null && el.contains(hit),
      top: r.top + root.scrollTop,
      bottom: r.bottom + root.scrollTop,
      left: r.left,
      right: r.right,
      width: r.width,
      pageHeight: root.scrollHeight,
      pageWidth: root.clientWidth,
    };
  });
}

function assertEveryClaimShown(boxes, board, label) {
  const ids = boxes.map((b) => b.id).sort((a, b) => a - b);
  assert.deepEqual(
    ids,
    board.claims.map((c) => c.id).sort((a, b) => a - b),
    `${label}: a box for every claim`,
  );
  for (const b of boxes) {
    const claim = board.claims.find((c) => c.id === b.id);
    const name = `${claim.task} (${claim.session})`;
    assert.ok(b.seen, `${label}: ${name} is visible where it is`);
    assert.ok(b.top >= 0 && b.bottom <= b.pageHeight + 1, `${label}: ${name} is within the page's height`);
    assert.ok(b.left >= 0 && b.right <= b.pageWidth + 1, `${label}: ${name} is within the page's width`);
  }
}

for (const width of WIDTHS) {
  describe(`${width} px`, () => {
    let page;
    let problems;
    let board;

    before(async () => {
      ({ page, problems } = await newPage(chromium.context));
      await page.setViewportSize({ width, height: HEIGHT });
      await page.emulateMedia({ colorScheme: 'light' });
      board = await viaStandalone(page, fixture);
      await page.screenshot({ path: saveArtifact(`layout-${width}.png`), fullPage: true });
    });
    after(async () => {
      await assertClean(page, problems, `layout ${width}`);
      await page.close();
    });

    test('nothing is cut and no box scrolls inside itself', async () => {
      assert.deepEqual(await page.evaluate(cutElements), []);
    });

    test('every claim has a visible card on the page, with all its paths and resources in full', async () => {
      const boxes = await page.evaluate(claimBoxes, '.columns .card');
      assertEveryClaimShown(boxes, board, `${width} px`);
      for (const b of boxes) {
        const claim = board.claims.find((c) => c.id === b.id);
        for (const item of [...(claim.paths ?? []), ...(claim.resources ?? []), claim.session, claim.task]) {
          assert.ok(b.text.replace(/\s+/g, '').includes(item), `${width} px: ${claim.task} shows ${item}: ${b.text}`);
        }
      }
    });

    test('a conflict names the claims on its other side', async () => {
      const boxes = await page.evaluate(claimBoxes, '.columns .card');
      for (const claim of board.claims) {
        const text = boxes.find((b) => b.id === claim.id).text;
        for (const i of claim.conflicts ?? []) {
          for (const other of board.conflicts[i].claims.filter((id) => id !== claim.id)) {
            const o = board.claims.find((c) => c.id === other);
            assert.ok(
              text.includes(o.session) && text.includes(o.task),
              `${claim.task} (${claim.session}) names ${o.task} (${o.session}): ${text}`,
            );
          }
        }
      }
    });

    test('the empty column takes little room, and the width is used', async () => {
      const geometry = await page.evaluate(() => {
        const rect = (el) => el.getBoundingClientRect();
        return {
          viewport: document.documentElement.clientWidth,
          board: rect(document.querySelector('.columns')).width,
          columns: Array.from(document.querySelectorAll('.column'), (c) => ({
            id: c.dataset.column,
            width: rect(c).width,
            height: rect(c).height,
            bottom: rect(c).bottom + document.documentElement.scrollTop,
          })),
          cards: Array.from(document.querySelectorAll('.columns .card'), (c) => rect(c).width),
        };
      });
      const blocked = geometry.columns.find((c) => c.id === 'blocked');
      assert.equal(board.summary.blocked, 0, 'the fixture blocks nothing');
      assert.ok(geometry.board >= geometry.viewport - 40, `the board spans the page: ${geometry.board} of ${geometry.viewport}`);
      if (width === 500) {
        for (const c of geometry.columns) assert.ok(c.width >= geometry.board - 1, `${c.id} spans the board: ${c.width}`);
        for (const w of geometry.cards) assert.ok(w >= geometry.board - 24, `a card spans its column: ${w} of ${geometry.board}`);
        assert.ok(blocked.height <= 80, `the empty Blocked column is short: ${blocked.height} px`);
      } else {
        assert.ok(blocked.width <= 0.15 * geometry.board, `the empty Blocked column is narrow: ${blocked.width} of ${geometry.board}`);
      }
      if (width === 3200) {
        const bottom = Math.max(...geometry.columns.map((c) => c.bottom));
        assert.ok(bottom <= HEIGHT, `every card is on the first screen at ${width} px: the board ends at ${bottom}`);
      }
    });

    test('lanes by session: every claim a chip, nothing cut', async () => {
      await page.keyboard.press('v');
      await page.waitForSelector('.lane');
      try {
        assert.deepEqual(await page.evaluate(cutElements), []);
        const boxes = await page.evaluate(claimBoxes, '.lanes .chip[data-claim-id]');
        assertEveryClaimShown(boxes, board, `${width} px lanes`);
        for (const b of boxes) {
          const claim = board.claims.find((c) => c.id === b.id);
          assert.ok(b.text.includes(claim.task), `${width} px lanes: ${claim.task} in full: ${b.text}`);
        }
        await page.screenshot({ path: saveArtifact(`layout-lanes-${width}.png`), fullPage: true });
      } finally {
        await page.keyboard.press('v');
      }
    });

    test('the timeline names every claim in full', async () => {
      const labels = await page.evaluate(() => Array.from(document.querySelectorAll('.tl-rows .tl-label'), (t) => t.textContent));
      assert.deepEqual(labels.sort(), board.claims.map((c) => `${c.task} · ${c.session}`).sort());
    });

    test('a snapshot shows no file-open controls', async () => {
      for (const id of ['open-files', 'open-folder', 'paste']) {
        assert.equal(await page.locator(`#${id}`).isVisible(), false, `#${id} is hidden on a snapshot`);
      }
    });
  });
}

test('the live page keeps its file-open controls', async () => {
  const { page } = await newPage(chromium.context);
  await open(page, `${server.page}/`);
  for (const id of ['open-files', 'open-folder', 'paste']) assert.equal(await page.locator(`#${id}`).isVisible(), true, id);
  await page.close();
});
