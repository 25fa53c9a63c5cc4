// The few log lines the host writes itself: `lock-broken` and `recovered` happen in the lock and
// journal layer, before core is asked anything, so no plan carries them. Every other log line
// (claimed, released, taken, …) comes ready-made in core's plan.
//
// The format is docs/format.md's `time | event | task | session | key: value…`, rendered exactly
// like rail-core's `LogEntry::render`: details in key order, `\` and `|` escaped, newlines blanked.

/** A time as Rail writes it: UTC with seconds, `date -u +%FT%TZ`. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

function escape(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\n\r]/g, ' ');
}

export function renderLogLine(
  time: Date,
  event: string,
  task: string | null,
  session: string | null,
  details: Record<string, string> = {},
): string {
  let out = `${formatTime(time)} | ${event} | ${escape(task ?? '-')} | ${escape(session ?? '-')}`;
  // rail-core keeps details in a BTreeMap: byte order of the keys (all ASCII here).
  for (const key of Object.keys(details).sort()) {
    const value = details[key];
    if (value) out += ` | ${key}: ${escape(value)}`;
  }
  return out;
}
