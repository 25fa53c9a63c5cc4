#!/usr/bin/env python3
"""MCP round trips: `rail mcp` started once and initialized once, then a claim + release pair of
`tools/call` requests, N times; medians. The same pair by the CLI (a process per command) beside
it, on the same repository, for scale.

    python3 bench/mcp_latency.py [--runs N] [--rail BIN]   (builds rail in release mode first,
                                                            unless --rail names a binary)

A round trip is measured from writing the request line to reading its response line, so it
counts the pipe, JSON-RPC, the tool's work (lock, read, plan, journalled write, log) and the
answer. The rail holds 20 other claims, as in cli_latency.py.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from cli_latency import make_repo, run  # noqa: E402  (the same repository and runner)


class Server:
    def __init__(self, rail, cwd, env):
        self.proc = subprocess.Popen([rail, "mcp"], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def request(self, method, params):
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params}) + "\n"
        self.proc.stdin.write(line.encode())
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next_id:
                return answer

    def notify(self, method):
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.proc.stdin.flush()

    def call(self, tool, arguments):
        answer = self.request("tools/call", {"name": tool, "arguments": arguments})
        result = answer.get("result")
        if result is None or result.get("isError"):
            raise SystemExit(f"{tool} failed: {answer}")
        return result

    def close(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def median_ms(samples):
    return statistics.median(samples) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rail", help="the rail binary (default: build target/release/rail)")
    args = ap.parse_args()
    rail = os.path.abspath(args.rail) if args.rail else None
    if rail is None:
        subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "rail-cli"], cwd=ROOT,
                       check=True)
        rail = os.path.join(ROOT, "target", "release", "rail")

    d = make_repo(rail, prefix="rail-mcp-bench-")
    env = dict(os.environ, RAIL_SESSION="bench")
    for name in ("RAIL_DIR", "RAIL_NOW", "RAIL_OWNER_PID"):
        env.pop(name, None)

    start = time.perf_counter()
    server = Server(rail, d, env)
    server.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "bench", "version": "0"}})
    server.notify("notifications/initialized")
    startup = time.perf_counter() - start

    def pair(tool_args):
        def one(i):
            t0 = time.perf_counter()
            server.call("claim", {"task": f"{tool_args}{i}"})
            t1 = time.perf_counter()
            release = {"task": f"{tool_args}{i}"}
            if tool_args == "N":
                release["no_touched"] = True
            server.call("release", release)
            t2 = time.perf_counter()
            return t1 - t0, t2 - t1, t2 - t0
        return one

    # Warm up once, then measure.
    pair("W")(0)
    nt = [pair("N")(i) for i in range(args.runs)]
    tt = [pair("T")(i) for i in range(args.runs)]
    server.call("board", {})
    board = [0.0] * args.runs
    for i in range(args.runs):
        t0 = time.perf_counter()
        server.call("board", {})
        board[i] = time.perf_counter() - t0
    code = server.close()

    def cli_pair(i):
        t0 = time.perf_counter()
        run([rail, "claim", f"C{i}"], d, env)
        run([rail, "release", f"C{i}", "--no-touched"], d, env)
        return time.perf_counter() - t0

    cli_pair(-1)
    cli = [cli_pair(i) for i in range(args.runs)]

    print(f"runs per figure: {args.runs}; rail: {rail}; 20 other claims")
    print(f"rail mcp start + initialize:                    {startup * 1000:6.2f} ms (once)")
    print(f"MCP claim + release --no-touched round trips:   median {median_ms([p[2] for p in nt]):6.2f} ms "
          f"(claim {median_ms([p[0] for p in nt]):5.2f}, release {median_ms([p[1] for p in nt]):5.2f})")
    print(f"MCP claim + release (touched files from git):   median {median_ms([p[2] for p in tt]):6.2f} ms "
          f"(claim {median_ms([p[0] for p in tt]):5.2f}, release {median_ms([p[1] for p in tt]):5.2f})")
    print(f"MCP board (20 claims, the released log):       median {median_ms(board):6.2f} ms")
    print(f"CLI rail claim + rail release --no-touched:     median {median_ms(cli):6.2f} ms "
          f"(two processes)")
    print(f"server exit code at end of input: {code}")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
