// The in-process reader (src/host/store.ts): the rail's files as core wants them, read without
// the lock, never a write half done — a read that sees the CLI's journal, or claims.md changing
// under it, reads again — and bad files refused with a clear error.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

import { JOURNAL, LOCK_NAME, RailStore, StoreError } from '../../src/host/store';
import { rail, tempRepo } from '../shared/fixtures';

test('read(): claims.md, the log, rail.yaml and the claim files (sorted, with mtimes)', async () => {
  const dir = tempRepo();
  fs.writeFileSync(path.join(dir, 'claims.md'), '\ufeffold | s | 2026-10-22T14:05Z\r\n');
  fs.writeFileSync(path.join(dir, 'claims.log'), '2026-10-22T14:05Z | claimed | old | s\n');
  fs.writeFileSync(path.join(dir, 'rail.yaml'), 'lease: 1h\n');
  fs.mkdirSync(path.join(dir, 'claims'));
  for (const n of ['b.yaml', 'a.yml', 'ignored.txt']) fs.writeFileSync(path.join(dir, 'claims', n), `owner: ${n}\n`);
  const store = new RailStore(dir);
  const texts = await store.read();
  assert.equal(texts.claims?.text, '\ufeffold | s | 2026-10-22T14:05Z\r\n', 'byte for byte, BOM and CRLF kept');
  assert.equal(texts.log?.text, '2026-10-22T14:05Z | claimed | old | s\n');
  assert.equal(texts.config?.text, 'lease: 1h\n');
  assert.deepEqual(
    texts.claim_files?.map((f) => f.path),
    ['claims/a.yml', 'claims/b.yaml'],
  );
  assert.ok(texts.claim_files?.every((f) => typeof f.modified === 'string'));
  // Milliseconds, as the file system said. The reader truncates nanoseconds to milliseconds;
  // Node's float `mtimeMs` can land on the next millisecond (1.7e12 has no room for the whole
  // fraction): compare the instants, not the strings.
  const modified = Date.parse(texts.claims?.modified ?? '');
  assert.ok(Math.abs(modified - fs.statSync(path.join(dir, 'claims.md')).mtimeMs) < 1, `${texts.claims?.modified}`);
  assert.equal(store.unsettled, 0);
});

test('a rail with no files yet reads as empty; the lock file is only looked at', async () => {
  const dir = tempRepo();
  const store = new RailStore(dir);
  assert.deepEqual(await store.read(), { claim_files: [] });
  assert.equal(store.lockPresent(), false);
  fs.writeFileSync(path.join(dir, LOCK_NAME), 'pid: 1\n');
  assert.equal(store.lockPresent(), true);
  assert.equal(store.unsettled, 0);
});

test('a journal present (a write under way) makes the read try again; it reads what the writer finished', async () => {
  const dir = tempRepo();
  const claims = path.join(dir, 'claims.md');
  fs.writeFileSync(claims, 'old | s | 2026-10-22T14:05Z\n');
  fs.writeFileSync(path.join(dir, JOURNAL), 'a write is under way\n');
  const store = new RailStore(dir);
  // read() makes its first attempt before it first waits: it has seen the journal by now.
  const reading = store.read();
  // The writer finishes: the new text in place, then the journal goes.
  fs.writeFileSync(claims, 'new | s | 2026-10-22T14:06Z\n');
  fs.rmSync(path.join(dir, JOURNAL));
  const texts = await reading;
  assert.equal(texts.claims?.text, 'new | s | 2026-10-22T14:06Z\n');
  assert.equal(store.unsettled, 0, 'the second attempt settled');
});

test('a journal that never goes (a crashed writer): the last read is shown, and counted as unsettled', async () => {
  const dir = tempRepo();
  fs.writeFileSync(path.join(dir, 'claims.md'), 'old | s | 2026-10-22T14:05Z\n');
  fs.writeFileSync(path.join(dir, JOURNAL), 'left by a crash\n');
  const store = new RailStore(dir);
  const texts = await store.read();
  assert.equal(texts.claims?.text, 'old | s | 2026-10-22T14:05Z\n');
  assert.equal(store.unsettled, 1);
  // The next writer replays it (the CLI); the read after that settles at once.
  const fixed = rail(dir, ['--session', 's', 'claim', 'next']);
  assert.ok(fixed.status === 0 || fixed.status === 1, fixed.stderr);
  assert.equal(fs.existsSync(path.join(dir, JOURNAL)), false, 'the CLI dealt with the journal');
  await store.read();
  assert.equal(store.unsettled, 1, 'no new unsettled read');
});

test('a file that is not UTF-8 or too big is refused with a clear error, never truncated', async () => {
  const dir = tempRepo();
  const file = path.join(dir, 'claims.md');
  fs.writeFileSync(file, Buffer.from([0x61, 0x20, 0x7c, 0xff, 0xfe, 0x0a]));
  await assert.rejects(
    new RailStore(dir).read(),
    (e: unknown) => e instanceof StoreError && e.badInput && /claims\.md: is not valid UTF-8/.test(e.message),
  );
  fs.writeFileSync(file, '');
  fs.truncateSync(file, 16 * 1024 * 1024 + 1);
  await assert.rejects(new RailStore(dir).read(), /claims\.md: is 16777217 bytes, more than the 16 MB Rail reads/);
});

test('the reader runs no process (no flock(1)): it reads with PATH emptied', async () => {
  const dir = tempRepo();
  fs.writeFileSync(path.join(dir, 'claims.md'), 'a | s | 2026-10-22T14:05Z\n');
  const saved = process.env.PATH;
  process.env.PATH = '';
  try {
    const texts = await new RailStore(dir).read();
    assert.equal(texts.claims?.text, 'a | s | 2026-10-22T14:05Z\n');
  } finally {
    process.env.PATH = saved;
  }
});

test('a FIFO or a device is refused, never read (it would block the extension host)', async () => {
  const dir = tempRepo();
  const fifo = spawnSync('mkfifo', [path.join(dir, 'claims.md')]);
  assert.equal(fifo.status, 0, String(fifo.stderr));
  await assert.rejects(
    new RailStore(dir).read(),
    (e: unknown) => e instanceof StoreError && e.badInput && /claims\.md: is not a regular file/.test(e.message),
  );
  fs.rmSync(path.join(dir, 'claims.md'));
  fs.mkdirSync(path.join(dir, 'claims'), { recursive: true });
  fs.symlinkSync('/dev/zero', path.join(dir, 'claims', 'x.yaml'));
  await assert.rejects(new RailStore(dir).read(), /claims\/x\.yaml: is not a regular file/);
});
