// Bundles the extension, its webview page and the tests with esbuild.
//
//   dist/extension.js  the extension (CommonJS, `vscode` external, rail-core's Node wasm beside it)
//   dist/web-board/    the web board (web-viewer/dist), the Show Board page
//   out/test/…         unit and conformance tests, the in-host suite, the e2e runner
//
// Everything the extension needs is in dist/, so the .vsix carries no node_modules.
// Usage: node scripts/build.mjs [--production]   (--production minifies dist/)
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const wasm = join(here, '..', 'wasm', 'pkg', 'node', 'rail_wasm_bg.wasm');
const production = process.argv.includes('--production');

if (!existsSync(wasm)) {
  console.error(`build: ${wasm} is missing; run scripts/build-wasm.sh at the repository root first`);
  process.exit(1);
}

const node = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning', external: ['vscode'] };

/** The wasm glue reads `${__dirname}/rail_wasm_bg.wasm`: every bundle folder needs a copy. */
function withWasm(dir) {
  mkdirSync(dir, { recursive: true });
  copyFileSync(wasm, join(dir, 'rail_wasm_bg.wasm'));
}

rmSync(join(here, 'dist'), { recursive: true, force: true });
rmSync(join(here, 'out'), { recursive: true, force: true });

await build({
  ...node,
  entryPoints: [join(here, 'src/main.ts')],
  outfile: join(here, 'dist/extension.js'),
  minify: production,
  sourcemap: !production,
});
withWasm(join(here, 'dist'));

// Show Board is the web board (web-viewer/dist) through its postMessage embed contract: one
// board page for the browser, the CLI's snapshots and VS Code.
const webBoard = join(here, '..', 'web-viewer', 'dist');
const webFiles = ['index.html', 'app.js', 'app.css', 'rail_wasm_bg.wasm'];
const missing = webFiles.filter((f) => !existsSync(join(webBoard, f)));
if (missing.length > 0) {
  console.error(`build: web-viewer/dist lacks ${missing.join(', ')}; run \`npm run build -w web-viewer\` first`);
  process.exit(1);
}
mkdirSync(join(here, 'dist', 'web-board'), { recursive: true });
for (const f of webFiles) copyFileSync(join(webBoard, f), join(here, 'dist', 'web-board', f));

// The JSON Schemas of claims/<owner>.yaml and rail.yaml (schemas/ at the root, checked against
// core in npm test), for `contributes.yamlValidation`: YAML editing in VS Code (with a YAML
// extension) completes and checks the keys and values.
const schemas = join(here, '..', 'schemas');
mkdirSync(join(here, 'dist', 'schemas'), { recursive: true });
for (const f of ['claim-file.schema.json', 'rail.schema.json']) copyFileSync(join(schemas, f), join(here, 'dist', 'schemas', f));

const tests = (sub) =>
  readdirSync(join(here, 'test', sub))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(here, 'test', sub, f));

await Promise.all([
  build({ ...node, entryPoints: tests('unit'), outdir: join(here, 'out/test/unit') }),
  build({ ...node, entryPoints: tests('conformance'), outdir: join(here, 'out/test/conformance') }),
  // Runs inside the VS Code extension host: mocha is loaded from node_modules at run time.
  build({ ...node, entryPoints: tests('host'), outdir: join(here, 'out/test/host'), external: ['vscode', 'mocha'] }),
  build({ ...node, entryPoints: tests('e2e'), outdir: join(here, 'out/test/e2e'), external: ['vscode', 'playwright-core'] }),
]);
for (const dir of ['out/test/unit', 'out/test/conformance', 'out/test/host']) withWasm(join(here, dir));
console.log(`build: dist/ and out/ ready${production ? ' (production)' : ''}`);
