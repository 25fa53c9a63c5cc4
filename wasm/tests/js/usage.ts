// Type-level test of the package's declarations (checked by package.mjs with `tsc --strict`):
// the exports take and return the generated boundary types, so misuse fails to compile.
// Every `@ts-expect-error` line must be an error; were a type `any`, it would not be.
import * as rail from "../../pkg/node/rail_wasm.js";
import * as web from "../../pkg/web/rail_wasm.js";
import type { Board, Facts, Located, PlanOutcome, RailTexts, Request } from "../../types/rail";

const texts: RailTexts = { claims: { path: "claims.md", text: "" } };
const facts: Facts = { now: "2026-10-22T15:00:00Z" };

const board: Board = rail.board(texts, facts);
const claims: number = board.summary.claims;
const state: "live" | "expiring" | "stale" = board.claims[0].state;
const html: string | undefined = board.claims[0].purpose_html;

const request: Request = { op: "claim", task: "search", paths: ["src/search/**"] };
const outcome: PlanOutcome = rail.plan(texts, facts, "session-c", request);
if ("ok" in outcome) {
  const log: string | null = outcome.ok.log_line;
  const text: string = rail.applyEdits("", outcome.ok.edits[0].edits);
  void [log, text];
} else {
  const kind: "held" | "stale-held" | string = outcome.refusal.kind;
  void kind;
}

const diagnostics: Located[] = rail.validate(texts);
const column: number = diagnostics[0].range.start.character;
const merged: string = rail.merge("", "", "").text;
const holders: number = rail.who(texts, facts, ["src/a.ts"])[0].holders.length;
const clean: boolean = rail.scope(texts, facts, "s", ["src/a.ts"]).clean;
const pid: number | undefined = rail.parseLockRecord("")?.pid;
const breakable: boolean = rail.assessLock("", {
  now: "2026-10-22T15:00:00Z",
  host: "devbox",
  file_age_ms: 1500,
}).breakable;
const own: boolean = rail.isRailFile("claims.md");
const work: string[] = rail.workFiles(["src/a.ts", "claims.md"]);
void [own, work];
const offset: number = rail.offsetAt("", rail.positionAt("", 0));
const end: number = rail.rangeOf("", { start: 0, end: 0 }).end.character;
const webBoard: Board = web.board(texts, facts);
void [claims, state, html, column, merged, holders, clean, pid, breakable, offset, end, webBoard];

// @ts-expect-error a board is not a string
const wrong: string = rail.board(texts, facts);
// @ts-expect-error facts need `now`
rail.board(texts, {});
// @ts-expect-error no such operation
rail.plan(texts, facts, "s", { op: "fly", task: "x" });
// @ts-expect-error paths are strings
rail.who(texts, facts, [1]);
// @ts-expect-error a position is not a number
rail.offsetAt("", 3);
void wrong;
