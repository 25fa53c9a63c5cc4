#!/usr/bin/env node
// Builds the web board into web-viewer/dist/:
//
//   index.html          the live page (?src=, files, paste, embed): app.js + app.css + the wasm
//   app.js, app.css     the bundle (esbuild), strict-TypeScript checked first (tsc --noEmit)
//   rail_wasm_bg.wasm   rail-core, copied from wasm/pkg/web (built by scripts/build-wasm.sh if missing)
//   standalone.html     ONE file for `rail board --html`: CSS, JS and the wasm (base64) inlined,
//                       data in <script type="application/json" id="rail-data">__RAIL_DATA__</script>
//
// Both pages carry a Content-Security-Policy meta tag: the live page allows only its own files;
// the standalone file allows exactly its inline script and style by hash, so it runs from file://
// with no network at all.
//
// Usage: node scripts/build.mjs [--skip-typecheck]

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const pkgRoot = join(here, '..');
const repo = join(pkgRoot, '..');
const dist = join(pkgRoot, 'dist');
const wasmDir = join(repo, 'wasm', 'pkg', 'web');
const wasmFile = join(wasmDir, 'rail_wasm_bg.wasm');
const require = createRequire(import.meta.url);
const started = Date.now();

/** The placeholder the CLI replaces with `{"texts": …, "facts": …}` (every `<` as \u003c). */
export const PLACEHOLDER = '__RAIL_DATA__';

const say = (msg) => console.error(`build: ${msg}`);
const fail = (msg) => {
  console.error(`build: ${msg}`);
  process.exit(1);
};

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (result.status !== 0) fail(`${cmd} ${args.join(' ')} failed (${result.status ?? result.signal})`);
}

// 1. The wasm package, built once if missing (it takes a minute; the build script is idempotent).
if (!existsSync(wasmFile) || !existsSync(join(wasmDir, 'rail_wasm.js'))) {
  say('wasm/pkg/web is missing; running scripts/build-wasm.sh');
  run('bash', [join(repo, 'scripts', 'build-wasm.sh')]);
}

// 2. Types: strict TypeScript, checked against the wasm build's generated declarations.
if (!process.argv.includes('--skip-typecheck')) {
  say('tsc --noEmit');
  run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(pkgRoot, 'tsconfig.json')]);
}

// 3. Bundle.
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const common = {
  bundle: true,
  minify: true,
  target: ['es2022', 'chrome100', 'firefox100', 'safari16'],
  legalComments: 'none',
  charset: 'ascii',
  logLevel: 'warning',
  write: false,
};
const [js, css] = await Promise.all([
  esbuild.build({ ...common, entryPoints: [join(pkgRoot, 'src', 'main.ts')], format: 'esm', outfile: join(dist, 'app.js') }),
  esbuild.build({ ...common, entryPoints: [join(pkgRoot, 'src', 'styles.css')], outfile: join(dist, 'app.css') }),
]);
const appJs = js.outputFiles[0].text;
const appCss = css.outputFiles[0].text;
writeFileSync(join(dist, 'app.js'), appJs);
writeFileSync(join(dist, 'app.css'), appCss);
copyFileSync(wasmFile, join(dist, 'rail_wasm_bg.wasm'));

// 4. Pages.
const shell = readFileSync(join(pkgRoot, 'src', 'shell.html'), 'utf8').trim();
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const common_csp = [
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  // Trusted Types: only the purpose sanitizer (security.ts) may create HTML.
  "require-trusted-types-for 'script'",
  'trusted-types rail-purpose',
];

function page({ csp, head, tail = '' }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp.join('; ')}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>Rail board</title>
<link rel="icon" href="data:,">
${head}
</head>
<body>
${shell}
${tail}
</body>
</html>
`;
}

// The live page. connect-src: its own wasm, any https rail (?src=), and http only on this machine.
const index = page({
  csp: [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
    ...common_csp,
  ],
  head: '<link rel="stylesheet" href="app.css">\n<script type="module" src="app.js"></script>',
});
writeFileSync(join(dist, 'index.html'), index);

// The standalone snapshot. Inline text must not end its own element early.
for (const [what, text, bad] of [
  ['script', appJs, /<\/script|<!--|<script/i],
  ['style', appCss, /<\/style/i],
]) {
  const m = text.match(bad);
  if (m) fail(`the inline ${what} contains ${JSON.stringify(m[0])}; it would break standalone.html`);
}
if (appJs.includes(PLACEHOLDER) || appCss.includes(PLACEHOLDER) || shell.includes(PLACEHOLDER)) {
  fail(`${PLACEHOLDER} appears in the app itself; the CLI must find it exactly once, in the data block`);
}
const wasmBase64 = readFileSync(wasmFile).toString('base64');
const standalone = page({
  csp: [
    "default-src 'none'",
    `script-src ${sha256(appJs)} 'wasm-unsafe-eval'`,
    `style-src ${sha256(appCss)}`,
    "img-src 'self' data:",
    ...common_csp,
  ],
  head: `<style>${appCss}</style>`,
  tail: [
    // Data blocks are never executed, so CSP does not apply to them and the CLI can fill the
    // first without touching the hashes.
    `<script type="application/json" id="rail-data">${PLACEHOLDER}</script>`,
    `<script type="application/wasm+base64" id="rail-wasm">${wasmBase64}</script>`,
    `<script type="module">${appJs}</script>`,
  ].join('\n'),
});
if (standalone.split(PLACEHOLDER).length !== 2) fail(`standalone.html must contain ${PLACEHOLDER} exactly once`);
writeFileSync(join(dist, 'standalone.html'), standalone);

const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
say(
  `dist/ in ${Date.now() - started} ms: app.js ${kb(appJs.length)}, app.css ${kb(appCss.length)}, ` +
    `wasm ${kb(readFileSync(wasmFile).length)}, standalone.html ${kb(standalone.length)} (${relative(process.cwd(), dist) || '.'})`,
);
