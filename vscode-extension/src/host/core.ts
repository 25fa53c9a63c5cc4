// rail-core, compiled to WebAssembly (wasm/pkg/node, built by scripts/build-wasm.sh).
//
// Every decision the extension shows — a claim's state, its lease text, a conflict, a scope class,
// whether a lock may be broken — comes from here. The extension gathers texts and facts, calls
// one of these functions and shows the answer; it never recomputes one.
//
// The types are the ones generated from the Rust structs (wasm/types/rail.d.ts, embedded in the
// package's .d.ts), so a change on the Rust side is a compile error here, not a silent mismatch.

export type {
  Board,
  BoardClaim,
  Conflict,
  Facts,
  FileEdits,
  FileScope,
  FileText,
  Freshness,
  FreshnessFacts,
  Holder,
  Located,
  LockFacts,
  LockRecord,
  LockState,
  LockVerdict,
  Plan,
  PlanOutcome,
  RailTexts,
  Refusal,
  Request,
  ResourceUse,
  ScopeReport,
  SessionView,
  Severity,
  State,
  Who,
  Worktree,
} from '../../../wasm/pkg/node/rail_wasm';

type CoreModule = typeof import('../../../wasm/pkg/node/rail_wasm');

let loaded: CoreModule | undefined;

/** The wasm module, instantiated on first use. */
export function core(): CoreModule {
  // Loaded lazily: instantiating the ~700 KB module takes ~15 ms, which activation need not pay
  // before the first board is actually wanted. esbuild bundles this require like any other.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('../../../wasm/pkg/node/rail_wasm.js') as CoreModule;
  return loaded;
}
