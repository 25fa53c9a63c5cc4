// The reader's own files: which of them are the rail's, and how large a rail file may be, are
// core's answers (`railFilesIn`, `handedFile`, `constants().max_rail_bytes`), as for the `rail`
// binary: a folder shows exactly the files Rail reads from it, and a file Rail would refuse is
// refused here too.

import { mkdirSync, utimesSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  assert,
  assertClean,
  assertShows,
  browser,
  core,
  expectedBoard,
  join,
  mkdtempSync,
  newPage,
  renders,
  startServers,
  textsOf,
  tmpdir,
  waitRender,
  writeFileSync,
} from './helpers.mjs';
import { dropFiles, open } from './inputs.mjs';

const NOW = '2026-10-22T15:00:00Z';
const MTIME = '2026-10-22T14:00:00Z';
let server;
let chromium;

before(async () => {
  server = await startServers();
  chromium = await browser();
});
after(async () => {
  await chromium?.close();
  await server?.close();
});

const pageAt = async () => {
  const { page, problems } = await newPage(chromium.context);
  await open(page, `${server.page}/?now=${encodeURIComponent(NOW)}`);
  return { page, problems };
};

/** Writes `files` (path → text) under a new folder, each modified at MTIME. */
function folder(files) {
  const root = mkdtempSync(join(tmpdir(), 'rail-web-folder-'));
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, text);
    utimesSync(full, new Date(MTIME), new Date(MTIME));
  }
  return root;
}

describe("a folder's files", () => {
  test("only the files Rail reads from the rail's folder are shown: no rail.yml, no docs/claims.md", async () => {
    const rail = {
      'claims.md': 'auth | session-a | 2026-10-22T14:30Z | paths: src/auth/**\n',
      'claims/session-b.yaml': 'owner: session-b\ntask: billing\nsince: 2026-10-22T14:40Z\npaths:\n  - src/billing/**\n',
      'rail.yaml': 'lease: 3h\n',
    };
    const root = folder({
      ...Object.fromEntries(Object.entries(rail).map(([p, t]) => [`repo/${p}`, t])),
      // Not the rail's: each would change the board if it were read.
      'repo/rail.yml': 'lease: nonsense\n',
      'repo/docs/claims.md': 'docs | session-z | 2026-10-22T14:00Z\n',
      'repo/claims/notes.txt': 'not a claim file\n',
      'repo/README.md': '# repo\n',
    });
    const { page, problems } = await pageAt();
    const before = await renders(page);
    await page.setInputFiles('#folder-input', join(root, 'repo'));
    await waitRender(page, before);
    const files = Object.entries(rail).map(([path, text]) => ({ path, text, modified: MTIME }));
    assert.deepEqual(
      core.railFilesIn(['repo/claims.md', 'repo/rail.yml', 'repo/docs/claims.md']).map((f) => f.path),
      ['claims.md'],
      "core's rule, which the page asked",
    );
    assert.equal(await page.locator('#source').innerText(), 'claims.md, claims/session-b.yaml, rail.yaml');
    const board = await assertShows(page, expectedBoard(textsOf(files), { now: NOW }), 'folder');
    assert.equal(board.summary.claims, 2);
    await assertClean(page, problems, 'folder');
    await page.close();
  });
});

describe('files handed one by one', () => {
  test('placed by name as core says; a file that is not a rail file is named and left out', async () => {
    const { page } = await pageAt();
    await dropFiles(page, [
      { name: 'backup.md', text: 'auth | session-a | 2026-10-22T14:30Z\n', modified: MTIME },
      { name: 'session-b.YML', text: 'owner: session-b\ntask: billing\nsince: 2026-10-22T14:40Z\n', modified: MTIME },
      { name: 'picture.png', text: 'PNG', modified: MTIME },
    ]);
    assert.equal(await page.locator('#source').innerText(), 'claims.md, claims/session-b.YML');
    assert.equal(await page.locator('#banner').innerText(), 'Not rail files, ignored: picture.png');
    assert.equal(core.handedFile('picture.png'), null);
    await page.close();
  });
});

describe("core's read limit", () => {
  test('a file larger than the largest Rail reads is refused, with the limit named', async () => {
    const max = core.constants().max_rail_bytes;
    assert.equal(max, 16 * 1024 * 1024);
    const { page, problems } = await pageAt();
    await page.evaluate((size) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(size)], 'claims.md'));
      for (const type of ['dragenter', 'dragover', 'drop']) {
        document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    }, max + 1);
    await page.waitForFunction(() => !document.getElementById('banner').hidden);
    assert.equal(
      await page.locator('#banner').innerText(),
      `claims.md is ${max + 1} bytes, more than the 16 MB Rail reads; it was not read`,
    );
    assert.equal(await page.locator('#source').innerText(), 'no rail loaded');
    await assertClean(page, problems, 'too large');
    await page.close();
  });
});
