#!/usr/bin/env node
// Copies the web board's self-contained page (dist/standalone.html) to cli/assets/standalone.html,
// the copy that `rail board --html` embeds.
//
// Why a committed copy: `cargo install --path cli`, `cargo install --git …`, `cargo install
// rail-cli` and release builds run no npm. A page embedded only when `npm run build -w
// web-viewer` happened to run first gave users a `rail` whose `board --html` could not work.
// The copy is reproducible: esbuild's output and the wasm depend only on the sources and the
// locked tool versions (and rustc: a new Rust toolchain changes the wasm's bytes), and
// test/vendored.test.mjs fails `npm test` when the copy differs from a fresh build.
//
// Usage: node scripts/vendor.mjs            build dist/, then copy
//        node scripts/vendor.mjs --no-build copy the dist/ that is there

import { spawnSync } from 'node:child_process';
import { copyFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const built = join(here, '..', 'dist', 'standalone.html');
export const VENDORED = join(here, '..', '..', 'cli', 'assets', 'standalone.html');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--no-build')) {
    const r = spawnSync(process.execPath, [join(here, 'build.mjs')], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  copyFileSync(built, VENDORED);
  console.error(`vendor: cli/assets/standalone.html (${statSync(VENDORED).size} bytes); rebuild rail to embed it`);
}
