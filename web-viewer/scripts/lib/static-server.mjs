// A tiny static file server for the demo, the tests and the measurements: right MIME types
// (application/wasm lets the browser compile while downloading), no caching, no directory
// listings, nothing outside its roots. Optional CORS, to serve a rail to the board from another
// origin as a git host's raw files would.

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.yaml': 'text/plain; charset=utf-8',
  '.yml': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
};

/**
 * Serves `mounts` ({"/": dir, "/fixtures/": dir2}) on 127.0.0.1.
 * `extra(url)` may answer first with {status, type, body} (generated rails in tests).
 * Resolves to {server, url, close()}.
 */
export function serveStatic({ mounts, port = 0, cors = false, extra = null, log = false }) {
  const roots = Object.entries(mounts)
    .map(([prefix, dir]) => [prefix.endsWith('/') ? prefix : `${prefix}/`, resolve(dir)])
    .sort((a, b) => b[0].length - a[0].length);
  const server = createServer(async (req, res) => {
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (cors) headers['access-control-allow-origin'] = '*';
    const send = (status, type, body, more = {}) => {
      res.writeHead(status, { ...headers, 'content-type': type, ...more });
      res.end(req.method === 'HEAD' ? undefined : body);
      if (log) console.error(`${status} ${req.method} ${req.url}`);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed');
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      return send(400, 'text/plain', 'bad request');
    }
    if (extra) {
      const answer = await extra(path, req);
      if (answer) return send(answer.status ?? 200, answer.type ?? 'text/plain; charset=utf-8', answer.body, answer.headers);
    }
    const mount = roots.find(([prefix]) => `${path}/`.startsWith(prefix) || path.startsWith(prefix));
    if (!mount) return send(404, 'text/plain', 'not found');
    const [prefix, dir] = mount;
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (file !== dir && !file.startsWith(dir + sep)) return send(403, 'text/plain', 'forbidden');
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file);
      }
      const body = await readFile(file);
      send(200, TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream', body, {
        'last-modified': info.mtime.toUTCString(),
      });
    } catch {
      send(404, 'text/plain', 'not found');
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      resolvePromise({
        server,
        url: `http://127.0.0.1:${actual}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
