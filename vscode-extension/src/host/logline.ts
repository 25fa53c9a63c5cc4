// The few log lines the host writes itself: `lock-broken` and `recovered` happen in the lock and
// journal layer, before core is asked anything, so no plan carries them. Every other log line
// (claimed, released, taken, …) comes ready-made in core's plan.
//
// The format is docs/format.md's `time | event | task | session | key: value…`; core renders it.

import { core } from './core';

/** A time as Rail writes it: UTC with seconds, `date -u +%FT%TZ`. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A log line (without newline), rendered by rail-core like every other line of the log. */
export function renderLogLine(
  time: Date,
  event: string,
  task: string | null,
  session: string | null,
  details: Record<string, string> = {},
): string {
  return core().renderLogLine({ time: formatTime(time), event, task, session, details, line: null });
}
