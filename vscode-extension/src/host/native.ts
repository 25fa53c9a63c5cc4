// The extension's only way to change the rail: the `rail` binary, run once per operation with
// `--json`. The lock, the redo journal, the shared remote and every plan are the CLI's, so the
// extension writes exactly as agents, hooks and the terminal do — on Linux, macOS and Windows
// alike (nothing here needs `flock(1)` or `/proc`).
//
// One child per operation: starting `rail` costs a few milliseconds (measured in the e2e suite,
// `spawnMs` in artifacts/vscode/metrics.json), far below the refresh that follows it, so a
// long-lived child would buy nothing and would need a protocol of its own.
//
// No `vscode` import: the unit and conformance tests drive this module outside VS Code.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  core,
  type InFlight,
  type LockRecord,
  type LockVerdict,
  type Plan,
  type Refusal,
  type Removal,
  type SharedRailFacts,
  type Station as StationView,
} from './core';
import { processesAllowed, RestrictedMode } from './trust';

/** The CLI's exit codes: core's (rail_core::model::exit), which cli/src/fail.rs returns. */
const codes = core().constants().exit;
export const EXIT = { done: codes.done, refused: codes.refused, badInput: codes.bad_input, environment: codes.environment } as const;

// ---------------------------------------------------------------------------------------------
// Finding the binary

/** Where the binary came from, in the order they are tried. */
export type BinarySource = 'setting' | 'bundled' | 'path';

export interface RailBinary {
  path: string;
  source: BinarySource;
}

export interface ResolveOptions {
  /** The `rail.path` setting ('' or undefined: not set). */
  setting?: string | undefined;
  /** The extension's folder: a platform package carries `bin/rail` (`bin/rail.exe`). */
  extensionDir?: string | undefined;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

/** No usable binary: the message says what was tried and how to get one. */
export class RailNotFound extends Error {}

export function binaryName(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'rail.exe' : 'rail';
}

/** Where a platform package carries its binary. */
export function bundledBinary(extensionDir: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionDir, 'bin', binaryName(platform));
}

function runnable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    // Windows has no execute bit; elsewhere the file must be executable by us.
    if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `rail` on PATH, as a shell would find it (Windows: `rail.exe`; PATH is `;`-separated there). */
function onPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | undefined {
  const value = platform === 'win32' ? (env.Path ?? env.PATH ?? env.path) : env.PATH;
  if (!value) return undefined;
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of value.split(sep)) {
    if (dir === '') continue;
    const candidate = path.join(dir, binaryName(platform));
    if (runnable(candidate, platform)) return candidate;
  }
  return undefined;
}

/**
 * The binary to run: the `rail.path` setting, else the one this platform's package carries,
 * else `rail` on PATH. A setting that names nothing runnable is an error of its own (it is never
 * silently replaced by another binary); nothing at all is a RailNotFound saying how to get one.
 */
export function resolveRail(opts: ResolveOptions): RailBinary {
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const setting = opts.setting?.trim();
  if (setting) {
    if (!path.isAbsolute(setting)) {
      throw new RailNotFound(`rail.path must be an absolute path to the rail binary; it is "${setting}".`);
    }
    if (!runnable(setting, platform)) {
      throw new RailNotFound(
        `rail.path is "${setting}", which is not an executable file. Fix the setting, or clear it to use the bundled rail.`,
      );
    }
    return { path: setting, source: 'setting' };
  }
  if (opts.extensionDir !== undefined) {
    const bundled = bundledBinary(opts.extensionDir, platform);
    if (runnable(bundled, platform)) return { path: bundled, source: 'bundled' };
  }
  const found = onPath(env, platform);
  if (found !== undefined) return { path: found, source: 'path' };
  throw new RailNotFound(
    `the rail binary was not found: this copy of the extension carries none for ${platform}-${process.arch}, ` +
      '`rail.path` is not set and `rail` is not on PATH. Install the platform package of the extension, ' +
      'or build the CLI (`cargo install --path cli` in the Rail repository) and set `rail.path` to it.',
  );
}

// ---------------------------------------------------------------------------------------------
// Running it

export interface RunOptions {
  /** Where the child runs: the workspace folder (the CLI finds the repository from it). */
  cwd: string;
  /** The rail directory, passed as `--rail`. */
  rail: string;
  /** The acting session, passed as `--session` (omitted for commands that need none). */
  session?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

/** One finished run: exit code, output, and how long the child took (spawn to exit). */
export interface RawRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The CLI failed (bad input, environment) or could not be run; `code` is its exit code. */
export class RailError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly stderr = '',
  ) {
    super(message);
  }
}

/** The argument list for one run: the globals first, then the subcommand's. */
export function argv(args: readonly string[], opts: RunOptions): string[] {
  const globals = ['--json', '--rail', opts.rail];
  if (opts.session !== undefined) globals.push('--session', opts.session);
  return [...globals, ...args];
}

/** Runs the binary once; resolves with whatever it did (a failure to start is a RailError). */
export function runRail(bin: string, args: readonly string[], opts: RunOptions): Promise<RawRun> {
  if (!processesAllowed()) return Promise.reject(new RestrictedMode('the rail CLI'));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, argv(args, opts), {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', (e) => reject(new RailError(EXIT.environment, `cannot run ${bin}: ${e.message}`)));
    child.once('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === null) {
        reject(new RailError(EXIT.environment, `${path.basename(bin)} was stopped by ${signal ?? 'a signal'}`, stderr));
        return;
      }
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr, ms: performance.now() - started });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Reading its answers

type Json = Record<string, unknown>;

function isObject(x: unknown): x is Json {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** What the CLI said on stderr besides the failure itself (`rail: recovered a stale lock …`). */
function notesOf(stderr: string, except?: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('rail: '))
    .map((l) => l.slice('rail: '.length))
    .filter((l) => l !== except);
}

/** The last line the CLI wrote on stderr, for failures that printed no JSON. */
function lastWords(run: RawRun): string {
  const lines = run.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const last = lines[lines.length - 1];
  if (last !== undefined) return last.startsWith('rail: ') ? last.slice('rail: '.length) : last;
  return `rail exited with code ${run.code} and said nothing`;
}

/**
 * The run's JSON document when it succeeded; a RailError for every failure that is not a
 * refusal (`{ ok: false, code, error }`, or no JSON at all). Refusals come back as documents.
 */
function document(run: RawRun): Json {
  let doc: unknown;
  try {
    doc = JSON.parse(run.stdout);
  } catch {
    doc = undefined;
  }
  if (run.code === EXIT.done || (run.code === EXIT.refused && isObject(doc) && isObject(doc.refusal))) {
    if (!isObject(doc))
      throw new RailError(EXIT.environment, `rail printed no JSON (exit ${run.code}): ${run.stdout.slice(0, 200)}`, run.stderr);
    return doc;
  }
  const error = isObject(doc) && typeof doc.error === 'string' ? doc.error : lastWords(run);
  throw new RailError(run.code, error, run.stderr);
}

/** A refusal as every operation answers it: core's refusal, its message, the CLI's notes. */
type Refused = { ok: false; refusal: Refusal; message: string; notes: string[] };

/** The document's refusal, if it is one. */
function refusedOf(doc: Json, run: RawRun): Refused | undefined {
  if (doc.ok !== false || !isObject(doc.refusal) || typeof doc.refusal.message !== 'string') return undefined;
  const refusal = doc.refusal as unknown as Refusal;
  return { ok: false, refusal, message: refusal.message, notes: notesOf(run.stderr, refusal.message) };
}

/** The outcome of claim, release, renew, take, update: done with core's plan, or refused. */
export type Mutation = { ok: true; plan: Plan; message: string; notes: string[]; ms: number } | (Refused & { ms: number });

export function parseMutation(run: RawRun): Mutation {
  const doc = document(run);
  if (doc.ok === true && isObject(doc.plan) && typeof doc.plan.message === 'string') {
    // The CLI serialises rail-core's Plan (the type the wasm build's .d.ts declares).
    const plan = doc.plan as unknown as Plan;
    return { ok: true, plan, message: plan.message, notes: notesOf(run.stderr), ms: run.ms };
  }
  const refused = refusedOf(doc, run);
  if (refused) return { ...refused, ms: run.ms };
  throw new RailError(EXIT.environment, `rail answered with an unexpected document: ${run.stdout.slice(0, 200)}`, run.stderr);
}

/** `rail worktree`: the station made (or the claim's refusal). */
export type Station = { ok: true; task: string; dir: string; branch: string; message: string; notes: string[] } | Refused;

export function parseStation(run: RawRun): Station {
  const doc = document(run);
  if (doc.ok === true && typeof doc.dir === 'string' && typeof doc.branch === 'string' && typeof doc.task === 'string') {
    const message = typeof doc.message === 'string' ? doc.message : `station ready: ${doc.dir} on branch ${doc.branch}`;
    return { ok: true, task: doc.task, dir: doc.dir, branch: doc.branch, message, notes: notesOf(run.stderr) };
  }
  const refused = refusedOf(doc, run);
  if (refused) return refused;
  throw new RailError(EXIT.environment, `rail worktree answered with an unexpected document: ${run.stdout.slice(0, 200)}`, run.stderr);
}

/** `rail worktree list --json`: every station (the main checkout first) as core sees it. */
export interface StationList {
  base: string | null;
  stations: StationView[];
}

export function parseStations(run: RawRun): StationList {
  const doc = document(run);
  if (doc.ok === true && Array.isArray(doc.stations)) {
    const base = typeof doc.base === 'string' ? doc.base : null;
    return { base, stations: doc.stations as StationView[] };
  }
  throw new RailError(EXIT.environment, `rail worktree list answered with an unexpected document: ${run.stdout.slice(0, 200)}`, run.stderr);
}

/** What `rail worktree remove` did (cli/src/ops/station/ `Closed`). */
export interface Closed {
  path: string;
  branch: string | null;
  forced: boolean;
  released: string[];
  branch_deleted: boolean;
  branch_kept: string | null;
  notes: string[];
  message: string;
}

/** `rail worktree remove`: the station closed, or core's verdict on why not (nothing changed). */
export type Close =
  | { ok: true; closed: Closed; message: string; notes: string[] }
  | { ok: false; refusal: Removal; message: string; notes: string[] };

export function parseClose(run: RawRun): Close {
  const doc = document(run);
  if (doc.ok === true && isObject(doc.closed) && typeof doc.closed.message === 'string') {
    const closed = doc.closed as unknown as Closed;
    return { ok: true, closed, message: closed.message, notes: notesOf(run.stderr) };
  }
  if (doc.ok === false && isObject(doc.refusal) && typeof doc.refusal.message === 'string' && typeof doc.refusal.forceable === 'boolean') {
    const refusal = doc.refusal as unknown as Removal;
    return { ok: false, refusal, message: refusal.message, notes: notesOf(run.stderr).filter((n) => !n.startsWith(refusal.message)) };
  }
  throw new RailError(
    EXIT.environment,
    `rail worktree remove answered with an unexpected document: ${run.stdout.slice(0, 200)}`,
    run.stderr,
  );
}

/** `rail lock --json`: who holds the lock, and core's verdict on it. */
export type LockStatus = { held: false } | { held: true; record: LockRecord | null; verdict: LockVerdict };

export function parseLock(run: RawRun): LockStatus {
  const doc = document(run);
  if (doc.held === false) return { held: false };
  if (doc.held === true && isObject(doc.verdict) && typeof doc.verdict.state === 'string') {
    const record = isObject(doc.record) ? (doc.record as unknown as LockRecord) : null;
    return { held: true, record, verdict: doc.verdict as unknown as LockVerdict };
  }
  throw new RailError(EXIT.environment, `rail lock answered with an unexpected document: ${run.stdout.slice(0, 200)}`, run.stderr);
}

/** `rail lock --break --json`: whose lock was broken (`null`: it was free). */
export interface Broken {
  holder: string;
  reason: string;
}

export function parseBreak(run: RawRun): Broken | null {
  const doc = document(run);
  if (doc.ok === true && doc.broken === null) return null;
  if (doc.ok === true && isObject(doc.broken) && typeof doc.broken.holder === 'string' && typeof doc.broken.reason === 'string') {
    return { holder: doc.broken.holder, reason: doc.broken.reason };
  }
  throw new RailError(EXIT.environment, `rail lock --break answered with an unexpected document: ${run.stdout.slice(0, 200)}`, run.stderr);
}

/** `rail sync --json`: the shared rail fetched and mirrored. */
export interface Synced {
  remote: string;
  commit: string | null;
  files: number;
  notes: string[];
}

/**
 * What `rail flight --json` gathers for the board besides the texts: every session's work in
 * flight, this clone's machine id (whose claims are whose on a shared rail) and the shared rail's
 * verification as the CLI knows it (which keys, what was proven) — core's facts, as the CLI
 * gathered them; nothing of it is judged here.
 */
export interface FlightFacts {
  in_flight: InFlight[];
  machine?: string;
  shared?: SharedRailFacts;
}

/** `rail flight`'s document. */
export function parseFlight(run: RawRun): FlightFacts {
  const doc = document(run);
  if (!Array.isArray(doc.in_flight))
    throw new RailError(EXIT.environment, `rail flight answered with an unexpected document: ${run.stdout.slice(0, 200)}`, run.stderr);
  const out: FlightFacts = { in_flight: doc.in_flight as InFlight[] };
  if (typeof doc.machine === 'string') out.machine = doc.machine;
  if (typeof doc.shared === 'object' && doc.shared !== null) out.shared = doc.shared as SharedRailFacts;
  return out;
}

export function parseSync(run: RawRun): Synced {
  const doc = document(run);
  if (doc.ok === true && typeof doc.remote === 'string' && typeof doc.files === 'number') {
    const commit = typeof doc.commit === 'string' ? doc.commit : null;
    return { remote: doc.remote, commit, files: doc.files, notes: notesOf(run.stderr) };
  }
  throw new RailError(EXIT.environment, `rail sync answered with an unexpected document: ${run.stdout.slice(0, 200)}`, run.stderr);
}

// ---------------------------------------------------------------------------------------------
// The operations, as the extension asks for them

export interface ClaimInput {
  task: string;
  paths?: readonly string[];
  resources?: readonly string[];
  purpose?: string | null;
  lease?: string | null;
  after?: readonly string[];
  /** The branch whose commits keep the claim alive, when it is not named like the session. */
  branch?: string | null;
}

export interface StationInput {
  task: string;
  dir: string;
  base?: string | null;
  paths?: readonly string[];
  resources?: readonly string[];
  purpose?: string | null;
  lease?: string | null;
}

/** `--name=value` pairs: a value starting with `-` is never taken for an option. */
function opt(name: string, value: string | null | undefined): string[] {
  return value === undefined || value === null || value === '' ? [] : [`--${name}=${value}`];
}

function many(name: string, values: readonly string[] | undefined): string[] {
  return (values ?? []).map((v) => `--${name}=${v}`);
}

function claimArgs(c: ClaimInput | StationInput): string[] {
  return [...many('path', c.paths), ...many('resource', c.resources), ...opt('purpose', c.purpose), ...opt('lease', c.lease)];
}

/** The `rail` binary bound to one rail and folder. */
export class NativeRail {
  /** Duration of the latest child (spawn to exit), for the measurements. */
  lastRunMs = 0;

  constructor(
    readonly binary: RailBinary,
    readonly cwd: string,
    readonly rail: string,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async run(args: readonly string[], session?: string): Promise<RawRun> {
    const run = await runRail(this.binary.path, args, { cwd: this.cwd, rail: this.rail, session, env: this.env });
    this.lastRunMs = run.ms;
    return run;
  }

  async claim(session: string, c: ClaimInput): Promise<Mutation> {
    const args = ['claim', ...claimArgs(c), ...many('after', c.after), ...opt('branch', c.branch), '--', c.task];
    return parseMutation(await this.run(args, session));
  }

  /** The CLI lists the files the session touched itself (git diff of its branch). */
  async release(session: string, task: string): Promise<Mutation> {
    return parseMutation(await this.run(['release', '--', task], session));
  }

  async renew(session: string, task: string): Promise<Mutation> {
    return parseMutation(await this.run(['renew', '--', task], session));
  }

  /** `branch`: the taker's branch, when it is not named like the session (its commits renew). */
  async take(session: string, task: string, reason?: string | null, branch?: string | null): Promise<Mutation> {
    return parseMutation(await this.run(['take', ...opt('reason', reason), ...opt('branch', branch), '--', task], session));
  }

  /** `undefined` leaves a field as it is; an empty list clears it. */
  async update(
    session: string,
    task: string,
    u: { paths?: readonly string[]; resources?: readonly string[]; purpose?: string },
  ): Promise<Mutation> {
    const args = ['update'];
    if (u.paths !== undefined) args.push(...(u.paths.length === 0 ? ['--clear-paths'] : many('path', u.paths)));
    if (u.resources !== undefined) args.push(...(u.resources.length === 0 ? ['--clear-resources'] : many('resource', u.resources)));
    if (u.purpose !== undefined) args.push(`--purpose=${u.purpose}`);
    return parseMutation(await this.run([...args, '--', task], session));
  }

  /** A station: the CLI claims the task as the session named like it, then adds the worktree. */
  async worktree(s: StationInput): Promise<Station> {
    const args = ['worktree', `--dir=${s.dir}`, ...opt('base', s.base), ...claimArgs(s), '--', s.task];
    return parseStation(await this.run(args, s.task));
  }

  /** The stations: each worktree with its claims, uncommitted files and unmerged commits. */
  async worktrees(): Promise<StationList> {
    return parseStations(await this.run(['worktree', 'list']));
  }

  /**
   * `rail worktree remove`: `station` is a task, a branch or the station's path. `force` only
   * after the person confirmed it (it discards uncommitted work; a branch with unmerged commits
   * is kept even then). `session` is logged as the one who closed it.
   */
  async closeStation(station: string, force: boolean, session?: string): Promise<Close> {
    const args = ['worktree', 'remove', ...(force ? ['--force'] : []), '--', station];
    return parseClose(await this.run(args, session));
  }

  async lock(): Promise<LockStatus> {
    return parseLock(await this.run(['lock']));
  }

  async breakLock(session: string, force: boolean): Promise<Broken | null> {
    return parseBreak(await this.run(['lock', '--break', ...(force ? ['--force'] : [])], session));
  }

  async sync(session: string | undefined): Promise<Synced> {
    return parseSync(await this.run(['sync'], session));
  }

  /** Work in flight (files changed and not merged): the CLI asks git of every station; with
   * this machine's id and the shared rail's verification. */
  async flight(): Promise<FlightFacts> {
    return parseFlight(await this.run(['flight']));
  }
}
