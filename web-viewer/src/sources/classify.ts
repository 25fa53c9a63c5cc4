// Which role a file the user hands us plays in the rail, by its name, as Rail lays the files out
// (docs/format.md): claims.md, claims/<owner>.yaml, claims.log, rail.yaml.

import type { FileText, RailTexts } from '../core.js';

export type Role = 'claims' | 'claim-file' | 'log' | 'config';

/** A file as read: its name (possibly with folders) and text. */
export interface RawFile {
  name: string;
  text: string;
  modified?: string;
}

function baseName(name: string): string {
  const parts = name.split(/[\\/]/);
  return parts[parts.length - 1] ?? name;
}

export function roleOf(name: string): Role | null {
  const base = baseName(name).toLowerCase();
  if (base === 'rail.yaml' || base === 'rail.yml') return 'config';
  if (base.endsWith('.yaml') || base.endsWith('.yml')) return 'claim-file';
  if (base.endsWith('.log')) return 'log';
  if (base.endsWith('.md') || base.endsWith('.markdown') || base.endsWith('.txt')) return 'claims';
  return null;
}

/** The rail-relative path core reports diagnostics against. */
export function railPath(role: Role, name: string): string {
  switch (role) {
    case 'claims':
      return 'claims.md';
    case 'log':
      return 'claims.log';
    case 'config':
      return 'rail.yaml';
    case 'claim-file':
      return `claims/${baseName(name)}`;
  }
}

/** Files chosen at once, merged into what is loaded: a file replaces the one at the same rail
 * path, others stay (so claims.md and its claim files can come from two drops). */
export function mergeFiles(current: RailTexts, files: RawFile[]): { texts: RailTexts; ignored: string[] } {
  const texts: RailTexts = { ...current, claim_files: [...(current.claim_files ?? [])] };
  const ignored: string[] = [];
  // claims.md itself wins over other markdown when several are chosen.
  const ordered = [...files].sort((a, b) => Number(baseName(a.name) === 'claims.md') - Number(baseName(b.name) === 'claims.md'));
  for (const file of ordered) {
    const role = roleOf(file.name);
    if (!role) {
      ignored.push(file.name);
      continue;
    }
    const entry: FileText = { path: railPath(role, file.name), text: file.text };
    if (file.modified) entry.modified = file.modified;
    if (role === 'claims') texts.claims = entry;
    else if (role === 'log') texts.log = entry;
    else if (role === 'config') texts.config = entry;
    else {
      const list = texts.claim_files ?? [];
      const at = list.findIndex((f) => f.path === entry.path);
      if (at >= 0) list[at] = entry;
      else list.push(entry);
      list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    }
  }
  return { texts, ignored };
}

/** The loaded files, for the header and the sources list. */
export function fileList(texts: RailTexts): string[] {
  return [texts.claims?.path, ...(texts.claim_files ?? []).map((f) => f.path), texts.log?.path, texts.config?.path].filter(
    (p): p is string => typeof p === 'string',
  );
}

/** Removes one loaded file by its rail path. */
export function withoutFile(texts: RailTexts, path: string): RailTexts {
  const next: RailTexts = { claim_files: (texts.claim_files ?? []).filter((f) => f.path !== path) };
  if (texts.claims && texts.claims.path !== path) next.claims = texts.claims;
  if (texts.log && texts.log.path !== path) next.log = texts.log;
  if (texts.config && texts.config.path !== path) next.config = texts.config;
  return next;
}
