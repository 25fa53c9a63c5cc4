// A tiny command-line host around the extension's own lock and mutation code (src/host), so the
// conformance test can race many extension "instances" — real processes — against the `rail` CLI
// on one rail. Usage:
//
//   node out/test/driver.js --rail DIR --session NAME [--hold-ms N] claim TASK [--path P]… [--resource R]…
//   node out/test/driver.js --rail DIR --session NAME release|renew|take TASK
//   node out/test/driver.js --rail DIR --session NAME [--ready F --go G] race TASK…
//       claims each task in turn and prints `TASK CODE ATTEMPTS` per task; with --ready/--go, it first
//       creates F once it is loaded, then waits for G to exist (so every racer starts at once)
//
// Exit codes follow the CLI's: 0 done, 1 refused, 3 environment (e.g. lock wait timed out, or
// the shared rail's remote unreachable). The repository is found from --rail as the extension
// finds it from its folder, so a rail configured for shared mode (`git config rail.remote`) goes
// through the remote, exactly as in the extension.

import * as fs from 'node:fs';

import { core, type Request } from '../src/host/core';
import { mutate } from '../src/host/mutate';
import { discover } from '../src/host/repo';

function fail(message: string, code: number): never {
  process.stderr.write(`driver: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let root: string | undefined;
  let session: string | undefined;
  let holdMs: number | undefined;
  let ready: string | undefined;
  let go: string | undefined;
  const paths: string[] = [];
  const resources: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = (): string => args[++i] ?? fail(`${a} needs a value`, 2);
    if (a === '--rail') root = value();
    else if (a === '--session') session = value();
    else if (a === '--hold-ms') holdMs = Number(value());
    else if (a === '--ready') ready = value();
    else if (a === '--go') go = value();
    else if (a === '--path') paths.push(value());
    else if (a === '--resource') resources.push(value());
    else if (a !== undefined) positional.push(a);
  }
  const [op, task] = positional;
  if (!root || !session || !op || !task) fail('usage: --rail DIR --session NAME OP TASK', 2);
  const repo = discover(root);
  const loc = repo ? { root, repo } : { root };
  if (op === 'race') {
    // Many claims from one process (node and the wasm start once): the shared race test's racer.
    if (ready !== undefined && go !== undefined) {
      core(); // instantiate the wasm before saying we are ready
      fs.writeFileSync(ready, '');
      while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 5));
    }
    for (const t of positional.slice(1)) {
      let code = 0;
      let attempts = 1;
      try {
        const r = await mutate(loc, session, { op: 'claim', task: t, paths: [], resources: [] }, { command: `rail-driver claim ${t}` });
        if (!r.ok) code = 1;
        attempts = r.attempts ?? 1;
      } catch (e) {
        process.stderr.write(`driver: ${t}: ${e instanceof Error ? e.message : String(e)}\n`);
        code = 3;
      }
      process.stdout.write(`${t} ${code} ${attempts}\n`);
    }
    return;
  }
  let request: Request;
  if (op === 'claim') request = { op: 'claim', task, paths, resources };
  else if (op === 'release') request = { op: 'release', task, touched: [] };
  else if (op === 'renew') request = { op: 'renew', task };
  else if (op === 'take') request = { op: 'take', task };
  else fail(`unknown operation ${op}`, 2);
  try {
    const result = await mutate(loc, session, request, {
      command: `rail-driver ${op} ${task}`,
      ...(holdMs !== undefined ? { holdMs } : {}),
    });
    for (const note of result.notes) process.stderr.write(`driver: ${note}\n`);
    if (result.ok) {
      process.stdout.write(`${result.plan.message}\n`);
    } else {
      fail(result.message, 1);
    }
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e), 3);
  }
}

void main();
