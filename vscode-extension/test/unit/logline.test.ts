// The log lines the host writes itself (lock-broken, recovered) read back through core's log
// parser with the same details, escapes included.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { core } from '../../src/host/core';
import { formatTime, renderLogLine } from '../../src/host/logline';

test('times are written as Rail writes them', () => {
  assert.equal(formatTime(new Date('2026-10-22T14:05:03.456Z')), '2026-10-22T14:05:03Z');
});

test('lock-broken and recovered lines parse back with their details', () => {
  const when = new Date('2026-10-22T18:03:00Z');
  const lines = [
    renderLogLine(when, 'lock-broken', null, 'session-b', {
      reason: 'held by 4242@devbox (session a, `rail claim x | y`, since …); process 4242 is dead \\ really',
      holder: '4242@devbox',
    }),
    renderLogLine(when, 'recovered', null, 'session-b', { note: 'replayed\nclaims.md.journal' }),
  ];
  assert.equal(lines[0]?.startsWith('2026-10-22T18:03:00Z | lock-broken | - | session-b | holder: 4242@devbox | reason: '), true);
  const board = core().board({ log: { path: 'claims.log', text: lines.join('\n') + '\n' } }, { now: '2026-10-22T19:00:00Z' });
  assert.equal(board.diagnostics.length, 0, JSON.stringify(board.diagnostics));
  const [recovered, broken] = board.log; // newest first
  assert.equal(broken?.event, 'lock-broken');
  assert.equal(broken?.session, 'session-b');
  assert.equal(broken?.task, null);
  assert.equal(broken?.details.reason, 'held by 4242@devbox (session a, `rail claim x | y`, since …); process 4242 is dead \\ really');
  assert.equal(recovered?.details.note, 'replayed claims.md.journal');
});
