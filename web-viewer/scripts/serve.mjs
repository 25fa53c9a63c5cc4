#!/usr/bin/env node
// Serves the built board (web-viewer/dist) for `npm run demo` and for trying it by hand.
//
//   node scripts/serve.mjs [--port 8080] [--rail DIR]
//
// --rail DIR also serves a rail folder at /rail/ (with CORS), and the printed URL opens it:
//   http://127.0.0.1:8080/?src=/rail/claims.md&yaml=/rail/claims/a.yaml&log=/rail/claims.log

import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from './lib/static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const port = Number(option('--port') ?? process.env.PORT ?? 8080);
const rail = option('--rail');

if (!existsSync(join(dist, 'index.html'))) {
  console.error('serve: web-viewer/dist is missing; run `npm run build -w web-viewer` first');
  process.exit(2);
}
const mounts = { '/': dist };
if (rail) mounts['/rail/'] = resolve(rail);
const { url } = await serveStatic({ mounts, port, cors: true });

let page = `${url}/`;
if (rail) {
  const q = new URLSearchParams();
  const dir = resolve(rail);
  if (existsSync(join(dir, 'claims.md'))) q.append('src', '/rail/claims.md');
  if (existsSync(join(dir, 'claims'))) {
    for (const f of readdirSync(join(dir, 'claims'))
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()) {
      q.append('yaml', `/rail/claims/${encodeURIComponent(f)}`);
    }
  }
  if (existsSync(join(dir, 'claims.log'))) q.append('log', '/rail/claims.log');
  if (existsSync(join(dir, 'rail.yaml'))) q.append('config', '/rail/rail.yaml');
  q.append('reload', '10');
  page = `${url}/?${q}`;
}
console.log(`Rail board: ${page}`);
console.log('(Ctrl+C stops the server)');
