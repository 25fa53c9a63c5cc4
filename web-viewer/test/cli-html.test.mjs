// `rail board --html FILE` as a user runs it: a `rail` built with no web-viewer build and no
// RAIL_STANDALONE_HTML (the page is the one compiled into the binary), on a real repository with
// claims, and the file it writes opened from file:// in Chromium. The page must show exactly the
// board core computes from the texts and facts the CLI embedded.

import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import {
  assert,
  assertClean,
  assertShows,
  browser,
  expectedBoard,
  join,
  mkdtempSync,
  newPage,
  readFileSync,
  REPO,
  tmpdir,
  waitRender,
} from './helpers.mjs';

// RAIL_BIN: check another build (e.g. one from `cargo install --path cli --root DIR`).
const targetDir = process.env.CARGO_TARGET_DIR ?? join(REPO, 'target');
const RAIL = process.env.RAIL_BIN ?? join(targetDir, 'debug', process.platform === 'win32' ? 'rail.exe' : 'rail');
const env = { ...process.env, RAIL_SESSION: 'alice' };
delete env.RAIL_STANDALONE_HTML;
delete env.RAIL_DIR;

function run(cmd, args, cwd, extra = {}) {
  const r = spawnSync(cmd, args, { cwd, env: { ...env, ...extra }, encoding: 'utf8' });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

let chromium;
before(async () => {
  if (!process.env.RAIL_BIN) run('cargo', ['build', '-p', 'rail-cli', '--quiet'], REPO);
  chromium = await browser();
});
after(async () => chromium?.close());

test('the page rail board --html writes renders the board from file://', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'rail-web-cli-'));
  run('git', ['init', '-q', '-b', 'main'], repo);
  run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'start'], repo);
  run(RAIL, ['init'], repo);
  run(RAIL, ['claim', 'auth-refresh', '--path', 'src/auth/**', '--purpose', 'refresh *early* </script>'], repo);
  run(RAIL, ['claim', 'billing', '--path', 'src/billing/**', '--session', 'bob'], repo);
  // What a hosted merge of two branches can leave: the same task claimed twice (a conflict).
  appendFileSync(join(repo, 'claims.md'), `auth-refresh | bob | ${new Date().toISOString().slice(0, 19)}Z\n`);
  run(RAIL, ['claim', 'docs', '--session', 'carol', '--lease', '1m', '--now', '2020-01-01T00:00Z'], repo);
  // Guard status: bob's agent ran Rail's hook here (a real hook call leaves the mark), carol's
  // on another machine of a shared rail (its marks as a fetch keeps them), alice's nowhere.
  const hook = spawnSync(RAIL, ['hook', 'claude'], {
    cwd: repo,
    env: { ...env, RAIL_SESSION: 'bob' },
    input: JSON.stringify({
      session_id: 'b',
      hook_event_name: 'PreToolUse',
      cwd: repo,
      tool_name: 'Read',
      tool_input: { file_path: join(repo, 'README.md') },
    }),
    encoding: 'utf8',
  });
  assert.equal(hook.status, 0, hook.stderr);
  const sharedMarks = join(repo, '.git', 'rail', 'seen-shared');
  mkdirSync(sharedMarks, { recursive: true });
  writeFileSync(join(sharedMarks, 'laptop-b-1'), `session carol\nagent codex\nat ${new Date().toISOString().slice(0, 19)}Z\n\n`);
  // Work in flight: dave's agent writes a file through its hooks and does not commit it.
  const note = join(repo, 'notes', 'plan.md');
  const write = (event) => {
    const r = spawnSync(RAIL, ['hook', 'claude'], {
      cwd: repo,
      env: { ...env, RAIL_SESSION: 'dave' },
      input: JSON.stringify({
        session_id: 'd',
        hook_event_name: event,
        cwd: repo,
        tool_name: 'Write',
        tool_use_id: 'toolu_plan',
        tool_input: { file_path: note, content: 'plan' },
        tool_response: {},
      }),
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
  };
  write('PreToolUse');
  mkdirSync(join(repo, 'notes'), { recursive: true });
  writeFileSync(note, 'the plan, uncommitted\n');
  write('PostToolUse');
  const file = join(repo, 'board.html');
  run(RAIL, ['board', '--html', file], repo);

  const html = readFileSync(file, 'utf8');
  assert.ok(!html.includes('__RAIL_DATA__'), 'the CLI filled the data block');
  const data = html.match(/<script type="application\/json" id="rail-data">(.*?)<\/script>/s);
  assert.ok(data, 'the page carries the rail as data');
  const { texts, facts } = JSON.parse(data[1]);
  const board = expectedBoard(texts, facts);
  assert.equal(board.claims.length, 4, 'four claims on the rail');
  assert.ok(board.conflicts.length > 0, 'auth-refresh claimed twice is a conflict');
  assert.ok(
    board.claims.some((c) => c.state === 'stale'),
    "carol's lease ran out",
  );

  const { page, problems } = await newPage(chromium.context);
  await page.goto(pathToFileURL(file).href);
  await waitRender(page, 0);
  await assertShows(page, board, 'rail board --html');
  const hookOf = (name) => board.sessions.find((x) => x.name === name)?.hook;
  assert.equal(hookOf('bob')?.agent, 'claude', "bob's mark, from the hook call");
  assert.equal(hookOf('carol')?.host, 'laptop-b-1', "carol's mark, shared by another machine");
  assert.equal(hookOf('alice') ?? null, null, 'no hook seen for alice');
  assert.equal(board.in_flight.length, 1, "dave's work in flight");
  const flight = await page.locator('#flight-panel .flight[data-session="dave"]').innerText();
  assert.match(flight, /notes\/plan\.md/);
  assert.match(flight, /uncommitted, written by its agent/);
  await page.keyboard.press('v');
  await page.waitForSelector('.lane[data-session="carol"]');
  assert.match(await page.locator('.lane[data-session="bob"] .lane-guard.guarded').innerText(), /^guarded: claude /);
  assert.match(await page.locator('.lane[data-session="carol"] .lane-guard.guarded').innerText(), /^guarded: codex .* on laptop-b-1$/);
  assert.match(await page.locator('.lane[data-session="alice"] .lane-guard').innerText(), /no Rail hook seen/);
  await assertClean(page, problems, 'rail board --html');
  await page.close();
});

// Issue 42: on a shared rail every board says how far it is verified and whose machine each
// claim is. Two clones of a bare remote as two machines, no keys: the page `rail board --html`
// writes on one of them shows core's unverified warning and each claim's machine.
test("a shared rail without keys: the page warns that it is unverified and names each claim's machine", async () => {
  const root = mkdtempSync(join(tmpdir(), 'rail-web-shared-'));
  const bare = join(root, 'rail.git');
  run('git', ['init', '-q', '--bare', '-b', 'main', bare], root);
  const machines = ['a', 'b'].map((name, i) => {
    const dir = join(root, name);
    run('git', ['clone', '-q', bare, dir], root);
    run('git', ['config', 'user.email', 'm@e.invalid'], dir);
    run('git', ['config', 'user.name', 'machine'], dir);
    if (i === 0) {
      run('git', ['commit', '-q', '--allow-empty', '-m', 'init'], dir);
      run('git', ['push', '-q', 'origin', 'HEAD:main'], dir);
    } else {
      run('git', ['pull', '-q', 'origin', 'main'], dir);
    }
    run(RAIL, ['init', '--remote', 'origin'], dir);
    return dir;
  });
  const [a, b] = machines;
  run(RAIL, ['claim', 'auth', '--session', 'alice'], a);
  run(RAIL, ['claim', 'ui', '--session', 'bob'], b);
  run(RAIL, ['sync'], a);
  const id = (dir) => readFileSync(join(dir, '.git', 'rail', 'exchange', 'machine'), 'utf8').trim();
  const file = join(root, 'board.html');
  run(RAIL, ['board', '--html', file], a);

  const data = readFileSync(file, 'utf8').match(/<script type="application\/json" id="rail-data">(.*?)<\/script>/s);
  const { texts, facts } = JSON.parse(data[1]);
  const board = expectedBoard(texts, facts);
  assert.equal(board.shared?.verified, 'unverified', 'core judges the rail unverified');
  assert.match(board.shared.text, /^the shared rail on origin is UNVERIFIED: /);
  const machineOf = (task) => board.claims.find((c) => c.task === task)?.machine_text;
  assert.equal(machineOf('auth'), `${id(a)} (this machine)`);
  assert.equal(machineOf('ui'), `${id(b)} (another machine's: only it changes this claim)`);

  const { page, problems } = await newPage(chromium.context);
  await page.goto(pathToFileURL(file).href);
  await waitRender(page, 0);
  await assertShows(page, board, 'shared rail board --html');
  const note = page.locator('#shared-note');
  assert.ok(await note.isVisible(), 'the verification note is shown');
  assert.equal(await note.innerText(), `⚠ ${board.shared.text}`);
  assert.ok(await note.evaluate((el) => el.classList.contains('warning')), 'shown as a warning');
  for (const claim of board.claims) {
    const badge = page.locator(`.card[data-claim-id="${claim.id}"] .badge-machine`);
    assert.equal(await badge.innerText(), `machine: ${claim.machine_text}`, `${claim.task}'s machine`);
    assert.equal(await badge.evaluate((el) => el.classList.contains('elsewhere')), claim.elsewhere === true);
  }
  await assertClean(page, problems, 'shared rail board --html');
  await page.close();
});
