// The XSS corpus (test/fixtures/xss): script tags, <img onerror>, javascript: and data: links,
// inline SVG with onload, attribute-breaking quotes, in tasks (where core lets them through),
// sessions, purposes, paths, resources, claim file owners, file names and the log. Through every
// input path nothing may run (window.__pwned stays unset, no dialog, no CSP violation), no
// active element or attribute may reach the DOM, and the payloads must be readable as text.

import { after, before, describe, test } from 'node:test';
import * as esbuild from 'esbuild';
import { PKG, assert, assertClean, browser, fixtureDirs, newPage, readFixture, saveArtifact, startServers } from './helpers.mjs';
import { DEFAULT_MTIME, dropFiles, open, viaEmbed, viaPicker, viaSrc, viaStandalone } from './inputs.mjs';

const xss = readFixture(fixtureDirs().find((f) => f.name === 'own/xss').dir);
let server;
let chromium;

before(async () => {
  server = await startServers(async (path) => {
    if (path === '/sanitize.html') {
      return { type: 'text/html', body: '<!doctype html><meta charset=utf-8><script type=module src=/sanitize.js></script>' };
    }
    if (path === '/sanitize.js') {
      // security.ts on its own, so the defence in depth is tested on HTML core would never send.
      const out = await esbuild.build({
        stdin: {
          contents:
            "import { purposeFragment, isSafeHref } from './src/security.ts'; window.sanitize = (html) => { const d = document.createElement('div'); d.append(purposeFragment(html, 'FALLBACK')); return d.innerHTML; }; window.isSafeHref = isSafeHref;",
          resolveDir: PKG,
          loader: 'ts',
        },
        bundle: true,
        format: 'esm',
        write: false,
      });
      return { type: 'text/javascript', body: out.outputFiles[0].text };
    }
    return null;
  });
  chromium = await browser();
});
after(async () => {
  await chromium?.close();
  await server?.close();
});

/** Nothing active in the DOM: no on* attributes, no foreign scripts, frames or images, no SVG
 * outside the timeline, links only to http(s)/mailto. */
async function assertInert(page, label) {
  const report = await page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('*')) {
      for (const attr of el.attributes) if (/^on/i.test(attr.name)) bad.push(`${el.localName}[${attr.name}]`);
      if (['iframe', 'object', 'embed', 'img', 'form', 'base', 'meta'].includes(el.localName) && !el.closest('head'))
        bad.push(el.localName);
      if (el.localName === 'svg' && !el.matches('.tl-axis, .tl-rows')) bad.push('svg outside the timeline');
      if (el.localName === 'script' && !(el.type === 'module' || el.id === 'rail-data' || el.id === 'rail-wasm')) bad.push('script');
    }
    for (const a of document.querySelectorAll('a[href]')) {
      const href = a.getAttribute('href');
      if (!/^(https?:|mailto:|#)/i.test(href)) bad.push(`a[href=${href}]`);
    }
    return bad;
  });
  assert.deepEqual(report, [], `${label}: active content in the DOM`);
}

/** The payloads are there, as text. */
async function assertVisibleAsText(page, label) {
  const text = await page.evaluate(() => document.body.innerText);
  for (const needle of [
    "<script>window.__pwned = 'purpose-script'</script> stays text",
    `<img src=x onerror="window.__pwned = 'purpose-img'">`,
    "port:<img/src=x/onerror=window.__pwned='res'>",
    `"><img/src=x/onerror=window.__pwned='path'>.ts`,
    "x<svg/onload=window.__pwned='task'>",
    "<img/src=x/onerror=window.__pwned='session'>",
    "note: <img src=x onerror=window.__pwned='log'>",
  ]) {
    assert.ok(text.includes(needle), `${label}: ${needle} is shown as text`);
  }
}

/** Opens every claim's details (where the whole purpose is rendered) and checks again. */
async function openEveryDetail(page, problems, label) {
  const count = await page.locator('.columns .card').count();
  for (let i = 0; i < count; i++) {
    await page.locator('.columns .card').nth(i).click();
    await page.waitForSelector('#detail:not([hidden])');
    await assertInert(page, `${label} detail ${i}`);
  }
  await assertClean(page, problems, label);
}

describe('the XSS corpus runs nowhere', () => {
  for (const [name, load] of [
    ['?src (live page CSP)', async (page) => (await viaSrc(page, server, xss)).board],
    ['postMessage embed', (page) => viaEmbed(page, server, xss)],
    ['standalone file (data holds </script>)', (page) => viaStandalone(page, xss)],
    ['file picker', (page) => viaPicker(page, server, xss)],
  ]) {
    test(name, async () => {
      const { page, problems } = await newPage(chromium.context);
      const board = await load(page);
      assert.equal(board.claims.length, 6);
      await assertClean(page, problems, name);
      await assertInert(page, name);
      await assertVisibleAsText(page, name);
      await openEveryDetail(page, problems, name);
      if (name.startsWith('?src')) await page.screenshot({ path: saveArtifact('xss-corpus.png'), fullPage: true });
      await page.close();
    });
  }

  test('a file name is text too (drag-and-drop)', async () => {
    const { page, problems } = await newPage(chromium.context);
    await open(page, `${server.page}/?now=2026-10-22T15:00:00Z`);
    const evil = `<img src=x onerror=window.__pwned='filename'>.yaml`;
    await dropFiles(page, [
      { name: 'claims.md', text: 'a | session-a | 2026-10-22T14:00Z\n', modified: DEFAULT_MTIME },
      { name: evil, text: 'owner: session-b\npaths: [x]\nsince: 2026-10-22T14:00Z\n', modified: DEFAULT_MTIME },
    ]);
    assert.ok((await page.locator('#files').innerText()).includes(`claims/${evil}`));
    await assertClean(page, problems, 'file name');
    await assertInert(page, 'file name');
    await page.close();
  });

  test('the page enforces Trusted Types: no HTML sink works outside the purpose policy', async () => {
    const { page } = await newPage(chromium.context);
    await open(page, `${server.page}/?embed=vscode`);
    const result = await page.evaluate(() => {
      const out = {};
      try {
        document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.__pwned=1">');
        out.html = 'allowed';
      } catch (e) {
        out.html = e.name;
      }
      try {
        const s = document.createElement('script');
        s.textContent = 'window.__pwned = 2';
        document.body.append(s);
        out.script = 'allowed';
      } catch (e) {
        out.script = e.name;
      }
      return out;
    });
    assert.deepEqual(result, { html: 'TypeError', script: 'TypeError' });
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await page.close();
  });
});

describe('purpose sanitizer (defence in depth, on HTML core never sends)', () => {
  const cases = [
    ['<p>ok <strong>b</strong> <em>i</em> <code>c</code></p>', '<p>ok <strong>b</strong> <em>i</em> <code>c</code></p>'],
    ['<img src=x onerror="window.__pwned=1">text', 'text'],
    ['<script>window.__pwned=1</script>after', 'after'],
    ['<svg onload="window.__pwned=1"><circle/></svg>x', 'x'],
    ['<a href="javascript:window.__pwned=1">j</a>', '<a>j</a>'],
    ['<a href=" java\tscript:window.__pwned=1">t</a>', '<a>t</a>'],
    ['<a href="data:text/html,<script>1</script>">d</a>', '<a>d</a>'],
    [
      '<a href="https://example.com/" onclick="window.__pwned=1" style="x">ok</a>',
      '<a href="https://example.com/" rel="noopener noreferrer nofollow" referrerpolicy="no-referrer" target="_blank">ok</a>',
    ],
    [
      '<a href="mailto:a@example.com">m</a>',
      '<a href="mailto:a@example.com" rel="noopener noreferrer nofollow" referrerpolicy="no-referrer" target="_blank">m</a>',
    ],
    ['<p class="x" style="color:red" id="y">p</p>', '<p>p</p>'],
    ['<iframe src="javascript:1"></iframe><object data=x></object>z', 'z'],
    ['<div><span>kept text</span></div>', 'kept text'],
    ['<form action="https://x"><input value=1><button>go</button></form>', 'go'],
    ['<math><mi xlink:href="javascript:1">m</mi></math>n', 'n'],
    ['<!-- comment --><p>c</p>', '<p>c</p>'],
    ['<ol start="3" onmouseover="1"><li>x</li></ol>', '<ol start="3"><li>x</li></ol>'],
    ['<ol start="javascript"><li>x</li></ol>', '<ol><li>x</li></ol>'],
    ['<style>body{display:none}</style>s', 's'],
    ['<noscript><p title="</noscript><img src=x onerror=window.__pwned=1>"></p></noscript>', ''],
  ];
  test('allow-list of elements, attributes and link schemes', async () => {
    const { page, problems } = await newPage(chromium.context);
    // The test page is served by the second server (the one with the hook), without the CSP.
    await page.goto(`${server.rails}/sanitize.html`);
    await page.waitForFunction(() => typeof window.sanitize === 'function');
    for (const [input, want] of cases) {
      assert.equal(await page.evaluate((html) => window.sanitize(html), input), want, input);
    }
    await page.waitForTimeout(200); // let any image error fire, if one got through
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(problems.dialogs, []);
    for (const [href, ok] of [
      ['https://a', true],
      ['HTTP://a', true],
      ['mailto:x', true],
      ['javascript:x', false],
      ['java\nscript:x', false],
      ['  data:x', false],
      ['/relative', false],
      ['vbscript:x', false],
    ]) {
      assert.equal(await page.evaluate((h) => window.isSafeHref(h), href), ok, href);
    }
    await page.close();
  });
});
