#!/usr/bin/env python3
"""CLI latency: `rail claim` + `rail release` against the seed's flock one-liner pair, and
`rail check` on a 50-file change. Medians over many runs, on a real git repository.

    python3 bench/cli_latency.py [--runs N] [--rail BIN]   (builds rail in release mode first,
                                                            unless --rail names a binary)
    python3 bench/cli_latency.py --rail NEW --against OLD  also `rail claim` alone and the
                                                            --no-touched pair by NEW and OLD
                                                            alternately, run by run (so a
                                                            change of machine load hits both)
    python3 bench/cli_latency.py --paired [--runs 30]      issue 30's figure: a 50-claim rail,
                                                            the one-liner pair and the rail pair
                                                            (touched files listed) alternating
                                                            run by run, medians and their ratio

Both sides are started the same way (a process per command from Python), so process start-up
costs count on both sides.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import time

from common import GIT, ROOT, new_repo, rail_binary  # shared by the benches
RAIL = os.path.join(ROOT, "target", "release", "rail")


def run(cmd, cwd, env=None, shell=False):
    subprocess.run(cmd, cwd=cwd, env=env, shell=shell, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def timed(fn, runs):
    samples = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), samples


def make_repo(rail=None, claims=20, prefix="rail-bench-"):
    """A repository whose rail holds `claims` claims of five sessions (also used by mcp_latency)."""
    rail = rail or RAIL
    d = new_repo(prefix)
    run([rail, "init"], d)
    run(GIT + ["add", "-A"], d)
    run(GIT + ["commit", "-q", "-m", "rail"], d)
    for i in range(claims):
        run([rail, "claim", f"bg-{i}", "--session", f"s{i % 5}", "--path", f"pkg{i}/**"], d)
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rail", help="the rail binary to measure (default: build target/release/rail)")
    ap.add_argument("--against", help="another rail binary to compare with, alternating run by run")
    ap.add_argument("--paired", action="store_true",
                    help="only the paired figure: one-liner and rail pairs alternating, 50 claims")
    args = ap.parse_args()
    global RAIL
    RAIL = rail_binary(args.rail)

    d = make_repo(claims=50 if args.paired else 20)
    env = dict(os.environ, RAIL_SESSION="bench")
    claim_line = 'T{i} | bench | $(date -u +%FT%RZ)'

    def one_liner_pair(i):
        run(f"flock claims.md -c 'grep -q \"^T{i} |\" claims.md || echo \"{claim_line.format(i=i)}\" >> claims.md'",
            d, shell=True)
        run(f"flock claims.md -c 'sed -i \"/^T{i} |/d\" claims.md'", d, shell=True)

    def rail_pair(i):
        run([RAIL, "claim", f"R{i}"], d, env=env)
        run([RAIL, "release", f"R{i}"], d, env=env)

    def rail_pair_no_touched(i):
        run([RAIL, "claim", f"N{i}"], d, env=env)
        run([RAIL, "release", f"N{i}", "--no-touched"], d, env=env)

    # Warm the page cache and the binary once.
    one_liner_pair(-1)
    rail_pair(-1)
    if args.paired:
        sides = {"one-liner": [], "rail": []}
        for i in range(args.runs):
            order = (("one-liner", one_liner_pair), ("rail", rail_pair))
            for name, fn in order if i % 2 == 0 else reversed(order):
                t0 = time.perf_counter()
                fn(i)
                sides[name].append((time.perf_counter() - t0) * 1000)
        liner, rail = statistics.median(sides["one-liner"]), statistics.median(sides["rail"])
        print(f"paired, {args.runs} pairs each, 50 claims; rail: {RAIL}")
        print(f"one-liner pair (flock grep || echo, flock sed -i): median {liner:6.2f} ms")
        print(f"rail claim + rail release (touched listed):        median {rail:6.2f} ms"
              f"  ratio {rail / liner:4.2f}")
        shutil.rmtree(d, ignore_errors=True)
        return
    liner, _ = timed(one_liner_pair, args.runs)
    rail, _ = timed(rail_pair, args.runs)
    rail_nt, _ = timed(rail_pair_no_touched, args.runs)

    files = [f"pkg{i % 20}/src/file{i}.rs" for i in range(50)]
    check_env = dict(env, RAIL_SESSION="s0")

    def check(_):
        subprocess.run([RAIL, "check", "--warn-drift"] + files, cwd=d, env=check_env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    chk, _ = timed(check, args.runs)

    print(f"runs per figure: {args.runs}; rail: {RAIL}")
    print(f"flock one-liner claim + release (sed -i):   median {liner:6.2f} ms")
    print(f"rail claim + rail release (touched via git): median {rail:6.2f} ms  ratio {rail / liner:4.2f}")
    print(f"rail claim + rail release --no-touched:      median {rail_nt:6.2f} ms  ratio {rail_nt / liner:4.2f}")
    print(f"rail check, 50 changed files, 20 claims:     median {chk:6.2f} ms")

    if args.against:
        other = os.path.abspath(args.against)
        claims = {RAIL: [], other: []}
        pairs = {RAIL: [], other: []}
        for i in range(args.runs):
            for j, binary in enumerate((RAIL, other) if i % 2 == 0 else (other, RAIL)):
                task = f"A{i}-{j}"
                t0 = time.perf_counter()
                run([binary, "claim", task], d, env=env)
                t1 = time.perf_counter()
                run([binary, "release", task, "--no-touched"], d, env=env)
                t2 = time.perf_counter()
                claims[binary].append((t1 - t0) * 1000)
                pairs[binary].append((t2 - t0) * 1000)
        for name, binary in (("rail   ", RAIL), ("against", other)):
            print(f"{name} {binary}: rail claim median {statistics.median(claims[binary]):5.2f} ms, "
                  f"claim + release --no-touched median {statistics.median(pairs[binary]):5.2f} ms")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
