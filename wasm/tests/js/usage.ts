// Type-level test of the package's declarations (checked by package.mjs with `tsc --strict`):
// the exports take and return the generated boundary types, so misuse fails to compile.
// Every `@ts-expect-error` line must be an error; were a type `any`, it would not be.
import * as rail from "../../pkg/node/rail_wasm.js";
import * as web from "../../pkg/web/rail_wasm.js";
import type { Board, Facts, Located, RailTexts } from "../../types/rail";
// Not returned by any export, but declared: the extension types what `rail --json` prints with
// them (vscode-extension/src/host/native.ts imports them from the package).
import type { LockRecord, LockVerdict, Plan, Refusal } from "../../pkg/node/rail_wasm.js";

const texts: RailTexts = { claims: { path: "claims.md", text: "" } };
const facts: Facts = { now: "2026-10-22T15:00:00Z" };

const board: Board = rail.board(texts, facts);
const claims: number = board.summary.claims;
const state: "live" | "expiring" | "stale" = board.claims[0].state;
const html: string | undefined = board.claims[0].purpose_html;

declare const cli: { plan: Plan; refusal: Refusal; record: LockRecord; verdict: LockVerdict };
const log: string | null = cli.plan.log_line;
const edited: number = cli.plan.edits[0].edits[0].span.start;
const kind: "held" | "stale-held" | string = cli.refusal.kind;
const pid: number = cli.record.pid;
const breakable: boolean = cli.verdict.breakable;
void [log, edited, kind, pid, breakable];

const diagnostics: Located[] = rail.validate(texts);
const column: number = diagnostics[0].range.start.character;
const merged: string = rail.merge("", "", "").text;
const holders: number = rail.who(texts, facts, ["src/a.ts"])[0].holders.length;
const unlisted: number | undefined = rail.who(texts, facts, ["src/a.ts"])[0].holders_unlisted;
const clean: boolean = rail.scope(texts, facts, "s", ["src/a.ts"]).clean;
const lease: number = rail.parseConfig("lease: 45m\n").lease;
const stale: boolean = rail.describeFreshness({ remote: "origin", now: "2026-10-22T15:00:00Z" }).stale;
const html2: string = rail.renderMarkdown("**x**");
const own: boolean = rail.isRailFile("claims.md");
const work: string[] = rail.workFiles(["src/a.ts", "claims.md"]);
const times: Record<string, string> = rail.commitTimes("", "refs/heads/");
const format: string = rail.forEachRefFormat(null);
const probes: { pid: number; key: string; wants_start: boolean }[] = rail.ownerProbes(["4242@devbox/900"], facts);
const remote: string | null = rail.sharedRemote({ git_config: "origin\n", rail_local: null });
const stamp: string = rail.constants().synced_stamp;
const handed: "claims" | "claim-file" | "log" | "config" | undefined = rail.handedFile("claims.md")?.role;
const inFolder: string[] = rail.railFilesIn(["repo/claims.md"]).map((f) => f.path);
void [own, work, times, format, probes, remote, stamp, handed, inFolder];
const offset: number = rail.offsetAt("", rail.positionAt("", 0));
const end: number = rail.rangeOf("", { start: 0, end: 0 }).end.character;
const webBoard: Board = web.board(texts, facts);
void [claims, state, html, column, merged, holders, unlisted, clean, lease, stale, html2, offset, end, webBoard];

// @ts-expect-error a board is not a string
const wrong: string = rail.board(texts, facts);
// @ts-expect-error facts need `now`
rail.board(texts, {});
// @ts-expect-error the write path is the `rail` binary's: there is no plan export
rail.plan(texts, facts, "s", { op: "claim", task: "x" });
// @ts-expect-error nor applyEdits
rail.applyEdits("", []);
// @ts-expect-error paths are strings
rail.who(texts, facts, [1]);
// @ts-expect-error the shared remote's facts are named fields, not positional strings
rail.sharedRemote("1", "origin", null);
// @ts-expect-error owner probes need the facts (this host, what was already observed)
rail.ownerProbes(["4242@devbox"]);
// @ts-expect-error a position is not a number
rail.offsetAt("", 3);
void wrong;
