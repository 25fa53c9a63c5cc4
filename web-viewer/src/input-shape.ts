// Untrusted JSON (a host's postMessage, a snapshot's data block) checked into the boundary types.
// Only the shape is checked here; what the values mean (times, names, paths) is core's job, and
// core reports it as diagnostics or a `rail: …` error.

import type { Facts, FileText, HookSeen, InFlight, RailTexts, SharedRailFacts } from './core.js';

export class InputError extends Error {
  override name = 'InputError';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new InputError(`${where}: expected a string`);
  return value;
}

function fileText(value: unknown, where: string): FileText {
  if (!isRecord(value)) throw new InputError(`${where}: expected {path, text}`);
  const file: FileText = { path: str(value.path, `${where}.path`), text: str(value.text, `${where}.text`) };
  if (value.modified !== undefined && value.modified !== null) {
    file.modified = str(value.modified, `${where}.modified`);
  }
  return file;
}

function optionalFile(value: unknown, where: string): FileText | undefined {
  return value === undefined || value === null ? undefined : fileText(value, where);
}

function stringMap<T>(value: unknown, where: string, item: (v: unknown, w: string) => T): Record<string, T> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new InputError(`${where}: expected an object`);
  const out: Record<string, T> = {};
  for (const [key, v] of Object.entries(value)) out[key] = item(v, `${where}.${key}`);
  return out;
}

/** A process start time as a host measured it: a whole number of the OS's units. A number JS
 * cannot hold exactly (Windows' creation times, 100 ns since 1601, are beyond 2^53) arrives
 * rounded and would no longer equal the claim's recorded start, so a live owner would read as
 * a reused pid: such a start is left out (unknown: the pid's liveness decides, as where a host
 * cannot tell the start), never passed on as a guess. */
function start(value: unknown, where: string): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new InputError(`${where}: expected a whole number`);
  return Number.isSafeInteger(value) ? value : undefined;
}

function bool(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new InputError(`${where}: expected true or false`);
  return value;
}

export function toRailTexts(value: unknown): RailTexts {
  if (!isRecord(value)) throw new InputError('texts: expected an object');
  const texts: RailTexts = {};
  const claims = optionalFile(value.claims, 'texts.claims');
  if (claims) texts.claims = claims;
  const log = optionalFile(value.log, 'texts.log');
  if (log) texts.log = log;
  const config = optionalFile(value.config, 'texts.config');
  if (config) texts.config = config;
  const files = value.claim_files;
  if (files !== undefined && files !== null) {
    if (!Array.isArray(files)) throw new InputError('texts.claim_files: expected an array');
    texts.claim_files = files.map((f: unknown, i) => fileText(f, `texts.claim_files[${i}]`));
  }
  return texts;
}

export function toFacts(value: unknown): Facts {
  if (!isRecord(value)) throw new InputError('facts: expected an object');
  const facts: Facts = { now: str(value.now, 'facts.now') };
  if (value.host !== undefined && value.host !== null) facts.host = str(value.host, 'facts.host');
  if (value.commits != null) facts.commits = stringMap(value.commits, 'facts.commits', str);
  if (value.pushed_commits != null) facts.pushed_commits = stringMap(value.pushed_commits, 'facts.pushed_commits', str);
  if (value.processes != null) facts.processes = stringMap(value.processes, 'facts.processes', bool);
  if (value.process_starts != null) {
    const starts: Record<string, number> = {};
    for (const [key, at] of Object.entries(stringMap(value.process_starts, 'facts.process_starts', start))) {
      if (at !== undefined) starts[key] = at;
    }
    facts.process_starts = starts;
  }
  if (value.sessions != null) facts.sessions = stringMap(value.sessions, 'facts.sessions', bool);
  if (value.worktrees != null) {
    if (!Array.isArray(value.worktrees)) throw new InputError('facts.worktrees: expected an array');
    facts.worktrees = value.worktrees.map((w: unknown, i) => {
      const where = `facts.worktrees[${i}]`;
      if (!isRecord(w)) throw new InputError(`${where}: expected {path, branch?}`);
      const tree: { path: string; branch?: string } = { path: str(w.path, `${where}.path`) };
      if (w.branch !== undefined && w.branch !== null) tree.branch = str(w.branch, `${where}.branch`);
      return tree;
    });
  }
  if (value.hooks != null) {
    facts.hooks = stringMap(value.hooks, 'facts.hooks', (v: unknown, where: string) => {
      if (!isRecord(v)) throw new InputError(`${where}: expected {agent, version?, at, host?}`);
      const seen: HookSeen = { agent: str(v.agent, `${where}.agent`), at: str(v.at, `${where}.at`) };
      if (v.version !== undefined && v.version !== null) seen.version = str(v.version, `${where}.version`);
      // Another machine's mark on a shared rail names the machine it was seen on.
      if (v.host !== undefined && v.host !== null) seen.host = str(v.host, `${where}.host`);
      return seen;
    });
  }
  if (value.in_flight != null) {
    if (!Array.isArray(value.in_flight)) throw new InputError('facts.in_flight: expected an array');
    facts.in_flight = value.in_flight.map((w: unknown, i) => inFlight(w, `facts.in_flight[${i}]`));
  }
  // A shared rail (what `rail board --html` and the VS Code extension pass): leases from this
  // machine's sightings, this machine's id (whose claims are whose) and how far the rail is
  // verified, as the CLI found them.
  if (value.observing != null) facts.observing = bool(value.observing, 'facts.observing');
  if (value.observed != null) facts.observed = stringMap(value.observed, 'facts.observed', str);
  if (value.machine != null) facts.machine = str(value.machine, 'facts.machine');
  if (value.shared != null) facts.shared = sharedRail(value.shared, 'facts.shared');
  return facts;
}

/** A shared rail's verification as a host found it (core judges it: `model::verification`). */
function sharedRail(v: unknown, where: string): SharedRailFacts {
  if (!isRecord(v)) throw new InputError(`${where}: expected {remote, known?, signers?, fetched?, proven?, can_sign?}`);
  const out: SharedRailFacts = { remote: str(v.remote, `${where}.remote`) };
  if (v.known != null) out.known = bool(v.known, `${where}.known`);
  if (v.can_sign != null) out.can_sign = bool(v.can_sign, `${where}.can_sign`);
  for (const key of ['signers', 'fetched', 'proven'] as const) {
    if (v[key] != null) out[key] = str(v[key], `${where}.${key}`);
  }
  return out;
}

const KINDS: readonly InFlight['kind'][] = ['written', 'uncommitted', 'unmerged'];
const STANDINGS: readonly InFlight['standing'][] = ['live', 'stale', 'ended'];

/** One file of a session's work in flight, as the CLI gathered it. */
function inFlight(w: unknown, where: string): InFlight {
  if (!isRecord(w)) throw new InputError(`${where}: expected {path, session, checkout, kind, at, standing, station?, machine?}`);
  const kind = KINDS.find((k) => k === w.kind);
  if (kind === undefined) throw new InputError(`${where}.kind: expected one of ${KINDS.join(', ')}`);
  const standing = STANDINGS.find((k) => k === w.standing);
  if (standing === undefined) throw new InputError(`${where}.standing: expected one of ${STANDINGS.join(', ')}`);
  const out: InFlight = {
    path: str(w.path, `${where}.path`),
    session: str(w.session, `${where}.session`),
    checkout: str(w.checkout, `${where}.checkout`),
    kind,
    at: str(w.at, `${where}.at`),
    standing,
  };
  if (w.station !== undefined && w.station !== null) out.station = str(w.station, `${where}.station`);
  if (w.machine !== undefined && w.machine !== null) out.machine = str(w.machine, `${where}.machine`);
  return out;
}

/** `{texts, facts}` as the snapshot data block and the embed message carry them. */
export function toRailInput(value: unknown): { texts: RailTexts; facts: Facts } {
  if (!isRecord(value)) throw new InputError('expected {"texts": …, "facts": …}');
  return { texts: toRailTexts(value.texts), facts: toFacts(value.facts) };
}

export { isRecord };
