// A small example rail for the empty page ("Try an example"), with times relative to now so the
// leases look as they would in a real repository: some live, one expiring, one stale, a path
// overlap, a resource clash and a blocked task.

import type { RailTexts } from '../core.js';

function ago(minutes: number, now: Date): string {
  return new Date(now.getTime() - minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function exampleRail(now: Date): RailTexts {
  const t = (m: number) => ago(m, now);
  const claims = [
    '# Claims',
    '',
    'Sessions claim tasks here; `rail board` shows who holds what.',
    '',
    `auth-refresh | session-a | ${t(55)} | paths: src/auth/** | purpose: refresh tokens **before** they expire`,
    `token-store | session-b | ${t(40)} | paths: src/auth/token.ts, src/store/** | resources: port:3000 | purpose: move tokens to the [store](https://example.com/store)`,
    `billing | session-c | ${t(110)} | paths: src/billing/**, docs/billing.md | purpose: fix rounding | then ship`,
    `search-index | feature/search | ${t(250)} | paths: src/search/** | resources: shared:simulator:iphone-15`,
    `e2e | session-d | ${t(20)} | resources: port:3000, checkout:test-lock | purpose: run the e2e suite`,
    `release-notes | session-a | ${t(10)} | after: billing | paths: CHANGELOG.md | purpose: write notes once billing lands`,
    `docs | session-e | yesterday | paths: docs/**`,
    '',
  ].join('\n');
  const claimFile = [
    'owner: session-f',
    'task: image-cache',
    `since: ${t(30)}`,
    'paths:',
    '- web/src/image-loader.ts',
    'resources:',
    '- shared:simulator:iphone-15',
    'purpose: test the cache invalidation path',
    '',
  ].join('\n');
  const log = [
    `${t(250)} | claimed | search-index | feature/search | paths: src/search/**`,
    `${t(110)} | claimed | billing | session-c`,
    `${t(55)} | claimed | auth-refresh | session-a | paths: src/auth/**`,
    `${t(45)} | released | old-task | session-b | touched: src/old.ts`,
    `${t(40)} | claimed | token-store | session-b`,
    `${t(20)} | claimed | e2e | session-d`,
    `${t(10)} | claimed | release-notes | session-a`,
    '',
  ].join('\n');
  return {
    claims: { path: 'claims.md', text: claims },
    claim_files: [{ path: 'claims/session-f.yaml', text: claimFile }],
    log: { path: 'claims.log', text: log },
  };
}
