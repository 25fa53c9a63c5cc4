//! A shared rail's history proven (docs/shared-rail.md, "Who can change what"): every commit of
//! `refs/rail/claims` signed by a machine the team allows, and following from its parent by the
//! steps its record says it carries, replayed here with the rail's own rules.
//!
//! The host does the cryptography (an Ed25519 SSH signature checked in its own process over
//! the payload [`signed_commit`] takes out of the commit; other keys by git and `ssh-keygen -Y
//! verify`) and reads the commits' files; core decides: which principals the team allows and
//! whose a signing key is ([`signers`], [`Signers::owner_of`]), whether a signed commit
//! may say it was made by the machine its record names ([`check_signature`]), what its steps
//! make of its parent's files ([`replay`]) and whether that is what the commit holds
//! ([`follows`]), and what a walk over the history found ([`Walk`]): the last proven state, the
//! commits that are not proven, and a restore that answers them.
//!
//! What a commit's record carries (`steps`, in the order they were applied):
//! - an operation made (its machine, session, request, log lines and time): replayed with
//!   [`ops::plan`] on the facts of its time alone — no commit times, no process: a lease judged on
//!   fewer facts is never longer, so an operation that was allowed stays allowed;
//! - provisional claims.md lines appended (`RAIL_LOCAL=1` claims offered to the shared rail);
//! - a restore: the last proven state merged back over commits that were not proven;
//! - a rejoin: a rewound remote merged back with the state its machine had seen.
//!
//! Only the claims: claims.md and the claim files must be exactly the replay's. claims.log is
//! attributed (the commit is signed) but not replayed: a machine delivers the log lines it
//! recorded locally (refusals, bypasses) with any commit.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::change::ops::Request;
use crate::change::queue::{self, Recorded};
use crate::change::snapshot::{self, SharedFiles};
use crate::formats::rail_files::{self, CLAIMS_MD, LOG_FILE};
use crate::model::input::Facts;

mod signed;
pub use signed::{signed_commit, SignedCommit, MAX_SIGNATURE_BYTES};

/// Where the team's allowed signers live (`formats::rail_files`, where boards read it too): a
/// file committed on the remote's main branch, in the format `ssh-keygen -Y verify` reads
/// (`ALLOWED SIGNERS` in ssh-keygen(1)), one line a machine, its principal the machine's id:
/// `laptop-1a2b namespaces="git" ssh-ed25519 AAAA… comment`.
pub use crate::formats::rail_files::ALLOWED_SIGNERS;
/// The namespace Rail signs in (git's own, so `git verify-commit` and `git log --show-signature`
/// check Rail's commits too).
pub const NAMESPACE: &str = "git";

/// One step a rail commit carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "kebab-case", try_from = "WireStep")]
#[allow(
    clippy::large_enum_variant,
    reason = "a commit carries a few steps, each read once"
)]
pub enum Step {
    /// An operation made: its edits are in the commit. `machine`: the machine that asked.
    Op {
        machine: String,
        session: String,
        request: Request,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        extra_log: Vec<String>,
        now_ms: i64,
    },
    /// Text appended to claims.md: provisional claims offered to the shared rail.
    Appended { text: String },
    /// The last proven state (`kept`; `None`: the empty rail) merged back over the commits up to
    /// `base` that were not proven: the three-way merge of `kept` into the parent from `base`,
    /// by the rail's rules.
    Restore { base: String, kept: Option<String> },
    /// A rewound remote merged back with the state this machine had seen (`seen`, the commit's
    /// second parent), from the two states' common ancestor.
    Rejoin { seen: String },
}

/// A step as it comes over the wire: one flat struct (serde's internally tagged enums buffer
/// what they read, which costs wasm size), made a [`Step`] by its `step`.
#[derive(Deserialize)]
struct WireStep {
    step: StepKind,
    machine: Option<String>,
    session: Option<String>,
    request: Option<Request>,
    #[serde(default)]
    extra_log: Vec<String>,
    now_ms: Option<i64>,
    text: Option<String>,
    base: Option<String>,
    kept: Option<String>,
    seen: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
enum StepKind {
    Op,
    Appended,
    Restore,
    Rejoin,
}

impl TryFrom<WireStep> for Step {
    type Error = String;

    fn try_from(w: WireStep) -> Result<Step, String> {
        let need = |v: Option<String>, what: &str| v.ok_or(format!("a step without its {what}"));
        Ok(match w.step {
            StepKind::Op => Step::Op {
                machine: need(w.machine, "machine")?,
                session: need(w.session, "session")?,
                request: w.request.ok_or("an operation step without its request")?,
                extra_log: w.extra_log,
                now_ms: w.now_ms.ok_or("an operation step without its time")?,
            },
            StepKind::Appended => Step::Appended {
                text: need(w.text, "text")?,
            },
            StepKind::Restore => Step::Restore {
                base: need(w.base, "base")?,
                kept: w.kept,
            },
            StepKind::Rejoin => Step::Rejoin {
                seen: need(w.seen, "seen")?,
            },
        })
    }
}

impl Step {
    fn describe(&self) -> String {
        match self {
            Step::Op {
                machine,
                session,
                request,
                ..
            } => format!(
                "{} {} by {session} (asked on {machine})",
                request.name(),
                request.task()
            ),
            Step::Appended { .. } => "provisional claims appended".into(),
            Step::Restore { kept, .. } => {
                format!(
                    "a restore of {}",
                    kept.as_deref().map_or("the empty rail", short)
                )
            }
            Step::Rejoin { seen } => format!("a rewind merged back with {}", short(seen)),
        }
    }
}

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

/// The principals an allowed-signers file names, their keys, and its lines that cannot be read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signers {
    pub principals: BTreeSet<String>,
    /// Each line read: its machine principals and its key, for a host that checks signatures
    /// itself ([`Signers::owner_of`]).
    pub keys: Vec<SignerKey>,
    /// (line number, why) of each line not read.
    pub problems: Vec<(usize, String)>,
}

/// One line of an allowed-signers file, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignerKey {
    /// Its line number.
    pub line: usize,
    /// Its principals that are machine ids, in the line's order.
    pub principals: Vec<String>,
    /// The key as the file writes it: `ssh-ed25519 AAAA…` (type and base64, no comment).
    pub key: String,
    /// No option but `namespaces`: a signature by this key is this line's whatever its date.
    /// A `cert-authority` line or one bounded in time (`valid-after`, `valid-before`) is left
    /// to `ssh-keygen`, which knows certificates and the commit's date.
    pub plain: bool,
}

/// Whose a signing key is, by the allowed signers ([`Signers::owner_of`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyOwner {
    /// A plain line of this principal holds the key.
    Named(String),
    /// No line holds the key.
    NotNamed,
    /// A line holds it with options only `ssh-keygen` judges (why): the host asks git.
    Unsure(String),
}

impl Signers {
    /// Whose `key` (`ssh-ed25519 AAAA…`, the type and the base64 of the key a signature names)
    /// is: `wanted` (the machine a commit or a ref says made it) when a plain line of `wanted`
    /// holds it, else the first principal of the first plain line that does (`ssh-keygen -Y
    /// find-principals`' order, git's `%GS`); [`KeyOwner::Unsure`] when only lines with options
    /// hold it, or when the line of `wanted` that holds it has options.
    pub fn owner_of(&self, key: &str, wanted: &str) -> KeyOwner {
        let key = key_words(key);
        let holding: Vec<&SignerKey> = (self.keys.iter())
            .filter(|k| key_words(&k.key) == key)
            .collect();
        if let Some(k) = holding
            .iter()
            .find(|k| k.principals.iter().any(|p| p == wanted))
        {
            return if k.plain {
                KeyOwner::Named(wanted.to_string())
            } else {
                KeyOwner::Unsure(format!("line {} has options", k.line))
            };
        }
        match holding.iter().find(|k| !k.principals.is_empty()) {
            None => KeyOwner::NotNamed,
            Some(k) if !k.plain => KeyOwner::Unsure(format!("line {} has options", k.line)),
            Some(k) => KeyOwner::Named(k.principals[0].clone()),
        }
    }
}

/// A key's type and base64, whatever the spaces around them.
fn key_words(key: &str) -> (&str, &str) {
    let mut w = key.split_whitespace();
    (w.next().unwrap_or(""), w.next().unwrap_or(""))
}

/// An allowed-signers line's options (`cert-authority,namespaces="git,file"`), split at the
/// commas outside quotes.
fn options(word: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in word.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(&word[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&word[start..]);
    out
}

/// Reads an allowed-signers file: `principals [options] keytype key [comment]`, `#` comments.
/// Only principals that are machine ids and lines whose namespaces (when given) include
/// [`NAMESPACE`] count. The signatures are the host's to check: in-process against
/// [`Signers::keys`], or by `ssh-keygen`.
pub fn signers(text: &str) -> Signers {
    let mut out = Signers::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let principals = words.next().unwrap_or("");
        let mut rest: Vec<&str> = words.collect();
        let given = rest.first().copied().filter(|w| {
            !w.starts_with("ssh-") && !w.starts_with("ecdsa-") && !w.starts_with("sk-")
        });
        let mut plain = true;
        if let Some(word) = given {
            rest.remove(0);
            let opts = options(word);
            plain = opts.iter().all(|o| o.starts_with("namespaces="));
            let namespaces = (opts.iter())
                .find_map(|o| o.strip_prefix("namespaces="))
                .map(|n| n.trim_matches('"'));
            if let Some(ns) = namespaces {
                if !ns.split(',').any(|n| n == NAMESPACE) {
                    out.problems.push((
                        i + 1,
                        format!("its namespaces do not include `{NAMESPACE}`"),
                    ));
                    continue;
                }
            }
        }
        if rest.len() < 2 {
            out.problems.push((i + 1, "no key".into()));
            continue;
        }
        let mut machines = Vec::new();
        for p in principals.split(',') {
            if queue::machine_ok(p) {
                out.principals.insert(p.to_string());
                machines.push(p.to_string());
            } else {
                out.problems.push((
                    i + 1,
                    format!(
                        "`{}` is not a machine id (lower-case letters, digits and -)",
                        crate::text::terminal_safe(p)
                    ),
                ));
            }
        }
        out.keys.push(SignerKey {
            line: i + 1,
            principals: machines,
            key: format!("{} {}", rest[0], rest[1]),
            plain,
        });
    }
    out
}

/// What the host's signature check says of a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signature {
    /// A good signature by a key of the allowed-signers file, under `principal`.
    Good { principal: String },
    /// No signature.
    Unsigned,
    /// Signed, but not good: a bad signature, a key the file does not allow, or one that
    /// cannot be checked (git's `%G?` letter, said in words).
    Bad(String),
}

impl Signature {
    /// From git's `%G?` and `%GS` for a commit.
    pub fn from_git(letter: &str, signer: &str) -> Signature {
        match letter.trim() {
            "G" if !signer.trim().is_empty() => Signature::Good {
                principal: signer.trim().to_string(),
            },
            "N" => Signature::Unsigned,
            "B" => Signature::Bad("a bad signature".into()),
            "U" | "G" => Signature::Bad("signed by a key the allowed signers do not name".into()),
            "X" | "Y" => Signature::Bad("signed by an expired key".into()),
            "R" => Signature::Bad("signed by a revoked key".into()),
            "E" => Signature::Bad("a signature that cannot be checked (key unknown)".into()),
            other => Signature::Bad(format!("signature status `{other}`")),
        }
    }
}

/// Whether a commit's signature makes it a commit of the machine its record names: signed
/// (well) by an allowed principal, and that principal is the record's machine. `Err`: why not.
pub fn check_signature(
    signature: &Signature,
    record: &Recorded,
    allowed: &Signers,
) -> Result<String, String> {
    let principal = match signature {
        Signature::Good { principal } => principal,
        Signature::Unsigned => return Err("it is not signed".into()),
        Signature::Bad(why) => return Err(format!("its signature is not good: {why}")),
    };
    if !allowed.principals.contains(principal) {
        return Err(format!(
            "signed by `{principal}`, whom the allowed signers do not name"
        ));
    }
    match record {
        Recorded::Some(r) if &r.machine == principal => Ok(principal.clone()),
        Recorded::Some(r) => Err(format!(
            "signed by `{principal}` but its record says it was made by `{}`",
            r.machine
        )),
        Recorded::None => Err(format!("signed by `{principal}` but it has no record")),
        Recorded::Unreadable(why) => Err(format!("its record cannot be read: {why}")),
    }
}

/// Whether a machine's guard marks commit (`refs/rail/seen/<machine>`) is that machine's:
/// signed (well) by an allowed principal who is the machine the ref names. `Err`: why not —
/// then the marks are not read, and the machine's marks read before stay as they were.
pub fn check_marks(signature: &Signature, machine: &str, allowed: &Signers) -> Result<(), String> {
    match signature {
        Signature::Good { principal }
            if principal == machine && allowed.principals.contains(principal) =>
        {
            Ok(())
        }
        Signature::Good { principal } => Err(format!(
            "signed by `{principal}`, not by `{machine}` whose marks they claim to be"
        )),
        Signature::Unsigned => Err("not signed".into()),
        Signature::Bad(why) => Err(format!("its signature is not good: {why}")),
    }
}

/// What a replay may need besides the parent's files: other commits' files (a restore's, a
/// rejoin's) and two commits' common ancestor (a rejoin's base).
pub trait Loader {
    fn files(&mut self, commit: &str) -> Option<SharedFiles>;
    /// `Some(None)`: the two share no history; `None`: cannot tell.
    fn merge_base(&mut self, a: &str, b: &str) -> Option<Option<String>>;
}

/// `steps` applied to `parent`'s files, as the commit's machine applied them. `Err`: a step that
/// cannot be replayed (an operation refused on the state before it, a commit not at hand).
pub fn replay(
    parent: &SharedFiles,
    parent_id: Option<&str>,
    steps: &[Step],
    loader: &mut dyn Loader,
) -> Result<SharedFiles, String> {
    // claims.log is not replayed (`claims_of`): left out, it is neither copied nor carried.
    let mut files: SharedFiles = parent
        .iter()
        .filter(|(p, _)| p.as_str() != LOG_FILE)
        .map(|(p, t)| (p.clone(), t.clone()))
        .collect();
    // Operations in a row share one parse of each state (`Planning`); a step of another kind
    // works on the files.
    let mut planning: Option<snapshot::Planning> = None;
    for step in steps {
        if !matches!(step, Step::Op { .. }) {
            if let Some(p) = planning.take() {
                files = p.into_files();
            }
        }
        match step {
            Step::Op {
                machine,
                session,
                request,
                extra_log,
                now_ms,
            } => {
                let now = chrono::DateTime::from_timestamp_millis(*now_ms)
                    .ok_or_else(|| format!("{}: its time is not a time", step.describe()))?;
                // Planned as the asking machine's, as the round planned it: its claims record
                // that machine (issue 42: a claim is its machine's).
                let mut facts = Facts::at(now);
                facts.machine = Some(machine.clone());
                let state = planning
                    .get_or_insert_with(|| snapshot::Planning::new(std::mem::take(&mut files)));
                let plan = state
                    .plan(&facts, session, request)
                    .map_err(|r| format!("{} is refused there: {}", step.describe(), r.message))?;
                if plan.noop {
                    continue;
                }
                state
                    .apply(&plan, extra_log)
                    .map_err(|e| format!("{}: {e}", step.describe()))?;
            }
            Step::Appended { text } => {
                let mut claims = files.get(CLAIMS_MD).cloned().unwrap_or_default();
                if !claims.is_empty() && !claims.ends_with('\n') {
                    claims.push('\n');
                }
                claims.push_str(text);
                files.insert(CLAIMS_MD.to_string(), claims);
            }
            Step::Restore { base, kept } => {
                let base_files = loader.files(base).ok_or_else(|| {
                    format!("{}: {} is not at hand", step.describe(), short(base))
                })?;
                let kept_files = match kept {
                    Some(k) => loader
                        .files(k)
                        .ok_or_else(|| format!("{}: it is not at hand", step.describe()))?,
                    None => SharedFiles::new(),
                };
                files = snapshot::rejoin(&base_files, &kept_files, &files, None).files;
            }
            Step::Rejoin { seen } => {
                let seen_files = loader
                    .files(seen)
                    .ok_or_else(|| format!("{}: it is not at hand", step.describe()))?;
                let at = parent_id.unwrap_or("");
                let base = match loader.merge_base(at, seen) {
                    Some(Some(b)) => loader.files(&b).unwrap_or_default(),
                    Some(None) => SharedFiles::new(),
                    None => return Err(format!("{}: no common ancestor found", step.describe())),
                };
                files = snapshot::rejoin(&base, &seen_files, &files, None).files;
            }
        }
    }
    Ok(match planning {
        Some(p) => p.into_files(),
        None => files,
    })
}

/// The files a proof compares: claims.md and the claim files (claims.log is attributed, not
/// replayed; anything that is not the rail's is never read).
fn claims_of(files: &SharedFiles) -> BTreeMap<&str, &str> {
    files
        .iter()
        .filter(|(p, _)| p.as_str() != LOG_FILE && rail_files::rail_data_path(p).is_ok())
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect()
}

/// Whether `files` (a commit's) follow from `parent` (its first parent's) by the steps its
/// record carries. `Err`: what differs, or the step that cannot be replayed.
pub fn follows(
    parent: &SharedFiles,
    parent_id: Option<&str>,
    files: &SharedFiles,
    record: &Recorded,
    loader: &mut dyn Loader,
) -> Result<(), String> {
    let steps: &[Step] = match record {
        Recorded::Some(r) => &r.steps,
        _ => &[],
    };
    let replayed = replay(parent, parent_id, steps, loader)?;
    let (want, have) = (claims_of(&replayed), claims_of(files));
    if want == have {
        return Ok(());
    }
    let paths: BTreeSet<&str> = want.keys().chain(have.keys()).copied().collect();
    let differ: Vec<&str> = paths
        .into_iter()
        .filter(|p| want.get(p) != have.get(p))
        .collect();
    let first = differ.first().copied().unwrap_or(CLAIMS_MD);
    let detail = match (want.get(first), have.get(first)) {
        (Some(w), Some(h)) => first_difference(w, h),
        (Some(_), None) => "deleted".into(),
        (None, _) => "added".into(),
    };
    Err(format!(
        "{first} is not what its parent and the {} step{} it records make ({detail})",
        steps.len(),
        if steps.len() == 1 { "" } else { "s" }
    ))
}

/// The first line where two texts differ, as `line N: expected … found …`.
fn first_difference(want: &str, have: &str) -> String {
    let (mut w, mut h) = (want.lines(), have.lines());
    let mut n = 0;
    loop {
        n += 1;
        match (w.next(), h.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (a, b) => {
                let show = |l: Option<&str>| {
                    l.map(|l| format!("`{}`", crate::text::terminal_safe(l.trim())))
                        .unwrap_or_else(|| "nothing".into())
                };
                return format!("line {n}: the steps make {}, it has {}", show(a), show(b));
            }
        }
    }
}

/// One commit of the walk, as the host found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitFinding {
    pub commit: String,
    pub what: Found,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// Not proven: why.
    Unproven(String),
    /// A restore that answered the unproven commits before it.
    Restored,
    /// Made before the rail had signed commits (before keys were set up): taken as it is.
    BeforeKeys,
}

/// Commits that were not proven and are not answered by a restore yet: a restore merges
/// `kept` (the last proven state) back over them from `last` (the last of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unproven {
    /// The last proven state before them (`None`: none was).
    pub kept: Option<String>,
    pub first: String,
    pub last: String,
    pub why: String,
}

/// A walk over a shared rail's history, oldest commit first (git's first parents), from the
/// last state proven before it (`None`: from the root, where commits made before any signed
/// commit are taken as they are: the history before the team set keys up).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// The last proven state.
    pub proven: Option<String>,
    /// Unproven commits not answered yet.
    pub open: Option<Unproven>,
    /// What each commit that was not plainly proven was.
    pub found: Vec<CommitFinding>,
    /// Commits walked.
    pub walked: usize,
    strict: bool,
}

impl Walk {
    pub fn from(proven: Option<String>) -> Walk {
        Walk {
            strict: proven.is_some(),
            proven,
            ..Walk::default()
        }
    }

    /// The next commit: its signature and record as read, and `follows` (its replay's verdict,
    /// [`follows`]), called only when the signature was good (`None` otherwise).
    pub fn step(
        &mut self,
        commit: &str,
        signature: &Signature,
        record: &Recorded,
        allowed: &Signers,
        follows: impl FnOnce() -> Result<(), String>,
    ) {
        self.walked += 1;
        if !self.strict && *signature == Signature::Unsigned && self.open.is_none() {
            self.proven = Some(commit.to_string());
            self.found.push(CommitFinding {
                commit: commit.to_string(),
                what: Found::BeforeKeys,
            });
            return;
        }
        self.strict = true;
        let verdict = check_signature(signature, record, allowed).and_then(|_| follows());
        match verdict {
            Ok(()) => {
                let restores = match (record, &self.open) {
                    (Recorded::Some(r), Some(open)) => r.steps.iter().any(|s| {
                        matches!(s, Step::Restore { base, kept }
                            if *base == open.last && *kept == open.kept)
                    }),
                    _ => false,
                };
                if restores {
                    self.open = None;
                    self.found.push(CommitFinding {
                        commit: commit.to_string(),
                        what: Found::Restored,
                    });
                }
                if self.open.is_none() {
                    self.proven = Some(commit.to_string());
                }
            }
            Err(why) => {
                self.found.push(CommitFinding {
                    commit: commit.to_string(),
                    what: Found::Unproven(why.clone()),
                });
                match &mut self.open {
                    Some(open) => open.last = commit.to_string(),
                    None => {
                        self.open = Some(Unproven {
                            kept: self.proven.clone(),
                            first: commit.to_string(),
                            last: commit.to_string(),
                            why,
                        })
                    }
                }
            }
        }
    }
}

/// The claims of `kept`'s claims.md (the last proven state) that `unproven`'s (the last commit
/// that was not proven) does not hold as written: the sessions robbed, and their tasks.
pub fn robbed(kept: &SharedFiles, unproven: &SharedFiles) -> Vec<(String, String)> {
    use crate::formats::claims_md::{self, LineKind};
    let after: BTreeSet<&str> = unproven
        .get(CLAIMS_MD)
        .map(|t| t.lines().map(str::trim_end).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for line in kept.get(CLAIMS_MD).map(|t| t.lines()).into_iter().flatten() {
        if after.contains(line.trim_end()) {
            continue;
        }
        for parsed in claims_md::parse(line).lines {
            if let LineKind::Claim(c) = parsed.kind {
                out.push((c.session.clone(), c.task.clone()));
            }
        }
    }
    out
}

/// A ref a push updates, as a server's check of pushes sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PushedRef<'a> {
    /// `refs/rail/claims`: only forward, every new commit proven.
    Claims,
    /// `refs/rail/seen/<machine>` or `refs/rail/queue/<machine>`: only that machine's commits.
    Machine(&'a str),
    /// Another ref under `refs/rail/` (Rail never pushes one): refused.
    Unknown,
    /// Not the rail's: not judged here.
    Other,
}

/// What `name` is to a server's check of pushes.
pub fn pushed_ref(name: &str) -> PushedRef<'_> {
    if name == "refs/rail/claims" {
        return PushedRef::Claims;
    }
    let machine = name
        .strip_prefix("refs/rail/seen/")
        .or_else(|| name.strip_prefix(queue::QUEUE_REFS));
    match machine {
        Some(m) if queue::machine_ok(m) => PushedRef::Machine(m),
        _ if name.starts_with("refs/rail/") => PushedRef::Unknown,
        _ => PushedRef::Other,
    }
}

/// Why a push of `name` is refused before its commits are looked at: a deletion, a rewind (the
/// old commit not in the new one's history) of the shared ref, a ref Rail never pushes.
pub fn push_refused(name: &str, deleted: bool, rewinds: bool) -> Option<String> {
    match pushed_ref(name) {
        PushedRef::Other => None,
        PushedRef::Unknown => Some(format!("{name} is not a ref Rail pushes")),
        _ if deleted => Some(format!(
            "it deletes {name}: the shared rail's refs are never deleted"
        )),
        PushedRef::Claims if rewinds => Some(format!(
            "it rewinds {name} (the commit it held is not in the new one's history): the shared \
             rail only moves forward"
        )),
        _ => None,
    }
}

/// The sentence a machine says, loudly, when a fetched state is not proven.
pub fn unproven_message(remote: &str, open: &Unproven) -> String {
    format!(
        "the shared rail on {remote} holds a change that is not proven: commit {} {}; it was \
         not built on: the last proven state{} is merged back over it and pushed, and the \
         commit stays in the history as evidence (who can push to the remote made it: see \
         docs/shared-rail.md, \"Who can change what\")",
        short(&open.first),
        open.why,
        open.kept
            .as_deref()
            .map(|k| format!(" ({})", short(k)))
            .unwrap_or_default()
    )
}

#[cfg(test)]
mod tests;
