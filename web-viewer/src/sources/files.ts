// Files from the user's machine: the file picker, a folder picker and drag-and-drop (files or a
// whole folder). A file's lastModified becomes `modified`, which core uses as a claim file's
// `since` when the file has none, as the CLI uses the file's mtime. Which of a folder's files
// are the rail's, and how large a rail file may be, are core's (`railFilesIn`, `constants()`),
// as for the `rail` binary.

import { railConstants, railFilesIn, type RailFile } from '../core.js';
import type { RawFile } from './classify.js';

/** Reads one file, refusing one larger than core's limit: Rail reads no bigger rail file (a rail
 * is text; a huge file would only freeze the tab), and the board shows what `rail` would. */
export async function readFile(file: File, name = file.name, rail?: RailFile): Promise<RawFile> {
  const max = railConstants().max_rail_bytes;
  if (file.size > max) {
    throw new Error(`${name} is ${file.size} bytes, more than the ${max / 1024 / 1024} MB Rail reads; it was not read`);
  }
  const raw: RawFile = { name, text: await file.text(), modified: new Date(file.lastModified).toISOString() };
  if (rail) raw.rail = rail;
  return raw;
}

/** Files from an <input type=file>, with or without webkitdirectory. */
export async function readInput(list: FileList): Promise<RawFile[]> {
  const files = Array.from(list);
  const relative = (f: File) => f.webkitRelativePath || f.name;
  if (files.some((f) => f.webkitRelativePath)) {
    const byPath = new Map(files.map((f) => [relative(f), f]));
    return Promise.all(railFilesIn([...byPath.keys()]).map((r) => readFile(byPath.get(r.name)!, r.name, r)));
  }
  return Promise.all(files.map((f) => readFile(f)));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

function readEntries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  // readEntries returns at most ~100 entries per call; call until it returns none.
  return new Promise((resolve, reject) => {
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

/** Walks a dropped folder, but only where rail files can be: its top, its claims/ folder, and one
 * level of subfolder (a dropped parent of the checkout). Never the whole tree (node_modules…). */
async function walk(entry: FileSystemEntry, prefix: string, depth: number, out: Map<string, FileSystemFileEntry>): Promise<void> {
  if (entry.isFile) {
    out.set(prefix + entry.name, entry as FileSystemFileEntry);
    return;
  }
  if (!entry.isDirectory || depth > 2) return;
  const children = await readEntries(entry as FileSystemDirectoryEntry);
  const claimsDir = railConstants().claims_dir;
  for (const child of children) {
    if (child.isDirectory && child.name !== claimsDir && depth >= 1) continue;
    if (child.isDirectory && child.name.startsWith('.')) continue;
    await walk(child, `${prefix}${entry.name}/`, depth + 1, out);
  }
}

/** Files dropped on the page: plain files, or a folder searched for the rail's files. */
export async function readDrop(data: DataTransfer): Promise<RawFile[]> {
  const entries = Array.from(data.items)
    .filter((item) => item.kind === 'file')
    .map((item) => item.webkitGetAsEntry?.() ?? null);
  if (entries.some((e) => e?.isDirectory)) {
    const found = new Map<string, FileSystemFileEntry>();
    for (const entry of entries) if (entry) await walk(entry, '', 0, found);
    const keep = railFilesIn([...found.keys()]);
    return Promise.all(keep.map(async (r) => readFile(await entryFile(found.get(r.name)!), r.name, r)));
  }
  return Promise.all(Array.from(data.files).map((f) => readFile(f)));
}
