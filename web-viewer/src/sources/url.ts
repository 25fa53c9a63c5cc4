// A rail served anywhere: `?src=URL` for claims.md (e.g. a raw file on a git host), `?yaml=URL`
// (repeatable) for claim files, `?log=URL`, `?config=URL`; `&reload=SECONDS` fetches them again.
// URLs are resolved against the page, fetched without credentials and never cached, so a reload
// shows what the server has now.

import type { FileText, RailTexts } from '../core.js';

export interface UrlSources {
  claims: URL | null;
  claimFiles: URL[];
  log: URL | null;
  config: URL | null;
  reloadSecs: number | null;
}

function parseUrl(value: string | null): URL | null {
  if (!value) return null;
  const url = new URL(value, location.href);
  if (url.protocol !== 'https:' && url.protocol !== 'http:' && url.protocol !== location.protocol) {
    throw new Error(`${value}: only http(s) URLs can be loaded`);
  }
  return url;
}

export function urlSources(params: URLSearchParams): UrlSources | null {
  const claims = parseUrl(params.get('src'));
  const claimFiles = params
    .getAll('yaml')
    .map(parseUrl)
    .filter((u): u is URL => u !== null);
  const log = parseUrl(params.get('log'));
  const config = parseUrl(params.get('config'));
  if (!claims && claimFiles.length === 0 && !log) return null;
  const reload = Number(params.get('reload'));
  // Less than 5 s would only hammer the server; the clock still ticks between reloads.
  const reloadSecs = Number.isFinite(reload) && reload > 0 ? Math.max(5, reload) : null;
  return { claims, claimFiles, log, config, reloadSecs };
}

async function fetchText(url: URL, path: string): Promise<FileText> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store', credentials: 'omit', redirect: 'follow' });
  } catch (e) {
    throw new Error(`${url.href}: could not be fetched (${e instanceof Error ? e.message : String(e)}; is it served with CORS?)`);
  }
  if (!response.ok) throw new Error(`${url.href}: ${response.status} ${response.statusText}`);
  const file: FileText = { path, text: await response.text() };
  const lastModified = response.headers.get('last-modified');
  if (lastModified && !Number.isNaN(Date.parse(lastModified))) file.modified = new Date(lastModified).toISOString();
  return file;
}

function fileName(url: URL): string {
  const last = url.pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last) || 'claim.yaml';
  } catch {
    return last;
  }
}

export async function fetchRail(sources: UrlSources): Promise<RailTexts> {
  const [claims, claimFiles, log, config] = await Promise.all([
    sources.claims ? fetchText(sources.claims, 'claims.md') : null,
    Promise.all(sources.claimFiles.map((u) => fetchText(u, `claims/${fileName(u)}`))),
    sources.log ? fetchText(sources.log, 'claims.log') : null,
    sources.config ? fetchText(sources.config, 'rail.yaml') : null,
  ]);
  const texts: RailTexts = { claim_files: claimFiles };
  if (claims) texts.claims = claims;
  if (log) texts.log = log;
  if (config) texts.config = config;
  return texts;
}

export function describe(sources: UrlSources): string {
  const main = sources.claims ?? sources.claimFiles[0] ?? sources.log;
  const more = sources.claimFiles.length + (sources.log ? 1 : 0) + (sources.config ? 1 : 0);
  return `${main ? main.href : ''}${more > 0 ? ` (+${more} file${more > 1 ? 's' : ''})` : ''}`;
}
