// Generated from the Rust structs by rail-wasm's `types` module (ts-rs). Do not edit:
// run `RAIL_UPDATE_TYPES=1 cargo test -p rail-wasm --features ts --test types`.

export type ActingView = { session: string | null, why: string | null, };

export type Activity = "claimed" | "renewed" | "commit" | "none";

export type Blocked = { claim: number, task: string | null, session: string, waiting_for: Array<Waiting>, message: string, };

export type Blocker = { "kind": "main-checkout" } | { "kind": "link" } | { "kind": "foreign" } | { "kind": "missing" } | { "kind": "locked" } | { "kind": "dirty", files: Array<string>, } | { "kind": "dirty-unknown" } | { "kind": "unmerged", commits: number, base: string, } | { "kind": "no-base" };

export type Board = { version: number, now: string, settings: Settings, summary: Summary, claims: Array<BoardClaim>, released: Array<BoardReleased>, conflicts: Array<Conflict>, blocked: Array<Blocked>, 
/**
 * The backlog (`- [ ] task` lines of claims.md) and where each task stands.
 */
planned: Array<PlannedView>, resources: Array<ResourceUse>, sessions: Array<SessionView>, 
/**
 * Each session's work in flight (files changed, not merged), when the host gathered it.
 */
in_flight: Array<FlightView>, diagnostics: Array<Located>, log: Array<LogEntry>, 
/**
 * A shared rail: whether its state is proven, in core's words (every host shows `text`,
 * as a warning when `warning`), and the machine the board was judged on. Left out for a
 * local rail.
 */
shared?: SharedView, };

export type BoardClaim = { id: number, 
/**
 * Left out for a claim file that claims paths and resources but no task.
 */
task?: string, session: string, branch: string, 
/**
 * On a shared rail, the machine whose session made the claim: only it renews, updates or
 * releases it.
 */
machine?: string, 
/**
 * Made on another machine than the one the board was judged on (when it says which it
 * is): no session of this machine acts for it, whatever its name. Left out when false.
 */
elsewhere?: boolean, 
/**
 * `machine` as every board shows it: `laptop-3f2a… (this machine)`, `… (another
 * machine's: only it changes this claim)`, or the id alone where the host does not say
 * which machine it is.
 */
machine_text?: string, 
/**
 * Where it is written: `claims.md` or `claims/<owner>.yaml`, one-based line.
 */
file: string, line: number, 
/**
 * A claim file that adds paths or resources to this claims.md line.
 */
also?: string, claimed_at?: string, renewed_at?: string, last_commit_at?: string, lease_start?: string, lease_end?: string, lease_secs: number, 
/**
 * Negative once the lease ran out; left out when no time is known.
 */
lease_left_secs?: number, lease_left_text?: string, 
/**
 * The lease for people: `1h12m left`, `ran out 2h ago`, `stale: owner gone`,
 * `ran out 5m ago; owner alive`, `no time known`.
 */
lease_text: string, age_secs?: number, age_text?: string, state: LeaseState, activity: Activity, reason: string, 
/**
 * False for a duplicate claim that lost to an earlier one.
 */
holds: boolean, blocked: boolean, 
/**
 * Where every board shows it (decided here, once): see [`Column`].
 */
column: Column, 
/**
 * Whether `rail take` would take this claim for any session but its own: a stale claim of
 * a task that holds its task (not a duplicate that lost).
 */
takeable: boolean, blocked_by?: Array<string>, 
/**
 * Indexes into `conflicts`: the first four conflicts the claim is in.
 */
conflicts?: Array<number>, 
/**
 * How many more conflicts the claim is in than `conflicts` lists.
 */
conflicts_unlisted?: number, paths?: Array<string>, resources?: Array<string>, after?: Array<string>, purpose?: string, 
/**
 * `purpose` rendered from markdown; safe to insert as HTML.
 */
purpose_html?: string, pid?: string, };

export type BoardReleased = { task: string | null, session: string, file: string, released_at: string, touched: Array<string>, };

export type Code = "bad-time" | "missing-session" | "missing-time" | "invalid-task" | "invalid-session" | "unknown-field" | "duplicate-field" | "malformed-field" | "bad-duration" | "invalid-path" | "invalid-resource" | "conflict-marker" | "yaml-syntax" | "yaml-unsupported" | "missing-owner" | "bad-value" | "duplicate-key" | "owner-mismatch" | "no-claim-time" | "future-time" | "bad-log-line" | "duplicate-claim" | "path-overlap" | "resource-clash" | "blocked" | "bad-lock-record" | "bad-config" | "control-character" | "unclosed-block" | "confusable-name";

export type Column = "live" | "expiring" | "stale" | "blocked";

export type Config = { lease: number, expiring: number, check: string | null, on_stop: OnStop, hook_failure: HookFailure, hook_unanalysed: HookUnanalysed, lock_timeout: number, remote: string | null, stations: Stations, };

export type Conflict = { kind: ConflictKind, 
/**
 * Claim ids, at most six ([`LISTED_CLAIMS`]), ascending; for a duplicate task the holder
 * comes first.
 */
claims: Array<number>, 
/**
 * The session of each of `claims` (in a refusal, also the session asking: a claim not
 * written yet has no id in `claims`).
 */
sessions: Array<string>, 
/**
 * How many more claims are in this conflict than `claims` lists. Present only when some
 * are left out.
 */
claims_unlisted?: number, task: string | null, resource: string | null, 
/**
 * For a path overlap: the overlapping pattern pairs, at most 16.
 */
overlaps: Array<Overlap>, message: string, };

export type ConflictKind = "duplicate-task" | "path-overlap" | "resource-clash";

export type DriverResult = { 
/**
 * The merged text; ours, unchanged, when refused.
 */
text: string, 
/**
 * As in [`MergeResult`].
 */
losers: Array<Loser>, refused?: MarkedSide, };

export type ExitCodes = { done: number, refused: number, bad_input: number, environment: number, };

export type Facts = { 
/**
 * "Now" for every lease decision. Hosts pass the clock; tests and replays pass any time.
 */
now: string, 
/**
 * This machine's host name (to judge `pid@host` owners).
 */
host?: string, 
/**
 * Last commit time per branch (`refs/heads/<branch>`), for leases.
 */
commits?: Record<string, string>, 
/**
 * On a shared rail, last commit time per branch as pushed to its remote
 * (`refs/remotes/<remote>/<branch>`): a session's commits may reach the remote before
 * this clone's branches or the other way round, and either renews its lease
 * ([`Facts::last_commit`]).
 */
pushed_commits?: Record<string, string>, 
/**
 * Liveness of owner processes, keyed `pid@host` (a claim's `pid` field without its start
 * time; a key with one is read too).
 */
processes?: { [key in string]: boolean }, 
/**
 * When each live owner process started, as the OS counts it (the unit of a claim's
 * `PID@HOST/START`), keyed `pid@host`: a live pid whose start differs from the claim's
 * recorded one is another process that was given the same pid, not the owner.
 */
process_starts?: { [key in string]: number }, 
/**
 * Liveness of whole sessions, when a host knows it (e.g. an agent harness).
 */
sessions?: { [key in string]: boolean }, worktrees?: Array<Worktree>, 
/**
 * The last Rail hook call seen per session ([`crate::formats::heartbeat`]): guard status.
 */
hooks?: { [key in string]: HookSeen }, 
/**
 * Sessions' work in flight — files changed and not merged — as the host gathered it
 * ([`crate::model::behind`]): the board shows it beside the claims.
 */
in_flight?: Array<InFlight>, 
/**
 * A shared rail: leases count from this machine's own sightings ([`Facts::first_seen`]),
 * not from the recorded times alone.
 */
observing?: boolean, 
/**
 * On a shared rail, when this machine first saw each claim's activity, by its own clock,
 * keyed by [`crate::model::lease::activity_key`] ([`crate::model::observed`]).
 */
observed?: Record<string, string>, 
/**
 * This clone's machine id on a shared rail (`.git/rail/exchange/machine`): a claim that
 * records another machine is that machine's, which no session here acts for
 * ([`crate::text::ident::on_machine`]). `None`: the host does not say (a JS host showing a
 * board); the CLI, which enforces, always says on a clone that has one.
 */
machine?: string | null, 
/**
 * A shared rail's verification as the host found it ([`crate::model::verification`]): the
 * board says whether its state is proven. `None`: not a shared rail, or a host that only
 * judges (the hooks), never shows a board.
 */
shared?: SharedRailFacts | null, };

export type FileClass = "in-scope" | "out-of-scope" | "conflict" | "undeclared";

export type FileEdits = { 
/**
 * The file, relative to the rail directory: `claims.md` or `claims/<owner>.yaml`.
 */
file: string, 
/**
 * True when the file does not exist yet and the edits create it.
 */
create: boolean, edits: Array<TextEdit>, };

export type FileRole = "claims" | "claim-file" | "log" | "config";

export type FileScope = { path: string, class: FileClass, 
/**
 * The session's own patterns covering the file.
 */
own: Array<string>, 
/**
 * Other sessions' holding claims covering the file: the first sixteen ([`LISTED_HOLDERS`]).
 */
others: Array<Holder>, 
/**
 * How many more of them cover it. Present only when some are left out.
 */
others_unlisted?: number, 
/**
 * No claim at all covers it.
 */
unclaimed: boolean, };

export type FileText = { 
/**
 * `claims.md`, `claims/session-a.yaml`, `claims.log`, `rail.yaml`.
 */
path: string, text: string, 
/**
 * Last modification time, used as a claim file's `since` when it has none.
 */
modified?: string | null, };

export type FlightFile = { path: string, kind: WorkKind, 
/**
 * Core's words for the kind: `uncommitted`, `committed, not merged`.
 */
kind_text: string, at: string, 
/**
 * `3m ago`.
 */
age_text: string, };

export type FlightStanding = "live" | "stale" | "ended";

export type FlightView = { session: string, checkout: string, station?: string | null, machine?: string | null, 
/**
 * The group's standing: live when any of its files is.
 */
standing: FlightStanding, 
/**
 * Core's words for where it is: `in its station /x (branch beta)`.
 */
place: string, files: Array<FlightFile>, 
/**
 * How many more files than `files` lists ([`BOARD_FILES`]).
 */
files_unlisted: number, };

export type Freshness = { text: string, stale: boolean, };

export type FreshnessFacts = { 
/**
 * The git remote the rail is shared through.
 */
remote: string, 
/**
 * When the local copy was last brought up to date with the remote; `None`: never.
 */
fetched_at?: string | null, now: string, 
/**
 * What the latest fetch said when it failed; `None` when it worked (or none was tried).
 */
fetch_error?: string | null, };

export type Hint = { "kind": "take", task: string, } | { "kind": "claim", task: string, } | { "kind": "renew-or-update", task: string, } | { "kind": "validate" } | { "kind": "merge-driver" } | { "kind": "force-break" } | { "kind": "add-paths", task?: string | null, } | { "kind": "claim-first" } | { "kind": "fix-check", task: string, } | { "kind": "other-work", take?: string | null, } | { "kind": "force-close", station: string, };

export type Holder = { claim: number, session: string, task: string | null, pattern: string, state: LeaseState, };

export type HookFailure = "deny" | "warn";

export type HookSeen = { 
/**
 * Which agent's hook (`claude`, `codex`, `gemini`, `copilot`, `cursor`, …).
 */
agent: string, 
/**
 * The agent's version, where its payload says.
 */
version?: string, 
/**
 * When the call was seen.
 */
at: string, 
/**
 * The machine whose hook call it was, for a mark another machine shared (a shared rail);
 * `None`: this machine's.
 */
host?: string, };

export type HookUnanalysed = "warn" | "deny";

export type HostConstants = { claims_md: string, claims_dir: string, log_file: string, config_file: string, journal: string, lock_name: string, max_rail_bytes: number, 
/**
 * When the local copy of a shared rail was last synced, in git's common dir
 * ([`shared::SYNCED_STAMP`]).
 */
synced_stamp: string, 
/**
 * The environment variable that keeps a host on the local rail ([`shared::LOCAL_ENV`]).
 */
local_env: string, 
/**
 * The git config key naming a shared rail's remote ([`shared::REMOTE_KEY`]).
 */
remote_key: string, exit: ExitCodes, 
/**
 * Guard marks: where and how much (`formats::heartbeat`).
 */
marks: MarkFiles, };

export type InFlight = { 
/**
 * Repo-relative, `/`-separated.
 */
path: string, session: string, 
/**
 * The checkout it is in (its absolute path).
 */
checkout: string, 
/**
 * The branch of the station it is in, when the checkout is a station of its own
 * (`None`: the main checkout, shared).
 */
station?: string | null, kind: WorkKind, 
/**
 * When it was written (the write, the file's change, the commit).
 */
at: string, standing: FlightStanding, 
/**
 * The machine it is on, when another machine's (a shared rail).
 */
machine?: string | null, };

export type LeaseState = "live" | "expiring" | "stale";

export type Located = { file: string, code: Code, severity: Severity, message: string, span: Span, range: Range, line: number, column: number, };

export type LockRecord = { pid: number, host: string, session: string, command: string, started: string, 
/**
 * Unique per acquisition: tells one holder from the next even if pids repeat.
 */
nonce: string, 
/**
 * The owner's process start time as the OS counts it (Linux: clock ticks since boot), so a
 * reused pid is not mistaken for the owner. Empty when unknown.
 */
proc_start: number | null, };

export type LockState = "alive" | "dead" | "foreign-host" | "unknown" | "unjudgeable" | "abandoned" | "young";

export type LockVerdict = { state: LockState, 
/**
 * May a waiter break it without being told to?
 */
breakable: boolean, 
/**
 * What to say: who holds it and what that means.
 */
message: string, 
/**
 * What can be done about a lock that is not broken automatically, if anything.
 */
hint: Hint | null, };

export type LogEntry = { time: string, event: LogEvent, task: string | null, session: string | null, details: { [key in string]: string }, 
/**
 * Zero-based line in the log (when parsed).
 */
line?: number | null, };

export type LogEvent = "claimed" | "renewed" | "released" | "taken" | "updated" | "lock-broken" | "recovered" | "done" | "bypass" | "refused" | "station-removed" | "sealed" | "planned" | string;

export type Loser = { task: string, kept_session: string, lost_session: string, 
/**
 * The losing line as it was written.
 */
lost_line: string, };

export type Mark = { session: string, seen: HookSeen, };

export type MarkFiles = { dir: string, shared_dir: string, max_files: number, max_bytes: number, max_shared_bytes: number, };

export type MarkedSide = { 
/**
 * `base`, `ours` or `theirs` (git's `%O`, `%A`, `%B`).
 */
side: string, 
/**
 * One-based line of the first marker in that side.
 */
line: number, 
/**
 * Its byte span in that side's text.
 */
span: Span, 
/**
 * The marker line as written (without its line ending).
 */
text: string, };

export type MergeResult = { text: string, 
/**
 * Claims of a task that lost to another claim of the same task, and edits of one claim
 * made on both sides where one edit was dropped (then both sessions are the same).
 */
losers: Array<Loser>, };

export type OnDone = "keep" | "remove";

export type OnStop = "release" | "renew" | "nothing";

export type Overlap = { left: string, right: string, 
/**
 * A path both cover; empty when `undecided`.
 */
example: string, 
/**
 * The patterns were too costly to compare within Rail's budget: they are treated as
 * overlapping (never as apart), and there is no example. Present only when true.
 */
undecided?: boolean, };

export type OwnerProbe = { pid: number, 
/**
 * `PID@HOST`, the key of what was observed.
 */
key: string, 
/**
 * Some claim naming this process recorded its start time: only then does the start time
 * matter (a live process that started at another time is not the owner). Without it the
 * start need not be read.
 */
wants_start: boolean, };

export type Plan = { op: string, task: string, session: string, edits: Array<FileEdits>, 
/**
 * The line to append to claims.log (without newline); `null` when nothing happens.
 */
log_line: string | null, message: string, 
/**
 * Nothing to do (e.g. claiming a task the session already holds and nothing changes).
 */
noop: boolean, 
/**
 * What the session can do instead, when nothing was done.
 */
hint: Hint | null, };

export type PlannedStatus = "ready" | "blocked" | "busy" | "claimed" | "done";

export type PlannedView = { task: string, status: PlannedStatus, file: string, line: number, after: Array<string>, paths: Array<string>, resources: Array<string>, purpose: string | null, 
/**
 * Who holds it, when claimed.
 */
held_by: string | null, 
/**
 * Unreleased dependencies, when blocked.
 */
waiting_for: Array<Waiting>, 
/**
 * The holding claims whose paths or resources it shares, when busy: the first six.
 */
busy_with: Array<Waiting>, 
/**
 * How many more claims it is busy with than `busy_with` lists. Present only when some
 * are left out.
 */
busy_unlisted?: number, };

export type Position = { line: number, character: number, };

export type RailFile = { 
/**
 * The name it was handed under (a path inside the folder chosen, for a folder's files).
 */
name: string, 
/**
 * Its path in the rail (what diagnostics name): `claims.md`, `claims/<name>.yaml`, …
 */
path: string, role: FileRole, };

export type RailTexts = { claims?: FileText, claim_files?: Array<FileText>, log?: FileText, config?: FileText, };

export type Range = { start: Position, end: Position, };

export type Refusal = { kind: RefusalKind, task: string, 
/**
 * The session that holds what was asked for.
 */
holder: string | null, holder_claim: number | null, claimed_at: string | null, age_secs: number | null, lease_left_secs: number | null, state: LeaseState | null, 
/**
 * Why the holder's claim is in its state.
 */
reason: string | null, 
/**
 * The conflicts the claim would have, at most four (a claim's conflicts as the board lists
 * them).
 */
conflicts: Array<Conflict>, 
/**
 * How many more conflicts it would have than `conflicts` lists. Present only when some
 * are left out.
 */
conflicts_unlisted?: number, 
/**
 * What happened, without the how-to: that is `hint`, which each host words its own way.
 */
message: string, 
/**
 * What the session can do about it, if there is something to do.
 */
hint: Hint | null, 
/**
 * Where in the rail the problem is (the first conflict marker; the unclosed block).
 */
location: Located | null, };

export type RefusalKind = "held" | "stale-held" | "not-claimed" | "not-yours" | "not-stale" | "path-conflict" | "resource-conflict" | "broken-line" | "conflict-marker" | "hidden-claim" | "confusable" | "bad-input" | "too-large";

export type RemoteFacts = { 
/**
 * `RAIL_LOCAL`'s value ([`LOCAL_ENV`]); `null` when unset.
 */
rail_local?: string | null, 
/**
 * What `git config --get rail.remote` printed in the rail directory ([`REMOTE_KEY`]);
 * `null` when it is unset or there is no repository.
 */
git_config?: string | null, 
/**
 * rail.yaml's text; `null` when there is none.
 */
config_text?: string | null, };

export type Removal = { allowed: boolean, 
/**
 * Allowed only because of `--force`: the log records what was overridden.
 */
forced: boolean, blockers: Array<Blocker>, 
/**
 * Whether `--force` would make it allowed (every blocker is forceable).
 */
forceable: boolean, 
/**
 * The claims removing it releases (each held claim of a task on its branch).
 */
release: Array<StationClaim>, 
/**
 * Delete the branch: every commit of it is in the base. Never by force.
 */
delete_branch: boolean, 
/**
 * Why the branch is kept, when there is one and it is not deleted.
 */
keep_branch: string | null, 
/**
 * A branch to create at the station's HEAD before it goes: its HEAD is detached (a
 * checked-out commit, a rebase stopped half way) and its commits may be in no other ref, so
 * removing it by force would make them unreachable. Rail never does that.
 */
rescue: string | null, 
/**
 * What happened or why not.
 */
message: string, hint: Hint | null, };

export type ResourceHolder = { claim: number, session: string, task: string | null, shared: boolean, state: LeaseState, };

export type ResourceUse = { 
/**
 * Without the `shared:` prefix, e.g. `port:3000`.
 */
name: string, 
/**
 * The part before the first `:` (`port`, `simulator`, `checkout`), or `""`.
 */
kind: string, holders: Array<ResourceHolder>, 
/**
 * Two holding sessions and at least one exclusive holder.
 */
clash: boolean, };

export type ScopeReport = { session: string, 
/**
 * Everything the session declared (all its claims' paths).
 */
declared: Array<string>, files: Array<FileScope>, in_scope: Array<string>, out_of_scope: Array<string>, conflicts: Array<string>, undeclared: Array<string>, unclaimed: Array<string>, 
/**
 * True when nothing is out of scope and nothing conflicts.
 */
clean: boolean, };

export type SessionHook = { agent: string, version?: string, seen_at: string, 
/**
 * "3m ago"; "just now" under a minute (and for a time after now).
 */
seen_text: string, 
/**
 * The machine it was seen on, when another machine shared it (a shared rail).
 */
host?: string, };

export type SessionView = { name: string, branch: string, worktree: string | null, last_commit_at: string | null, claims: Array<number>, live: number, expiring: number, stale: number, 
/**
 * The agent whose Rail hook was last seen for this session, and when (`None`: never).
 */
hook: SessionHook | null, 
/**
 * Holds claims that hold (live or expiring) and no Rail hook was seen for it since it
 * made them ([`MARK_VOUCHES`] of slack): its agent works unguarded, or it works outside
 * any agent. A mark speaks for the claims it could have seen, not for claims made long
 * after it (a hook call 14 days ago vouched for every later claim of that name).
 */
unguarded: boolean, 
/**
 * Core's words for the guard status, for every host to show as they are: `guarded: claude
 * 3m ago`, `Rail hook last seen 14d ago, before its claims: …`, `no Rail hook seen…`; empty
 * for a session that holds nothing and was never seen.
 */
guard_text: string, };

export type Settings = { lease_secs: number, expiring_secs: number, };

export type Severity = "error" | "warning" | "info";

export type SharedRailFacts = { 
/**
 * The git remote the rail is shared through.
 */
remote: string, 
/**
 * Whether the host looked (the CLI always does; a host that could not ask it leaves this
 * out): what was not looked at is never shown as verified.
 */
known?: boolean, 
/**
 * Where the team's allowed signers were read (`origin/main:.rail/allowed-signers`); `None`:
 * none are committed on the remote's main branch, so the rail is unverified.
 */
signers?: string | null, 
/**
 * The shared state this machine last fetched or pushed (`refs/rail/fetched`).
 */
fetched?: string | null, 
/**
 * The last state this machine proved (`refs/rail/proven`).
 */
proven?: string | null, 
/**
 * This machine has a signing key and is among the allowed signers: its changes would be
 * proven by the others.
 */
can_sign?: boolean, };

export type SharedView = { remote: string, verified: Verified, 
/**
 * Core's sentence, for every host to show as it is.
 */
text: string, 
/**
 * Shown as a warning (unverified, unproven, unknown, or this machine cannot sign).
 */
warning: boolean, 
/**
 * The last proven state, shortened.
 */
proven?: string, 
/**
 * The machine the board was judged on (its claims are "this machine's").
 */
machine?: string, };

export type Span = { start: number, end: number, };

export type Station = { state: StationState, claims: Array<StationClaim>, 
/**
 * The worktree's directory, as git recorded it.
 */
path: string, 
/**
 * The branch checked out there (`None`: detached HEAD).
 */
branch: string | null, 
/**
 * The main checkout: where the rail lives. Never removed.
 */
main: boolean, 
/**
 * The recorded path is a symbolic link.
 */
link: boolean, 
/**
 * The directory exists but is not that worktree (its `.git` names another git dir).
 */
foreign: boolean, 
/**
 * The directory is gone.
 */
missing: boolean, 
/**
 * Locked with `git worktree lock` (e.g. on a removable disk): left alone.
 */
locked: boolean, 
/**
 * Uncommitted changes: modified, staged, deleted and untracked (not ignored) files.
 * `None`: git could not tell.
 */
dirty: Array<string> | null, 
/**
 * The branch its commits are judged against (see `base_branch`).
 */
base: string | null, 
/**
 * How many commits of the station's HEAD are not in `base`. `None`: unknown (no base, or
 * git could not tell).
 */
unmerged: number | null, 
/**
 * The commit the station's HEAD is at (the branch is deleted only if it is still there).
 */
head: string | null, 
/**
 * Its branch is also checked out in another worktree (so it is not deleted).
 */
branch_elsewhere: boolean, };

export type StationClaim = { task: string | null, session: string, state: LeaseState, };

export type StationState = "live" | "expiring" | "stale" | "unclaimed";

export type Stations = { on_done: OnDone, 
/**
 * The branch a station's commits must be in before it may be removed (and its branch
 * deleted). `None`: the main checkout's branch.
 */
base: string | null, };

export type Summary = { claims: number, live: number, expiring: number, stale: number, blocked: number, conflicts: number, 
/**
 * Overlapping pattern pairs with no conflict of their own (each pattern already has eight,
 * `conflict::LISTED_PER_PATTERN`): their claims are in other conflicts. Present only when
 * there are some.
 */
overlaps_unlisted?: number, errors: number, warnings: number, };

export type TextEdit = { span: Span, text: string, };

export type Verified = "unknown" | "unverified" | "not-fetched" | "proven" | "unproven";

export type Waiting = { task: string, 
/**
 * Who holds it now, if anyone.
 */
held_by: string | null, };

export type Who = { path: string, 
/**
 * The claims it touches, in claim order: all of them when one path is asked; of many
 * paths, each lists up to the rail's claims divided by the paths, at least sixteen
 * ([`LISTED_HOLDERS`]).
 */
holders: Array<Holder>, 
/**
 * How many more claims it touches. Present only when some are left out.
 */
holders_unlisted?: number, 
/**
 * Sessions' work in flight under it (changed, not merged), when the host gathered it
 * ([`who_in_flight`]): at most [`LISTED_HOLDERS`].
 */
in_flight?: Array<InFlight>, };

export type WorkKind = "written" | "uncommitted" | "unmerged";

export type Worktree = { path: string, branch?: string, };
