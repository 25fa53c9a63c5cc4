#!/usr/bin/env python3
"""A rail aged a year against a new one (issue 41, finding 4): `rail claim`, `rail release`,
`rail board --json`, a Claude Edit hook call and a Stop (which renews under the lock).

    python3 bench/aged_rail.py [--rail PATH] [--log-lines N] [--released N] [--runs N]

The aged rail: 40 live claims, and a claims.log of `--log-lines` lines (default a million,
about 80 MB) — a year of claims, renewals, refusals and `--released` released claims — as a
rail from before segments has it. The new rail: the same claims and an empty log. Each case is
a fresh process; medians over `--runs`. Before segments, every case but the Edit hook fails on
the aged rail (exit 2: claims.log past the 16 MiB Rail reads). With them, the first change seals
the whole old log into claims-log/ (timed alone, as "first change (seals)"); every run after it
works on a log of a few lines. `--rail` measures another build (e.g. /work/bin/rail-new).
"""

import argparse
import json
import os
import statistics
import subprocess
import time

from common import GIT, new_repo, quiet, rail_binary


def make_rail(rail, log_lines, released):
    d = new_repo("rail-aged-bench-")
    quiet([rail, "init"], d)
    for i in range(40):
        quiet([rail, "claim", f"live{i}", "--session", f"s{i}", "--path", f"pkg{i}/**"], d)
    if log_lines:
        kinds = ["renewed | live{s} | s{s}", "refused | live{s} | w{s} | by: hook claude | holder: s{s} | path: pkg{s}/a.rs",
                 "claimed | t{i} | w{s} | paths: work{s}/**", "released | t{i} | w{s} | touched: work{s}/a.rs"]
        every = max(1, log_lines // max(1, released) // 2)
        with open(os.path.join(d, "claims.log"), "a") as log:
            n = 0
            for i in range(log_lines):
                day, minute = divmod(i * 525600 // log_lines, 24 * 60)
                month, mday = divmod(day, 28)
                stamp = f"2026-{1 + month % 12:02}-{1 + mday:02}T{minute // 60:02}:{minute % 60:02}:00Z"
                if i % every == 0 and n < 2 * released:
                    kind = kinds[2 + n % 2]
                    n += 1
                else:
                    kind = kinds[i % 2]
                log.write(f"{stamp} | {kind.format(i=n // 2, s=i % 40)}\n")
    quiet(GIT + ["add", "-A"], d)
    quiet(GIT + ["commit", "-qm", "rail"], d)
    return d


def run(rail, d, args, stdin=None, session="bench"):
    env = dict(os.environ, RAIL_SESSION=session)
    t = time.perf_counter()
    p = subprocess.run([rail] + args, cwd=d, input=stdin, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return (time.perf_counter() - t) * 1000, p.returncode, p.stderr.decode(errors="replace")


def measure(rail, dirs, runs):
    """Each case over every rail in turn, run by run (alternated: a busy machine slows both)."""
    def payloads(d):
        edit = json.dumps({"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": d,
                           "hook_event_name": "PreToolUse", "tool_name": "Edit",
                           "tool_input": {"file_path": f"{d}/pkg7/a.rs", "old_string": "a", "new_string": "b"}}).encode()
        stop = json.dumps({"session_id": "bench", "cwd": d, "hook_event_name": "Stop",
                           "stop_hook_active": False}).encode()
        return {"board --json": (["board", "--json"], None),
                "hook claude Edit (denied)": (["hook", "claude"], edit),
                "hook claude Stop (renews)": (["hook", "claude"], stop)}
    out = {d: {} for d in dirs}
    for d in dirs:
        out[d]["first change (seals)"] = run(rail, d, ["claim", "first", "--path", "first/**"])
    cases = ["claim + release (each)", "board --json", "hook claude Edit (denied)", "hook claude Stop (renews)"]
    for name in cases:
        acc = {d: ([], set(), "") for d in dirs}
        for i in range(runs):
            for d in dirs:
                times, codes, err = acc[d]
                if name.startswith("claim"):
                    a = run(rail, d, ["claim", f"b{i}", "--path", f"b{i}/**"])
                    b = run(rail, d, ["release", f"b{i}"])
                    times.append((a[0] + b[0]) / 2)
                    codes |= {a[1], b[1]}
                    err = err or a[2] or b[2]
                else:
                    args, stdin = payloads(d)[name]
                    ms, code, e = run(rail, d, args, stdin)
                    times.append(ms)
                    codes.add(code)
                    err = err or e
                acc[d] = (times, codes, err)
        for d in dirs:
            times, codes, err = acc[d]
            out[d][name] = (statistics.median(times), max(codes), err)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rail", default=None)
    ap.add_argument("--log-lines", type=int, default=1_000_000)
    ap.add_argument("--released", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    rail = rail_binary(args.rail)
    rails = {"new rail": make_rail(rail, 0, args.released),
             f"aged rail ({args.log_lines:,} log lines)": make_rail(rail, args.log_lines, args.released)}
    sizes = {l: os.path.getsize(os.path.join(d, "claims.log")) for l, d in rails.items()}
    measured = measure(rail, list(rails.values()), args.runs)
    print(f"rail: {rail}")
    labels = list(rails)
    print(f"{'case':32}" + "".join(f"{l:>40}" for l in labels))
    print(f"{'claims.log before':32}" + "".join(f"{sizes[l] / 1e6:>37.1f} MB" for l in labels))
    for case in measured[rails[labels[0]]]:
        row = f"{case:32}"
        for l in labels:
            ms, code, err = measured[rails[l]][case]
            row += f"{f'{ms:.1f} ms' + ('' if code == 0 else f' (exit {code})'):>40}"
        print(row)
    for l in labels:
        for case, (_, code, err) in measured[rails[l]].items():
            if code not in (0, 1) and err and "Edit" not in case:
                print(f"{l}, {case}: {err.strip().splitlines()[-1][:160]}")
                break


if __name__ == "__main__":
    main()
