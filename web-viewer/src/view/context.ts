// What every view needs from the app: the board core returned, which claim is selected, which
// claims to highlight as its conflict partners, and how to ask for a selection or a location.

import type { Board, BoardClaim } from '../core.js';

export interface ViewContext {
  board: Board;
  /** Claims by id (conflicts, sessions and resources refer to claims by id). */
  byId: ReadonlyMap<number, BoardClaim>;
  selected: number | null;
  /** Claims in conflict with the selected or hovered one (core's conflicts, looked up). */
  partners: ReadonlySet<number>;
  select(id: number, reveal?: boolean): void;
  hover(id: number | null): void;
  /** Set when a host can open files (the VS Code webview): shows locations as links. */
  reveal: ((file: string, line: number, column: number) => void) | null;
}

/** Claims sharing a conflict with this one: board.conflicts[i].claims for i in its conflicts. */
export function partnersOf(board: Board, claim: BoardClaim | undefined): Set<number> {
  const out = new Set<number>();
  if (!claim) return out;
  for (const i of claim.conflicts ?? []) for (const id of board.conflicts[i]?.claims ?? []) if (id !== claim.id) out.add(id);
  return out;
}

export const STATE_LABEL: Record<BoardClaim['state'], string> = {
  live: 'live',
  expiring: 'expiring',
  stale: 'stale — free to take',
};

/** The lease as people say it: core's own phrase ("1h5m left", "ran out 2h ago"). */
export function leaseLeft(claim: BoardClaim): string {
  return claim.lease_text;
}

export const CONFLICT_LABEL: Record<string, string> = {
  'duplicate-task': 'same task',
  'path-overlap': 'paths overlap',
  'resource-clash': 'resource clash',
};

/** A claim's name where a task may be missing (a claim file that claims only paths). */
export function claimName(claim: BoardClaim): string {
  return claim.task ?? `(no task) ${claim.file}`;
}

/** A time as the reader's clock shows it; the raw RFC 3339 text stays in the title. */
const timeFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

export function localTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : timeFormat.format(t);
}

/** Seconds as Rail writes durations (`2h`, `1h30m`, `45m`, `90s`): formatting only. */
export function duration(secs: number): string {
  const units: [number, string][] = [
    [86400, 'd'],
    [3600, 'h'],
    [60, 'm'],
    [1, 's'],
  ];
  let rest = Math.max(0, Math.round(secs));
  let out = '';
  for (const [size, unit] of units) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return out || '0s';
}
