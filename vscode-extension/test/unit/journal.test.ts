// The redo journal: byte format, checksums, torn journals, and replay across hosts (a journal the
// CLI left is replayed by the extension's code and the other way round).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { fnv1a64, parseJournal, renderJournal, type JournalEntry } from '../../src/host/journal';
import { acquire } from '../../src/host/lock';
import { JOURNAL, RailStore } from '../../src/host/store';
import { driver, linesStarting, rail, read, tempRepo } from '../shared/fixtures';

test('FNV-1a 64 matches the published test vectors', () => {
  assert.equal(fnv1a64(Buffer.from('')), 'cbf29ce484222325');
  assert.equal(fnv1a64(Buffer.from('a')), 'af63dc4c8601ec8c');
  assert.equal(fnv1a64(Buffer.from('foobar')), '85944171f73967e8');
});

const entries: JournalEntry[] = [
  { kind: 'file', path: 'claims.md', bytes: Buffer.from('a | s | 2026-10-22T14:05Z\n') },
  { kind: 'file', path: 'claims/s.yaml', bytes: Buffer.from('owner: s\npurpose: ünïcødé 🚂\n') },
  { kind: 'append', path: 'claims.log', bytes: Buffer.from('line\n') },
];

test('a journal round-trips; every torn or flipped journal is refused', () => {
  const bytes = renderJournal(entries);
  assert.deepEqual(parseJournal(bytes), entries);
  for (let cut = 0; cut < bytes.length; cut++) {
    assert.equal(parseJournal(bytes.subarray(0, cut)), undefined, `cut at ${cut}`);
  }
  for (const at of [3, 20, 40, bytes.length - 3]) {
    const flipped = Buffer.from(bytes);
    flipped[at] = (flipped[at] ?? 0) ^ 1;
    assert.equal(parseJournal(flipped), undefined, `flipped byte ${at}`);
  }
  assert.equal(parseJournal(Buffer.concat([bytes, Buffer.from('x')])), undefined, 'trailing bytes');
});

test('the exact bytes of docs/lock-protocol.md', () => {
  const one: JournalEntry[] = [{ kind: 'append', path: 'claims.log', bytes: Buffer.from('x\n') }];
  const text = renderJournal(one).toString('utf8');
  const header = `rail-journal 1\nappend claims.log 2 ${fnv1a64(Buffer.from('x\n'))}\nx\n\n`;
  assert.equal(text, `${header}end 1 ${fnv1a64(Buffer.from(header))}\n`);
});

test('a journal the CLI left after a crash is complete for us, byte for byte, and we replay it', async () => {
  const repo = tempRepo();
  fs.writeFileSync(path.join(repo, 'claims.md'), '# Claims\n\n');
  const crashed = rail(repo, ['--session', 'cli', 'claim', 'from-cli', '--path', 'src/**'], { RAIL_TEST_CRASH: 'after-journal' });
  assert.notEqual(crashed.status, 0, 'the CLI was killed');
  const journalBytes = fs.readFileSync(path.join(repo, JOURNAL));
  const parsed = parseJournal(journalBytes);
  assert.ok(parsed, 'the CLI journal parses as complete');
  assert.deepEqual(renderJournal(parsed), journalBytes, 'our renderer writes the same bytes');
  assert.equal(linesStarting(path.join(repo, 'claims.md'), 'from-cli |').length, 0, 'not written yet');

  const store = new RailStore(repo);
  // A reader already sees the new rail (it reads the journal's claims.md).
  const seen = await store.read(false);
  assert.match(seen.claims?.text ?? '', /^from-cli \| cli \|/m);
  // The dead CLI's lock is still there: taking the lock breaks it, then the journal is replayed.
  const lock = await acquire(repo, { session: 't', command: 'test' }, 2000);
  try {
    assert.equal(lock.broken.length, 1);
    assert.match(store.recover(lock.claimsFd) ?? '', /replayed/);
  } finally {
    lock.release();
  }
  assert.equal(fs.existsSync(path.join(repo, JOURNAL)), false);
  assert.equal(linesStarting(path.join(repo, 'claims.md'), 'from-cli |').length, 1);
  assert.equal(linesStarting(path.join(repo, 'claims.log'), '').filter((l) => l.includes('| claimed | from-cli |')).length, 1);
});

test('a journal the extension left after a crash is replayed by the CLI', () => {
  const repo = tempRepo();
  fs.writeFileSync(path.join(repo, 'claims.md'), '# Claims\n\n');
  for (const point of ['after-journal', 'mid-write', 'before-log']) {
    const task = `t-${point}`;
    const r = driver(['--rail', repo, '--session', 'ext', 'claim', task], { RAIL_TEST_CRASH: point });
    assert.equal(r.signal, 'SIGKILL', `driver killed at ${point}`);
    assert.ok(fs.existsSync(path.join(repo, JOURNAL)), `journal left at ${point}`);
    const next = rail(repo, ['--session', 'cli', 'renew', 'nothing-here']);
    assert.match(next.stderr, /replayed claims\.md\.journal/, `CLI replays at ${point}: ${next.stderr}`);
    assert.equal(fs.existsSync(path.join(repo, JOURNAL)), false);
    assert.equal(linesStarting(path.join(repo, 'claims.md'), `${task} |`).length, 1, `${task} in claims.md`);
    const logged = read(path.join(repo, 'claims.log')).split('\n').filter((l) => l.includes(`| claimed | ${task} |`));
    assert.equal(logged.length, 1, `exactly one log line for ${task}`);
  }
  assert.equal(rail(repo, ['validate']).status, 0);
});
