#!/usr/bin/env python3
"""Cost of verifying after the tool: `rail hook claude` PreToolUse (which, allowed, takes the
snapshot) plus PostToolUse (which compares), per tool call, on a repository of N tracked files.

    python3 bench/after_tool.py [--runs N] [--files N] [--watched N] [--dirty N] [--rail PATH]

A real repository of `--files` tracked files (100 per directory, about 60 bytes each), one
committed. Eight other sessions hold claims on `--watched` of those files' directories (the
snapshot walks them), `--dirty` of those files changed and not committed (their bytes are kept);
the acting session holds its own directory. Cases, each a fresh process per hook call, medians:

- before + after: a Bash call (`python3 x.py`, which the shell reader cannot see into) that writes
  nothing in others' paths, PreToolUse then PostToolUse;
- before only and after only, the same;
- the pre-tool hook with nobody else's claims (no snapshot: the hook as it was);
- `git status` of the watched directories alone (what the snapshot spends on git);
- a violating call (one file written into another session's path, then put back).

The target: before + after together within 10 ms median at 5,000 tracked files.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

from common import GIT, ROOT, new_repo, rail_binary  # shared by the benches
RAIL = os.path.join(ROOT, "target", "release", "rail")


def sh(cmd, cwd, **kw):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


def timed(cmd, cwd, stdin, env):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, input=stdin, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--watched", type=int, default=800)
    ap.add_argument("--dirty", type=int, default=20)
    ap.add_argument("--rail", default=None)
    args = ap.parse_args()
    global RAIL
    RAIL = rail_binary(args.rail)

    d = new_repo("rail-after-bench-", empty_commit=False)
    g = GIT
    dirs = (args.files + 99) // 100
    for i in range(args.files):
        p = os.path.join(d, f"pkg{i // 100}", f"f{i % 100}.txt")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(f"file {i}: some committed content of about sixty bytes\n")
    sh(["git", "add", "-A"], d)
    sh(g + ["commit", "-q", "-m", "files"], d)
    sh([RAIL, "init"], d)
    watched_dirs = max(1, args.watched // 100)
    per = max(1, watched_dirs // 8)
    for s in range(8):
        paths = [f"pkg{k}/**" for k in range(s * per, min((s + 1) * per, watched_dirs))]
        if not paths:
            continue
        cmd = [RAIL, "claim", f"t{s}", "--session", f"s{s}"]
        for p in paths:
            cmd += ["--path", p]
        sh(cmd, d)
    own = f"pkg{dirs - 1}/**"
    sh([RAIL, "claim", "mine", "--session", "beta", "--path", own], d)
    for i in range(args.dirty):
        with open(os.path.join(d, f"pkg{i % watched_dirs}", f"f{i // watched_dirs}.txt"), "a") as f:
            f.write("uncommitted work of its owner\n")
    tracked = subprocess.run(["git", "ls-files"], cwd=d, capture_output=True, text=True).stdout.count("\n")

    def payload(event, tool_id="toolu_b"):
        return json.dumps({
            "session_id": "s", "hook_event_name": event, "cwd": d, "tool_name": "Bash",
            "tool_use_id": tool_id, "tool_input": {"command": "python3 x.py"}, "tool_response": {},
        }).encode()

    env = dict(os.environ, RAIL_SESSION="beta")
    hook = [RAIL, "hook", "claude"]
    pre, post = payload("PreToolUse"), payload("PostToolUse")
    print(f"{tracked} tracked files; others' claims cover {watched_dirs * 100} of them "
          f"({watched_dirs} directories), {args.dirty} changed; {args.runs} runs per case")

    def case(name, fn):
        samples = sorted(fn() for _ in range(args.runs))
        med = statistics.median(samples)
        print(f"  {name:42} median {med:6.2f} ms   p95 {samples[int(len(samples) * 0.95)]:6.2f} ms")
        return med

    for _ in range(20):
        timed(hook, d, pre, env)
        timed(hook, d, post, env)
    both = case("before + after (PreToolUse, PostToolUse)", lambda: timed(hook, d, pre, env) + timed(hook, d, post, env))
    case("before only (PreToolUse, snapshot)", lambda: timed(hook, d, pre, env))

    def after_only():
        timed(hook, d, pre, env)
        return timed(hook, d, post, env)
    case("after only (PostToolUse, compare)", after_only)
    roots = [f"pkg{k}" for k in range(watched_dirs)]
    case("(git status of those directories, for comparison)", lambda: timed(
        ["git", "--literal-pathspecs", "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all",
         "--ignored=matching", "--no-renames", "--"] + roots, d, b"", env))
    env_alone = dict(os.environ, RAIL_SESSION="s0")
    # s0 sees the others' claims too; with nobody else's claims there is nothing to snapshot.
    solo = tempfile.mkdtemp(prefix="rail-after-bench-solo-")
    sh(["git", "clone", "-q", d, solo], d)
    sh([RAIL, "init"], solo)
    sh([RAIL, "claim", "mine", "--session", "beta", "--path", own], solo)
    solo_pre = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "cwd": solo, "tool_name": "Bash",
                           "tool_input": {"command": "python3 x.py"}}).encode()
    case("pre-tool hook, no other session's claims", lambda: timed(hook, solo, solo_pre, env))

    victim = os.path.join(d, "pkg0", "f99.txt")

    def violate():
        t = timed(hook, d, pre, env)
        with open(victim, "w") as f:
            f.write("overwritten")
        return t + timed(hook, d, post, env)
    case("violating call, put back (before + after)", violate)
    del env_alone
    print(f"  (repository: {d})")
    return both


if __name__ == "__main__":
    main()
