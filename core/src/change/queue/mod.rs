//! Operations a machine leaves on a shared rail for whichever machine commits next
//! (docs/shared-rail.md, "One round answers every machine"): the queue a machine publishes on a
//! ref of its own, the record of what a commit decided (in the commit's message), which queued
//! operations the next commit may decide, what became of an operation a machine published,
//! the fold of a round's operations into one state, and whether a machine commits itself or
//! leaves its operations to the machine that made the last commit.
//!
//! The rule everything here rests on, the **window**: an operation published with base `B` (the
//! shared ref's commit its machine had seen) may be decided only by one of the [`WINDOW`]
//! commits that follow `B`, and only if none of the commits between `B` and the decider
//! decided it already. The remote's compare-and-swap makes each of those commits unique, so an
//! operation is decided at most once, and [`WINDOW`] commits after its base its fate is known to
//! everyone: in one of those commits' records, or nowhere (it died undecided and its machine
//! plans it again). Nothing here reads a file, a ref or a clock: the host passes commits, queue
//! texts and times in.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::change::ops::{Plan, Refusal, Request};
use crate::change::snapshot::{self, SharedFiles};
use crate::model::input::Facts;
use crate::text::ident;

/// Where machines publish their queues on the remote: `refs/rail/queue/<machine>`.
pub const QUEUE_REFS: &str = "refs/rail/queue/";
/// The file of a queue commit's tree that holds the queue (the tree has room for more: a
/// machine's guard marks could ride on the same ref).
pub const QUEUE_FILE: &str = "queue.json";
/// A queue larger than this is not read (a machine queues a few small operations).
pub const MAX_QUEUE_BYTES: usize = 256 * 1024;
/// Operations read from one queue; the rest are left.
pub const MAX_QUEUE_OPS: usize = 256;
/// Queues read per round; the rest wait (their operations die undecided and are queued again).
pub const MAX_QUEUES: usize = 512;
/// A commit message larger than this is not read for a record: as if unreadable.
pub const MAX_MESSAGE_BYTES: usize = 8 << 20;
/// Commits after its base that may decide a published operation. One commit is not enough:
/// the machine that made the tip commits its own operations round after round, and another
/// machine's queue, published on a tip it fetched, lands a fetch and a push later; by then that
/// tip is a commit or two old. Four lets the next round of the tip's machine still fold it.
pub const WINDOW: usize = 4;
/// Other machines waiting from which one machine commits for all of them and the rest wait for
/// it. Below it every machine commits, folding the few others' operations in: a commit lost
/// among three costs little, and waiting for a chosen machine costs a publish and a look more
/// (at 150 ms, 4 machines × 8 agents had a median claim of 3.7 s waiting against 1.9 s racing).
pub const DEFER_FROM: usize = 3;
/// Commits of the shared ref a machine reads back from the tip to learn its operations' fates.
pub const CHAIN_DEPTH: usize = 16;
/// The line that starts a commit message's record.
const RECORD_HEAD: &str = "rail-record v1";
const MAX_ID: usize = 128;
const MAX_EXTRA_LOG: usize = 16;
const MAX_LOG_LINE: usize = 4096;
const MAX_DECISIONS: usize = 65_536;

/// One operation in a machine's queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Op {
    /// Unique among all machines (time, process, random): what a record names.
    pub id: String,
    /// The commit of the shared ref its machine had seen when it published it.
    pub base: String,
    pub session: String,
    pub request: Request,
    /// Log lines to write before the operation's own (a gate's verdict before its release).
    #[serde(default)]
    pub extra_log: Vec<String>,
    /// The requester's "now" (ms since 1970): its leases and log line.
    pub now_ms: i64,
    /// Past this (ms since 1970, by the decider's clock) the operation is decided "gave up".
    pub deadline_ms: i64,
}

/// A machine id: what follows [`QUEUE_REFS`] — lower-case letters, digits and `-`, 1 to 64
/// characters, starting with a letter or digit. Anything else under the prefix is not a queue.
pub fn machine_ok(id: &str) -> bool {
    crate::text::ident::validate_machine(id).is_ok()
}

/// A new machine id from the host's name and random hex: readable, and unique in practice.
pub fn machine_id(host: &str, random_hex: &str) -> String {
    let mut name: String = host
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name = name.trim_matches('-').chars().take(32).collect();
    let tail: String = random_hex
        .chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .take(16)
        .collect();
    match (name.is_empty(), tail.is_empty()) {
        (true, true) => "machine".into(),
        (true, false) => tail,
        (false, true) => name,
        (false, false) => format!("{name}-{tail}"),
    }
}

fn id_ok(id: &str) -> bool {
    (1..=MAX_ID).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// A commit id as git prints it (SHA-1 or SHA-256, lower-case hex).
pub fn commit_id_ok(id: &str) -> bool {
    matches!(id.len(), 40 | 64) && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Why a queued operation is not read: anything a `rail` command of that machine could not
/// have queued. A take is never queued: it is judged on the remote's branches, which only the
/// taking machine fetches for it.
fn check_op(op: &Op) -> Result<(), String> {
    if !id_ok(&op.id) {
        return Err("its id is not an operation id".into());
    }
    if !commit_id_ok(&op.base) {
        return Err(format!("{}: its base is not a commit id", op.id));
    }
    ident::validate_session(&op.session).map_err(|e| format!("{}: {}", op.id, e.0))?;
    ident::validate_task(op.request.task()).map_err(|e| format!("{}: {}", op.id, e.0))?;
    if matches!(op.request, Request::Take { .. }) {
        return Err(format!("{}: a take is decided by its own machine", op.id));
    }
    if op.extra_log.len() > MAX_EXTRA_LOG {
        return Err(format!("{}: more than {MAX_EXTRA_LOG} log lines", op.id));
    }
    for line in &op.extra_log {
        let one = line.len() <= MAX_LOG_LINE
            && !line.contains(['\n', '\r'])
            && crate::formats::log::parse(line).entries.len() == 1;
        if !one {
            return Err(format!("{}: a log line that is not one log entry", op.id));
        }
    }
    Ok(())
}

/// A machine's queue as read from its ref: the operations that may be decided, and why any
/// others were not read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Queue {
    pub machine: String,
    pub ops: Vec<Op>,
    pub dropped: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct QueueDoc<T> {
    v: u32,
    machine: String,
    ops: Vec<T>,
}

/// The text of `machine`'s queue of `ops`.
pub fn render_queue(machine: &str, ops: &[Op]) -> String {
    let doc = QueueDoc {
        v: 1,
        machine: machine.to_string(),
        ops: ops.to_vec(),
    };
    serde_json::to_string(&doc).unwrap_or_default() + "\n"
}

/// Reads the queue published under `refs/rail/queue/<machine>`. Never panics; `Err` says why
/// none of it can be read (too large, not a queue, another machine's name in it). Operations
/// that do not check out are left out, each with its reason, and the rest are read.
pub fn parse_queue(machine: &str, text: &str) -> Result<Queue, String> {
    if !machine_ok(machine) {
        return Err("the ref's name is not a machine id".into());
    }
    if text.len() > MAX_QUEUE_BYTES {
        return Err(format!(
            "{} bytes, over the {MAX_QUEUE_BYTES} a queue may hold",
            text.len()
        ));
    }
    let doc: QueueDoc<Value> =
        serde_json::from_str(text).map_err(|e| format!("not a queue: {e}"))?;
    if doc.v != 1 {
        return Err(format!("queue version {} is not known here", doc.v));
    }
    if doc.machine != machine {
        return Err(format!(
            "it names machine `{}`, not its ref's",
            crate::text::terminal_safe(&doc.machine)
        ));
    }
    let mut queue = Queue {
        machine: machine.to_string(),
        ..Queue::default()
    };
    let total = doc.ops.len();
    for value in doc.ops.into_iter().take(MAX_QUEUE_OPS) {
        match serde_json::from_value::<Op>(value) {
            Ok(op) => match check_op(&op) {
                Ok(()) => queue.ops.push(op),
                Err(why) => queue.dropped.push(why),
            },
            Err(e) => queue.dropped.push(format!("not an operation: {e}")),
        }
    }
    if total > MAX_QUEUE_OPS {
        queue.dropped.push(format!(
            "{} operations past the first {MAX_QUEUE_OPS}",
            total - MAX_QUEUE_OPS
        ));
    }
    Ok(queue)
}

/// What one commit decided about one queued operation: the answer its machine gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpDecision {
    /// The machine whose operation it was.
    pub machine: String,
    pub id: String,
    /// The requester's answer as the deciding host worded it (for `rail`: its exit code, text
    /// and JSON). Core does not read it.
    pub outcome: Value,
}

/// The record a commit's message carries: the machine that made it and what it decided.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub machine: String,
    #[serde(default)]
    pub decided: Vec<OpDecision>,
    /// What the commit carries, step by step, for anyone to replay (`change::proof`): every
    /// operation it made with the machine that asked for it, and any merge-back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<crate::change::proof::Step>,
}

/// What a commit of the shared ref says it decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Recorded {
    /// No record: made by a Rail without queues, or by hand. It decided no queued operation.
    #[default]
    None,
    Some(Record),
    /// A record that cannot be read: what it decided cannot be known.
    Unreadable(String),
}

impl Recorded {
    /// What it decided about `machine`'s operation `id`.
    pub fn decided(&self, machine: &str, id: &str) -> Option<&OpDecision> {
        match self {
            Recorded::Some(r) => r
                .decided
                .iter()
                .find(|d| d.id == id && d.machine == machine),
            _ => None,
        }
    }

    /// The machine that made the commit, if its record says.
    pub fn machine(&self) -> Option<&str> {
        match self {
            Recorded::Some(r) => Some(r.machine.as_str()),
            _ => None,
        }
    }
}

/// A commit message: `summary`, then the record after a line of its own.
pub fn render_message(summary: &str, record: &Record) -> String {
    let json = serde_json::to_string(record).unwrap_or_default();
    format!("{}\n\n{RECORD_HEAD}\n{json}\n", summary.trim_end())
}

/// The record of a commit message (the last one, if a summary quotes the marker).
pub fn read_message(message: &str) -> Recorded {
    if message.len() > MAX_MESSAGE_BYTES {
        return Recorded::Unreadable(format!("a message of {} bytes", message.len()));
    }
    let head = format!("\n{RECORD_HEAD}\n");
    let Some(at) = message.rfind(&head) else {
        return Recorded::None;
    };
    let json = message[at + head.len()..].trim();
    let record: Record = match serde_json::from_str(json) {
        Ok(r) => r,
        Err(e) => return Recorded::Unreadable(format!("not a record: {e}")),
    };
    if !machine_ok(&record.machine) {
        return Recorded::Unreadable("its machine is not a machine id".into());
    }
    if record.decided.len() > MAX_DECISIONS
        || record
            .decided
            .iter()
            .any(|d| !id_ok(&d.id) || !machine_ok(&d.machine))
    {
        return Recorded::Unreadable("a decision that names no operation".into());
    }
    Recorded::Some(record)
}

/// A commit of the shared ref as far as the queue needs it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Commit {
    pub id: String,
    /// Its first parent (the state it was made on).
    pub parent: Option<String>,
    pub record: Recorded,
}

/// A commit object's first parent and message, as `git cat-file` gives its bytes, with its
/// record read; `None` when the bytes are not a commit object's.
pub fn commit_object(id: &str, bytes: &[u8]) -> Option<Commit> {
    let text = String::from_utf8_lossy(bytes);
    let (headers, message) = text.split_once("\n\n").unwrap_or((&text, ""));
    if !headers.starts_with("tree ") {
        return None;
    }
    let parent = headers
        .lines()
        .find_map(|l| l.strip_prefix("parent "))
        .map(|p| p.trim().to_string())
        .filter(|p| commit_id_ok(p));
    Some(Commit {
        id: id.to_string(),
        parent,
        record: read_message(message),
    })
}

/// An operation another machine queued that the next commit may decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate<'a> {
    pub machine: &'a str,
    pub op: &'a Op,
}

/// The operations of other machines' queues (`me` is this machine, whose own operations it
/// holds itself) that a commit made on the tip may decide, each once (by id), in the order they
/// were asked for. `chain`: the tip first, then each commit's first parent (at least
/// [`WINDOW`] of them where there are as many). The window: based on the tip or on one of the
/// `WINDOW - 1` commits before it, and decided by none of the commits since its base (one whose
/// record cannot be read may have decided it: such operations are left).
pub fn eligible<'a>(chain: &[Commit], queues: &'a [Queue], me: &str) -> Vec<Candidate<'a>> {
    let mut out: Vec<Candidate<'a>> = Vec::new();
    let window = &chain[..chain.len().min(WINDOW)];
    for q in queues.iter().filter(|q| q.machine != me) {
        for op in &q.ops {
            let Some(at) = window.iter().position(|c| c.id == op.base) else {
                continue;
            };
            let since = &window[..at];
            let open = since.iter().all(|c| {
                !matches!(c.record, Recorded::Unreadable(_))
                    && c.record.decided(&q.machine, &op.id).is_none()
            });
            if open {
                out.push(Candidate {
                    machine: &q.machine,
                    op,
                });
            }
        }
    }
    // An id in two machines' queues is a copy (ids are unique): neither is decided, so a queue
    // cannot take over another machine's operation by copying it. In one queue, the first.
    let mut owner: std::collections::BTreeMap<&str, Option<&str>> = Default::default();
    for c in &out {
        owner
            .entry(c.op.id.as_str())
            .and_modify(|m| {
                if *m != Some(c.machine) {
                    *m = None;
                }
            })
            .or_insert(Some(c.machine));
    }
    out.retain(|c| owner.get(c.op.id.as_str()) == Some(&Some(c.machine)));
    crate::text::sort::sort_by(&mut out, |a, b| {
        (a.op.now_ms, a.machine, &a.op.id).cmp(&(b.op.now_ms, b.machine, &b.op.id))
    });
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|c| seen.insert(c.op.id.as_str()));
    out
}

/// What became of an operation this machine published, as far as the fetched chain shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    /// A commit decided it: its answer, and the machine that made the commit.
    Decided { outcome: Value, by: String },
    /// Still decidable by a commit to come. `refusal_final`: the one commit left that may
    /// decide it is made on the tip, where an operation refused on the tip's state alone is
    /// decided refused, so a refusal on the tip is its answer already.
    Pending { refusal_final: bool },
    /// Every commit that could decide it was made, and none did: nothing was applied; it is to
    /// be asked again.
    Dead,
    /// Its base is not in the chain (the remote was rewound, or moved on further than read),
    /// or a record on the way cannot be read: whether it was applied cannot be told here.
    Unknown,
}

/// The fate of `me`'s operation `id` published with `base`, from `chain`: the fetched tip
/// first, then each commit's first parent, as far as the host read it.
pub fn fate(me: &str, id: &str, base: &str, chain: &[Commit]) -> Fate {
    let Some(at) = chain.iter().position(|c| c.id == base) else {
        return Fate::Unknown;
    };
    // The deciders made so far, oldest first: the commit made on the base, then the ones after.
    for decider in (at.saturating_sub(WINDOW)..at).rev().map(|i| &chain[i]) {
        if let Recorded::Unreadable(_) = decider.record {
            return Fate::Unknown;
        }
        if let Some(d) = decider.record.decided(me, id) {
            return Fate::Decided {
                outcome: d.outcome.clone(),
                by: decider.record.machine().unwrap_or_default().to_string(),
            };
        }
    }
    if at >= WINDOW {
        Fate::Dead
    } else {
        Fate::Pending {
            refusal_final: at == WINDOW - 1,
        }
    }
}

/// One operation of a round, to fold into the state.
#[derive(Clone, Debug)]
pub struct Folding<'a> {
    pub session: &'a str,
    pub request: &'a Request,
    pub extra_log: &'a [String],
    /// The requester's "now".
    pub now: crate::text::time::Time,
    /// Another machine's: refused when the round's base state alone refuses it (so that
    /// machine, seeing the refusal on that state, may answer it at once), and "gave up" past
    /// its deadline.
    pub foreign: bool,
    pub expired: bool,
    /// The machine that asked (this one's id, or the queue's it came from): its claims are
    /// its own, others' are not ([`Facts::machine`]). `None` plans as a host that does not say.
    pub machine: Option<&'a str>,
}

/// What the fold made of one operation.
#[derive(Clone, Debug)]
pub enum FoldVerdict {
    /// Planned; `changed`: its edits are in the state (false for a no-op).
    Planned { plan: Plan, changed: bool },
    /// Refused; `on_base`: by the round's base state alone, not only after the round's earlier
    /// operations.
    Refused { refusal: Refusal, on_base: bool },
    /// Past its deadline: not applied.
    Expired,
    /// Its edits could not be applied (a planner bug): not applied.
    Broken(String),
}

/// A round's operations folded, in order, into `files`: each planned on the state the earlier
/// ones leave (its facts at the requester's "now"). Returns the verdicts and the files changed.
pub fn fold(
    files: &mut SharedFiles,
    facts: &Facts,
    ops: &[Folding<'_>],
) -> (Vec<FoldVerdict>, SharedFiles) {
    // The base is parsed once and never changed: only planned on (an operation's verdict on
    // the round's base state).
    let mut base = snapshot::Planning::new(files.clone());
    let mut state = snapshot::Planning::new(std::mem::take(files));
    let mut changed = SharedFiles::new();
    let mut verdicts = Vec::with_capacity(ops.len());
    for op in ops {
        if op.expired {
            verdicts.push(FoldVerdict::Expired);
            continue;
        }
        let mut facts = facts.clone();
        facts.now = op.now;
        facts.machine = op.machine.map(str::to_string);
        if op.foreign {
            if let Err(refusal) = base.plan(&facts, op.session, op.request) {
                verdicts.push(FoldVerdict::Refused {
                    refusal,
                    on_base: true,
                });
                continue;
            }
        }
        let verdict = match state.plan(&facts, op.session, op.request) {
            Ok(plan) if plan.noop => FoldVerdict::Planned {
                plan,
                changed: false,
            },
            Ok(plan) => match state.apply(&plan, op.extra_log) {
                Ok(new) => {
                    changed.extend(new);
                    FoldVerdict::Planned {
                        plan,
                        changed: true,
                    }
                }
                Err(e) => FoldVerdict::Broken(e.to_string()),
            },
            Err(refusal) => {
                let on_base = op.foreign || base.plan(&facts, op.session, op.request).is_err();
                FoldVerdict::Refused { refusal, on_base }
            }
        };
        verdicts.push(verdict);
    }
    *files = state.into_files();
    (verdicts, changed)
}

/// What a machine knows when it decides its next move.
#[derive(Clone, Debug, Default)]
pub struct Situation<'a> {
    pub me: &'a str,
    /// The fetched tip's id.
    pub tip: &'a str,
    /// The other machines whose operations the next commit may decide: machines waiting.
    pub waiting: Vec<&'a str>,
    /// This machine's operations no published copy may still decide: never published, or
    /// published and died undecided.
    pub unpublished: usize,
    /// This machine's operations a commit to come may still decide.
    pub pending: usize,
    /// One of them was published before and died undecided: the machines that committed
    /// since do not fold this machine's operations (an older Rail).
    pub died: bool,
    /// One of them is past its deadline: only a commit can say it gave up.
    pub expired: bool,
    /// A push of this machine was rejected lately.
    pub contended: bool,
    /// The round planned on a state it fetched, not on this machine's own last push: its push
    /// may race machines no fetch has shown yet.
    pub fetched: bool,
    /// This machine can publish its queue (the remote took its last queue push, or it has not
    /// tried): a remote that declines `refs/rail/queue/*` leaves every machine to commit itself.
    pub can_publish: bool,
    /// Since the tip last moved, as this machine saw it, and how long a round of fetch and push
    /// takes here (ms).
    pub still_ms: u64,
    pub round_ms: u64,
}

/// A machine's next move in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Commit its operations and every eligible one of the others, and push (with its queue
    /// in the same push when `publish`: if the push loses, the winner's next commit can decide
    /// them).
    Commit { publish: bool },
    /// Publish its queue only and leave its operations to the machine that commits next.
    Publish,
    /// Wait for the next commit (its operations are published and still decidable).
    Wait,
}

/// The next move. Without contention a machine commits, as always, and a push made on a fetched
/// state carries its queue: the machine cannot know whether others push in the same moment, and
/// when they do (a burst: every machine's first push races and one lands), the losers' operations
/// are on the remote at once for the winner's next commit, instead of a round later, when they
/// would publish them with their second push. It costs no round trip (the same push); a machine
/// planning on its own last push, alone by all it saw, publishes nothing. While a few machines
/// contend, each commits too, folding the others' published operations into its own commit, and
/// publishes its own in the same push: whichever push lands answers them all. From
/// [`DEFER_FROM`] other machines waiting, one commit should answer them all and one machine make
/// it: each waiting machine ranks the machines waiting (itself among them when it has
/// operations to decide) by a hash of the tip; the first commits for everyone, the others
/// publish and wait. A machine with operations waiting has a leader running, so the one chosen
/// is one that acts, and every new tip ranks them anew, which spreads the work. A machine
/// commits itself anyway when an operation of its died undecided once, one is past its
/// deadline, its queue cannot be published, or the tip stood still too long (the machine chosen
/// stopped). Many machines folding many operations at once cost each other the fold and a push
/// that lose; one per tip is what keeps a round short as machines are added.
pub fn next_move(s: &Situation<'_>) -> Move {
    let contention = !s.waiting.is_empty() || s.contended;
    if !contention {
        return Move::Commit {
            publish: s.fetched && s.can_publish,
        };
    }
    if s.died || s.expired || !s.can_publish || s.waiting.len() < DEFER_FROM {
        return Move::Commit { publish: true };
    }
    // This machine is one of those waiting when its operations are out, or about to be.
    let mut pool: Vec<&str> = s.waiting.clone();
    if s.pending + s.unpublished > 0 {
        pool.push(s.me);
    }
    let chosen = pool
        .iter()
        .copied()
        .min_by_key(|m| (rank(m, s.tip), *m))
        .unwrap_or(s.me);
    if chosen == s.me {
        return Move::Commit { publish: true };
    }
    if s.unpublished > 0 {
        return Move::Publish;
    }
    if s.still_ms >= still_limit(s) {
        Move::Commit { publish: true }
    } else {
        Move::Wait
    }
}

/// A machine's rank for the commit after `tip` (FNV-1a over both, then a finalising mix so the
/// tip's last bytes reorder the machines too): the same wherever it is computed, and spread
/// anew by every tip.
fn rank(machine: &str, tip: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in machine.bytes().chain([0]).chain(tip.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// How long a machine waits on a still tip before it commits itself: two to four rounds, the
/// share each machine waits set by its rank, so the machines left waiting when the chosen one
/// stopped do not all commit at once (the first one's commit lands before the next one's
/// limit, and the others leave their operations to the machine chosen for the new tip).
pub fn still_limit(s: &Situation<'_>) -> u64 {
    let round = s.round_ms.max(1);
    round * 2 + (rank(s.me, s.tip) % (round * 2))
}

#[cfg(test)]
mod tests;
