//! Conflicts between claims (tasks blocked on others and the backlog are `model::backlog`'s).
//!
//! - the same task claimed twice (the earlier claim holds);
//! - overlapping paths between holding claims of different sessions;
//! - one exclusive resource held by two sessions (`shared:` resources may be held by many, but
//!   not together with an exclusive holder).
//!
//! Path conflicts are found through an index keyed by each pattern's literal prefix: two
//! patterns can only overlap when one prefix is a segment prefix of the other, so a pattern is
//! only compared with patterns filed under its own prefix or one of its ancestors.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

use crate::model::{precedence, Claim, Evaluation};
use crate::text::glob;
use crate::text::ident::resource_key;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ConflictKind {
    DuplicateTask,
    PathOverlap,
    ResourceClash,
}

/// Two overlapping patterns and a path both cover.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Overlap {
    pub left: String,
    pub right: String,
    /// A path both cover; empty when `undecided`.
    pub example: String,
    /// The patterns were too costly to compare within Rail's budget: they are treated as
    /// overlapping (never as apart), and there is no example. Present only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub undecided: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Conflict {
    pub kind: ConflictKind,
    /// Claim ids; for a duplicate task the holder comes first.
    pub claims: Vec<usize>,
    pub sessions: Vec<String>,
    pub task: Option<String>,
    pub resource: Option<String>,
    pub overlaps: Vec<Overlap>,
    pub message: String,
}

/// All conflicts, in a stable order (kind, then the claims involved).
pub fn detect(eval: &Evaluation) -> Vec<Conflict> {
    let mut out = duplicates(eval);
    out.extend(path_overlaps(&eval.claims));
    out.extend(resource_clashes(&eval.claims));
    crate::text::sort::sort_by(&mut out, |a, b| {
        (a.kind, &a.claims).cmp(&(b.kind, &b.claims))
    });
    out
}

/// The conflicts a hypothetical claim `probe` would have with `claims`: path overlaps and
/// resource clashes between holding claims of different sessions, each naming the claims of
/// `claims` it involves. A probe with the id of one of `claims` stands in for that claim (an
/// update's changed claim) and is named by that id; any other probe is a claim not written
/// yet, named nowhere. What a claim, an update and the backlog's `busy` status are judged by.
pub fn conflicts_of(claims: &[Claim], probe: Claim) -> Vec<Conflict> {
    let probe_id = probe.id;
    let replaces = claims.iter().any(|c| c.id == probe_id);
    let mut all: Vec<Claim> = claims
        .iter()
        .filter(|c| c.id != probe_id)
        .cloned()
        .collect();
    let original_ids: Vec<usize> = all.iter().map(|c| c.id).collect();
    // Ids must be positions for the conflict functions.
    for (i, c) in all.iter_mut().enumerate() {
        c.id = i;
    }
    let probe_index = all.len();
    let mut probe = probe;
    probe.id = probe_index;
    all.push(probe);
    let mut found = path_overlaps(&all);
    found.extend(resource_clashes(&all));
    found
        .into_iter()
        .filter(|c| c.claims.contains(&probe_index))
        .map(|mut c| {
            c.claims = (c.claims.iter())
                .filter_map(|id| match original_ids.get(*id) {
                    Some(original) => Some(*original),
                    None => replaces.then_some(probe_id),
                })
                .collect();
            c
        })
        .collect()
}

/// Per claim (its id is its position): whether it lost its task to another claim of it (a
/// duplicate that does not hold). A loser holds nothing — neither paths nor resources — so it
/// is in no other conflict, and a resource does not count it among its holders.
pub fn losers(claims: &[Claim]) -> Vec<bool> {
    let mut by_task: BTreeMap<&str, Vec<&Claim>> = BTreeMap::new();
    for claim in claims {
        if let Some(task) = &claim.task {
            by_task.entry(task).or_default().push(claim);
        }
    }
    let mut lost = vec![false; claims.len()];
    for group in by_task.values().filter(|g| g.len() > 1) {
        let holder = holder_of(group).map(|h| h.id);
        for c in group {
            if Some(c.id) != holder {
                if let Some(l) = lost.get_mut(c.id) {
                    *l = true;
                }
            }
        }
    }
    lost
}

/// For a task claimed more than once: the claim that holds it. Among claims that still hold
/// (live or expiring) the earliest wins; if all are stale, the earliest overall.
pub fn holder_of<'a>(claims: &[&'a Claim]) -> Option<&'a Claim> {
    let mut sorted: Vec<&Claim> = claims.to_vec();
    crate::text::sort::sort_by(&mut sorted, |a, b| precedence(a, b));
    sorted
        .iter()
        .find(|c| c.state().holds())
        .or(sorted.first())
        .copied()
}

fn duplicates(eval: &Evaluation) -> Vec<Conflict> {
    let mut by_task: BTreeMap<&str, Vec<&Claim>> = BTreeMap::new();
    for claim in &eval.claims {
        if let Some(task) = &claim.task {
            by_task.entry(task).or_default().push(claim);
        }
    }
    let mut out = Vec::new();
    for (task, claims) in by_task {
        if claims.len() < 2 {
            continue;
        }
        let Some(holder) = holder_of(&claims) else {
            continue;
        };
        let mut others: Vec<&Claim> = claims
            .iter()
            .copied()
            .filter(|c| c.id != holder.id)
            .collect();
        crate::text::sort::sort_by(&mut others, |a, b| precedence(a, b));
        let mut ids = vec![holder.id];
        ids.extend(others.iter().map(|c| c.id));
        let mut sessions = vec![holder.session.clone()];
        sessions.extend(others.iter().map(|c| c.session.clone()));
        let rest = others
            .iter()
            .map(|c| format!("{} ({}:{})", c.session, c.file, c.line))
            .collect::<Vec<_>>()
            .join(", ");
        out.push(Conflict {
            kind: ConflictKind::DuplicateTask,
            claims: ids,
            sessions,
            task: Some(task.to_string()),
            resource: None,
            overlaps: Vec::new(),
            message: format!(
                "task {task} is claimed more than once: {} ({}:{}) holds it; also claimed by {rest}",
                holder.session, holder.file, holder.line
            ),
        });
    }
    out
}

/// How many overlapping pattern pairs one conflict lists at most.
const LISTED: usize = 16;

struct PathEntry<'a> {
    claim: &'a Claim,
    /// Index into the distinct patterns: entries of one pattern share its automaton.
    pattern: usize,
    prefix: &'a str,
}

/// Path overlaps between holding claims of different sessions, one conflict per claim pair.
///
/// Which pairs are compared, so that thousands of claims do not compare all pairs:
/// - patterns with a literal prefix (`src/auth/**` → `src/auth`) only meet patterns filed under
///   that prefix or one of its ancestors;
/// - patterns without one (`*/d7/**`, `**/*.md`) meet every pattern, but are filed again by
///   their first fixed literal segment (`d7` at position 1): a pattern whose own segment 1 is
///   another literal skips that whole group; or, for file patterns, by their literal ending.
///
/// Each distinct pair of patterns is decided once (`glob::overlap_of`, bounded), and a pair it
/// cannot decide within its budget counts as overlapping, said so in the message.
pub fn path_overlaps(claims: &[Claim]) -> Vec<Conflict> {
    path_overlaps_counted(claims).0
}

/// [`path_overlaps`] and the work it took.
pub fn path_overlaps_counted(claims: &[Claim]) -> (Vec<Conflict>, glob::Budget) {
    let mut budget = glob::Budget::rail();
    let found = path_overlaps_within(claims, &mut budget);
    (found, budget)
}

fn path_overlaps_within(claims: &[Claim], budget: &mut glob::Budget) -> Vec<Conflict> {
    let mut ids: HashMap<&str, usize, BuildHasherDefault<Fnv>> =
        HashMap::with_capacity_and_hasher(claims.len(), Default::default());
    // Distinct patterns, each prepared on first need: on a large board most patterns are never
    // compared with anything (their prefixes meet no other claim's), and preparing them all
    // cost more than every comparison.
    let mut texts: Vec<&str> = Vec::new();
    let mut entries: Vec<PathEntry<'_>> = Vec::new();
    let lost = losers(claims);
    for c in
        (claims.iter()).filter(|c| c.state().holds() && !lost.get(c.id).copied().unwrap_or(false))
    {
        for p in &c.paths {
            let id = *ids.entry(p).or_insert_with(|| {
                texts.push(p);
                texts.len() - 1
            });
            entries.push(PathEntry {
                claim: c,
                pattern: id,
                prefix: glob::literal_prefix(p),
            });
        }
    }
    // Entries by prefix as chains through `next` (the first entry of each prefix in `first`),
    // built backwards so every chain runs in ascending order: no list per prefix to allocate.
    // Entries without a literal prefix go to `wild` instead.
    let mut first: HashMap<&str, usize, BuildHasherDefault<Fnv>> =
        HashMap::with_capacity_and_hasher(entries.len(), Default::default());
    let mut next = vec![usize::MAX; entries.len()];
    let mut wild = WildIndex::default();
    for (i, e) in entries.iter().enumerate().rev() {
        if e.prefix.is_empty() {
            continue;
        }
        let head = first.entry(e.prefix).or_insert(usize::MAX);
        next[i] = *head;
        *head = i;
    }
    let prepared: Vec<std::cell::OnceCell<glob::Pattern<'_>>> =
        texts.iter().map(|_| std::cell::OnceCell::new()).collect();
    let pattern = |id: usize| prepared[id].get_or_init(|| glob::Pattern::new(texts[id]));
    for (i, e) in entries.iter().enumerate() {
        if e.prefix.is_empty() {
            wild.insert(i, pattern(e.pattern));
        }
    }
    let mut decided: HashMap<(usize, usize), glob::OverlapVerdict> = HashMap::new();
    let mut pairs: BTreeMap<(usize, usize), Vec<Overlap>> = BTreeMap::new();
    let mut candidates = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        candidates.clear();
        // Wildcard entries first, in entry order (the order they were always met in, so each
        // claim pair's first overlap, the one its message names, stays the same): each pair of
        // two of them once (the smaller index first, as in the chains below); every other
        // entry meets them all but the groups its own fixed segments rule out.
        let limit = if e.prefix.is_empty() { i } else { usize::MAX };
        if !wild.is_empty() {
            wild.candidates(pattern(e.pattern), limit, &mut candidates);
        }
        if !candidates.is_sorted() {
            crate::text::sort::sort_by_key(&mut candidates, |j| *j);
        }
        for ancestor in ancestors(e.prefix).filter(|a| !a.is_empty()) {
            let Some(&head) = first.get(ancestor) else {
                continue;
            };
            let same_prefix = ancestor.len() == e.prefix.len();
            let chain =
                std::iter::successors(Some(head), |&j| Some(next[j]).filter(|n| *n != usize::MAX));
            for j in chain {
                // Pairs under one prefix are seen from both sides: take each once.
                if same_prefix && j >= i {
                    break;
                }
                candidates.push(j);
            }
        }
        for &j in &candidates {
            let f = &entries[j];
            if crate::text::ident::acts_for(&f.claim.session, &e.claim.session) {
                continue;
            }
            let key = if f.claim.id < e.claim.id {
                (f.claim.id, e.claim.id)
            } else {
                (e.claim.id, f.claim.id)
            };
            // A claim pair that already conflicts needs no more searches (they would spend the
            // rail's budget on a verdict already known), and lists at most LISTED overlaps.
            let known = pairs.get(&key).map_or(0, Vec::len);
            if known >= LISTED {
                continue;
            }
            let (pf, pe) = (pattern(f.pattern), pattern(e.pattern));
            // Only the automata's answers are kept: the cheap ones cost less than a lookup,
            // and keeping millions of them would cost memory.
            let verdict = match glob::quick_overlap(pf, pe) {
                Some(v) => v,
                None if known > 0 => continue,
                None => decided
                    .entry((f.pattern, e.pattern))
                    .or_insert_with(|| glob::automata_overlap_within(pf, pe, budget))
                    .clone(),
            };
            let (example, undecided) = match verdict {
                glob::OverlapVerdict::Disjoint => continue,
                glob::OverlapVerdict::Overlapping(w) => (w, false),
                glob::OverlapVerdict::Undecided => (String::new(), true),
            };
            let (a, b) = if f.claim.id < e.claim.id {
                (f, e)
            } else {
                (e, f)
            };
            let list = pairs.entry((a.claim.id, b.claim.id)).or_default();
            let overlap = Overlap {
                left: texts[a.pattern].to_string(),
                right: texts[b.pattern].to_string(),
                example,
                undecided,
            };
            if !list.contains(&overlap) {
                list.push(overlap);
            }
        }
    }
    pairs
        .into_iter()
        .map(|((a, b), overlaps)| {
            let (ca, cb) = (&claims[a], &claims[b]);
            let first = &overlaps[0];
            let more = if overlaps.len() > 1 {
                format!(" (and {} more overlapping paths)", overlaps.len() - 1)
            } else {
                String::new()
            };
            let message = if first.undecided {
                format!(
                    "{} ({}) and {} ({}) may both claim the same files: `{}` and `{}` are too complex to compare within Rail's limits, so they count as overlapping{more}",
                    ca.session,
                    what(ca),
                    cb.session,
                    what(cb),
                    first.left,
                    first.right
                )
            } else if first.left == first.right {
                format!(
                    "{} ({}) and {} ({}) both claim `{}`{more}",
                    ca.session,
                    what(ca),
                    cb.session,
                    what(cb),
                    first.left
                )
            } else {
                format!(
                    "{} ({}) and {} ({}) both claim {}: `{}` overlaps `{}`{more}",
                    ca.session,
                    what(ca),
                    cb.session,
                    what(cb),
                    first.example,
                    first.left,
                    first.right
                )
            };
            Conflict {
                kind: ConflictKind::PathOverlap,
                claims: vec![a, b],
                sessions: vec![ca.session.clone(), cb.session.clone()],
                task: None,
                resource: None,
                message,
                overlaps,
            }
        })
        .collect()
}

/// Entries whose pattern has no literal prefix, grouped by their first fixed literal segment
/// (position, text); of those with none, file patterns with a literal ending of at least
/// [`TAIL`] bytes are grouped by its last [`TAIL`] bytes (`**/*.x17` under `x17`: two such
/// endings can only both end a path when those bytes agree); the rest are `free`. Lists stay
/// in ascending entry order.
#[derive(Default)]
struct WildIndex<'a> {
    /// Per position: the groups by segment text.
    keyed: BTreeMap<usize, HashMap<&'a str, Vec<usize>, BuildHasherDefault<Fnv>>>,
    tails: HashMap<&'a [u8], Vec<usize>, BuildHasherDefault<Fnv>>,
    free: Vec<usize>,
}

const TAIL: usize = 3;

/// The last [`TAIL`] bytes of a file pattern's literal ending, when it has that many.
fn tail<'a>(pattern: &glob::Pattern<'a>) -> Option<&'a [u8]> {
    let suffix = pattern.suffix()?.as_bytes();
    suffix.len().checked_sub(TAIL).map(|start| &suffix[start..])
}

impl<'a> WildIndex<'a> {
    fn is_empty(&self) -> bool {
        self.keyed.is_empty() && self.tails.is_empty() && self.free.is_empty()
    }

    fn insert(&mut self, entry: usize, pattern: &glob::Pattern<'a>) {
        match (pattern.first_fixed_literal(), tail(pattern)) {
            (Some((k, segment)), _) => self
                .keyed
                .entry(k)
                .or_default()
                .entry(segment)
                .or_default()
                .push(entry),
            (None, Some(tail)) => self.tails.entry(tail).or_default().push(entry),
            (None, None) => self.free.push(entry),
        }
    }

    /// Appends the entries below `limit` that `pattern` could overlap: all of them but the
    /// groups whose fixed segment contradicts the pattern's own fixed literal there.
    fn candidates(&self, pattern: &glob::Pattern<'_>, limit: usize, out: &mut Vec<usize>) {
        let below = |list: &Vec<usize>, out: &mut Vec<usize>| {
            out.extend(list.iter().copied().take_while(|j| *j < limit));
        };
        below(&self.free, out);
        match tail(pattern) {
            Some(t) => {
                if let Some(list) = self.tails.get(t) {
                    below(list, out);
                }
            }
            None => {
                for list in self.tails.values() {
                    below(list, out);
                }
            }
        }
        for (&k, groups) in &self.keyed {
            match pattern.fixed_literal(k) {
                Some(segment) => {
                    if let Some(list) = groups.get(segment) {
                        below(list, out);
                    }
                }
                None => {
                    for list in groups.values() {
                        below(list, out);
                    }
                }
            }
        }
    }
}

/// What a claim is about, for "session (…)" texts: its task, or for a claim file without one
/// the file (not [`Claim::label`], whose own parentheses would double up).
fn what(claim: &Claim) -> &str {
    claim.task.as_deref().unwrap_or(&claim.file)
}

/// FNV-1a: the prefix index hashes every ancestor of every claimed pattern, short strings
/// from the rail itself, where SipHash's flood resistance buys nothing and costs most of the
/// time of a large board.
#[derive(Debug)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// `a/b/c` → `""`, `a`, `a/b`, `a/b/c`.
fn ancestors(prefix: &str) -> impl Iterator<Item = &str> {
    std::iter::once("")
        .chain(prefix.match_indices('/').map(move |(i, _)| &prefix[..i]))
        .chain((!prefix.is_empty()).then_some(prefix))
}

/// One exclusive resource held by several sessions, or an exclusive holder beside shared ones.
pub fn resource_clashes(claims: &[Claim]) -> Vec<Conflict> {
    let mut by_key: BTreeMap<&str, Vec<(&Claim, bool)>> = BTreeMap::new();
    let lost = losers(claims);
    for claim in
        (claims.iter()).filter(|c| c.state().holds() && !lost.get(c.id).copied().unwrap_or(false))
    {
        for resource in &claim.resources {
            let (key, shared) = resource_key(resource);
            by_key.entry(key).or_default().push((claim, shared));
        }
    }
    let mut out = Vec::new();
    for (key, holders) in by_key {
        // Inserted one by one: `collect()` into a BTreeSet sorts first, another copy of std's
        // sort in the wasm build.
        let mut sessions = BTreeSet::new();
        for (c, _) in &holders {
            sessions.insert(c.session.as_str());
        }
        let exclusive = holders.iter().any(|(_, shared)| !shared);
        if sessions.len() < 2 || !exclusive {
            continue;
        }
        // Name a few holders; a resource held by hundreds must not make every one of their
        // diagnostics repeat the whole list.
        const NAMED: usize = 6;
        let mut list = holders
            .iter()
            .take(NAMED)
            .map(|(c, shared)| {
                format!(
                    "{} ({}{})",
                    c.session,
                    what(c),
                    if *shared { ", shared" } else { "" }
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        if holders.len() > NAMED {
            list.push_str(&format!(" and {} more", holders.len() - NAMED));
        }
        out.push(Conflict {
            kind: ConflictKind::ResourceClash,
            claims: holders.iter().map(|(c, _)| c.id).collect(),
            sessions: holders.iter().map(|(c, _)| c.session.clone()).collect(),
            task: None,
            resource: Some(key.to_string()),
            overlaps: Vec::new(),
            message: format!("{key} is exclusive but held by {list}"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::input::{Facts, FileText, RailTexts};
    use crate::model::Rail;

    /// Claims of `n` patterns each, one claim per `(session, pattern builder)`.
    fn wide(claims: &[(&str, &dyn Fn(usize) -> String)], n: usize) -> Evaluation {
        let mut text = String::from("# Claims\n\n");
        for (i, (session, pattern)) in claims.iter().enumerate() {
            let paths: Vec<String> = (0..n).map(pattern).collect();
            text.push_str(&format!(
                "t{i} | {session} | 2026-10-22T14:00Z | paths: {}\n",
                paths.join(", ")
            ));
        }
        let texts = RailTexts {
            claims: Some(FileText {
                path: "claims.md".into(),
                text,
                modified: None,
            }),
            ..RailTexts::default()
        };
        let facts = Facts::at(crate::text::time::parse_time("2026-10-22T14:30:00Z").unwrap());
        Rail::load(&texts).evaluate(&facts)
    }

    /// Issue 28, finding 4: two claims of 400 patterns each, every pair of which overlaps and
    /// needs the automata (`**/*a7*` and `**/*b9*` both cover `b9a7`). Each pair was bounded,
    /// their number was not: 160,000 searches, 277 s for `rail board`. The whole question now
    /// has one budget, and the claims still conflict.
    #[test]
    fn wide_claims_are_judged_within_one_budget() {
        let a = |k: usize| format!("**/*a{k}*");
        let b = |k: usize| format!("**/*b{k}*");
        let eval = wide(&[("alice", &a), ("bob", &b)], 400);
        assert_eq!(eval.claims[0].paths.len(), 400);
        let (found, work) = path_overlaps_counted(&eval.claims);
        assert!(
            work.spent <= glob::MAX_RAIL_STEPS,
            "{} work units for one board (budget {})",
            work.spent,
            glob::MAX_RAIL_STEPS
        );
        assert!(work.searches <= 1_000, "{} searches", work.searches);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].sessions, ["alice", "bob"]);
        assert!(
            found[0].message.contains("overlaps"),
            "{}",
            found[0].message
        );
    }
}
