#!/usr/bin/env python3
"""The shared rail against a git remote at a chosen distance.

The remote is `git daemon` on 127.0.0.1 behind a delaying TCP proxy (in this script): every
connection to the remote pays a TCP handshake (one round trip) before its first byte reaches the
server, and every byte then crosses the link with half the round trip each way, in order. So
each request/response exchange of git's protocol (the ref advertisement, `ls-refs`, the fetch's
negotiation, the push's report) costs one full round trip, as it would over the internet, and
not only the connection's set-up. The proxy also reads the first packet of each connection, so
it counts fetches (`git-upload-pack`: one per round a leader serves) and pushes
(`git-receive-pack`).

Two kinds of cell:

  distinct   MACHINES clones (each with its own leader, as Rail runs it) x RACERS processes,
             each process claiming its own tasks one after another: every claim must succeed.
  contested  MACHINES clones x RACERS processes, every process claiming ONE task once: exactly
             one must win and every other must be refused naming the winner.

Per cell: claims/s, p50/p90/max claim latency (a whole `rail claim` process), and per claim
the fetches and pushes the remote served (a round starts with a fetch unless the machine plans
on the state it pushed itself or fetched a moment ago; a push is a try at the remote's
compare-and-swap, or a machine publishing its queue), the commits that landed on the remote's
refs/rail/claims, and the commits machines made on their queue refs (refs/rail/queue/*: how
often they published operations for another machine's commit). And the CPU the cell used: the
`rail` processes with the git they ran, the server (git daemon and its upload-pack and
receive-pack), this script's proxy, and their sum as a share of all the cores over the cell
(the rest went to whatever else the machine ran: see the load). `BENCH_SLOWEST=N` prints the N
slowest claims with their machine ids, to find them in a `RAIL_SHARED_TRACE` file.
`BENCH_KEYS=1` runs every cell as a keyed team (each clone signs with its own SSH key, every
fetched state is proven: docs/shared-rail.md, "Who can change what"). `BENCH_KEYS=A` (or `B`)
keys only binary A's (B's) runs: `--rail X --against X BENCH_KEYS=A` pairs one binary keyed
against itself unkeyed.
After each cell the remote's claims.md is read: every claim that said it succeeded must be held
there by its session, once, and the contested task must have exactly one holder. Anything else
fails the run (exit 1).

    python3 bench/shared_remote.py [--delay-ms 0,50,150] [--machines 4,8,20] [--racers 8]
                                   [--claims-per-racer 2] [--contested 20] [--solo 0]
                                   [--rail PATH] [--json FILE]

`--delay-ms` and `--machines` take comma-separated lists: every pair is a cell. `--contested N`
adds, per delay, one contested cell of N machines (0: none). `--solo N` times N uncontended
claims on one machine first, per delay. `--rail PATH` measures that binary instead of building
target/release/rail (to compare two commits' binaries on the same machine, minutes apart).
`--against PATH --pairs N` compares two binaries: each cell runs N times for each, alternated
(A B B A A B …, so a machine growing slower or faster over the run weighs on both alike), and a
summary per cell gives each binary's median and range of p50, p90, claims/s and CPU, and the
paired p90 differences: on a shared machine whose speed swings from minute to minute, one cell
against one cell says little.
The figures are upper bounds for the machine they run on: every clone, racer, the daemon and
the proxy share its cores, and its disk. The cells live in the system's temporary directory
(`TMPDIR` chooses another) and stay until the run ends: on an ext4 without a journal (this
project's build machine), every file created skips the inodes freed in the last minutes, so
removing one cell's twenty clones made the next cell's git spend close to half its CPU in that
scan. `TMPDIR` on a journalled file system or a tmpfs measures without it.
"""

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
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


def wait_port(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port}")


class DelayProxy:
    """A TCP proxy on 127.0.0.1 that puts `delay_ms` of round trip between its clients and
    `upstream`: the first byte from a client reaches the server 1.5 round trips after the
    connection was accepted (handshake, then the way there), and every later byte in either
    direction half a round trip after it was sent, order kept. Runs its own event loop in a
    thread; `delay_ms` may change between cells; `counts` is read and reset by the bench."""

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.port = free_port()
        self.delay_ms = 0
        self.counts = {"upload-pack": 0, "receive-pack": 0, "connections": 0}
        self.lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait()

    def _run(self, ready):
        asyncio.set_event_loop(self.loop)
        self.tasks = set()
        self.server = self.loop.run_until_complete(
            self.loop.create_server(lambda: _Accept(self), "127.0.0.1", self.port, backlog=512))
        ready.set()
        self.loop.run_forever()

    def accept(self, reader, writer):
        # The connection's task is kept here: a task nobody refers to may be collected while
        # it waits, which would leave its git process hanging until Rail's deadline.
        task = self.loop.create_task(self._client(reader, writer))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def take_counts(self):
        with self.lock:
            c = dict(self.counts)
            for k in self.counts:
                self.counts[k] = 0
        return c

    async def _pipe(self, reader, writer, half, start_at, first_packet=None):  # noqa: C901
        """Forwards reader to writer, each chunk delivered `half` s after it was read and not
        before `start_at` (loop time). The reading side keeps reading meanwhile (a link
        carries what was sent while earlier bytes are still on their way)."""
        queue = asyncio.Queue()

        async def read():
            try:
                while True:
                    data = await reader.read(65536)
                    await queue.put((self.loop.time(), data))
                    if not data:
                        return
            except (ConnectionError, OSError):
                await queue.put((self.loop.time(), b""))

        reading = self.loop.create_task(read())
        # The request's first packet names the service; it may come in more than one read.
        head = None if first_packet is None else b""
        try:
            while True:
                sent_at, data = await queue.get()
                if head is not None:
                    head += data
                    if len(head) >= 24 or not data:
                        first_packet(head)
                        head = None
                wait = max(sent_at + half, start_at) - self.loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()
        except Exception as e:  # noqa: BLE001 - any failure ends the connection, both ways
            # A link that fails drops the connection; left half open, the other side would
            # wait for an answer until Rail's deadline.
            if not isinstance(e, (ConnectionError, OSError)):
                print(f"proxy: {e!r}", file=sys.stderr, flush=True)
            raise
        finally:
            reading.cancel()

    def _note(self, data):
        text = data[:200].decode("latin-1")
        with self.lock:
            self.counts["connections"] += 1
            if "git-upload-pack" in text:
                self.counts["upload-pack"] += 1
            elif "git-receive-pack" in text:
                self.counts["receive-pack"] += 1

    async def _client(self, creader, cwriter):
        rtt = self.delay_ms / 1000.0
        accepted = self.loop.time()
        try:
            sreader, swriter = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            cwriter.close()
            return
        try:
            up = self.loop.create_task(
                self._pipe(creader, swriter, rtt / 2, accepted + 1.5 * rtt, self._note))
            down = self.loop.create_task(self._pipe(sreader, cwriter, rtt / 2, accepted + rtt))
            done, pending = await asyncio.wait([up, down], return_when=asyncio.FIRST_EXCEPTION)
            if any(t.exception() for t in done):
                for t in pending:
                    t.cancel()
                for w in (swriter, cwriter):
                    w.transport.abort()
        finally:
            for w in (swriter, cwriter):
                try:
                    w.close()
                except (OSError, RuntimeError):
                    pass


class _Accept(asyncio.Protocol):
    """One accepted connection: a stream reader and writer over it, handed to the proxy."""

    def __init__(self, proxy):
        self.proxy = proxy
        self.reader = asyncio.StreamReader(limit=1 << 20)
        self.inner = asyncio.StreamReaderProtocol(self.reader)

    def connection_made(self, transport):
        self.inner.connection_made(transport)
        writer = asyncio.StreamWriter(transport, self.inner, self.reader, self.proxy.loop)
        self.proxy.accept(self.reader, writer)

    def data_received(self, data):
        self.inner.data_received(data)

    def eof_received(self):
        return self.inner.eof_received()

    def connection_lost(self, exc):
        self.inner.connection_lost(exc)

    def pause_writing(self):
        self.inner.pause_writing()

    def resume_writing(self):
        self.inner.resume_writing()


def pct(sorted_values, p):
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, int(round(p * (len(sorted_values) - 1)))))
    return sorted_values[i]


def claims_md_holders(bare):
    """(task -> [sessions]) of the remote's shared claims.md."""
    out = subprocess.run(["git", "--git-dir", bare, "show", "refs/rail/claims:claims.md"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"cannot read the remote's claims.md: {out.stderr.strip()}")
    holders = {}
    for line in out.stdout.splitlines():
        if "|" not in line:
            continue
        parts = [p.strip().strip("`") for p in line.lstrip("-* ").split("|")]
        if len(parts) >= 2 and parts[0] and not parts[0].startswith("#"):
            holders.setdefault(parts[0], []).append(parts[1])
    return holders


def commit_count(bare, ref="refs/rail/claims"):
    out = subprocess.run(["git", "--git-dir", bare, "rev-list", "--count", ref],
                         capture_output=True, text=True)
    return int(out.stdout) if out.returncode == 0 else 0


def queue_commits(bare):
    """Commits on every machine's queue ref (refs/rail/queue/*): how often machines published."""
    out = subprocess.run(["git", "--git-dir", bare, "for-each-ref", "--format=%(refname)",
                          "refs/rail/queue/"], capture_output=True, text=True)
    return sum(commit_count(bare, ref) for ref in out.stdout.split())


def process_cpu(pid):
    """CPU seconds of a process and its reaped children (utime, stime, cutime, cstime)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


class Remote:
    """A bare repository served by `git daemon`, reached through the delaying proxy."""

    def __init__(self, base, name):
        self.bare = os.path.join(base, name)
        git("init", "-q", "--bare", "-b", "main", self.bare, cwd=base)
        exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True,
                                   check=True).stdout.strip()
        self.daemon_port = free_port()
        self.daemon = subprocess.Popen(
            [os.path.join(exec_path, "git-daemon"), "--reuseaddr", "--export-all",
             "--enable=receive-pack", "--max-connections=0", "--listen=127.0.0.1",
             f"--port={self.daemon_port}", f"--base-path={base}", base],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.daemon_port)
        self.proxy = DelayProxy(self.daemon_port)
        wait_port(self.proxy.port)
        self.url = f"git://127.0.0.1:{self.proxy.port}/{name}"

    def close(self):
        self.daemon.kill()
        self.daemon.wait()


def make_machines(rail, remote, base, n, keyed):
    """n clones of the remote, each set up with `rail init --remote origin` (at no delay)."""
    machines = []
    for i in range(n):
        d = os.path.join(base, f"m{i}")
        git("clone", "-q", remote.url, d, cwd=base)
        git("config", "user.email", "b@e.invalid", cwd=d)
        git("config", "user.name", "bench", cwd=d)
        if i == 0:
            git("commit", "-q", "--allow-empty", "-m", "init", cwd=d)
            git("push", "-q", "origin", "HEAD:main", cwd=d)
        else:
            git("pull", "-q", "origin", "main", cwd=d)
        subprocess.run([rail, "init", "--remote", "origin"], cwd=d, check=True, stdout=subprocess.DEVNULL)
        machines.append(d)
    if keyed:
        set_up_keys(machines)
    return machines


def set_up_keys(machines):
    """`BENCH_KEYS=1`: a keyed team (docs/shared-rail.md, "Who can change what"): an Ed25519
    key per clone as its `rail.signingKey`, every clone's line in `.rail/allowed-signers` on main."""
    lines = []
    for d in machines:
        key = os.path.join(d, ".git", "bench-key")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
        git("config", "rail.signingKey", key, cwd=d)
        with open(os.path.join(d, ".git", "rail", "exchange", "machine")) as f:
            machine = f.read().strip()
        with open(key + ".pub") as f:
            lines.append(f'{machine} namespaces="git" {f.read().strip()}\n')
    first = machines[0]
    os.makedirs(os.path.join(first, ".rail"), exist_ok=True)
    with open(os.path.join(first, ".rail", "allowed-signers"), "w") as f:
        f.writelines(lines)
    git("add", ".rail/allowed-signers", cwd=first)
    git("commit", "-q", "-m", "the team's keys", cwd=first)
    git("push", "-q", "origin", "HEAD:main", cwd=first)
    for d in machines[1:]:
        git("pull", "-q", "origin", "main", cwd=d)


def run_cell(rail, base, kind, machines_n, racers, claims_per_racer, delay_ms, solo, keyed):
    """One cell on a fresh remote and fresh clones. Returns (result dict, list of problems)."""
    cell_dir = tempfile.mkdtemp(prefix=f"{kind}-{machines_n}-{delay_ms}-", dir=base)
    remote = Remote(cell_dir, "rail.git")
    problems = []
    try:
        machines = make_machines(rail, remote, cell_dir, machines_n, keyed)
        remote.proxy.delay_ms = delay_ms
        solo_ms = None
        if solo:
            samples = []
            for n in range(solo):
                t0 = time.perf_counter()
                subprocess.run([rail, "claim", f"solo-{n}", "--session", "solo"], cwd=machines[0],
                               check=True, stdout=subprocess.DEVNULL)
                samples.append((time.perf_counter() - t0) * 1000)
            samples.sort()
            solo_ms = (pct(samples, 0.5), pct(samples, 0.9))
        before = commit_count(remote.bare)
        queues_before = queue_commits(remote.bare)
        remote.proxy.take_counts()
        # CPU: the racers (each `rail` and the git processes it ran), the server (git daemon and
        # the upload-pack/receive-pack it ran) and this process (the proxy's thread).
        cpu0 = (os.times(), process_cpu(remote.daemon.pid), time.process_time())

        results = []  # (mi, p, task, seconds, exit code, stderr)
        starts = []  # (start, end, mi, p, task): for --slowest
        lock = threading.Lock()
        go = threading.Event()

        def racer(d, mi, p):
            go.wait()
            for k in range(claims_per_racer if kind == "distinct" else 1):
                task = f"m{mi}-p{p}-t{k}" if kind == "distinct" else "contested"
                t0 = time.perf_counter()
                out = subprocess.run([rail, "claim", task, "--session", f"m{mi}-p{p}"], cwd=d,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                with lock:
                    results.append((mi, p, task, time.perf_counter() - t0, out.returncode, out.stderr.strip()))
                    starts.append((t0, time.perf_counter(), mi, p, task))

        threads = [threading.Thread(target=racer, args=(d, mi, p))
                   for mi, d in enumerate(machines) for p in range(racers)]
        for t in threads:
            t.start()
        start = time.perf_counter()
        go.set()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        if os.environ.get("BENCH_SLOWEST"):
            wall = time.time() - time.perf_counter()
            for t0, t1_, mi, p, task in sorted(starts, key=lambda r: r[0] - r[1])[:int(os.environ["BENCH_SLOWEST"])]:
                try:
                    with open(os.path.join(machines[mi], ".git/rail/exchange/machine")) as f:
                        mid = f.read().strip()
                except OSError:
                    mid = "?"
                print(f"           slow: m{mi} {mid} p{p} {task} {t1_ - t0:.2f} s, "
                      f"from {int((t0 + wall) * 1000)} to {int((t1_ + wall) * 1000)}", flush=True)
        t1 = os.times()
        cpu_racers = (t1.children_user + t1.children_system
                      - cpu0[0].children_user - cpu0[0].children_system)
        cpu_server = process_cpu(remote.daemon.pid) - cpu0[1]
        cpu_bench = time.process_time() - cpu0[2]
        counts = remote.proxy.take_counts()
        remote.proxy.delay_ms = 0
        commits = commit_count(remote.bare) - before
        published = queue_commits(remote.bare) - queues_before
        holders = claims_md_holders(remote.bare)

        won = [r for r in results if r[4] == 0]
        lat = sorted(r[3] for r in results)
        if kind == "distinct":
            for mi, p, task, _, code, err in results:
                if code != 0:
                    problems.append(f"{task} by m{mi}-p{p} failed (exit {code}): "
                                    f"{err.splitlines()[-1] if err else ''}")
            for mi, p, task, *_ in won:
                if holders.get(task) != [f"m{mi}-p{p}"]:
                    problems.append(f"{task} claimed by m{mi}-p{p} but the remote's claims.md has {holders.get(task)}")
        else:
            if len(won) != 1:
                problems.append(f"contested task: {len(won)} processes were told they won, not 1")
            held = holders.get("contested", [])
            if len(held) != 1:
                problems.append(f"contested task: {len(held)} holders on the remote ({held}), not 1")
            elif won and held != [f"m{won[0][0]}-p{won[0][1]}"]:
                problems.append(f"contested task held by {held[0]} but m{won[0][0]}-p{won[0][1]} was told it won")
            for mi, p, task, _, code, err in results:
                if code == 0:
                    continue
                if code != 1 or (held and held[0] not in err):
                    problems.append(f"contested: m{mi}-p{p} exit {code}, not a refusal naming the holder: "
                                    f"{err.splitlines()[-1] if err else ''}")
        n_claims = max(1, len(won)) if kind == "distinct" else len(results)
        result = {
            "kind": kind, "delay_ms": delay_ms, "machines": machines_n, "racers": racers,
            "attempts": len(results), "won": len(won), "seconds": round(elapsed, 2),
            "claims_per_s": round(len(won) / elapsed, 2) if kind == "distinct" else None,
            "answers_per_s": round(len(results) / elapsed, 2),
            "p50_s": round(pct(lat, 0.5), 2), "p90_s": round(pct(lat, 0.9), 2), "max_s": round(lat[-1], 2),
            "fetches": counts["upload-pack"], "pushes": counts["receive-pack"], "commits": commits,
            "fetches_per_claim": round(counts["upload-pack"] / n_claims, 2),
            "pushes_per_claim": round(counts["receive-pack"] / n_claims, 2),
            "commits_per_claim": round(commits / n_claims, 2),
            "queue_pushes_per_claim": round(published / n_claims, 2),
            "cpu_s": {"racers": round(cpu_racers, 1), "server": round(cpu_server, 1),
                      "proxy": round(cpu_bench, 1)},
            "cpu_share": round((cpu_racers + cpu_server + cpu_bench) / (elapsed * os.cpu_count()), 2),
            "solo_ms": solo_ms, "problems": len(problems),
        }
        return result, problems
    finally:
        # The cell's directory stays until the run ends (main removes the base): removing twenty
        # clones here made the next cell pay for it. ext4 skips an inode freed in the last minute
        # or more when it allocates one, and scanning past thousands of them was, by perf, close
        # to half of git's CPU in the cell after.
        remote.close()


def show(r):
    if r["kind"] == "distinct":
        head = (f"{r['delay_ms']:4d} ms  {r['machines']:2d} x {r['racers']} distinct: "
                f"{r['won']}/{r['attempts']} claims in {r['seconds']:.1f} s = {r['claims_per_s']:.2f}/s")
    else:
        head = (f"{r['delay_ms']:4d} ms  {r['machines']:2d} x {r['racers']} contested: "
                f"{r['won']} winner of {r['attempts']}, all answered in {r['seconds']:.1f} s")
    per = "claim" if r["kind"] == "distinct" else "attempt"
    print(f"{head}; p50 {r['p50_s']:.2f} s, p90 {r['p90_s']:.2f} s, max {r['max_s']:.2f} s; "
          f"per {per}: {r['fetches_per_claim']} fetches, {r['pushes_per_claim']} pushes, "
          f"{r['commits_per_claim']} commits, {r['queue_pushes_per_claim']} queue publishes; "
          f"cpu {r['cpu_s']['racers']}+{r['cpu_s']['server']}+{r['cpu_s']['proxy']} s "
          f"(rail+server+proxy, {r['cpu_share']:.0%} of the cores); load {os.getloadavg()[0]:.1f}",
          flush=True)
    if r["solo_ms"]:
        print(f"           one claim alone: p50 {r['solo_ms'][0]:.0f} ms, p90 {r['solo_ms'][1]:.0f} ms", flush=True)


def compare(cell, runs):
    """Prints the summary of one cell's alternated runs: `runs` is [(label, result)]."""
    labels = []
    for label, _ in runs:
        if label not in labels:
            labels.append(label)
    print(f"  {cell}, {len(runs) // len(labels)} runs each, alternated:", flush=True)
    for label in labels:
        rs = [r for lab, r in runs if lab == label]

        def stat(key, fmt):
            vals = [key(r) for r in rs]
            return f"{fmt(statistics.median(vals))} ({fmt(min(vals))}–{fmt(max(vals))})"

        secs = lambda x: f"{x:.2f} s"  # noqa: E731
        print(f"    {label}: p50 {stat(lambda r: r['p50_s'], secs)}, p90 {stat(lambda r: r['p90_s'], secs)}, "
              f"{stat(lambda r: r['claims_per_s'] or 0, lambda x: f'{x:.1f}')} claims/s, "
              f"rail cpu {stat(lambda r: r['cpu_s']['racers'], lambda x: f'{x:.1f} s')}", flush=True)
    if len(labels) == 2:
        a = [r["p90_s"] for lab, r in runs if lab == labels[0]]
        b = [r["p90_s"] for lab, r in runs if lab == labels[1]]
        diffs = [x - y for x, y in zip(a, b)]
        better = sum(1 for d in diffs if d < 0)
        print(f"    p90 {labels[0]} − {labels[1]}, pair by pair: "
              f"{', '.join(f'{d:+.2f}' for d in diffs)} s; median {statistics.median(diffs):+.2f} s; "
              f"{labels[0]} lower in {better} of {len(diffs)}", flush=True)


def ints(text):
    return [int(x) for x in text.split(",") if x.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--delay-ms", default="0,50,150", help="round trips to the remote, comma-separated (ms)")
    ap.add_argument("--machines", default="4,8,20", help="clones per distinct cell, comma-separated")
    ap.add_argument("--racers", type=int, default=8, help="processes per machine")
    ap.add_argument("--claims-per-racer", type=int, default=2, help="distinct claims each racer makes in turn")
    ap.add_argument("--contested", type=int, default=20, help="machines in the contested cell per delay (0: none)")
    ap.add_argument("--solo", type=int, default=0, help="uncontended claims to time first in each cell")
    ap.add_argument("--rail", help="the rail binary to measure (default: build target/release/rail)")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--against", help="a second rail binary: run every cell with both, alternated")
    ap.add_argument("--pairs", type=int, default=1, help="with --against: runs of each cell per binary")
    args = ap.parse_args()
    rail = os.path.abspath(args.rail) if args.rail else None
    if not rail:
        subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "rail-cli"], cwd=ROOT, check=True)
        rail = os.path.join(ROOT, "target", "release", "rail")
    binaries = [("A", rail)]
    if args.against:
        binaries.append(("B", os.path.abspath(args.against)))
    base = tempfile.mkdtemp(prefix="rail-shared-bench-")
    keys = os.environ.get("BENCH_KEYS", "")
    names = ", ".join(f"{label} {path}{' keyed' if (keys == label if keys in ('A', 'B') else keys) else ''}"
                      for label, path in binaries)
    print(f"shared rail over git daemon behind a delaying proxy ({names}); load {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores", flush=True)
    results, problems = [], []
    try:
        for delay in ints(args.delay_ms):
            cells = [("distinct", m) for m in ints(args.machines)]
            if args.contested:
                cells.append(("contested", args.contested))
            for kind, m in cells:
                runs = []
                order = []
                for k in range(args.pairs if args.against else 1):
                    order.extend(binaries if k % 2 == 0 else list(reversed(binaries)))
                for label, binary in order:
                    keys = os.environ.get("BENCH_KEYS", "")
                    keyed = keys == label if keys in ("A", "B") else bool(keys)
                    r, p = run_cell(binary, base, kind, m, args.racers, args.claims_per_racer, delay, args.solo,
                                    keyed)
                    r["keyed"] = keyed
                    r["load"] = round(os.getloadavg()[0], 1)
                    r["binary"] = binary
                    results.append(r)
                    runs.append((label, r))
                    if args.against:
                        print(f"{label} ", end="")
                    show(r)
                    for line in p[:10]:
                        print(f"           PROBLEM: {line}", flush=True)
                    problems.extend(p)
                if args.against:
                    compare(f"{delay} ms {m} x {args.racers} {kind}", runs)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
    if problems:
        print(f"FAILED: {len(problems)} problems (above)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
