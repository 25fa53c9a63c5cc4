// One function per way a rail reaches the page. Each loads a fixture and returns the board core
// computes for exactly what the page was given (including the `modified` times a browser sees),
// so the caller can assert the page shows it.

import { expectedBoard, fillStandalone, materialize, renders, textsOf, waitRender, join } from './helpers.mjs';

/** The time a file gets when its fixture does not say (a browser always knows an mtime). */
export const DEFAULT_MTIME = '2026-01-01T00:00:00Z';

const withMtimes = (fixture) => fixture.files.map((f) => ({ ...f, modified: f.modified ?? DEFAULT_MTIME }));
const baseName = (path) => path.split('/').pop();

/** Opens the page and waits until its inputs are wired. */
export async function open(page, url) {
  await page.goto(url);
  await page.waitForSelector('html[data-ready]');
}

export async function viaPicker(page, server, fixture) {
  await open(page, `${server.page}/?now=${encodeURIComponent(fixture.facts.now)}`);
  const dir = materialize(fixture);
  const before = await renders(page);
  await page.setInputFiles(
    '#file-input',
    fixture.files.map((f) => join(dir, f.path)),
  );
  await waitRender(page, before);
  return expectedBoard(textsOf(withMtimes(fixture)), { now: fixture.facts.now });
}

export async function dropFiles(page, files) {
  const before = await renders(page);
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.text], f.name, { lastModified: Date.parse(f.modified) }));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, files);
  await waitRender(page, before);
}

export async function viaDrop(page, server, fixture) {
  await open(page, `${server.page}/?now=${encodeURIComponent(fixture.facts.now)}`);
  const files = withMtimes(fixture);
  await dropFiles(
    page,
    files.map((f) => ({ name: baseName(f.path), text: f.text, modified: f.modified })),
  );
  return expectedBoard(textsOf(files), { now: fixture.facts.now });
}

/** Through the paste dialog, one file at a time (files merge into what is shown). */
export async function viaPaste(page, server, fixture) {
  await open(page, `${server.page}/?now=${encodeURIComponent(fixture.facts.now)}`);
  for (const file of fixture.files) {
    await page.keyboard.press('p');
    const role = file.path.startsWith('claims/') ? 'claim-file' : file.path;
    await page.selectOption('#paste-role', role);
    if (role === 'claim-file') await page.fill('#paste-name', baseName(file.path));
    await page.fill('#paste-text', file.text);
    const before = await renders(page);
    await page.click('#paste-ok');
    await waitRender(page, before);
  }
  const pasted = fixture.files.map(({ path, text }) => ({ path, text }));
  return expectedBoard(textsOf(pasted), { now: fixture.facts.now });
}

/** `?src=` and friends, served from a second origin with CORS; Last-Modified is the mtime. */
export async function viaSrc(page, server, fixture, extra = '') {
  const name = `rail-${Math.random().toString(36).slice(2)}`;
  materialize(fixture, join(server.railsRoot, name));
  const q = new URLSearchParams();
  for (const f of fixture.files) {
    const url = `${server.rails}/${name}/${f.path}`;
    if (f.path === 'claims.md') q.append('src', url);
    else if (f.path === 'claims.log') q.append('log', url);
    else if (f.path === 'rail.yaml') q.append('config', url);
    else q.append('yaml', url);
  }
  q.append('now', fixture.facts.now);
  await page.goto(`${server.page}/?${q}${extra}`);
  await waitRender(page, 0);
  return { board: expectedBoard(textsOf(withMtimes(fixture)), { now: fixture.facts.now }), name };
}

/** The embed contract: `?embed=vscode`, then `{type: 'rail', texts, facts}` by postMessage. */
export async function viaEmbed(page, server, fixture, { reuse = false } = {}) {
  if (!reuse) {
    await open(page, `${server.page}/?embed=vscode`);
  }
  const before = await renders(page);
  await page.evaluate(({ texts, facts }) => window.postMessage({ type: 'rail', texts, facts }, '*'), fixture);
  await waitRender(page, before);
  return expectedBoard(fixture.texts, fixture.facts);
}

/** The standalone file, filled as the CLI fills it, opened from file://. */
export async function viaStandalone(page, fixture) {
  const url = fillStandalone(fixture.texts, fixture.facts);
  await page.goto(url);
  await waitRender(page, 0);
  return expectedBoard(fixture.texts, fixture.facts);
}
