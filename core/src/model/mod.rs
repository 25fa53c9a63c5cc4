//! The rail as a whole: every file parsed, every claim evaluated against the facts.
//!
//! [`Rail::load`] parses the texts once; [`Rail::evaluate`] turns claims.md lines and claim
//! files into [`Claim`]s with their lease state. Board, operations, scope and `who` all start
//! from here, so a rule is applied the same way everywhere.

pub mod backlog;
pub mod behind;
pub mod board;
pub mod conflict;
pub mod freshness;
mod guard;
pub mod input;
pub mod lease;
mod lookalike;
pub mod observed;
pub mod prune;
pub mod scope;
pub mod shared;
pub mod station;
pub mod verification;

use chrono::TimeDelta;

use crate::formats::claim_file::{self, ClaimFile};
use crate::formats::claims_md::{self, LineKind, RailDoc};
use crate::formats::config::{self, Config};
use crate::formats::log::{self, Log};
use crate::formats::rail_files::{
    CLAIMS_DIR, CLAIMS_MD, CONFIG_FILE, JOURNAL, LOCK_NAME, LOG_FILE,
};
use crate::text::diagnostic::{Diagnostic, Located};
use crate::text::ident::branch_session;
use crate::text::time::Time;
use crate::text::{LineIndex, Span};
use input::{Facts, FileText, RailTexts};
use lease::{Lease, LeaseInput, LeaseState};

/// The largest rail file a host reads: a bigger one is refused, never truncated
/// (`text::limits`, where every limit of what Rail writes is).
pub const MAX_RAIL_BYTES: u64 = crate::text::limits::RAIL_FILE_BYTES as u64;

/// What `rail` exits with, for every host that runs it (cli/src/fail.rs returns them, the
/// extension reads them): 0 done; 1 refused or a conflict found (the output says who holds
/// what); 2 bad input or usage; 3 environment (not a git repo, the lock wait timed out, I/O).
pub mod exit {
    pub const DONE: i32 = 0;
    pub const REFUSED: i32 = 1;
    pub const BAD_INPUT: i32 = 2;
    pub const ENVIRONMENT: i32 = 3;
}

/// The names and limits a host of the rail shares with the `rail` binary, in one value (the
/// wasm's `constants()`), so neither the extension nor the web board repeats them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HostConstants {
    pub claims_md: &'static str,
    pub claims_dir: &'static str,
    pub log_file: &'static str,
    pub config_file: &'static str,
    pub journal: &'static str,
    pub lock_name: &'static str,
    pub max_rail_bytes: u64,
    /// When the local copy of a shared rail was last synced, in git's common dir
    /// ([`shared::SYNCED_STAMP`]).
    pub synced_stamp: &'static str,
    /// The environment variable that keeps a host on the local rail ([`shared::LOCAL_ENV`]).
    pub local_env: &'static str,
    /// The git config key naming a shared rail's remote ([`shared::REMOTE_KEY`]).
    pub remote_key: &'static str,
    pub exit: ExitCodes,
    /// Guard marks: where and how much (`formats::heartbeat`).
    pub marks: crate::formats::heartbeat::MarkFiles,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExitCodes {
    pub done: i32,
    pub refused: i32,
    pub bad_input: i32,
    pub environment: i32,
}

pub fn host_constants() -> HostConstants {
    HostConstants {
        claims_md: CLAIMS_MD,
        claims_dir: CLAIMS_DIR,
        log_file: LOG_FILE,
        config_file: CONFIG_FILE,
        journal: JOURNAL,
        lock_name: LOCK_NAME,
        max_rail_bytes: MAX_RAIL_BYTES,
        synced_stamp: shared::SYNCED_STAMP,
        local_env: shared::LOCAL_ENV,
        remote_key: shared::REMOTE_KEY,
        exit: ExitCodes {
            done: exit::DONE,
            refused: exit::REFUSED,
            bad_input: exit::BAD_INPUT,
            environment: exit::ENVIRONMENT,
        },
        marks: crate::formats::heartbeat::MARK_FILES,
    }
}

/// Every file of the rail, parsed.
#[derive(Clone, Debug)]
pub struct Rail {
    pub claims_path: String,
    pub claims: RailDoc,
    /// Line starts of claims.md, computed once: locating diagnostics and claims needs them.
    pub claims_index: LineIndex,
    pub files: Vec<ClaimFile>,
    file_modified: Vec<Option<Time>>,
    /// claims.md's modification time (by the host's clock), when the host gave one.
    claims_modified: Option<Time>,
    pub log_path: String,
    /// claims.log, parsed when first asked for ([`Rail::log`]): it only grows, and most readers
    /// (a hook judging an edit, a claim) never look at it.
    log: std::sync::OnceLock<Log>,
    log_text: String,
    pub config_path: String,
    pub config: Config,
    config_text: String,
    config_diagnostics: Vec<Diagnostic>,
}

impl Rail {
    pub fn load(texts: &RailTexts) -> Rail {
        Rail::load_parsed(texts, None)
    }

    /// [`Rail::load`] with claims.md parsed already: `claims` is taken when it is the parse of
    /// this very text (compared whole), and the text is parsed again otherwise.
    pub fn load_parsed(texts: &RailTexts, claims: Option<RailDoc>) -> Rail {
        let claims_text = texts.claims.as_ref().map(|f| f.text.as_str()).unwrap_or("");
        let claims = match claims {
            Some(doc) if doc.text() == claims_text => doc,
            _ => claims_md::parse(claims_text),
        };
        let mut files: Vec<&FileText> = texts.claim_files.iter().collect();
        crate::text::sort::sort_by(&mut files, |a, b| a.path.cmp(&b.path));
        let log_text = texts
            .log
            .as_ref()
            .map(|f| f.text.clone())
            .unwrap_or_default();
        let config_text = texts
            .config
            .as_ref()
            .map(|f| f.text.clone())
            .unwrap_or_default();
        let (config, config_diagnostics) = config::parse(&config_text);
        Rail {
            claims_path: path_or(&texts.claims, CLAIMS_MD),
            claims,
            claims_index: LineIndex::new(claims_text),
            file_modified: files.iter().map(|f| f.modified).collect(),
            claims_modified: texts.claims.as_ref().and_then(|f| f.modified),
            files: files
                .iter()
                .map(|f| claim_file::parse(&f.path, &f.text))
                .collect(),
            log_path: path_or(&texts.log, LOG_FILE),
            log: std::sync::OnceLock::new(),
            log_text,
            config_path: path_or(&texts.config, CONFIG_FILE),
            config,
            config_text,
            config_diagnostics,
        }
    }

    /// Every owner process the claim lines and unreleased claim files name (their `pid`
    /// fields as written): what a host probes before it evaluates, so that one evaluation sees
    /// every owner's liveness.
    pub fn owner_pids(&self) -> impl Iterator<Item = &str> {
        let lines = self.claims.lines.iter().filter_map(|l| match &l.kind {
            LineKind::Claim(c) => c.pid.as_deref(),
            _ => None,
        });
        let files = (self.files.iter())
            .filter(|f| f.released.is_none())
            .filter_map(|f| f.pid.as_deref());
        lines.chain(files)
    }

    /// claims.log's entries and diagnostics.
    pub fn log(&self) -> &Log {
        self.log.get_or_init(|| log::parse(&self.log_text))
    }

    /// Every parse diagnostic of every file, located (file, line, column).
    pub fn diagnostics(&self) -> Vec<Located> {
        let mut out: Vec<Located> = self
            .claims
            .diagnostics
            .iter()
            .map(|d| d.locate(&self.claims_path, self.claims.text(), &self.claims_index))
            .collect();
        let mut push = |file: &str, text: &str, diags: &[Diagnostic]| {
            if diags.is_empty() {
                return;
            }
            let index = LineIndex::new(text);
            out.extend(diags.iter().map(|d| d.locate(file, text, &index)));
        };
        for file in &self.files {
            push(&file.path, file.text(), &file.diagnostics);
        }
        push(&self.log_path, &self.log_text, &self.log().diagnostics);
        push(
            &self.config_path,
            &self.config_text,
            &self.config_diagnostics,
        );
        out
    }

    /// Turns lines and files into claims and evaluates their leases at `facts.now`.
    pub fn evaluate(&self, facts: &Facts) -> Evaluation {
        let mut claims = Vec::new();
        let mut released = Vec::new();
        let mut broken = Vec::new();
        let mut planned = Vec::new();
        let index = &self.claims_index;
        let mut joined = vec![false; self.files.len()];
        // Claim files that may join a claims.md line, sorted by (owner, task) and then file
        // order: a binary search per line instead of a scan of every file (10,000 lines x 1,000
        // files was quadratic). A sorted Vec and core's one sort, not a map: smaller in wasm.
        let mut joinable: Vec<(&str, &str, usize)> = (self.files.iter().enumerate())
            .filter_map(|(i, f)| match (f.released, &f.owner, &f.task) {
                (None, Some(owner), Some(task)) => Some((owner.as_str(), task.as_str(), i)),
                _ => None,
            })
            .collect();
        crate::text::sort::sort_by(&mut joinable, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (n, line) in self.claims.lines.iter().enumerate() {
            match &line.kind {
                LineKind::Claim(c) => {
                    let mut claim = Claim {
                        id: claims.len(),
                        task: Some(c.task.clone()),
                        session: c.session.clone(),
                        origin: Origin::Line(n),
                        file: self.claims_path.clone(),
                        line: n as u32 + 1,
                        span: line.content,
                        also: None,
                        claimed_at: Some(c.time),
                        renewed_at: c.renewed,
                        last_commit_at: None,
                        lease: c.lease.unwrap_or(self.config.lease),
                        branch: c
                            .branch
                            .clone()
                            .unwrap_or_else(|| branch_session(&c.session).to_string()),
                        pid: c.pid.clone(),
                        machine: c.machine.clone(),
                        after: c.after.clone(),
                        paths: c.paths.clone(),
                        resources: c.resources.clone(),
                        purpose: c.purpose.clone(),
                        lease_state: Lease::unjudged(None, lease::Activity::None),
                        seen_at: None,
                        written_since: Some(c.time),
                        observed_at: None,
                    };
                    // A claim file of the same owner naming this task adds to the line.
                    let key = (c.session.as_str(), c.task.as_str());
                    let first = joinable.partition_point(|j| (j.0, j.1) < key);
                    let next = joinable[first..]
                        .iter()
                        .take_while(|j| (j.0, j.1) == key)
                        .map(|j| j.2)
                        .find(|i| !joined[*i]);
                    if let Some((i, file)) = next.map(|i| (i, &self.files[i])) {
                        joined[i] = true;
                        claim.also = Some(file.path.clone());
                        union(&mut claim.paths, &file.paths);
                        union(&mut claim.resources, &file.resources);
                        union(&mut claim.after, &file.after);
                        if claim.purpose.is_none() {
                            claim.purpose = file.purpose.clone();
                        }
                        claim.renewed_at = claim.renewed_at.max(file.renewed);
                    }
                    claims.push(claim);
                }
                LineKind::Planned(p) => planned.push(Planned {
                    task: p.task.clone(),
                    done: p.done,
                    line_index: n,
                    file: self.claims_path.clone(),
                    line: n as u32 + 1,
                    after: p.after.clone(),
                    paths: p.paths.clone(),
                    resources: p.resources.clone(),
                    purpose: p.purpose.clone(),
                    lease: p.lease,
                }),
                LineKind::Broken { task: Some(task) } => broken.push(BrokenClaim {
                    task: task.clone(),
                    file: self.claims_path.clone(),
                    line: index.line_of(line.content.start) as u32 + 1,
                }),
                _ => {}
            }
        }
        for (i, file) in self.files.iter().enumerate() {
            if joined[i] || !file.is_valid() {
                continue;
            }
            let owner = file.owner.clone().unwrap_or_default();
            if let Some(when) = file.released {
                released.push(Released {
                    task: file.task.clone(),
                    session: owner,
                    file: file.path.clone(),
                    released_at: when,
                    touched: file.touched.clone(),
                });
                continue;
            }
            claims.push(Claim {
                id: claims.len(),
                task: file.task.clone(),
                session: owner.clone(),
                origin: Origin::File(i),
                file: file.path.clone(),
                line: 1,
                span: file.owner_span,
                also: None,
                claimed_at: file.since.or(self.file_modified[i]),
                renewed_at: file.renewed,
                last_commit_at: None,
                lease: file.lease.unwrap_or(self.config.lease),
                branch: file
                    .branch
                    .clone()
                    .unwrap_or_else(|| branch_session(&owner).to_string()),
                pid: file.pid.clone(),
                machine: None,
                after: file.after.clone(),
                paths: file.paths.clone(),
                resources: file.resources.clone(),
                purpose: file.purpose.clone(),
                lease_state: Lease::unjudged(None, lease::Activity::None),
                seen_at: None,
                // As written: a claim file's `since`, not its mtime, which differs between the
                // fetched tree and the mirror.
                written_since: file.since,
                observed_at: None,
            });
        }
        for claim in &mut claims {
            // A time in the future counts from when this host saw it: the mtime of the file
            // that holds it (written no later than this host first read it).
            claim.seen_at = match claim.origin {
                Origin::Line(_) => self.claims_modified,
                Origin::File(i) => self.file_modified[i],
            };
            claim.observed_at = facts.first_seen(|| claim.activity_key());
            claim.last_commit_at = facts.last_commit(&claim.branch);
            let owner_alive = facts.owner_alive(claim.pid.as_deref(), &claim.session);
            claim.lease_state = lease::evaluate(
                &LeaseInput {
                    claimed_at: claim.claimed_at,
                    renewed_at: claim.renewed_at,
                    last_commit_at: claim.last_commit_at,
                    lease: claim.lease,
                    branch: &claim.branch,
                    owner: claim.pid.as_deref(),
                    owner_alive,
                    seen_at: claim.seen_at,
                    observed_at: claim.observed_at,
                },
                facts.now,
                self.config.expiring,
            );
        }
        Evaluation {
            claims,
            released,
            broken,
            planned,
            here: facts.machine.clone(),
        }
    }
}

fn path_or(file: &Option<FileText>, default: &str) -> String {
    file.as_ref()
        .map(|f| f.path.clone())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| default.to_string())
}

fn union(into: &mut Vec<String>, more: &[String]) {
    for item in more {
        if !into.contains(item) {
            into.push(item.clone());
        }
    }
}

/// Where a claim was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Zero-based line of claims.md.
    Line(usize),
    /// Index into [`Rail::files`].
    File(usize),
}

/// One claim, evaluated.
#[derive(Clone, Debug)]
pub struct Claim {
    pub id: usize,
    /// A claim file without `task:` claims paths and resources, not a task.
    pub task: Option<String>,
    pub session: String,
    pub origin: Origin,
    pub file: String,
    /// One-based line.
    pub line: u32,
    pub span: Span,
    /// A claim file that adds to this claims.md line.
    pub also: Option<String>,
    pub claimed_at: Option<Time>,
    pub renewed_at: Option<Time>,
    pub last_commit_at: Option<Time>,
    pub lease: TimeDelta,
    pub branch: String,
    pub pid: Option<String>,
    /// On a shared rail, the machine whose session made the claim (claims.md's `machine:`).
    pub machine: Option<String>,
    pub after: Vec<String>,
    pub paths: Vec<String>,
    pub resources: Vec<String>,
    pub purpose: Option<String>,
    pub lease_state: Lease,
    /// When this host saw the claim as it is (the mtime of its file, by the host's clock).
    pub seen_at: Option<Time>,
    /// Its claim time as written (a claim file's `since:`, not the file's mtime): what names
    /// its activity ([`Claim::activity_key`]).
    pub written_since: Option<Time>,
    /// On a shared rail: when this machine first saw that activity ([`Facts::first_seen`]).
    pub observed_at: Option<Time>,
}

impl Claim {
    /// A claim not written yet (a planned claim, the backlog's "could it start"), live from
    /// `now`: what a claim would be judged by before it is made. Its paths, resources and the
    /// rest are the caller's to set.
    pub fn probe(task: &str, session: &str, now: Time, lease: TimeDelta) -> Claim {
        Claim {
            id: usize::MAX,
            task: Some(task.to_string()),
            session: session.to_string(),
            origin: Origin::Line(usize::MAX),
            file: CLAIMS_MD.to_string(),
            line: 0,
            span: Default::default(),
            also: None,
            claimed_at: Some(now),
            renewed_at: None,
            last_commit_at: None,
            lease,
            branch: branch_session(session).to_string(),
            pid: None,
            machine: None,
            after: Vec::new(),
            paths: Vec::new(),
            resources: Vec::new(),
            purpose: None,
            seen_at: None,
            written_since: Some(now),
            observed_at: None,
            lease_state: Lease::unjudged(Some(now), lease::Activity::Claimed),
        }
    }

    /// How long ago it was claimed as of `now`; a claim time in the future counts from when
    /// this host saw it ([`lease::counted_time`]), so an age is never negative.
    pub fn age(&self, now: Time) -> Option<TimeDelta> {
        self.claimed_at
            .map(|t| now - lease::counted_time(t, self.seen_at, self.observed_at, now))
    }

    pub fn state(&self) -> LeaseState {
        self.lease_state.state
    }

    /// Why its lease is in its state, in a sentence ([`Lease::reason`]).
    pub fn lease_reason(&self) -> String {
        self.lease_state.reason(&self.branch, self.pid.as_deref())
    }

    /// What names its activity for a machine's sightings ([`lease::activity_key`]): its task
    /// (or file), session, claim time as written and renewal.
    pub fn activity_key(&self) -> String {
        let what = self.task.as_deref().unwrap_or(&self.file);
        lease::activity_key(what, &self.session, self.written_since, self.renewed_at)
    }

    /// `task` or, for a claim file without a task, `(claims/x.yaml)`.
    pub fn label(&self) -> String {
        match &self.task {
            Some(t) => t.clone(),
            None => format!("({})", self.file),
        }
    }
}

/// A claim file marked `released:`.
#[derive(Clone, Debug)]
pub struct Released {
    pub task: Option<String>,
    pub session: String,
    pub file: String,
    pub released_at: Time,
    pub touched: Vec<String>,
}

/// A broken claims.md line whose task id could be read: the task is taken, the line needs fixing.
#[derive(Clone, Debug)]
pub struct BrokenClaim {
    pub task: String,
    pub file: String,
    pub line: u32,
}

/// A task on the backlog: a `- [ ] task | …` line of claims.md.
#[derive(Clone, Debug)]
pub struct Planned {
    pub task: String,
    pub done: bool,
    /// Zero-based line in claims.md (for edits).
    pub line_index: usize,
    pub file: String,
    pub line: u32,
    pub after: Vec<String>,
    pub paths: Vec<String>,
    pub resources: Vec<String>,
    pub purpose: Option<String>,
    pub lease: Option<TimeDelta>,
}

#[derive(Clone, Debug)]
pub struct Evaluation {
    pub claims: Vec<Claim>,
    pub released: Vec<Released>,
    pub broken: Vec<BrokenClaim>,
    pub planned: Vec<Planned>,
    /// The machine the rail was judged on ([`Facts::machine`]).
    pub here: Option<String>,
}

impl Evaluation {
    /// Whether `session`, acting on this machine, may act on `claim` as on its own: a session
    /// it acts for ([`crate::text::ident::acts_for`]) holds it, and it was made on this machine
    /// ([`crate::text::ident::on_machine`]).
    pub fn acts_for(&self, session: &str, claim: &Claim) -> bool {
        crate::text::ident::acts_for(session, &claim.session)
            && crate::text::ident::on_machine(claim.machine.as_deref(), self.here.as_deref())
    }

    /// The claims as a session of this machine meets them: another machine's claim under a
    /// name no session here acts for (`main (on machine laptop-1)`), so conflicts between a
    /// claim made here and one made there are judged as between two sessions, and named so.
    /// Borrowed when no claim is another machine's (every local rail).
    pub fn claims_seen_here(&self) -> std::borrow::Cow<'_, [Claim]> {
        let here = self.here.as_deref();
        let elsewhere = |c: &Claim| !crate::text::ident::on_machine(c.machine.as_deref(), here);
        if !self.claims.iter().any(elsewhere) {
            return std::borrow::Cow::Borrowed(&self.claims);
        }
        let mut claims = self.claims.clone();
        for c in claims.iter_mut().filter(|c| elsewhere(c)) {
            c.session = format!(
                "{} (on machine {})",
                c.session,
                c.machine.as_deref().unwrap_or_default()
            );
        }
        std::borrow::Cow::Owned(claims)
    }

    /// The owner processes a host should probe before judging these claims
    /// ([`Facts::owner_probes`] over every claim's `pid` field).
    pub fn owner_probes(&self, facts: &Facts) -> Vec<input::OwnerProbe> {
        facts.owner_probes(self.claims.iter().filter_map(|c| c.pid.as_deref()))
    }

    /// The backlog entry of a task, if it has one.
    pub fn planned_of(&self, task: &str) -> Option<&Planned> {
        self.planned.iter().find(|p| p.task == task)
    }

    /// Claims of a task, in order of precedence: earliest claim first, then session name, then
    /// file order. The first one holds the task.
    pub fn claims_of(&self, task: &str) -> Vec<&Claim> {
        let mut out: Vec<&Claim> = self
            .claims
            .iter()
            .filter(|c| c.task.as_deref() == Some(task))
            .collect();
        crate::text::sort::sort_by(&mut out, |a, b| precedence(a, b));
        out
    }
}

/// For `skip_serializing_if`: a count of things left unlisted is said only when some are.
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
pub(crate) fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Who holds a task claimed twice: the earlier claim, then the smaller session name, then the
/// one written first.
pub fn precedence(a: &Claim, b: &Claim) -> std::cmp::Ordering {
    let never = Time::MAX_UTC;
    a.claimed_at
        .unwrap_or(never)
        .cmp(&b.claimed_at.unwrap_or(never))
        .then_with(|| a.session.cmp(&b.session))
        .then_with(|| a.id.cmp(&b.id))
}
