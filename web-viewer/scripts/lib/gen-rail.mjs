// Large rails for the performance test and the measurements, generated so no big file is kept.

/** Generates a rail of `n` claims over `sessions` sessions: mostly distinct paths, some
 * overlaps, some shared and clashing resources, some waiting for others, spread over 5 hours. */
export function generateRail(n, sessions = 40) {
  const lines = ['# Claims', '', `A generated rail of ${n} claims.`, ''];
  for (let i = 0; i < n; i++) {
    const minute = (i * 7) % 300;
    const time = new Date(Date.UTC(2026, 9, 22, 10, 0) + minute * 60_000).toISOString().replace(':00.000Z', 'Z');
    let line = `task-${i} | session-${i % sessions} | ${time} | paths: src/mod${i}/**, docs/t${i}.md`;
    if (i % 97 === 0 && i + 1 < n) line = line.replace(', docs', `, src/mod${i + 1}/index.ts, docs`);
    if (i % 50 === 0) line += ` | resources: port:${3000 + (i % 7)}`;
    if (i % 211 === 5) line += ` | after: task-${i - 5}`;
    line += ` | purpose: work on **module ${i}** of the [plan](https://example.com/${i})`;
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}
