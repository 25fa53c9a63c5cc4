// The one door to rail-core. Every state, lease, conflict and rendered purpose on this page comes
// from these calls, and so do which files are the rail's and how large one may be; the page only
// shows what they return (Architecture Invariant: one rule, one place). Types are the wasm
// build's generated declarations, never copies.

import init, {
  board as coreBoard,
  constants as coreConstants,
  handedFile as coreHandedFile,
  railFilesIn as coreRailFilesIn,
  who as coreWho,
} from '../../wasm/pkg/web/rail_wasm.js';
import type { Board, Facts, HostConstants, RailFile, RailTexts, Who } from '../../wasm/pkg/web/rail_wasm.js';

export type {
  Board,
  BoardClaim,
  BoardReleased,
  Conflict,
  Facts,
  FileRole,
  FileText,
  FlightView,
  HookSeen,
  InFlight,
  LeaseState,
  Located,
  LogEntry,
  PlannedView,
  RailFile,
  RailTexts,
  ResourceUse,
  SessionView,
  SharedRailFacts,
  Summary,
  Who,
} from '../../wasm/pkg/web/rail_wasm.js';

/** Where the wasm module comes from: fetched next to the script, or bytes inlined in the page. */
export type WasmSource = { kind: 'url'; url: URL } | { kind: 'bytes'; bytes: Uint8Array };

let loading: Promise<void> | null = null;

/** Instantiates the module once; later calls share the same promise. */
export function loadCore(source: WasmSource): Promise<void> {
  loading ??= init({
    module_or_path: source.kind === 'url' ? source.url : source.bytes,
  }).then(() => undefined);
  return loading;
}

/** The board as core evaluates it. Throws core's `rail: …` errors for malformed input. */
export function computeBoard(texts: RailTexts, facts: Facts): Board {
  return coreBoard(texts, facts);
}

/** Which claims cover these paths, by core's glob rules (used by the `path:` filter, one path at
 * a time: then every claim covering it is named). */
export function whoHolds(texts: RailTexts, facts: Facts, paths: string[]): Who[] {
  return coreWho(texts, facts, paths);
}

/** The rail's names and the largest file Rail reads, as the `rail` binary has them. */
export function railConstants(): HostConstants {
  return coreConstants();
}

/** Where a file the reader hands over on its own goes in the rail, by its name; `null`: not a
 * rail's file. */
export function handedFile(name: string): RailFile | null {
  return coreHandedFile(name);
}

/** The rail's files among a chosen folder's files (paths relative to it): the shallowest folder
 * holding claims.md or a claim file is the rail, and only the files Rail reads there count. */
export function railFilesIn(paths: string[]): RailFile[] {
  return coreRailFilesIn(paths);
}
