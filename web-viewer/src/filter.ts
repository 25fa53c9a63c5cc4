// Filtering the board by what people type: plain words match anywhere (task, session, paths,
// resources, purpose, branch, file); `session:` `task:` `path:` `resource:` narrow to one field;
// `is:conflict` `is:blocked` `is:live` `is:expiring` `is:stale` narrow by what core decided.
// `path:FILE` also asks core which claims cover that file (its glob rules, not ours).

import type { Board, BoardClaim } from './core.js';

export interface Query {
  words: string[];
  sessions: string[];
  tasks: string[];
  paths: string[];
  resources: string[];
  is: string[];
}

const FIELDS: Record<string, keyof Omit<Query, 'words'>> = {
  session: 'sessions',
  s: 'sessions',
  task: 'tasks',
  t: 'tasks',
  path: 'paths',
  p: 'paths',
  resource: 'resources',
  r: 'resources',
  is: 'is',
};

/** Splits on whitespace, keeping "quoted phrases" together. */
function tokens(input: string): string[] {
  return Array.from(input.matchAll(/(\S*?)"([^"]*)"?|\S+/g), (m) => (m[2] !== undefined ? (m[1] ?? '') + m[2] : m[0])).filter(
    (t) => t.length > 0,
  );
}

export function parseQuery(input: string): Query {
  const query: Query = { words: [], sessions: [], tasks: [], paths: [], resources: [], is: [] };
  for (const token of tokens(input)) {
    const colon = token.indexOf(':');
    const field = colon > 0 ? FIELDS[token.slice(0, colon).toLowerCase()] : undefined;
    const value = field ? token.slice(colon + 1) : token;
    if (value === '') continue;
    if (field === 'paths')
      query.paths.push(value); // paths are case-sensitive, as in git
    else query[field ?? 'words'].push(value.toLowerCase());
  }
  return query;
}

export function isEmptyQuery(q: Query): boolean {
  return Object.values(q).every((list: string[]) => list.length === 0);
}

/** What the toolbar adds to the typed query. */
export interface Narrowing {
  session: string;
  conflictsOnly: boolean;
  blockedOnly: boolean;
}

/** Lower-cased searchable text per claim, built once per board so typing stays fast on 10,000
 * claims. */
export class ClaimIndex {
  private readonly all: string[];
  private readonly task: string[];
  private readonly session: string[];
  private readonly resources: string[];

  constructor(readonly board: Board) {
    const claims = board.claims;
    this.task = claims.map((c) => (c.task ?? '').toLowerCase());
    this.session = claims.map((c) => c.session.toLowerCase());
    this.resources = claims.map((c) => (c.resources ?? []).join('\n').toLowerCase());
    this.all = claims.map((c) =>
      [c.task ?? '', c.session, c.branch, c.file, ...(c.paths ?? []), ...(c.resources ?? []), c.purpose ?? ''].join('\n').toLowerCase(),
    );
  }

  /** Claims matching every term. `covering` holds, per `path:` term, the claim ids core says
   * cover it. */
  filter(q: Query, narrow: Narrowing, covering: ReadonlyMap<string, ReadonlySet<number>>): BoardClaim[] {
    const out: BoardClaim[] = [];
    const claims = this.board.claims;
    for (let i = 0; i < claims.length; i++) {
      const c = claims[i]!;
      if (narrow.session && c.session !== narrow.session) continue;
      if (narrow.conflictsOnly && !c.conflicts?.length) continue;
      if (narrow.blockedOnly && !c.blocked) continue;
      if (!q.words.every((w) => this.all[i]!.includes(w))) continue;
      if (!q.sessions.every((s) => this.session[i]!.includes(s))) continue;
      if (!q.tasks.every((t) => this.task[i]!.includes(t))) continue;
      if (!q.resources.every((r) => this.resources[i]!.includes(r))) continue;
      if (!q.paths.every((p) => covering.get(p)?.has(c.id) || (c.paths ?? []).some((own) => own.includes(p)))) continue;
      if (!q.is.every((flag) => isFlag(c, flag))) continue;
      out.push(c);
    }
    return out;
  }
}

function isFlag(c: BoardClaim, flag: string): boolean {
  switch (flag) {
    case 'conflict':
    case 'conflicts':
      return (c.conflicts?.length ?? 0) > 0;
    case 'blocked':
      return c.blocked;
    case 'live':
    case 'expiring':
    case 'stale':
      return c.state === flag;
    case 'free':
      return c.state === 'stale';
    case 'duplicate':
      return !c.holds;
    default:
      return false;
  }
}
