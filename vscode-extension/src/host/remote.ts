// The git plumbing of a shared rail (cli/src/shared.rs): fetch the rail's ref from the remote,
// read a rail commit's files, make the next commit with `git fast-import`, push it without force,
// and the commit times of the remote's branches for leases. Everything here is git child
// processes; what the results mean (plans, mirrors, retries) is shared.ts's business.

import { spawn } from 'node:child_process';

/** The ref on the remote that holds the shared rail: one commit per operation. */
export const SHARED_REF = 'refs/rail/claims';
/** The newest shared state seen locally (the CLI keeps the same ref). */
export const FETCHED_REF = 'refs/rail/fetched';

/** A fetch is read-only, so a hung one (a dead SSH host) may be abandoned: after this long. */
const FETCH_KILL_MS = 30_000;

/** Why talking to the remote failed. */
export class RemoteError extends Error {
  constructor(
    /** `unreachable`: the remote could not be reached (or refused us); nothing was changed. */
    readonly kind: 'unreachable' | 'git',
    message: string,
  ) {
    super(message);
  }
}

interface GitRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs git in `dir`, feeding `input` to stdin; never rejects for git's own failures (the caller
 * reads the exit code and stderr, which tell a rejected push from an unreachable remote).
 */
function runGit(dir: string, args: readonly string[], input?: Buffer, killAfterMs?: number): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    // No credential prompt can be answered from an editor's background process: fail instead.
    const child = spawn('git', args, {
      cwd: dir,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    if (killAfterMs !== undefined) {
      timer = setTimeout(() => {
        err += `\ngit gave no answer in ${killAfterMs / 1000} s and was stopped`;
        child.kill('SIGKILL');
      }, killAfterMs);
    }
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    child.once('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(new RemoteError('git', `cannot run git: ${e.message}`));
    });
    child.once('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err.trim() });
    });
    // A git that exits early (bad input) closes its stdin: that is reported through the exit code.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** Runs git and returns its stdout as text; throws a RemoteError('git') on failure. */
async function gitText(dir: string, args: readonly string[]): Promise<string> {
  const r = await runGit(dir, args);
  if (r.code !== 0) throw new RemoteError('git', `git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.toString('utf8');
}

let counter = 0;
/** A name no other process (nor another call in this one) uses at the same time. */
function unique(): string {
  counter += 1;
  return `${process.pid}-${process.hrtime.bigint()}-${counter}`;
}

/**
 * Fetches the shared ref (and, with `branches`, the remote's branch heads, for leases) into a
 * private temporary ref. Returns the fetched commit, `undefined` when the remote has no shared
 * rail yet. Throws RemoteError('unreachable') when the remote cannot be reached.
 */
export async function fetchShared(dir: string, remote: string, branches: boolean): Promise<string | undefined> {
  // A private ref per call: concurrent fetches on one machine must never share one.
  const tmp = `refs/rail/tmp/fetch-${unique()}`;
  // Rail fetches often: no automatic gc or maintenance after each fetch.
  const args = [
    '-c',
    'gc.auto=0',
    '-c',
    'maintenance.auto=false',
    'fetch',
    '--quiet',
    '--no-write-fetch-head',
    '--no-tags',
    remote,
    `+${SHARED_REF}:${tmp}`,
  ];
  if (branches) args.push(`+refs/heads/*:refs/remotes/${remote}/*`);
  const r = await runGit(dir, args, undefined, FETCH_KILL_MS);
  if (r.code !== 0) {
    if (r.stderr.includes("couldn't find remote ref")) {
      // No shared state yet, but the remote answered; its branches still matter for leases.
      if (branches) await runGit(dir, ['fetch', '--quiet', '--no-tags', remote], undefined, FETCH_KILL_MS);
      return undefined;
    }
    throw new RemoteError('unreachable', r.stderr || `git fetch ${remote} failed (exit ${r.code})`);
  }
  const commit = (await gitText(dir, ['rev-parse', '--verify', '--quiet', tmp])).trim();
  // Remember the newest state seen (best effort: concurrent updates race benignly), drop ours.
  await runGit(dir, ['update-ref', FETCHED_REF, commit]);
  await runGit(dir, ['update-ref', '-d', tmp]);
  return commit;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Every file of a rail commit (path → text), in two git processes; empty for no commit. */
export async function readCommit(dir: string, commit: string | undefined): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  if (commit === undefined) return files;
  const listing = await gitText(dir, ['ls-tree', '-r', '-z', commit]);
  const entries: { path: string; sha: string }[] = [];
  for (const entry of listing.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [, type, sha] = entry.slice(0, tab).split(' ');
    if (type !== 'blob' || sha === undefined) continue;
    entries.push({ path: entry.slice(tab + 1), sha });
  }
  if (entries.length === 0) return files;
  const r = await runGit(dir, ['cat-file', '--batch'], Buffer.from(entries.map((e) => `${e.sha}\n`).join('')));
  if (r.code !== 0) throw new RemoteError('git', `git cat-file --batch failed: ${r.stderr}`);
  // `<sha> blob <size>\n<size bytes>\n`, once per requested object, in order.
  const out = r.stdout;
  let pos = 0;
  for (const e of entries) {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) throw new RemoteError('git', 'truncated git cat-file output');
    const header = out.subarray(pos, nl).toString('utf8');
    const size = Number(header.split(' ')[2]);
    if (!Number.isSafeInteger(size)) throw new RemoteError('git', `bad git cat-file header \`${header}\``);
    const start = nl + 1;
    if (start + size > out.length) throw new RemoteError('git', 'truncated blob in git cat-file output');
    try {
      files.set(e.path, utf8.decode(out.subarray(start, start + size)));
    } catch {
      throw new RemoteError('git', `${e.path} in the shared rail is not UTF-8`);
    }
    pos = start + size + 1;
  }
  return files;
}

/**
 * Makes the commit that changes `changed` (path → new text) on top of `parent`, with
 * `git fast-import` on a private ref (no index, no worktree, no other process's ref touched).
 * Returns the new commit's id, which fast-import reports itself (`get-mark`).
 */
export async function commitFiles(
  dir: string,
  parent: string | undefined,
  changed: ReadonlyMap<string, string>,
  message: string,
): Promise<string> {
  const tmp = `refs/rail/tmp/new-${unique()}`;
  const now = Math.floor(Date.now() / 1000);
  const parts: Buffer[] = [];
  const line = (text: string): void => void parts.push(Buffer.from(`${text}\n`, 'utf8'));
  // `data <n>` counts bytes, so every text goes in as a Buffer measured as one.
  const data = (text: string): void => {
    const bytes = Buffer.from(text, 'utf8');
    line(`data ${bytes.length}`);
    parts.push(bytes, Buffer.from('\n'));
  };
  line(`commit ${tmp}`);
  line('mark :1');
  line(`committer Rail <rail@localhost> ${now} +0000`);
  data(message);
  if (parent !== undefined) line(`from ${parent}`);
  for (const [file, text] of changed) {
    line(`M 100644 inline ${file}`);
    data(text);
  }
  line('get-mark :1');
  line('done');
  const r = await runGit(dir, ['fast-import', '--quiet', '--done'], Buffer.concat(parts));
  if (r.code !== 0) throw new RemoteError('git', `git fast-import failed: ${r.stderr}`);
  const sha = r.stdout.toString('utf8').trim();
  if (!/^[0-9a-f]{40,64}$/.test(sha)) throw new RemoteError('git', `git fast-import did not report the commit (\`${sha}\`)`);
  await runGit(dir, ['update-ref', '-d', tmp]);
  return sha;
}

/**
 * Pushes `commit` to the shared ref, never forced: the remote takes it only if it fast-forwards
 * the ref, which is the compare-and-swap the whole design rests on. `rejected`: another writer
 * got there first. Throws RemoteError('unreachable') when the remote could not be reached.
 */
export async function pushShared(dir: string, remote: string, commit: string): Promise<'done' | 'rejected'> {
  // Test hook, as the CLI's: time to stop the remote between fetch and push.
  const pause = Number(process.env.RAIL_TEST_BEFORE_PUSH_MS);
  if (Number.isFinite(pause) && pause > 0) await new Promise((r) => setTimeout(r, pause));
  const r = await runGit(dir, ['push', '--porcelain', '--quiet', remote, `${commit}:${SHARED_REF}`]);
  if (r.code === 0) return 'done';
  // `!` lines are refs the remote refused: not a fast-forward, or a concurrent update held the
  // ref's lock on the remote. Either way another writer got there first.
  const stdout = r.stdout.toString('utf8');
  const refused =
    stdout.split('\n').some((l) => l.startsWith('!')) ||
    ['[rejected]', '[remote rejected]', 'fetch first', 'cannot lock ref'].some((s) => r.stderr.includes(s));
  if (refused) return 'rejected';
  throw new RemoteError('unreachable', r.stderr || `git push ${remote} failed (exit ${r.code})`);
}

/**
 * Time of the last commit of each branch as the remote has it (the remote-tracking refs), for
 * the branches with commits not on the remote's main branch: a session keeps its claim across
 * machines by pushing. One `git for-each-ref` with `ahead-behind`; nothing if that fails.
 */
export async function remoteCommitTimes(dir: string, remote: string): Promise<Record<string, string>> {
  const head = await runGit(dir, ['symbolic-ref', '--short', `refs/remotes/${remote}/HEAD`]);
  const base = head.code === 0 ? head.stdout.toString('utf8').trim() : `${remote}/main`;
  const prefix = `refs/remotes/${remote}/`;
  const r = await runGit(dir, ['for-each-ref', `--format=%(refname)%00%(committerdate:unix)%00%(ahead-behind:${base})`, prefix]);
  const times: Record<string, string> = {};
  if (r.code !== 0) return times;
  for (const row of r.stdout.toString('utf8').split('\n')) {
    const [ref, secs, aheadBehind] = row.split('\0');
    if (ref === undefined || !ref.startsWith(prefix) || secs === undefined) continue;
    const branch = ref.slice(prefix.length);
    if (branch === 'HEAD') continue;
    const seconds = Number(secs.trim());
    const ahead = Number((aheadBehind ?? '').trim().split(/\s+/)[0]);
    if (!Number.isSafeInteger(seconds) || !Number.isFinite(ahead) || ahead === 0) continue;
    times[branch] = new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  }
  return times;
}
