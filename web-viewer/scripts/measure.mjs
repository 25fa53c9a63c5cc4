#!/usr/bin/env node
// Measures the web board: time to first render for generated rails of 1,000 and 10,000 claims
// in Chromium (median of 3 loads, with the stages from the page's performance marks), the time
// to filter 10,000 claims, and the page weight (HTML + JS + CSS + wasm, raw and gzipped; and the
// standalone file). Prints a table; run `npm run measure -w web-viewer` (builds first).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { launch } from './lib/chromium.mjs';
import { generateRail } from './lib/gen-rail.mjs';
import { serveStatic } from './lib/static-server.mjs';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const NOW = '2026-10-22T15:00:00Z';
const RUNS = 3;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Page weight.
const weight = (files) => {
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = readFileSync(join(dist, f));
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gz };
};
const live = ['index.html', 'app.js', 'app.css', 'rail_wasm_bg.wasm'];
console.log('page weight');
for (const f of live) {
  const w = weight([f]);
  console.log(`  ${f.padEnd(20)} ${kb(w.raw).padStart(10)} raw ${kb(w.gz).padStart(10)} gzip`);
}
const total = weight(live);
console.log(`  ${'live page total'.padEnd(20)} ${kb(total.raw).padStart(10)} raw ${kb(total.gz).padStart(10)} gzip`);
const standalone = weight(['standalone.html']);
console.log(
  `  ${'standalone.html'.padEnd(20)} ${kb(standalone.raw).padStart(10)} raw ${kb(standalone.gz).padStart(10)} gzip (wasm as base64, no data)`,
);

// First render.
const rails = new Map([1000, 10000].map((n) => [n, generateRail(n)]));
const { url, close } = await serveStatic({
  mounts: { '/': dist },
  extra: (path) => {
    const m = path.match(/^\/gen\/(\d+)\.md$/);
    return m && rails.has(Number(m[1])) ? { body: rails.get(Number(m[1])) } : null;
  },
});
const { context, close: closeBrowser } = await launch();
console.log(`\nfirst render in Chromium (median of ${RUNS}, ms after navigation start)`);
console.log('  claims   rail KB   wasm ready   fetched   board()   first render   DOM elements');
try {
  for (const [n, text] of rails) {
    const samples = [];
    for (let run = 0; run < RUNS; run++) {
      const page = await context.newPage();
      await page.goto(`${url}/?src=/gen/${n}.md&now=${NOW}`);
      await page.waitForFunction(() => Number(document.documentElement.dataset.renders ?? 0) > 0, null, { timeout: 60_000 });
      samples.push(
        await page.evaluate(() => {
          const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
          return {
            core: at('rail:core'),
            fetched: at('rail:fetched'),
            board: at('rail:board') - at('rail:evaluate'),
            rendered: at('rail:rendered'),
            nodes: document.getElementsByTagName('*').length,
          };
        }),
      );
      if (n === 10000 && run === RUNS - 1) {
        // Filtering: from the last keystroke to the board drawn again (120 ms of it is the debounce).
        const before = await page.evaluate(() => Number(document.documentElement.dataset.renders));
        await page.fill('#search', 'session:session-7');
        const t0 = Date.now();
        await page.waitForFunction((b) => Number(document.documentElement.dataset.renders) > b, before);
        console.log(
          `  (filter ${n} claims to ${await page.locator('#match-count').innerText()}: ${Date.now() - t0} ms incl. 120 ms debounce)`,
        );
      }
      await page.close();
    }
    const m = (k) => Math.round(median(samples.map((s) => s[k])));
    console.log(
      `  ${String(n).padStart(6)}   ${kb(text.length).padStart(8)}   ${String(m('core')).padStart(10)}   ${String(m('fetched')).padStart(7)}   ${String(m('board')).padStart(7)}   ${String(m('rendered')).padStart(12)}   ${String(m('nodes')).padStart(12)}`,
    );
  }
} finally {
  await closeBrowser();
  await close();
}
