// The benchmark rail shared by bench/wasm-vs-native and bench/wasm-transfer: `total` claims,
// a tenth of them claim files, 5 path patterns each (one claim in 500 also names a file others
// name too: some conflicts), a resource on one claim in ten, 200 sessions with a mix of live,
// expiring and stale leases, and a log of total/5 lines.
export function benchRail(total) {
  const inFiles = Math.floor(total / 10);
  const inLines = total - inFiles;
  const pad = (n) => String(n).padStart(2, "0");
  // Claim times from 10:00 to 14:59 on the day; "now" is 15:00, leases 2h: a mix of states.
  const time = (i) => `2026-10-22T${pad(10 + (i % 5))}:${pad((i * 7) % 60)}Z`;
  const paths = (i) =>
    [0, 1, 2, 3, i % 500 === 4 ? -1 : 4]
      .map((k) => (k < 0 ? "src/shared/config.ts" : `src/area${i % 400}/mod${(i * 5 + k) % 997}/**`))
      .join(", ");
  const lines = ["# Claims", ""];
  for (let i = 0; i < inLines; i++) {
    let line = `task-${i} | session-${i % 200} | ${time(i)} | paths: ${paths(i)}`;
    if (i % 10 === 0) line += ` | resources: port:${3000 + (i % 40)}`;
    if (i % 25 === 0) line += ` | purpose: keep **task ${i}** going`;
    lines.push(line);
  }
  const claimFiles = [];
  for (let i = inLines; i < total; i++) {
    const list = paths(i)
      .split(", ")
      .map((p) => `  - ${p}`)
      .join("\n");
    let text = `owner: session-x${i}\ntask: task-${i}\nsince: ${time(i)}\npaths:\n${list}\n`;
    if (i % 10 === 0) text += `resources:\n  - shared:simulator\n`;
    claimFiles.push({ path: `claims/session-x${i}.yaml`, text });
  }
  const log = [];
  for (let i = 0; i < Math.floor(total / 5); i++) {
    log.push(`${time(i).replace("Z", ":00Z")} | claimed | task-${i} | session-${i % 200} | paths: src/a${i}/**`);
  }
  return {
    texts: {
      claims: { path: "claims.md", text: `${lines.join("\n")}\n` },
      claim_files: claimFiles,
      log: { path: "claims.log", text: `${log.join("\n")}\n` },
    },
    facts: { now: "2026-10-22T15:00:00Z", host: "devbox", commits: { "session-7": "2026-10-22T14:30:00Z" } },
  };
}
