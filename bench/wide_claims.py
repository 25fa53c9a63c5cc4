#!/usr/bin/env python3
"""Wide claims (issue 28, finding 4): two live claims of N path patterns each (`**/*aK*` against
`**/*bK*`: every pattern pair overlaps and needs the automata), then `rail board` and an
unrelated `rail claim` on that rail, each timed, and how long `rail claim` held the rail lock.

    python3 bench/wide_claims.py [--sizes 100,200,400] [--runs N] [--rail BIN] [--timeout S]

The lock hold is read from `strace -f -tt` of the claim: from the `link` that creates
`claims.md.lock` to the `unlink` that removes it (strace slows the process, so it is an upper
bound). Without strace the hold is not reported. Builds rail in release mode first unless
--rail names a binary.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import time

from common import GIT, new_repo, rail_binary  # shared by the benches


def run(cmd, cwd, env=None, timeout=None):
    subprocess.run(cmd, cwd=cwd, env=env, check=True, timeout=timeout,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_repo(rail, n):
    d = new_repo("rail-wide-")
    g = GIT
    run([rail, "init"], d)
    run(g + ["add", "-A"], d)
    run(g + ["commit", "-q", "-m", "rail"], d)
    # Written as claims.md lines (what a claim of N paths writes), dated a minute ago: live.
    stamp = time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime(time.time() - 60))
    with open(os.path.join(d, "claims.md"), "a") as f:
        for session, letter in (("alice", "a"), ("bob", "b")):
            paths = ", ".join(f"**/*{letter}{k}*" for k in range(n))
            f.write(f"wide-{letter} | {session} | {stamp} | lease: 8h | paths: {paths}\n")
    return d


def timed(cmd, cwd, env, timeout):
    start = time.perf_counter()
    try:
        subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - start


def lock_hold(rail, d, env, task, timeout):
    """Seconds between the link creating claims.md.lock and the unlink removing it."""
    if not shutil.which("strace"):
        return None
    trace = os.path.join(d, "strace.txt")
    try:
        subprocess.run(["strace", "-f", "-tt", "-e", "trace=link,linkat,unlink,unlinkat", "-o", trace,
                        rail, "claim", task], cwd=d, env=env, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None
    taken = released = None
    stamp = re.compile(r"^\d+\s+(\d+):(\d+):(\d+\.\d+) ")
    for line in open(trace):
        m = stamp.match(line)
        if not m or "claims.md.lock\"" not in line:
            continue
        t = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
        if "link" in line and "unlink" not in line and "= 0" in line:
            taken = t
        elif "unlink" in line and taken is not None:
            released = t
    os.remove(trace)
    if taken is None or released is None:
        return None
    return released - taken


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,200,400")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rail", help="the rail binary to measure (default: build target/release/rail)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds before a run counts as > timeout")
    args = ap.parse_args()
    rail = rail_binary(args.rail)
    print(f"rail: {rail}; runs per figure: {args.runs}")
    for n in [int(s) for s in args.sizes.split(",")]:
        d = make_repo(rail, n)
        size = os.path.getsize(os.path.join(d, "claims.md"))
        env = dict(os.environ, RAIL_SESSION="carol")
        boards, claims, holds = [], [], []
        for i in range(args.runs):
            boards.append(timed([rail, "board", "--json"], d, env, args.timeout))
            if boards[-1] is None:
                break
        for i in range(args.runs):
            claims.append(timed([rail, "claim", f"other-{i}", "--path", f"docs/other{i}.md"], d, env, args.timeout))
            if claims[-1] is None:
                break
            run([rail, "release", f"other-{i}", "--no-touched"], d, env=env, timeout=args.timeout)
        for i in range(args.runs):
            hold = lock_hold(rail, d, env, f"held-{i}", args.timeout)
            if hold is not None:
                holds.append(hold)
            run([rail, "release", f"held-{i}", "--no-touched"], d, env=env, timeout=args.timeout)

        def fig(xs):
            if not xs or any(x is None for x in xs):
                return f"> {args.timeout:.0f} s (timed out)"
            return f"median {statistics.median(xs) * 1000:8.1f} ms, max {max(xs) * 1000:8.1f} ms"

        print(f"N={n} patterns per claim (claims.md {size} bytes)")
        print(f"  rail board --json          {fig(boards)}")
        print(f"  rail claim (unrelated)     {fig(claims)}")
        if holds:
            print(f"  lock held by rail claim    median {statistics.median(holds) * 1000:8.2f} ms, "
                  f"longest {max(holds) * 1000:8.2f} ms (under strace)")
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
