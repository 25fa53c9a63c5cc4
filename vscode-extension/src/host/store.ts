// Reading the rail's files, and writing changes to them crash-safely (cli/src/store.rs).
//
// claims.md is changed in place, never replaced: a `flock claims.md …` waiter holds a lock on the
// inode it opened, and replacing the file would hand newcomers a different inode (the same task
// claimed twice). In-place writes are made crash-safe by the redo journal: before touching any
// file, the full new contents and the log lines to append go to `claims.md.journal`; then the
// files are written; then the journal is removed. Whoever takes the lock next replays a complete
// journal or drops an incomplete one, so after a SIGKILL anywhere the rail is old or new, never torn.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { core, type FileEdits, type FileText, type RailTexts } from './core';
import { readShared } from './flock';
import { parseJournal, renderJournal, type JournalEntry } from './journal';

export const CLAIMS_MD = 'claims.md';
export const CLAIMS_DIR = 'claims';
export const LOG_FILE = 'claims.log';
export const CONFIG_FILE = 'rail.yaml';
export const JOURNAL = 'claims.md.journal';

/** Largest file Rail reads (bigger ones are refused, never truncated). */
export const MAX_RAIL_BYTES = 16 * 1024 * 1024;

/** A file of the rail could not be read; `badInput` when it is the file's fault (size, encoding). */
export class StoreError extends Error {
  constructor(
    readonly file: string,
    message: string,
    readonly badInput: boolean,
  ) {
    super(`${file}: ${message}`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function fsyncWanted(): boolean {
  return process.env.RAIL_FSYNC === '1';
}

/** Test hook, as the CLI's `RAIL_TEST_CRASH`: die like SIGKILL at a named point of a write. */
function crashPoint(name: string): void {
  if (process.env.RAIL_TEST_CRASH === name) process.kill(process.pid, 'SIGKILL');
}

function decode(file: string, bytes: Buffer): string {
  try {
    // ignoreBOM keeps a leading BOM in the text, so an unedited file writes back byte for byte.
    return utf8.decode(bytes);
  } catch {
    throw new StoreError(file, 'is not valid UTF-8; it was not changed', true);
  }
}

/**
 * Rewrites an open file in place: from the first changed byte on, then truncates. The inode
 * stays, so everyone who flocks claims.md keeps locking the same file.
 */
export function writeInPlace(fd: number, next: Buffer): void {
  const current = readAll(fd);
  let common = 0;
  const limit = Math.min(current.length, next.length);
  while (common < limit && current[common] === next[common]) common++;
  if (common < next.length) {
    crashPoint('mid-write');
    let at = common;
    while (at < next.length) at += fs.writeSync(fd, next, at, next.length - at, at);
  }
  if (next.length < current.length) fs.ftruncateSync(fd, next.length);
  if (fsyncWanted()) fs.fsyncSync(fd);
}

/** The whole file behind `fd`, read by position (the descriptor's offset is never relied on). */
function readAll(fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  const buf = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const n = fs.readSync(fd, buf, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return buf.subarray(0, at);
}

export class RailStore {
  constructor(readonly root: string) {}

  file(name: string): string {
    return path.join(this.root, name);
  }

  private async readFile(name: string, shared: boolean): Promise<FileText | undefined> {
    const full = this.file(name);
    let size: number;
    try {
      size = fs.statSync(full).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StoreError(name, (e as Error).message, false);
    }
    if (size > MAX_RAIL_BYTES) {
      throw new StoreError(name, `is ${size} bytes, more than the 16 MB Rail reads; it was not changed`, true);
    }
    let bytes: Buffer;
    let mtime: Date;
    try {
      if (shared) {
        const got = await readShared(full);
        if (got === undefined) return undefined;
        ({ bytes, mtime } = got);
      } else {
        bytes = fs.readFileSync(full);
        mtime = fs.statSync(full).mtime;
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StoreError(name, (e as Error).message, false);
    }
    return { path: name, text: decode(name, bytes), modified: mtime.toISOString() };
  }

  /**
   * Every file of the rail, as core wants them. `locked`: the caller holds the rail lock (no
   * shared flock needed — it would wait for ourselves — and any journal has been replayed).
   */
  async read(locked: boolean): Promise<RailTexts> {
    const [claims, log, config] = await Promise.all([
      this.readFile(CLAIMS_MD, !locked),
      this.readFile(LOG_FILE, false),
      this.readFile(CONFIG_FILE, false),
    ]);
    const texts: RailTexts = { claim_files: [] };
    if (claims) texts.claims = claims;
    if (log) texts.log = log;
    if (config) texts.config = config;
    // A reader that finds a crashed writer's complete journal reads what that writer meant to write.
    if (!locked && claims) {
      const pending = this.readJournal()?.find((e) => e.kind === 'file' && e.path === CLAIMS_MD);
      if (pending) {
        try {
          claims.text = utf8.decode(pending.bytes);
        } catch {
          // keep what is on disk
        }
      }
    }
    let names: string[] = [];
    try {
      names = fs.readdirSync(this.file(CLAIMS_DIR)).filter((n) => n.endsWith('.yaml') || n.endsWith('.yml'));
    } catch {
      names = [];
    }
    names.sort();
    const files = await Promise.all(names.map((n) => this.readFile(`${CLAIMS_DIR}/${n}`, false)));
    texts.claim_files = files.filter((f): f is FileText => f !== undefined);
    return texts;
  }

  private readJournal(): JournalEntry[] | undefined {
    try {
      return parseJournal(fs.readFileSync(this.file(JOURNAL)));
    } catch {
      return undefined;
    }
  }

  /**
   * Under the lock: finishes or drops a journal a crashed writer left. Returns what was done, for
   * the log and the user, or `undefined` when there was none.
   */
  recover(claimsFd: number): string | undefined {
    const journal = this.file(JOURNAL);
    if (!fs.existsSync(journal)) return undefined;
    const entries = this.readJournal();
    if (entries) {
      this.writeEntries(claimsFd, entries);
      fs.rmSync(journal, { force: true });
      return 'finished a change interrupted by a crash (replayed claims.md.journal)';
    }
    fs.rmSync(journal, { force: true });
    return 'dropped an incomplete journal left by a crash before any file was changed';
  }

  /**
   * Under the lock: applies a plan's edits to the texts they were planned on, and appends the
   * log lines — journal first, then the files, then the journal goes.
   */
  apply(claimsFd: number, texts: RailTexts, edits: readonly FileEdits[], logLines: readonly string[]): void {
    const entries: JournalEntry[] = [];
    for (const fe of edits) {
      if (fe.edits.length === 0) continue;
      const next = core().applyEdits(textOf(texts, fe.file) ?? '', fe.edits);
      entries.push({ kind: 'file', path: fe.file, bytes: Buffer.from(next, 'utf8') });
    }
    for (const line of logLines) {
      entries.push({ kind: 'append', path: LOG_FILE, bytes: Buffer.from(`${line}\n`, 'utf8') });
    }
    this.journaled(claimsFd, entries);
  }

  /**
   * Under the lock: makes the rail's files read exactly `files` (path → text), for the mirror of
   * a shared rail. Only files that differ from `texts` (read under this lock) are written, through
   * the journal like any change; files `files` does not name are left alone. Returns the paths
   * written.
   */
  replace(claimsFd: number, texts: RailTexts, files: ReadonlyMap<string, string>): string[] {
    const entries: JournalEntry[] = [];
    for (const [file, text] of files) {
      if (textOf(texts, file) === text) continue;
      entries.push({ kind: 'file', path: file, bytes: Buffer.from(text, 'utf8') });
    }
    this.journaled(claimsFd, entries);
    return entries.map((e) => e.path);
  }

  /** Journal first, then the files, then the journal goes. */
  private journaled(claimsFd: number, entries: readonly JournalEntry[]): void {
    if (entries.length === 0) return;
    const journal = this.file(JOURNAL);
    const fd = fs.openSync(journal, 'w');
    try {
      fs.writeSync(fd, renderJournal(entries));
      if (fsyncWanted()) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    crashPoint('after-journal');
    this.writeEntries(claimsFd, entries);
    fs.rmSync(journal);
  }

  private writeEntries(claimsFd: number, entries: readonly JournalEntry[]): void {
    for (const entry of entries) {
      const target = this.file(entry.path);
      if (entry.kind === 'file' && entry.path === CLAIMS_MD) {
        writeInPlace(claimsFd, entry.bytes);
      } else if (entry.kind === 'file') {
        // Claim files are nobody's flock target: replace them atomically.
        fs.mkdirSync(path.dirname(target), { recursive: true });
        const tmp = target.replace(/\.[^./]*$/, '') + '.yaml.rail-tmp';
        fs.writeFileSync(tmp, entry.bytes);
        fs.renameSync(tmp, target);
      } else {
        crashPoint('before-log');
        // Replaying must not append twice.
        let existing: Buffer | undefined;
        try {
          existing = fs.readFileSync(target);
        } catch {
          existing = undefined;
        }
        if (existing && endsWith(existing, entry.bytes)) continue;
        fs.appendFileSync(target, entry.bytes);
      }
    }
  }
}

/** The text of one of the rail's files as read into `texts` (`undefined`: it does not exist). */
function textOf(texts: RailTexts, file: string): string | undefined {
  if (file === CLAIMS_MD) return texts.claims?.text;
  if (file === LOG_FILE) return texts.log?.text;
  if (file === CONFIG_FILE) return texts.config?.text;
  return texts.claim_files?.find((f) => f.path === file)?.text;
}

function endsWith(haystack: Buffer, needle: Buffer): boolean {
  return needle.length <= haystack.length && haystack.subarray(haystack.length - needle.length).equals(needle);
}
