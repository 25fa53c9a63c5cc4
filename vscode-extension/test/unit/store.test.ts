// Reading and writing the rail: in-place writes keep the inode, nothing is reformatted, readers
// never see a half-done write, bad files are refused, and plans from core are applied exactly.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { renderJournal } from '../../src/host/journal';
import { mutate } from '../../src/host/mutate';
import { JOURNAL, RailStore, StoreError, writeInPlace } from '../../src/host/store';
import { rail, read, tempRepo } from '../shared/fixtures';

test('writeInPlace grows and shrinks a file on the same inode', () => {
  const dir = tempRepo();
  const file = path.join(dir, 'f');
  fs.writeFileSync(file, 'hello world\n');
  const ino = fs.statSync(file).ino;
  const fd = fs.openSync(file, 'r+');
  try {
    writeInPlace(fd, Buffer.from('hello there, world\n'));
    assert.equal(read(file), 'hello there, world\n');
    writeInPlace(fd, Buffer.from('he'));
    assert.equal(read(file), 'he');
    writeInPlace(fd, Buffer.from(''));
    assert.equal(read(file), '');
  } finally {
    fs.closeSync(fd);
  }
  assert.equal(fs.statSync(file).ino, ino);
});

test('a claim keeps BOM, CRLF, a missing final newline, odd lines and the inode', async () => {
  const dir = tempRepo();
  const file = path.join(dir, 'claims.md');
  const original = '\uFEFF# Claims\r\n\r\nnot | a claim line, just prose | here\r\nold | s | 2026-10-22T14:05Z';
  fs.writeFileSync(file, original);
  const ino = fs.statSync(file).ino;
  const r = await mutate({ root: dir }, 'session-a', { op: 'claim', task: 'fresh', paths: ['src/**'] }, { command: 'test' });
  assert.ok(r.ok, r.ok ? '' : r.message);
  const after = fs.readFileSync(file);
  assert.ok(after.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])), 'BOM kept');
  assert.ok(after.toString('utf8').startsWith(original), 'nothing before the new line changed');
  assert.match(after.toString('utf8'), /\r\nfresh \| session-a \| \S+Z \| paths: src\/\*\*/);
  assert.equal(fs.statSync(file).ino, ino);
  assert.equal(rail(dir, ['validate', 'claims.md']).status, 0);
});

test('release removes exactly one line; a claim file is replaced atomically', async () => {
  const dir = tempRepo();
  fs.writeFileSync(path.join(dir, 'claims.md'), '# Claims\n\n');
  fs.mkdirSync(path.join(dir, 'claims'));
  fs.writeFileSync(path.join(dir, 'claims', 'session-a.yaml'), 'owner: session-a\ntask: yaml-task\npaths:\n- web/**\n');
  for (const task of ['one', 'two', 'three']) {
    const r = await mutate({ root: dir }, 'session-a', { op: 'claim', task }, { command: 'test' });
    assert.ok(r.ok);
  }
  const before = read(path.join(dir, 'claims.md'));
  const r = await mutate({ root: dir }, 'session-a', { op: 'release', task: 'two', touched: ['a.ts'] }, { command: 'test' });
  assert.ok(r.ok, r.ok ? '' : r.message);
  const after = read(path.join(dir, 'claims.md'));
  assert.equal(after, before.split('\n').filter((l) => !l.startsWith('two |')).join('\n'));
  const y = await mutate({ root: dir }, 'session-a', { op: 'release', task: 'yaml-task', touched: [] }, { command: 'test' });
  assert.ok(y.ok, y.ok ? '' : y.message);
  assert.match(read(path.join(dir, 'claims', 'session-a.yaml')), /^released: /m);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'claims')), ['session-a.yaml'], 'no temp file left');
  assert.match(read(path.join(dir, 'claims.log')), /\| released \| two \| session-a \| touched: a\.ts/);
});

test('read(): claim files sorted with mtimes; a complete journal wins for readers', async () => {
  const dir = tempRepo();
  fs.writeFileSync(path.join(dir, 'claims.md'), 'old | s | 2026-10-22T14:05Z\n');
  fs.mkdirSync(path.join(dir, 'claims'));
  for (const n of ['b.yaml', 'a.yml', 'ignored.txt']) fs.writeFileSync(path.join(dir, 'claims', n), 'owner: x\n');
  const store = new RailStore(dir);
  const texts = await store.read(false);
  assert.deepEqual(texts.claim_files?.map((f) => f.path), ['claims/a.yml', 'claims/b.yaml']);
  assert.ok(texts.claim_files?.every((f) => typeof f.modified === 'string'));
  fs.writeFileSync(
    path.join(dir, JOURNAL),
    renderJournal([{ kind: 'file', path: 'claims.md', bytes: Buffer.from('new | s | 2026-10-22T14:06Z\n') }]),
  );
  assert.equal((await store.read(false)).claims?.text, 'new | s | 2026-10-22T14:06Z\n');
  assert.equal((await store.read(true)).claims?.text, 'old | s | 2026-10-22T14:05Z\n', 'a lock holder replays instead');
  fs.writeFileSync(path.join(dir, JOURNAL), 'rail-journal 1\nfile claims.md 9');
  assert.equal((await store.read(false)).claims?.text, 'old | s | 2026-10-22T14:05Z\n', 'a torn journal is ignored');
});

test('a file that is not UTF-8 or too big is refused, never rewritten', async () => {
  const dir = tempRepo();
  const file = path.join(dir, 'claims.md');
  fs.writeFileSync(file, Buffer.from([0x61, 0x20, 0x7c, 0xff, 0xfe, 0x0a]));
  await assert.rejects(new RailStore(dir).read(false), (e: unknown) => e instanceof StoreError && e.badInput);
  await assert.rejects(mutate({ root: dir }, 's', { op: 'claim', task: 'x' }, { command: 'test' }), /not valid UTF-8/);
  assert.deepEqual(fs.readFileSync(file), Buffer.from([0x61, 0x20, 0x7c, 0xff, 0xfe, 0x0a]));
  fs.writeFileSync(file, '');
  fs.truncateSync(file, 16 * 1024 * 1024 + 1);
  await assert.rejects(new RailStore(dir).read(false), /more than the 16 MB/);
});

test('refusals change nothing; conflict markers stop every change', async () => {
  const dir = tempRepo();
  const file = path.join(dir, 'claims.md');
  fs.writeFileSync(file, `held | bob | ${new Date().toISOString()}\n`);
  const r = await mutate({ root: dir }, 'alice', { op: 'claim', task: 'held' }, { command: 'test' });
  assert.equal(r.ok, false);
  assert.equal(r.ok ? '' : r.refusal?.kind, 'held');
  assert.equal(read(file).split('\n').length, 2);
  assert.equal(fs.existsSync(path.join(dir, 'claims.log')), false, 'nothing logged');
  fs.writeFileSync(file, '<<<<<<< ours\na | s | 2026-10-22T14:05Z\n=======\nb | t | 2026-10-22T14:05Z\n>>>>>>> theirs\n');
  const m = await mutate({ root: dir }, 'alice', { op: 'claim', task: 'other' }, { command: 'test' });
  assert.equal(m.ok, false);
  assert.match(m.ok ? '' : m.message, /claims\.md:1 has a merge conflict marker/);
});
