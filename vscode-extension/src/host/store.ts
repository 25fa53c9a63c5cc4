// Reading the rail's files for the board, in-process and without the lock.
//
// Only the `rail` binary writes (host/native.ts). It rewrites claims.md in place under its lock,
// with its redo journal (`claims.md.journal`) present from before the first byte changes until
// after the last; the seed's one-liner appends a line under `flock`. Taking the lock to read
// would need `flock(1)` (or a native addon) and would stall the views behind every writer, so the
// reader does without it and guards against seeing a write half done instead:
//
//   - the journal exists before or after the read: a write is under way (or crashed) — read again;
//   - claims.md's inode, size or mtime differ before and after the read, or fewer bytes came back
//     than stat said: it changed while being read — read again;
//
// a few times, a little apart. If it never settles (a writer that crashed and left its journal,
// a rail written continuously), the last read is shown: every write ends in a file event (the
// journal removed, claims.md changed), and that event refreshes the board again. mtime is coarse
// on some file systems, so a write of the same size inside one tick can slip past the stat check —
// but not past the journal check, since Rail's writes keep the journal for their whole duration.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { core, type FileText, type RailTexts } from './core';

// The rail's file names and the largest file Rail reads (bigger ones are refused, never
// truncated): core's, the same the `rail` binary uses (rail_core::model::host_constants).
const shared = core().constants();
export const CLAIMS_MD = shared.claims_md;
export const CLAIMS_DIR = shared.claims_dir;
export const LOG_FILE = shared.log_file;
export const CONFIG_FILE = shared.config_file;
export const JOURNAL = shared.journal;
export const LOCK_NAME = shared.lock_name;
export const MAX_RAIL_BYTES = shared.max_rail_bytes;

/** How often a read that saw a write under way is tried again, and the pause before each. */
const ATTEMPTS = 5;
const PAUSE_MS = [2, 5, 10, 20];

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

function decode(file: string, bytes: Buffer): string {
  try {
    // ignoreBOM keeps a leading BOM in the text, as the CLI reads it.
    return utf8.decode(bytes);
  } catch {
    throw new StoreError(file, 'is not valid UTF-8', true);
  }
}

function statOrUndefined(file: string): fs.BigIntStats | undefined {
  try {
    return fs.statSync(file, { bigint: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function sameFile(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** What one read of a file saw, and whether it can be trusted to be whole. */
interface Read {
  text: FileText | undefined;
  settled: boolean;
}

export class RailStore {
  /** Reads that never settled (for the tests and the output channel). */
  unsettled = 0;

  constructor(readonly root: string) {}

  file(name: string): string {
    return path.join(this.root, name);
  }

  /** Is the rail's lock file there? (The `rail.lockHeld` context key; no verdict is drawn.) */
  lockPresent(): boolean {
    return fs.existsSync(this.file(LOCK_NAME));
  }

  private readOnce(name: string, guarded: boolean): Read {
    const full = this.file(name);
    const journal = this.file(JOURNAL);
    try {
      const journalBefore = guarded && fs.existsSync(journal);
      const before = statOrUndefined(full);
      if (before === undefined) return { text: undefined, settled: !journalBefore };
      // A FIFO or a device (claims.md a FIFO, claims/x.yaml a link to /dev/zero: files arrive
      // with git) would block the extension host or read without end: only a regular file is read.
      if (!before.isFile()) {
        throw new StoreError(name, 'is not a regular file (a FIFO, a device or a directory); Rail does not read it', true);
      }
      if (before.size > BigInt(MAX_RAIL_BYTES)) {
        throw new StoreError(name, `is ${before.size} bytes, more than the ${MAX_RAIL_BYTES / 1024 / 1024} MB Rail reads`, true);
      }
      const bytes = fs.readFileSync(full);
      const after = statOrUndefined(full);
      const journalAfter = guarded && fs.existsSync(journal);
      const settled =
        !journalBefore && !journalAfter && after !== undefined && sameFile(before, after) && BigInt(bytes.length) === after.size;
      const text: FileText = { path: name, text: decode(name, bytes), modified: new Date(Number(before.mtimeMs)).toISOString() };
      return { text, settled };
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { text: undefined, settled: false };
      throw new StoreError(name, (e as Error).message, false);
    }
  }

  /** One file, read again while a write is seen under way (see the top of this file). */
  private async readFile(name: string, guarded: boolean): Promise<FileText | undefined> {
    let read = this.readOnce(name, guarded);
    for (let attempt = 0; !read.settled && attempt < ATTEMPTS - 1; attempt++) {
      await new Promise((r) => setTimeout(r, PAUSE_MS[attempt] ?? 20));
      read = this.readOnce(name, guarded);
    }
    if (!read.settled) this.unsettled++;
    return read.text;
  }

  /** Every file of the rail, as core wants them. */
  async read(): Promise<RailTexts> {
    // claims.md is the file written in place; claim files are replaced by rename (whole, always),
    // the log only grows and rail.yaml is written by people: one plain read each.
    const [claims, log, config] = await Promise.all([
      this.readFile(CLAIMS_MD, true),
      this.readFile(LOG_FILE, false),
      this.readFile(CONFIG_FILE, false),
    ]);
    const texts: RailTexts = { claim_files: [] };
    if (claims) texts.claims = claims;
    if (log) texts.log = log;
    if (config) texts.config = config;
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
}
