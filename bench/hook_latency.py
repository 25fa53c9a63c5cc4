#!/usr/bin/env python3
"""Latency of `rail hook claude` per call (it runs on every edit an agent makes).

    python3 bench/hook_latency.py [--runs N] [--claims N] [--rail PATH]

A real repository with N claims; Edit payloads that are allowed, warned and denied, Bash
payloads read by the shell grammar (simple, compound, a `bash -c` string, a symlink followed, a
long generated script). Medians over many runs, each a fresh process fed its payload on stdin.
`--rail` measures another build (e.g. an older one) instead of building this tree's.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAIL = os.path.join(ROOT, "target", "release", "rail")


def sh(cmd, cwd, **kw):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--claims", type=int, default=50)
    ap.add_argument("--rail", default=None)
    args = ap.parse_args()
    global RAIL
    if args.rail:
        RAIL = os.path.abspath(args.rail)
    else:
        subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "rail-cli"], cwd=ROOT, check=True)

    d = tempfile.mkdtemp(prefix="rail-hook-bench-")
    g = ["git", "-c", "user.name=b", "-c", "user.email=b@e.invalid"]
    sh(["git", "init", "-q", "-b", "main"], d)
    sh(g + ["commit", "-q", "--allow-empty", "-m", "init"], d)
    sh([RAIL, "init"], d)
    for i in range(args.claims):
        sh([RAIL, "claim", f"t{i}", "--session", f"s{i}", "--path", f"pkg{i}/**"], d)
    sh(g + ["checkout", "-q", "-b", "s0"], d)
    os.makedirs(os.path.join(d, "pkg5"), exist_ok=True)
    os.symlink("pkg5", os.path.join(d, "link"))
    long_script = "\n".join(
        f"if [ -f pkg0/f{i} ]; then cp pkg0/f{i} pkg0/g{i} && echo ok >> pkg0/log; fi" for i in range(200)
    )

    def payload(tool, tool_input):
        return json.dumps({
            "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": d,
            "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
        }).encode()

    cases = {
        "Edit allowed (own path)": payload("Edit", {"file_path": f"{d}/pkg0/a.rs", "old_string": "a", "new_string": "b"}),
        "Edit warned (outside scope)": payload("Edit", {"file_path": f"{d}/docs/x.md", "old_string": "a", "new_string": "b"}),
        "Edit denied (another's path)": payload("Edit", {"file_path": f"{d}/pkg7/a.rs", "old_string": "a", "new_string": "b"}),
        "Bash denied (sed -i)": payload("Bash", {"command": "sed -i 's/a/b/' pkg3/x.rs && echo done"}),
        "Bash, nothing written": payload("Bash", {"command": "cargo test --workspace"}),
        "Bash compound, allowed": payload("Bash", {"command": "cd pkg0 && for f in a b; do cp x \"$f.rs\"; done 2>&1 | tee log.txt"}),
        "Bash bash -c, denied": payload("Bash", {"command": "bash -c 'cd pkg3 && rm -f x.rs'"}),
        "Bash via symlink, denied": payload("Bash", {"command": "echo x > link/a.rs"}),
        "Bash, 200-line script (16 KB)": payload("Bash", {"command": long_script}),
    }
    print(f"rail hook claude, {args.claims} claims, {args.runs} runs per case")
    for name, data in cases.items():
        samples = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run([RAIL, "hook", "claude"], cwd=d, input=data, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            samples.append((time.perf_counter() - start) * 1000)
        samples.sort()
        print(f"  {name:32} median {statistics.median(samples):5.2f} ms   p95 {samples[int(len(samples) * 0.95)]:5.2f} ms")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
