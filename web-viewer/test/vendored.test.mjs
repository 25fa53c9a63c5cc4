// The page `rail board --html` embeds is a committed copy (cli/assets/standalone.html, see
// scripts/vendor.mjs for why). `npm test -w web-viewer` has just built dist/ from the sources:
// the copy must be byte for byte that build, or a `rail` built from this commit would show an
// older board than its sources say.

import { test } from 'node:test';
import { assert, DIST, join, readFileSync } from './helpers.mjs';
import { VENDORED } from '../scripts/vendor.mjs';

test('cli/assets/standalone.html is the page the sources build', () => {
  const built = readFileSync(join(DIST, 'standalone.html'));
  const vendored = readFileSync(VENDORED);
  assert.ok(
    built.equals(vendored),
    `cli/assets/standalone.html (${vendored.length} bytes) differs from a fresh build (${built.length} bytes): ` +
      'run `npm run vendor -w web-viewer` and commit it (a new Rust toolchain changes the wasm, so it needs this too)',
  );
});
