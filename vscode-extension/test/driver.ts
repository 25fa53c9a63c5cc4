// A tiny command-line host around the extension's own lock and mutation code (src/host), so the
// conformance test can race many extension "instances" — real processes — against the `rail` CLI
// on one rail. Usage:
//
//   node out/test/driver.js --rail DIR --session NAME [--hold-ms N] claim TASK [--path P]… [--resource R]…
//   node out/test/driver.js --rail DIR --session NAME release|renew|take TASK
//
// Exit codes follow the CLI's: 0 done, 1 refused, 3 environment (e.g. lock wait timed out).

import type { Request } from '../src/host/core';
import { mutate } from '../src/host/mutate';

function fail(message: string, code: number): never {
  process.stderr.write(`driver: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let root: string | undefined;
  let session: string | undefined;
  let holdMs: number | undefined;
  const paths: string[] = [];
  const resources: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = (): string => args[++i] ?? fail(`${a} needs a value`, 2);
    if (a === '--rail') root = value();
    else if (a === '--session') session = value();
    else if (a === '--hold-ms') holdMs = Number(value());
    else if (a === '--path') paths.push(value());
    else if (a === '--resource') resources.push(value());
    else if (a !== undefined) positional.push(a);
  }
  const [op, task] = positional;
  if (!root || !session || !op || !task) fail('usage: --rail DIR --session NAME OP TASK', 2);
  let request: Request;
  if (op === 'claim') request = { op: 'claim', task, paths, resources };
  else if (op === 'release') request = { op: 'release', task, touched: [] };
  else if (op === 'renew') request = { op: 'renew', task };
  else if (op === 'take') request = { op: 'take', task };
  else fail(`unknown operation ${op}`, 2);
  try {
    const result = await mutate({ root }, session, request, {
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
