#!/usr/bin/env python3
"""The shared rail on a loopback git remote (`git daemon` on 127.0.0.1):

  1. latency of one `rail claim` (fetch, plan, commit, push, mirror) with no contention;
  2. throughput when MACHINES clones x PROCS processes each claim distinct tasks at once
     (nobody is refused: every attempt should succeed), and the slowest single claim.

    python3 bench/shared_remote.py [--machines 4] [--procs 4] [--claims-per-proc 4]
                                   [--solo 20] [--rail PATH]

`--rail PATH` measures that binary instead of building target/release/rail (to measure an
older commit's binary against a newer one on the same machine, minutes apart).
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--machines", type=int, default=4)
    ap.add_argument("--procs", type=int, default=4, help="processes per machine")
    ap.add_argument("--claims-per-proc", type=int, default=4)
    ap.add_argument("--solo", type=int, default=20, help="uncontended claims to time first (0: none)")
    ap.add_argument("--rail", help="the rail binary to measure (default: build target/release/rail)")
    args = ap.parse_args()
    # The racers run in the clones, so a relative path would name nothing there.
    rail = os.path.abspath(args.rail) if args.rail else None
    if not rail:
        subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "rail-cli"], cwd=ROOT, check=True)
        rail = os.path.join(ROOT, "target", "release", "rail")

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
        for i in range(args.machines):
            d = os.path.join(base, f"m{i}")
            git("clone", "-q", url, d, cwd=base)
            git("config", "user.email", "b@e.invalid", cwd=d)
            git("config", "user.name", "bench", cwd=d)
            if i == 0:
                git("commit", "-q", "--allow-empty", "-m", "init", cwd=d)
                git("push", "-q", "origin", "HEAD:main", cwd=d)
            else:
                git("pull", "-q", "origin", "main", cwd=d)
            subprocess.run([rail, "init", "--remote", "origin"], cwd=d, check=True, stdout=subprocess.DEVNULL)
            machines.append(d)

        print(f"shared rail over {url} ({rail})")
        if args.solo:
            samples = []
            for n in range(args.solo):
                start = time.perf_counter()
                subprocess.run([rail, "claim", f"solo-{n}", "--session", "bench"], cwd=machines[0], check=True,
                               stdout=subprocess.DEVNULL)
                samples.append((time.perf_counter() - start) * 1000)
            samples.sort()
            print(f"  one claim, no contention: median {statistics.median(samples):6.1f} ms, "
                  f"p90 {samples[int(len(samples) * 0.9)]:6.1f} ms ({args.solo} claims)")

        # Every racer claims its own tasks, one after another: each attempt should succeed, so
        # claims/s is the rail's throughput and a non-zero exit is a failure.
        results = []  # (seconds, exit code, stderr)
        lock = threading.Lock()

        def racer(d, mi, p):
            for k in range(args.claims_per_proc):
                t0 = time.perf_counter()
                out = subprocess.run([rail, "claim", f"m{mi}-p{p}-t{k}", "--session", f"m{mi}-p{p}"], cwd=d,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                with lock:
                    results.append((time.perf_counter() - t0, out.returncode, out.stderr.strip()))

        threads = [threading.Thread(target=racer, args=(d, mi, p))
                   for mi, d in enumerate(machines) for p in range(args.procs)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        wins = sum(1 for _, c, _ in results if c == 0)
        failed = [(c, e) for _, c, e in results if c != 0]
        slowest = max(s for s, _, _ in results)
        median = statistics.median(s for s, _, _ in results)
        racers = args.machines * args.procs
        print(f"  {args.machines} machines x {args.procs} processes = {racers} racers, "
              f"{args.claims_per_proc} distinct claims each: {wins} of {len(results)} succeeded in {elapsed:.1f} s "
              f"= {wins / elapsed:.2f} claims/s; claim latency median {median:.2f} s, slowest {slowest:.2f} s")
        commits = int(subprocess.run(["git", "--git-dir", bare, "rev-list", "--count", "refs/rail/claims"],
                                     capture_output=True, text=True, check=True).stdout)
        print(f"    {commits} commits on refs/rail/claims for {wins + args.solo} claims "
              f"(operations queued together on one machine share a commit)")
        for c, e in failed[:5]:
            print(f"    failed (exit {c}): {e.splitlines()[-1] if e else ''}")
        if failed:
            print(f"    {len(failed)} failed in all")
    finally:
        daemon.kill()
        daemon.wait()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
