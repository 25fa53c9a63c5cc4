#!/usr/bin/env python3
"""The shared rail on a loopback git remote (`git daemon` on 127.0.0.1):

  1. latency of one `rail claim` (fetch, plan, commit, push, mirror) with no contention;
  2. throughput of successful claims when 3 machines x 8 processes race for the same 20 tasks.

    python3 bench/shared_remote.py [--claims N]
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAIL = os.path.join(ROOT, "target", "release", "rail")


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--claims", type=int, default=40)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "rail-cli"], cwd=ROOT, check=True)

    base = tempfile.mkdtemp(prefix="rail-shared-bench-")
    bare = os.path.join(base, "rail.git")
    git("init", "-q", "--bare", "-b", "main", bare, cwd=base)
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    port = free_port()
    daemon = subprocess.Popen(
        [os.path.join(exec_path, "git-daemon"), "--reuseaddr", "--export-all", "--enable=receive-pack",
         "--listen=127.0.0.1", f"--port={port}", f"--base-path={base}", base],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    url = f"git://127.0.0.1:{port}/rail.git"
    try:
        machines = []
        for i in range(3):
            d = os.path.join(base, f"m{i}")
            git("clone", "-q", url, d, cwd=base)
            git("config", "user.email", "b@e.invalid", cwd=d)
            git("config", "user.name", "bench", cwd=d)
            if i == 0:
                git("commit", "-q", "--allow-empty", "-m", "init", cwd=d)
                git("push", "-q", "origin", "HEAD:main", cwd=d)
            else:
                git("pull", "-q", "origin", "main", cwd=d)
            subprocess.run([RAIL, "init", "--remote", "origin"], cwd=d, check=True, stdout=subprocess.DEVNULL)
            machines.append(d)

        samples = []
        for n in range(args.claims):
            start = time.perf_counter()
            subprocess.run([RAIL, "claim", f"solo-{n}", "--session", "bench"], cwd=machines[0], check=True,
                           stdout=subprocess.DEVNULL)
            samples.append((time.perf_counter() - start) * 1000)
        samples.sort()
        print(f"shared rail over {url}")
        print(f"  one claim, no contention: median {statistics.median(samples):6.1f} ms, "
              f"p90 {samples[int(len(samples) * 0.9)]:6.1f} ms ({args.claims} claims)")

        tasks = [f"race-{i}" for i in range(20)]
        start = time.perf_counter()
        procs = []
        for mi, d in enumerate(machines):
            for p in range(8):
                order = [tasks[(i + p * 5 + mi * 7) % 20] for i in range(20)]
                script = " ; ".join(f'"$RAIL" claim {t} --session m{mi}-p{p} >/dev/null 2>&1; echo $?' for t in order)
                procs.append(subprocess.Popen(["sh", "-c", script], cwd=d, env=dict(os.environ, RAIL=RAIL),
                                              stdout=subprocess.PIPE, text=True))
        outcomes = [line for p in procs for line in p.communicate()[0].split()]
        elapsed = time.perf_counter() - start
        wins = outcomes.count("0")
        print(f"  3 machines x 8 processes racing for 20 tasks: {wins} successful claims "
              f"(of {len(outcomes)} attempts) in {elapsed:.1f} s = {wins / elapsed:.2f} successful claims/s; "
              f"{len(outcomes) / elapsed:.1f} attempts answered/s")
    finally:
        daemon.kill()
        daemon.wait()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
