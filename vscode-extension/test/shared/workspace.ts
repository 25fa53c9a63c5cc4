// The workspaces the VS Code tests open: a git repository with a prepared rail (every state,
// a conflict, a clash, a block, a broken line, a claim file), a station worktree, and a rail of
// 1,000 claims for the measurements.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { git } from './fixtures';

const iso = (now: number, minutesAgo: number): string => new Date(now - minutesAgo * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A repository at `<parent>/<name>` with the standard test rail; returns its path. */
export function makeWorkspace(parent: string, name: string): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 't');
  git(dir, 'config', 'user.email', 't@t');
  for (const f of ['src/auth/token.ts', 'src/billing/tax.ts', 'src/search/index.ts', 'web/app.ts', 'README.md']) {
    write(path.join(dir, f), `// ${f}\nexport {};\n`);
  }
  // What a hostile repository commits (issue 41, finding 2): its settings name someone else.
  // The window's user is alice (user settings); a workspace never decides who acts.
  write(path.join(dir, '.vscode', 'settings.json'), `${JSON.stringify({ 'rail.session': 'mallory' }, null, 2)}\n`);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'init');
  const now = Date.now();
  write(
    path.join(dir, 'claims.md'),
    [
      '# Claims',
      '',
      `auth-refresh | alice | ${iso(now, 10)} | paths: src/auth/** | resources: port:3000 | purpose: refresh **tokens** early`,
      // A purpose with a remote image, as a hostile claim writes it: no hover may fetch it.
      `billing | bob | ${iso(now, 110)} | paths: src/billing/** | resources: port:3000, shared:simulator:iphone-15 | purpose: tax ![build](https://example.invalid/p.png?repo=app)`,
      `search | carol | ${iso(now, 300)} | paths: src/search/**`,
      `docs | dave | ${iso(now, 5)} | paths: src/auth/token.ts | after: billing`,
      'broken | erin | yesterday',
      // Stale and blocked: every board shows it under Blocked (core's column), still takeable.
      // After the broken line, which the diagnostics tests find on its line.
      `reindex | gina | ${iso(now, 400)} | after: billing`,
      '',
    ].join('\n'),
  );
  write(
    path.join(dir, 'claims', 'frank.yaml'),
    `owner: frank\ntask: ui\nsince: ${iso(now, 20)}\npaths:\n- web/**\npurpose: polish the web app\n`,
  );
  write(
    path.join(dir, 'claims.log'),
    `${iso(now, 300)} | claimed | search | carol | paths: src/search/**\n${iso(now, 10)} | claimed | auth-refresh | alice | paths: src/auth/**\n`,
  );
  // Guard status: bob's agent ran Rail's hook two minutes ago (the mark `rail hook` leaves).
  write(path.join(dir, '.git', 'rail', 'seen', 'bob'), `session bob\nagent claude\nversion 2.1.332\nat ${iso(now, 2)}\n`);
  // dave's was seen on another machine of a shared rail, as `rail` keeps its fetched marks.
  write(path.join(dir, '.git', 'rail', 'seen-shared', 'laptop-b-1'), `session dave\nagent codex\nat ${iso(now, 4)}\n\n`);
  // A station: a worktree on its own branch, sharing this rail.
  git(dir, 'worktree', 'add', '-q', '-b', 'station', path.join(parent, `${name}-station`));
  return dir;
}

/** A repository whose rail has `count` claims over 40 sessions (for the measurements). */
export function makeBigWorkspace(parent: string, name: string, count = 1000): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 't');
  git(dir, 'config', 'user.email', 't@t');
  write(path.join(dir, 'README.md'), 'big\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'init');
  const now = Date.now();
  const lines = ['# Claims', ''];
  for (let i = 0; i < count; i++) {
    const purpose = i % 3 === 0 ? ` | purpose: task *${i}* for the measurements` : '';
    lines.push(
      `task-${i} | session-${i % 40} | ${iso(now, (i * 7) % 200)} | paths: src/mod${i}/**, docs/d${i}.md | resources: port:${3000 + i}${purpose}`,
    );
  }
  write(path.join(dir, 'claims.md'), `${lines.join('\n')}\n`);
  write(path.join(dir, '.rail-perf'), 'this workspace measures activation and refresh\n');
  return dir;
}
