#!/usr/bin/env python3
"""Cost of work in flight (issue 43): the hooks of one shared checkout where 8 other agent
sessions each have files their tool calls wrote and did not commit.

    python3 bench/in_flight.py [--runs N] [--files N] [--sessions N] [--per N] [--rail PATH]

A real repository of `--files` tracked files (100 per directory, one commit), no claims. Each of
`--sessions` Claude Code sessions (`main~claude-…`, told apart by their payloads' session_id)
writes `--per` files through its hooks (PreToolUse, the write, PostToolUse), so each has that
many files in flight. Then, each hook call a fresh process, medians:

- pre-tool, a Write of a file nobody has in flight (the common call: each session's file read,
  no collision);
- pre-tool, a Write of another session's file in flight (denied: the file hashed against
  HEAD's blob, the holder's guard mark read);
- pre-tool with no work in flight at all (the hook as before, for comparison);
- after the tool: PreToolUse + PostToolUse of a Write (the note, then the write recorded and the
  session's own entries checked against HEAD), and PostToolUse alone.

Then `rail claim` of a folder nobody has in flight (a new task each run, released untimed), a
claim refused over a session's files, and `rail who` of a file in flight. With `--stations`, as
many worktrees of the whole checkout, each with a commit and uncommitted files of its own, and
claims again (each claim asks git of every station, for the claimed folder only) and the write
hooks again (each reads every station's commits not merged, as last asked of git). And a shell
command that commits (`git add -A && git commit`), judged before it runs: one `git status`.

The targets (issue 43): the hook median ≤ 5 ms and the after-tool check ≤ 10 ms, 8 sessions in
flight on 5,000 files; `rail claim` ≤ 20 ms there.
"""

import argparse
import json
import os
import statistics
import subprocess
import time

from common import GIT, ROOT, new_repo, rail_binary  # shared by the benches
RAIL = os.path.join(ROOT, "target", "release", "rail")


def sh(cmd, cwd, **kw):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


def timed(cmd, cwd, stdin):
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000, r.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--per", type=int, default=5)
    ap.add_argument("--rail", default=None)
    ap.add_argument("--stations", action="store_true", help="also measure claims with stations")
    args = ap.parse_args()
    global RAIL
    RAIL = rail_binary(args.rail)

    d = new_repo("rail-flight-bench-", empty_commit=False)
    for i in range(args.files):
        p = os.path.join(d, f"pkg{i // 100}", f"f{i % 100}.txt")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(f"file {i}: some committed content of about sixty bytes\n")
    sh(["git", "add", "-A"], d)
    sh(GIT + ["commit", "-q", "-m", "files"], d)
    sh([RAIL, "init"], d)
    sh(["git", "add", "-A"], d)
    sh(GIT + ["commit", "-q", "-m", "rail"], d)
    env = dict(os.environ)
    env.pop("RAIL_SESSION", None)
    hook = [RAIL, "hook", "claude"]

    def payload(event, session, rel, call):
        return json.dumps({
            "session_id": f"00000000-0000-4000-8000-0000000{session:05d}", "hook_event_name": event,
            "cwd": d, "tool_name": "Write", "tool_use_id": call,
            "tool_input": {"file_path": os.path.join(d, rel), "content": "x\n"}, "tool_response": {},
        }).encode()

    def run(event, session, rel, call):
        t = time.perf_counter()
        r = subprocess.run(hook, cwd=d, input=payload(event, session, rel, call), env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return (time.perf_counter() - t) * 1000, r.returncode

    def case(name, fn):
        samples = sorted(fn() for _ in range(args.runs))
        med = statistics.median(samples)
        print(f"  {name:52} median {med:6.2f} ms   p95 {samples[int(len(samples) * 0.95)]:6.2f} ms")
        return med

    def free_call():
        return run("PreToolUse", 99, "pkg49/f99.txt", "toolu_free")[0]

    for _ in range(10):
        free_call()
    case("pre-tool, no work in flight anywhere", free_call)

    # Each session writes its files through its hooks.
    for s in range(args.sessions):
        for k in range(args.per):
            rel = f"pkg{s}/f{k}.txt"
            code = run("PreToolUse", s, rel, f"toolu_{s}_{k}")[1]
            assert code == 0, (s, k, code)
            with open(os.path.join(d, rel), "a") as f:
                f.write(f"session {s}'s uncommitted change\n")
            run("PostToolUse", s, rel, f"toolu_{s}_{k}")
    flight = os.path.join(d, ".git", "rail", "flight")
    print(f"{args.files} tracked files; {len(os.listdir(flight)) - 1} sessions with {args.per} files "
          f"in flight each; {args.runs} runs per case")

    for _ in range(10):
        free_call()
    case("pre-tool, a file nobody has in flight", free_call)

    def collide():
        t, code = run("PreToolUse", 99, "pkg0/f0.txt", "toolu_collide")
        assert code == 2, code
        return t
    case("pre-tool, another session's file in flight (denied)", collide)

    n = [0]

    def both():
        n[0] += 1
        rel = f"pkg40/f{n[0] % 100}.txt"
        call = f"toolu_a{n[0]}"
        t1 = run("PreToolUse", 98, rel, call)[0]
        with open(os.path.join(d, rel), "a") as f:
            f.write("x\n")
        return t1 + run("PostToolUse", 98, rel, call)[0]
    case("after the tool: PreToolUse + PostToolUse of a Write", both)

    def after_only():
        n[0] += 1
        rel = f"pkg41/f{n[0] % 100}.txt"
        call = f"toolu_b{n[0]}"
        run("PreToolUse", 97, rel, call)
        with open(os.path.join(d, rel), "a") as f:
            f.write("x\n")
        return run("PostToolUse", 97, rel, call)[0]
    case("after the tool: PostToolUse alone (record)", after_only)

    # Claims against the work in flight: each claim a fresh task of a folder, released after
    # (not timed); a claim over a session's files is refused.
    claims = [0]

    def claim_free():
        claims[0] += 1
        task = f"t{claims[0]}"
        t, code = timed([RAIL, "--session", "bench", "claim", task, "--path", "pkg45/**"], d, None)
        assert code == 0, code
        sh([RAIL, "--session", "bench", "release", task, "--no-touched"], d)
        return t
    case("rail claim of a folder nobody has in flight", claim_free)

    def claim_refused():
        t, code = timed([RAIL, "--session", "bench", "claim", "over", "--path", "pkg0/**"], d, None)
        assert code == 1, code
        return t
    case("rail claim over a session's work in flight (refused)", claim_refused)
    case("rail who of a file in flight", lambda: timed([RAIL, "who", "pkg0/f0.txt"], d, None)[0])

    # A shell command that commits: what its `git add -A && git commit` would take is asked of
    # `git status` and judged against the work in flight before it runs (denied here: the
    # sessions' files are uncommitted).
    def commit_call():
        body = json.dumps({
            "session_id": "00000000-0000-4000-8000-000000000096", "hook_event_name": "PreToolUse",
            "cwd": d, "tool_name": "Bash", "tool_use_id": "toolu_commit",
            "tool_input": {"command": "git add -A && git commit -m everything"},
        }).encode()
        t = time.perf_counter()
        r = subprocess.run(hook, cwd=d, input=body, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        assert r.returncode == 2, r.returncode
        return (time.perf_counter() - t) * 1000
    case("pre-tool, `git add -A && git commit` (denied: a sweep)", commit_call)

    if args.stations:
        # Stations: `--sessions` worktrees of the whole checkout, each on its own branch with a
        # commit and `--per` uncommitted files of its own.
        for s_ in range(args.sessions):
            wt = f"{d}-st{s_}"
            sh(["git", "worktree", "add", "-q", "-b", f"st{s_}", wt], d)
            with open(os.path.join(wt, f"pkg{20 + s_}", "f0.txt"), "a") as f:
                f.write("committed on the station's branch\n")
            sh(["git", "commit", "-qam", "station work"], wt)
            for k in range(1, args.per + 1):
                with open(os.path.join(wt, f"pkg{20 + s_}", f"f{k}.txt"), "a") as f:
                    f.write("uncommitted in the station\n")
        print(f"{args.sessions} stations of {args.files} files each, {args.per} uncommitted files and "
              "one commit each")
        case("rail claim of a folder, stations present", claim_free)
        # Each write's hook also reads every station's commits not merged (kept per station
        # HEAD: the first call asks git once per station, the rest read what was kept).
        for _ in range(10):
            free_call()
        case("pre-tool, a file nobody has in flight, stations present", free_call)
        case("PreToolUse + PostToolUse of a Write, stations present", both)

        def claim_station_refused():
            t, code = timed([RAIL, "--session", "bench", "claim", "over2", "--path", "pkg20/**"], d, None)
            assert code == 1, code
            return t
        case("rail claim over a station's work (refused)", claim_station_refused)
        case("rail claim of everything (**), stations present (refused)",
             lambda: timed([RAIL, "--session", "bench", "claim", "all", "--path", "**"], d, None)[0])
    print(f"  (repository: {d})")


if __name__ == "__main__":
    main()
