// rail-core, compiled to WebAssembly (wasm/pkg/node, built by scripts/build-wasm.sh).
//
// Every decision the board shows — a claim's state, its lease text, a conflict, a scope class —
// comes from here, in-process. The extension gathers texts and facts, calls one of these
// functions and shows the answer; it never recomputes one. Plans, refusals and lock verdicts come
// from the same core through the `rail` binary (native.ts), typed with these same types.
//
// The types are the ones generated from the Rust structs (wasm/types/rail.d.ts, embedded in the
// package's .d.ts), so a change on the Rust side is a compile error here, not a silent mismatch.

export type {
  ActingView,
  Blocker,
  Board,
  BoardClaim,
  Column,
  Conflict,
  Facts,
  FileScope,
  FileText,
  FlightView,
  Hint,
  InFlight,
  HookSeen,
  Located,
  LockRecord,
  LockVerdict,
  Plan,
  RailTexts,
  Refusal,
  Removal,
  ResourceUse,
  ScopeReport,
  SessionView,
  SharedRailFacts,
  SharedView,
  Severity,
  Station,
  Who,
  Worktree,
} from '../../../wasm/pkg/node/rail_wasm';

import type { BoardClaim } from '../../../wasm/pkg/node/rail_wasm';

type CoreModule = typeof import('../../../wasm/pkg/node/rail_wasm');

let loaded: CoreModule | undefined;

/** The wasm module, instantiated on first use. */
export function core(): CoreModule {
  // Loaded lazily: instantiating the ~700 KB module takes ~15 ms, which activation need not pay
  // before the first board is actually wanted. esbuild bundles this require like any other.
  loaded ??= require('../../../wasm/pkg/node/rail_wasm.js') as CoreModule;
  return loaded;
}

/** Whether `me` acts for the session holding `claim`, as core decides it (`ident::acts_for`):
 * its own, or an agent's of its branch (`main~claude-…` for `main`), or its branch's. */
export function isMine(claim: BoardClaim, me: string | undefined): boolean {
  // Another machine's claim on a shared rail is no session's here, whatever its name (core's
  // `elsewhere`): only its machine renews, updates or releases it.
  return me !== undefined && claim.elsewhere !== true && core().actsFor(me, claim.session);
}
