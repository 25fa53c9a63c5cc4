#!/usr/bin/env python3
"""A crowded rail (issue 41, finding 5): N live one-line claims of `src/**`, each its own session,
so that every pair of claims overlaps. Measures what `rail validate --ci` and `rail board --json`
print, their time and peak memory, and the wasm board in Node (as the VS Code extension and the
web board build it), for one build or two alternated.

    python3 bench/crowded_claims.py [--claims 1500] [--pairs 3] [--rail BIN] [--against BIN]
                                    [--wasm PKG] [--wasm-against PKG] [--timeout S] [--memory GB]

--rail is the binary measured (default: this tree's release build, built first); --against a
second binary (e.g. a build of the commit before), run alternately with the first, which one
goes first alternating too. --wasm / --wasm-against are wasm packages built for Node (default:
wasm/pkg/node, built by scripts/build-wasm.sh). Every run is one process, limited to --timeout
seconds and (native runs) --memory GB of address space; a run past either is reported as
such. Prints each run and then medians; sizes are bytes of stdout (native) or of JSON.stringify of the board
(wasm), memory is the process's peak resident set (ru_maxrss).
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time

from common import GIT, ROOT, new_repo, quiet, rail_binary  # shared by the benches


def make_rail(rail, n):
    """A repository whose claims.md holds `n` live claims of `src/**`, one session each."""
    d = new_repo("rail-crowded-")
    quiet([rail, "init"], d)
    quiet(GIT + ["add", "-A"], d)
    quiet(GIT + ["commit", "-q", "-m", "rail"], d)
    stamp = time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime(time.time() - 60))
    with open(os.path.join(d, "claims.md"), "a") as f:
        for i in range(n):
            f.write(f"t{i:04d} | s{i:04d} | {stamp} | paths: src/**\n")
    return d


def limited(memory_gb):
    def apply():
        limit = int(memory_gb * 1024**3)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def measure(cmd, cwd, timeout, memory_gb, env=None):
    """Runs `cmd` (within `memory_gb` of address space, unless None); returns (seconds, stdout
    bytes, peak RSS in KB, exit code or 'timeout') and the last stdout line (the wasm helper's
    answer)."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         preexec_fn=limited(memory_gb) if memory_gb else None)
    size, last = 0, b""
    # Killed from a timer: a run may compute for minutes before it prints anything.
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    while True:
        chunk = p.stdout.read1(1 << 20)
        if not chunk:
            break
        size += len(chunk)
        last = (last + chunk)[-4096:]
    timed_out = not timer.is_alive()
    timer.cancel()
    _, status, usage = os.wait4(p.pid, 0)
    seconds = time.perf_counter() - start
    code = "timeout" if timed_out else os.waitstatus_to_exitcode(status)
    line = last.decode("utf8", "replace").strip().splitlines()[-1:] or [""]
    return seconds, size, usage.ru_maxrss, code, line[0]


def native(rail, d, args, timeout, memory_gb):
    s, size, rss, code, _ = measure([rail, *args], d, timeout, memory_gb)
    return {"s": s, "bytes": size, "rss_kb": rss, "code": code}


def wasm(pkg, d, now, timeout):
    helper = os.path.join(ROOT, "bench", "crowded_board.mjs")
    # No address-space limit: V8 reserves guard regions for wasm memory far beyond what it uses,
    # and Node does not start under one. Its peak resident set is still measured.
    s, _, rss, code, line = measure(["node", helper, pkg, os.path.join(d, "claims.md"), now], d,
                                    timeout, None)
    out = {"s": s, "rss_kb": rss, "code": code}
    try:
        answer = json.loads(line)
        out.update({"board_ms": answer["ms"], "bytes": answer.get("json"), "error": answer.get("error")})
    except (ValueError, KeyError):
        out["error"] = f"no answer (exit {code})"
    return out


def show(label, r):
    size = f"{r['bytes'] / 1e6:9.2f} MB" if r.get("bytes") is not None else "        - MB"
    took = f"{r['board_ms'] / 1000:6.2f} s board()" if "board_ms" in r else f"{r['s']:6.2f} s"
    note = f"  {r['error']}" if r.get("error") else ""
    print(f"  {label:34} {took}  {size}  {r['rss_kb'] / 1024:8.0f} MB peak  exit {r['code']}{note}",
          flush=True)


def median(rows, key):
    xs = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--claims", type=int, default=1500)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--rail")
    ap.add_argument("--against")
    ap.add_argument("--wasm", default=os.path.join(ROOT, "wasm", "pkg", "node"))
    ap.add_argument("--wasm-against")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--memory", type=float, default=4, help="GB of address space per process")
    args = ap.parse_args()

    rails = [("rail", rail_binary(args.rail))] + ([("against", os.path.abspath(args.against))] if args.against else [])
    pkgs = [("wasm", os.path.abspath(args.wasm))] + ([("wasm-against", os.path.abspath(args.wasm_against))] if args.wasm_against else [])
    d = make_rail(rails[0][1], args.claims)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    size = os.path.getsize(os.path.join(d, "claims.md"))
    print(f"{args.claims} claims of src/** ({size / 1000:.0f} KB claims.md), {args.pairs} rounds, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    results = {}
    for round_ in range(args.pairs):
        order = rails if round_ % 2 == 0 else rails[::-1]
        wasm_order = pkgs if round_ % 2 == 0 else pkgs[::-1]
        print(f"round {round_ + 1}:", flush=True)
        for name, binary in order:
            for what, argv in (("validate --ci", ["validate", "--ci"]), ("board --json", ["board", "--json"])):
                r = native(binary, d, argv, args.timeout, args.memory)
                results.setdefault((name, what), []).append(r)
                show(f"{name} {what}", r)
        for name, pkg in wasm_order:
            r = wasm(pkg, d, now, args.timeout)
            results.setdefault((name, "board()"), []).append(r)
            show(f"{name} board() in Node", r)
    print(f"medians (load average now {' '.join(f'{x:.1f}' for x in os.getloadavg())}):")
    for (name, what), rows in results.items():
        s = median(rows, "board_ms")
        s = s / 1000 if s is not None else median(rows, "s")
        b = median(rows, "bytes")
        size = f"{b / 1e6:9.2f} MB" if b is not None else "        - MB"
        codes = sorted({str(r["code"]) for r in rows})
        errors = sorted({r["error"] for r in rows if r.get("error")})
        print(f"  {name + ' ' + what:34} {s:6.2f} s  {size}  {median(rows, 'rss_kb') / 1024:8.0f} MB peak"
              f"  exit {','.join(codes)}{'  ' + '; '.join(errors) if errors else ''}")
    quiet(["rm", "-rf", d], "/")


if __name__ == "__main__":
    sys.exit(main())
