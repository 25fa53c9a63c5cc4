#!/usr/bin/env node
// Renders media/icon.svg to media/icon.png, 128x128 (the size the Marketplace shows), in
// Debian's Chromium through playwright-core — the browser the tests already use, so no image
// library is needed. Run it after changing the SVG and commit both files; the PNG is checked
// (size and dimensions) by test/unit/package.test.ts.
//
// Usage: node scripts/icon.mjs

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../../web-viewer/scripts/lib/chromium.mjs';

const media = join(dirname(fileURLToPath(import.meta.url)), '..', 'media');
const svg = readFileSync(join(media, 'icon.svg'), 'utf8');
const browser = await launch({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
try {
  const page = await browser.context.newPage();
  await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${svg}`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  writeFileSync(join(media, 'icon.png'), png);
  console.error(`icon: media/icon.png (${png.length} bytes)`);
} finally {
  await browser.close();
}
