#!/usr/bin/env python3
"""Latency of `rail hook <agent>` per call (it runs on every edit an agent makes).

    python3 bench/hook_latency.py [--runs N] [--claims N] [--log-lines N] [--rail PATH]
                                  [--agents claude,codex,...]

A real repository with N claims. `rail hook claude`: Edit payloads that are allowed, warned and
denied, Bash payloads read by the shell grammar (simple, compound, a `bash -c` string, a symlink
followed, a long generated script). `rail hook codex`: Bash, apply_patch (allowed, denied), an
MCP tool. `rail hook cursor`: Write, Shell, beforeShellExecution, Read (answered explicitly).
`rail hook gemini`: write_file, run_shell_command, read_file. `rail hook copilot --event E`:
bash, create, view, apply_patch, agentStop (arguments as JSON text). A VS Code payload through the
Claude hook, and each agent's Stop (which renews, under the lock). Medians over many runs, each
a fresh process fed its payload on stdin. claims.log holds `--log-lines` lines of history (a
busy week of claims, renewals, releases and refusals), put back before each case: every Stop
and denial appends to it, and a hook must not slow down as it grows. `--rail` measures another build (e.g. an older one)
instead of building this tree's.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import time

from common import GIT, ROOT, new_repo, rail_binary  # shared by the benches
RAIL = os.path.join(ROOT, "target", "release", "rail")


def sh(cmd, cwd, **kw):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--claims", type=int, default=50)
    ap.add_argument("--log-lines", type=int, default=5000)
    ap.add_argument("--rail", default=None)
    ap.add_argument("--agents", default="claude,codex,cursor,gemini,copilot")
    args = ap.parse_args()
    global RAIL
    RAIL = rail_binary(args.rail)

    d = new_repo("rail-hook-bench-")
    g = GIT
    sh([RAIL, "init"], d)
    for i in range(args.claims):
        sh([RAIL, "claim", f"t{i}", "--session", f"s{i}", "--path", f"pkg{i}/**"], d)
    log_path = os.path.join(d, "claims.log")
    with open(log_path, "a") as log:
        kinds = ["claimed | h{i} | w{s} | paths: pkg{s}/**", "renewed | h{i} | w{s}",
                 "refused | t{s} | w{i} | by: hook claude | holder: s{s} | path: pkg{s}/a.rs",
                 "released | h{i} | w{s} | touched: pkg{s}/a.rs"]
        for i in range(args.log_lines):
            day, minute = divmod(i, 24 * 60)
            line = kinds[i % len(kinds)].format(i=i // len(kinds), s=i % 40)
            log.write(f"2026-11-{1 + day % 28:02}T{minute // 60:02}:{minute % 60:02}:00Z | {line}\n")
    with open(log_path) as log:
        history = log.read()
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

    def codex(tool, tool_input):
        return json.dumps({
            "session_id": "bench", "turn_id": "t1", "transcript_path": None, "cwd": d, "model": "gpt-5.1-codex",
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "call_1",
        }).encode()

    cursor_base = {"conversation_id": "c1", "generation_id": "g1", "model": "m", "cursor_version": "3.9.16",
                   "workspace_roots": [d], "user_email": "dev@example.com", "transcript_path": None}

    def cursor(tool, tool_input):
        return json.dumps(dict(cursor_base, hook_event_name="preToolUse", tool_name=tool, tool_input=tool_input,
                               tool_use_id="u1", cwd="")).encode()

    def gemini(tool, tool_input):
        return json.dumps({
            "session_id": "bench", "transcript_path": "/tmp/g.json", "cwd": d, "hook_event_name": "BeforeTool",
            "timestamp": "2026-12-01T00:00:00Z", "tool_name": tool, "tool_input": tool_input,
        }).encode()

    def copilot(tool, tool_args, event="preToolUse"):
        # Copilot's camelCase payloads name no event (the command does) and carry the tool's
        # arguments as JSON text, or as the patch itself for apply_patch.
        args_text = tool_args if isinstance(tool_args, str) else json.dumps(tool_args)
        data = json.dumps({"sessionId": "bench", "timestamp": 1764633600000, "cwd": d,
                           "toolName": tool, "toolArgs": args_text}).encode()
        return data, ["--event", event]

    def patch(path):
        return {"command": f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"}

    claude_cases = {
        "Edit allowed (own path)": payload("Edit", {"file_path": f"{d}/pkg0/a.rs", "old_string": "a", "new_string": "b"}),
        "Edit warned (outside scope)": payload("Edit", {"file_path": f"{d}/docs/x.md", "old_string": "a", "new_string": "b"}),
        "Edit denied (another's path)": payload("Edit", {"file_path": f"{d}/pkg7/a.rs", "old_string": "a", "new_string": "b"}),
        "Bash denied (sed -i)": payload("Bash", {"command": "sed -i 's/a/b/' pkg3/x.rs && echo done"}),
        "Bash, nothing written": payload("Bash", {"command": "cargo test --workspace"}),
        "Bash compound, allowed": payload("Bash", {"command": "cd pkg0 && for f in a b; do cp x \"$f.rs\"; done 2>&1 | tee log.txt"}),
        "Bash bash -c, denied": payload("Bash", {"command": "bash -c 'cd pkg3 && rm -f x.rs'"}),
        "Bash via symlink, denied": payload("Bash", {"command": "echo x > link/a.rs"}),
        "Bash, 200-line script (16 KB)": payload("Bash", {"command": long_script}),
        "VS Code replace_string, denied": json.dumps({
            "timestamp": "2026-12-01T00:00:00Z", "cwd": d, "sessionId": "vs", "hookEventName": "PreToolUse",
            "tool_name": "replace_string_in_file", "tool_input": {"filePath": f"{d}/pkg7/a.rs"}}).encode(),
        "Stop (renews)": json.dumps({"session_id": "bench", "cwd": d, "hook_event_name": "Stop",
                                     "stop_hook_active": False}).encode(),
    }
    agents = {
        "claude": claude_cases,
        "copilot": {
            "bash denied (sed -i)": copilot("bash", {"command": "sed -i 's/a/b/' pkg3/x.rs", "description": "d"}),
            "bash, nothing written": copilot("bash", {"command": "cargo test --workspace", "description": "d"}),
            "create allowed (own path)": copilot("create", {"path": f"{d}/pkg0/a.rs", "file_text": "x"}),
            "edit denied": copilot("edit", {"path": "pkg7/a.rs", "old_str": "a", "new_str": "b"}),
            "apply_patch denied": copilot("apply_patch", patch("pkg7/a.rs")["command"]),
            "view (allowed, no rail read)": copilot("view", {"path": "pkg7/a.rs"}),
            "agentStop (renews)": (json.dumps({"sessionId": "bench", "timestamp": 1764633600000, "cwd": d,
                                               "transcriptPath": "/tmp/t.jsonl", "stopReason": "end_turn"}).encode(),
                                   ["--event", "agentStop"]),
        },
        "codex": {
            "Bash denied (sed -i)": codex("Bash", {"command": "sed -i 's/a/b/' pkg3/x.rs"}),
            "Bash, nothing written": codex("Bash", {"command": "cargo test --workspace"}),
            "apply_patch allowed (own)": codex("apply_patch", patch("pkg0/a.rs")),
            "apply_patch denied": codex("apply_patch", patch("pkg7/a.rs")),
            "MCP tool, unknown (warned)": codex("mcp__db__migrate", {"revision": "head"}),
            "Stop (renews)": json.dumps({"session_id": "bench", "turn_id": "t1", "cwd": d, "hook_event_name": "Stop",
                                         "stop_hook_active": False, "last_assistant_message": "ok"}).encode(),
        },
        "cursor": {
            "Write allowed (own path)": cursor("Write", {"file_path": f"{d}/pkg0/a.rs", "content": "x"}),
            "Write denied": cursor("Write", {"file_path": f"{d}/pkg7/a.rs", "content": "x"}),
            "Shell denied (rm)": cursor("Shell", {"command": "rm -f pkg3/x.rs", "cwd": d}),
            "beforeShellExecution, allowed": json.dumps(dict(cursor_base, hook_event_name="beforeShellExecution",
                                                             command="ls pkg0", cwd=d)).encode(),
            "Read (explicit allow)": cursor("Read", {"file_path": f"{d}/pkg7/a.rs"}),
            "stop (renews)": json.dumps(dict(cursor_base, hook_event_name="stop", status="completed",
                                             loop_count=0)).encode(),
        },
        "gemini": {
            "write_file allowed (own path)": gemini("write_file", {"file_path": f"{d}/pkg0/a.rs", "content": "x"}),
            "write_file denied": gemini("write_file", {"file_path": "pkg7/a.rs", "content": "x"}),
            "run_shell_command denied": gemini("run_shell_command", {"command": "touch x.rs", "dir_path": "pkg3"}),
            "read_file (allowed, no rail read)": gemini("read_file", {"file_path": "pkg7/a.rs"}),
            "AfterAgent (renews)": json.dumps({"session_id": "bench", "cwd": d, "hook_event_name": "AfterAgent",
                                               "timestamp": "2026-12-01T00:00:00Z"}).encode(),
        },
    }
    wanted = [a.strip() for a in args.agents.split(",") if a.strip()]
    for agent in wanted:
        print(f"rail hook {agent}, {args.claims} claims, {args.runs} runs per case")
        medians = []
        for name, data in agents[agent].items():
            data, extra = data if isinstance(data, tuple) else (data, [])
            with open(log_path, "w") as log:
                log.write(history)
            samples = []
            for _ in range(args.runs):
                start = time.perf_counter()
                subprocess.run([RAIL, "hook", agent, *extra], cwd=d, input=data, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                samples.append((time.perf_counter() - start) * 1000)
            samples.sort()
            medians.append(statistics.median(samples))
            print(f"  {name:34} median {statistics.median(samples):5.2f} ms   p95 {samples[int(len(samples) * 0.95)]:5.2f} ms")
        print(f"  {'(median of the medians)':34} {statistics.median(medians):5.2f} ms")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
