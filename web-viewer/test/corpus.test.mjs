// Every fixture scenario (tests/fixtures/board/*/ and test/fixtures/*/) through every way a rail
// reaches the page: what the page shows must be exactly the board core computes for it.
// Facts with commits or processes can only come from a host (embed) or the CLI (snapshot); the
// browser's own inputs (picker, drop, paste, ?src) carry the time only, so those run on the
// scenarios whose facts are just `now`.

import { after, before, describe, test } from 'node:test';
import { assertClean, assertShows, browser, browserOnly, fixtureDirs, newPage, readFixture, startServers } from './helpers.mjs';
import { viaDrop, viaEmbed, viaPaste, viaPicker, viaSrc, viaStandalone } from './inputs.mjs';

const fixtures = fixtureDirs().map((f) => ({ ...f, ...readFixture(f.dir) }));
let server;
let chromium;
let page;
let problems;

before(async () => {
  server = await startServers();
  chromium = await browser();
  ({ page, problems } = await newPage(chromium.context));
});
after(async () => {
  await chromium?.close();
  await server?.close();
});

describe('embed (postMessage) shows every scenario', () => {
  let first = true;
  for (const fixture of fixtures) {
    test(fixture.name, async () => {
      const board = await viaEmbed(page, server, fixture, { reuse: !first });
      first = false;
      await assertShows(page, board, `embed ${fixture.name}`);
      await assertClean(page, problems, fixture.name);
    });
  }
});

describe('standalone snapshot (file://) shows every scenario', () => {
  for (const fixture of fixtures) {
    test(fixture.name, async () => {
      const board = await viaStandalone(page, fixture);
      await assertShows(page, board, `standalone ${fixture.name}`);
      await assertClean(page, problems, fixture.name);
    });
  }
});

// A browser input needs at least one file to give.
const local = fixtures.filter((f) => browserOnly(f.facts) && f.files.length > 0);
for (const [name, load] of [
  ['file picker', viaPicker],
  ['drag-and-drop', viaDrop],
  ['paste', viaPaste],
  ['?src URLs', async (p, s, f) => (await viaSrc(p, s, f)).board],
]) {
  describe(`${name} shows every scenario a browser can evaluate`, () => {
    for (const fixture of local) {
      test(fixture.name, async () => {
        const board = await load(page, server, fixture);
        await assertShows(page, board, `${name} ${fixture.name}`);
        await assertClean(page, problems, fixture.name);
      });
    }
  });
}
