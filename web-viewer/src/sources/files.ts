// Files from the user's machine: the file picker, a folder picker and drag-and-drop (files or a
// whole folder). A file's lastModified becomes `modified`, which core uses as a claim file's
// `since` when the file has none, as the CLI uses the file's mtime.

import type { RawFile } from './classify.js';

/** Files larger than this are refused: a rail is text, and a huge file would only freeze the tab. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export async function readFile(file: File, name = file.name): Promise<RawFile> {
  if (file.size > MAX_FILE_BYTES) throw new Error(`${name}: larger than 64 MB, not a rail file`);
  return { name, text: await file.text(), modified: new Date(file.lastModified).toISOString() };
}

/** In a folder (a repository's main checkout, or the rail folder itself), only the rail's own
 * files count: <root>/claims.md, <root>/claims/*.yaml, <root>/claims.log, <root>/rail.yaml, where
 * <root> is the shallowest folder holding claims.md or a claims/ folder. */
export function pickRailFiles(paths: string[]): string[] {
  const roots = paths
    .map((p) => p.match(/^(.*?)(?:claims\.md|claims\/[^/]+\.ya?ml)$/)?.[1])
    .filter((r): r is string => r !== undefined && (r === '' || r.endsWith('/')));
  if (roots.length === 0) return [];
  const root = roots.reduce((a, b) => (b.split('/').length < a.split('/').length ? b : a));
  const wanted = new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(claims\\.md|claims\\.log|rail\\.ya?ml|claims/[^/]+\\.ya?ml)$`);
  return paths.filter((p) => wanted.test(p));
}

/** Files from an <input type=file>, with or without webkitdirectory. */
export async function readInput(list: FileList): Promise<RawFile[]> {
  const files = Array.from(list);
  const relative = (f: File) => f.webkitRelativePath || f.name;
  if (files.some((f) => f.webkitRelativePath)) {
    const keep = new Set(pickRailFiles(files.map(relative)));
    return Promise.all(files.filter((f) => keep.has(relative(f))).map((f) => readFile(f, relative(f))));
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
  for (const child of children) {
    if (child.isDirectory && child.name !== 'claims' && depth >= 1) continue;
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
    const keep = pickRailFiles([...found.keys()]);
    return Promise.all(keep.map(async (path) => readFile(await entryFile(found.get(path)!), path)));
  }
  return Promise.all(Array.from(data.files).map((f) => readFile(f)));
}
