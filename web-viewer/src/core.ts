// The one door to rail-core. Every state, lease, conflict and rendered purpose on this page comes
// from these calls; the page only shows what they return (Architecture Invariant: one rule, one
// place). Types are the wasm build's generated declarations, never copies.

import init, { board as coreBoard, who as coreWho } from '../../wasm/pkg/web/rail_wasm.js';
import type { Board, Facts, RailTexts, Who } from '../../wasm/pkg/web/rail_wasm.js';

export type {
  Board,
  BoardClaim,
  BoardReleased,
  Conflict,
  Facts,
  FileText,
  HookSeen,
  LeaseState,
  Located,
  LogEntry,
  PlannedView,
  RailTexts,
  ResourceUse,
  SessionView,
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

/** Which claims cover these paths, by core's glob rules (used by the `path:` filter). */
export function whoHolds(texts: RailTexts, facts: Facts, paths: string[]): Who[] {
  return coreWho(texts, facts, paths);
}
