#!/usr/bin/env node
// Makes the JS snippets of a `wasm-bindgen --target nodejs` package (rail-wasm's wasm/js/*.js,
// ES modules, which wasm-bindgen copies under snippets/) load in any Node and in bundlers:
//   - each snippet is rewritten as CommonJS (only Node 20.19 and later require() ES modules);
//   - the glue's `require(String.raw`…`)` of a snippet becomes a plain `require("…")`, which
//     bundlers (esbuild, for the VS Code extension) follow and include.
//
//   node scripts/snippets-to-cjs.mjs PKG      (PKG: the package folder, e.g. wasm/pkg/node)
//
// The snippets are written to be rewritable: no imports, and exports only as
// `export function name(`. Anything else is an error here, not a broken package later.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const pkg = process.argv[2];
if (!pkg) {
  console.error('usage: snippets-to-cjs.mjs PKG');
  process.exit(2);
}
const fail = (message) => {
  console.error(`snippets-to-cjs: ${message}`);
  process.exit(1);
};

function* files(at) {
  for (const entry of readdirSync(at, { withFileTypes: true })) {
    const path = join(at, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.js')) yield path;
  }
}

let count = 0;
if (existsSync(join(pkg, 'snippets'))) {
  for (const file of files(join(pkg, 'snippets'))) {
    const text = readFileSync(file, 'utf8');
    const names = [...text.matchAll(/^export function (\w+)\(/gm)].map((m) => m[1]);
    const body = text.replace(/^export function /gm, 'function ');
    const left = body.match(/^\s*(export|import)\b.*$/m);
    if (left) fail(`${file}: cannot rewrite \`${left[0].trim()}\` (only \`export function\`)`);
    writeFileSync(file, `"use strict";\n${body}\nmodule.exports = { ${names.join(', ')} };\n`);
    count++;
  }
}

const glue = join(pkg, 'rail_wasm.js');
const text = readFileSync(glue, 'utf8');
let requires = 0;
const plain = text.replace(/require\(String\.raw`(\.\/snippets\/[^`\\"]+)`\)/g, (_, path) => {
  requires++;
  return `require(${JSON.stringify(path)})`;
});
if (requires !== count) fail(`${glue}: ${requires} snippet require(s) for ${count} snippet(s)`);
writeFileSync(glue, plain);
console.error(`snippets-to-cjs: ${count} snippet(s) rewritten as CommonJS`);
