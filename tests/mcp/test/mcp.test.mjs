// `rail mcp` driven by the official MCP TypeScript SDK client, as an agent would: the real
// binary on a real git repository. One session claims, another is refused (the error names
// the holder), the first releases, the second claims.
//
//   npm test -w tests/mcp          (RAIL_BIN=path/to/rail to test another build)

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The `rail` binary: $RAIL_BIN, else the debug build (built here if it is not current). */
function railBinary() {
  if (process.env.RAIL_BIN) return process.env.RAIL_BIN;
  execFileSync('cargo', ['build', '--quiet', '-p', 'rail-cli'], { cwd: ROOT, stdio: 'inherit' });
  return join(ROOT, 'target', 'debug', process.platform === 'win32' ? 'rail.exe' : 'rail');
}

const RAIL = railBinary();
let repo;

/** A throw-away repository with one commit and `rail init` done, as users set one up. */
function makeRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'rail-mcp-e2e-'));
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=Rail Test', '-c', 'user.email=test@example.invalid', ...args], {
      cwd: dir,
      stdio: 'pipe',
    });
  git('init', '-q', '-b', 'main');
  git('commit', '-q', '--allow-empty', '-m', 'init');
  execFileSync(RAIL, ['init'], { cwd: dir, stdio: 'pipe', env: cleanEnv() });
  git('add', '-A');
  git('commit', '-q', '-m', 'rail init');
  return dir;
}

/** The environment without the variables that would choose a session or a rail for us. */
function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const name of ['RAIL_SESSION', 'RAIL_DIR', 'RAIL_NOW', 'RAIL_OWNER_PID']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

/** An MCP client connected to its own `rail mcp` (the handshake done). */
async function connect(name, { args = [], env = {} } = {}) {
  const transport = new StdioClientTransport({
    command: RAIL,
    args: ['mcp', ...args],
    cwd: repo,
    env: cleanEnv(env),
    stderr: 'pipe',
  });
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(transport);
  return client;
}

const holders = (task) =>
  readFileSync(join(repo, 'claims.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${task} |`));

before(() => {
  repo = makeRepo();
});

after(() => {
  if (repo) rmSync(repo, { recursive: true, force: true });
});

test('the tools are listed, each with a JSON schema for its arguments', async () => {
  const client = await connect('list', { args: ['--session', 'lister'] });
  try {
    assert.equal(client.getServerVersion()?.name, 'rail');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const tool of ['claim', 'release', 'renew', 'take', 'update', 'who', 'check', 'board', 'ready', 'lock_status']) {
      assert.ok(names.includes(tool), `${tool} missing from ${names.join(', ')}`);
    }
    const claim = tools.find((t) => t.name === 'claim');
    assert.equal(claim.inputSchema.type, 'object');
    assert.deepEqual(claim.inputSchema.required, ['task']);
    assert.equal(claim.inputSchema.properties.paths.type, 'array');
    assert.equal(tools.find((t) => t.name === 'board').annotations?.readOnlyHint, true);
  } finally {
    await client.close();
  }
});

test('claim as one session, be refused as another naming the holder, release, claim again', async () => {
  // alice by --session, bob by RAIL_SESSION: both ways an agent's config names its session.
  const alice = await connect('alice', { args: ['--session', 'alice'] });
  const bob = await connect('bob', { env: { RAIL_SESSION: 'bob' } });
  try {
    const claimed = await alice.callTool({
      name: 'claim',
      arguments: { task: 'auth', paths: ['src/auth/**'], purpose: 'token refresh' },
    });
    assert.notEqual(claimed.isError, true, JSON.stringify(claimed));
    assert.equal(claimed.content[0].text, 'claimed auth for alice');
    assert.equal(claimed.structuredContent.plan.session, 'alice');
    assert.equal(holders('auth').length, 1);

    // A refusal is a tool result with isError, not a thrown protocol error.
    const refused = await bob.callTool({ name: 'claim', arguments: { task: 'auth' } });
    assert.equal(refused.isError, true, JSON.stringify(refused));
    assert.match(refused.content[0].text, /auth is held by alice/);
    assert.equal(refused.structuredContent.refusal.holder, 'alice');
    assert.equal(refused.structuredContent.refusal.kind, 'held');

    const overlap = await bob.callTool({
      name: 'claim',
      arguments: { task: 'login', paths: ['src/auth/login.ts'] },
    });
    assert.equal(overlap.isError, true, JSON.stringify(overlap));
    assert.match(overlap.content[0].text, /alice/);

    const who = await bob.callTool({ name: 'who', arguments: { paths: ['src/auth/login.ts'] } });
    assert.equal(who.structuredContent.answers[0].holders[0].session, 'alice');

    const released = await alice.callTool({ name: 'release', arguments: { task: 'auth', no_touched: true } });
    assert.notEqual(released.isError, true, JSON.stringify(released));
    assert.deepEqual(holders('auth'), []);

    const again = await bob.callTool({ name: 'claim', arguments: { task: 'auth' } });
    assert.notEqual(again.isError, true, JSON.stringify(again));
    assert.match(holders('auth')[0], /^auth \| bob \|/);

    const board = await bob.callTool({ name: 'board', arguments: {} });
    assert.equal(board.structuredContent.summary.claims, 1);
    assert.equal(board.structuredContent.claims[0].session, 'bob');
  } finally {
    await alice.close();
    await bob.close();
  }
});
