// Which file of the rail each file the user hands us is. Core decides (`handedFile`, the rules
// of rail-core's formats/rail_files.rs): a rail path is that file; otherwise the name says it —
// rail.yaml the settings, other .yaml/.yml a claim file, .log the log, .md/.markdown/.txt
// claims.md. A folder's files come already placed (`railFilesIn`, sources/files.ts).

import { handedFile, railConstants, type FileText, type RailFile, type RailTexts } from '../core.js';

/** A file as read: its name (possibly with folders) and text. */
export interface RawFile {
  name: string;
  text: string;
  modified?: string;
  /** Where it goes in the rail, when core placed it already (a folder's files). */
  rail?: RailFile;
}

function baseName(name: string): string {
  const parts = name.split(/[\\/]/);
  return parts[parts.length - 1] ?? name;
}

/** Files chosen at once, merged into what is loaded: a file replaces the one at the same rail
 * path, others stay (so claims.md and its claim files can come from two drops). */
export function mergeFiles(current: RailTexts, files: RawFile[]): { texts: RailTexts; ignored: string[] } {
  const texts: RailTexts = { ...current, claim_files: [...(current.claim_files ?? [])] };
  const ignored: string[] = [];
  // claims.md itself wins over other markdown when several are chosen.
  const claimsMd = railConstants().claims_md;
  const named = (f: RawFile) => Number(baseName(f.name) === claimsMd);
  const ordered = [...files].sort((a, b) => named(a) - named(b));
  for (const file of ordered) {
    const placed = file.rail ?? handedFile(file.name);
    if (!placed) {
      ignored.push(file.name);
      continue;
    }
    const role = placed.role;
    const entry: FileText = { path: placed.path, text: file.text };
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
