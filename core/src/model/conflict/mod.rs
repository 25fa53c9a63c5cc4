//! Conflicts between claims (tasks blocked on others and the backlog are `model::backlog`'s).
//!
//! - the same task claimed twice (the earlier claim holds);
//! - overlapping paths between holding claims of different sessions (`paths`);
//! - one exclusive resource held by two sessions (`shared:` resources may be held by many, but
//!   not together with an exclusive holder).
//!
//! What the rail says about them grows with the rail, never with the number of claim pairs
//! (issue 41, finding 5: 1,500 one-line claims of `src/**` were 1.1 million pairwise
//! conflicts, and `rail validate` printed 254 MB). A conflict is a group: every claim of a task,
//! every holder of a resource, the claims holding two overlapping patterns (or one pattern
//! claimed by several sessions). A conflict lists at most [`LISTED_CLAIMS`] of its claims and
//! counts the rest (`claims_unlisted`); a claim lists at most [`LISTED_PER_CLAIM`] of the
//! conflicts it is in and counts the rest ([`ClaimConflicts`]).

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hasher;

use serde::Serialize;

use crate::model::{is_zero, precedence, Claim, Evaluation};
use crate::text::glob;
use crate::text::ident::{acts_for, resource_key};

mod paths;
#[cfg(test)]
mod tests;

pub use paths::LISTED_PER_PATTERN;

/// How many claims one conflict lists (`claims`, `sessions`) and its message names; the others
/// are counted in `claims_unlisted`.
pub const LISTED_CLAIMS: usize = 6;

/// How many of the conflicts it is in a claim lists (the board's `conflicts` of a claim, its
/// diagnostics, a refusal's conflicts); the others are counted.
pub const LISTED_PER_CLAIM: usize = 4;

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

/// One conflict: a group of claims that clash, every two of them of different sessions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Conflict {
    pub kind: ConflictKind,
    /// Claim ids, at most six ([`LISTED_CLAIMS`]), ascending; for a duplicate task the holder
    /// comes first.
    pub claims: Vec<usize>,
    /// The session of each of `claims` (in a refusal, also the session asking: a claim not
    /// written yet has no id in `claims`).
    pub sessions: Vec<String>,
    /// How many more claims are in this conflict than `claims` lists. Present only when some
    /// are left out.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<usize>", optional))]
    pub claims_unlisted: usize,
    pub task: Option<String>,
    pub resource: Option<String>,
    /// For a path overlap: the overlapping pattern pairs, at most 16.
    pub overlaps: Vec<Overlap>,
    pub message: String,
}

/// The conflicts one claim is in, by index into [`Conflicts::list`]: the first
/// [`LISTED_PER_CLAIM`] of them, and how many more.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimConflicts {
    pub listed: Vec<usize>,
    pub unlisted: usize,
}

/// Every conflict of a rail, and which claims are in each.
#[derive(Clone, Debug, Default)]
pub struct Conflicts {
    /// In a stable order: kind, then the claims listed.
    pub list: Vec<Conflict>,
    /// Per claim id (its position).
    pub of_claim: Vec<ClaimConflicts>,
    /// Overlapping pattern pairs that have no conflict of their own in `list`: both patterns
    /// already have [`LISTED_PER_PATTERN`] conflicts, and their claims are in those.
    pub overlaps_unlisted: usize,
    /// Per conflict of `list`: who is in it.
    members: Vec<Members>,
    /// Per claimed pattern: the claims holding it (what [`Members::Patterns`] names).
    holders: Vec<Vec<usize>>,
    /// Per claim id: the claimed patterns it holds.
    patterns_of: Vec<Vec<usize>>,
}

/// Who is in a conflict.
#[derive(Clone, Debug)]
enum Members {
    /// These claims (ascending), however many `claims` lists.
    Claims(Vec<usize>),
    /// The holders of two claimed patterns (the same one twice: one pattern's holders), by index
    /// into the claimed patterns. Not listed claim by claim: thousands of claims of one pattern
    /// are in every conflict of that pattern.
    Patterns(usize, usize),
}

/// A conflict found, with who is in it.
struct Unit {
    conflict: Conflict,
    members: Members,
}

impl Conflicts {
    /// Every claim in conflict `index` of `list`, ascending (for tests and tools: the board
    /// never lists them all).
    pub fn members(&self, index: usize) -> Vec<usize> {
        match self.members.get(index) {
            Some(Members::Claims(ids)) => ids.clone(),
            Some(Members::Patterns(i, j)) => {
                let mut all = self.holders[*i].clone();
                if i != j {
                    all.extend(&self.holders[*j]);
                    crate::text::sort::sort_by_key(&mut all, |id| *id);
                    all.dedup();
                }
                all
            }
            None => Vec::new(),
        }
    }

    /// Every claim in a conflict with claim `id` (itself too), ascending: whichever conflict
    /// lists them.
    fn partners(&self, id: usize) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mine = &self.patterns_of[id];
        for (index, m) in self.members.iter().enumerate() {
            let within = match m {
                Members::Claims(ids) => ids.contains(&id),
                Members::Patterns(i, j) => mine.contains(i) || mine.contains(j),
            };
            if within && self.list[index].kind != ConflictKind::DuplicateTask {
                out.extend(self.members(index));
            }
        }
        crate::text::sort::sort_by_key(&mut out, |id| *id);
        out.dedup();
        out
    }
}

/// All conflicts of the evaluated rail.
pub fn detect(eval: &Evaluation) -> Conflicts {
    detect_in(&eval.claims, &mut glob::Budget::rail(), true, usize::MAX)
}

/// Path overlaps alone, between holding claims of different sessions (see `paths`).
pub fn path_overlaps(claims: &[Claim]) -> Conflicts {
    path_overlaps_counted(claims).0
}

/// [`path_overlaps`] and the work it took.
pub fn path_overlaps_counted(claims: &[Claim]) -> (Conflicts, glob::Budget) {
    let mut budget = glob::Budget::rail();
    let found = detect_in(claims, &mut budget, false, usize::MAX);
    (found, budget)
}

/// The conflicts of `claims`; claims from `probes` on are probes (claims not written yet),
/// whose every overlap gets a conflict (no pattern of theirs is left unlisted). Never inlined:
/// the board and its backlog both call it, and a copy in each was kilobytes of wasm.
#[inline(never)]
fn detect_in(
    claims: &[Claim],
    budget: &mut glob::Budget,
    every_kind: bool,
    probes: usize,
) -> Conflicts {
    let lost = losers(claims);
    let mut units = if every_kind {
        duplicates(claims)
    } else {
        Vec::new()
    };
    let found = paths::find(claims, &lost, probes, budget);
    units.extend(found.units);
    if every_kind {
        units.extend(resource_clashes(claims, &lost));
    }
    crate::text::sort::sort_by(&mut units, |a, b| {
        let (a, b) = (&a.conflict, &b.conflict);
        (a.kind, &a.claims).cmp(&(b.kind, &b.claims))
    });
    let (list, members): (Vec<Conflict>, Vec<Members>) =
        units.into_iter().map(|u| (u.conflict, u.members)).unzip();
    let of_claim = per_claim(claims.len(), &members, &found.holders, &found.of_claim);
    Conflicts {
        list,
        of_claim,
        overlaps_unlisted: found.overlaps_unlisted,
        members,
        holders: found.holders,
        patterns_of: found.of_claim,
    }
}

/// Per claim: the first [`LISTED_PER_CLAIM`] conflicts it is in, and how many more, without
/// listing every membership (a claim of a crowded pattern is in every conflict of it).
fn per_claim(
    n: usize,
    members: &[Members],
    holders: &[Vec<usize>],
    patterns_of: &[Vec<usize>],
) -> Vec<ClaimConflicts> {
    // Conflicts listing their claims, per claim; conflicts of patterns, per pattern; both
    // ascending, as conflicts are visited in order.
    let mut explicit: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut of_pattern: Vec<Vec<usize>> = vec![Vec::new(); holders.len()];
    // Claims holding both patterns of a conflict meet it twice below: counted once.
    let mut twice = vec![0usize; n];
    for (index, m) in members.iter().enumerate() {
        match m {
            Members::Claims(ids) => {
                for &id in ids {
                    if let Some(list) = explicit.get_mut(id) {
                        list.push(index);
                    }
                }
            }
            Members::Patterns(i, j) => {
                of_pattern[*i].push(index);
                if i != j {
                    of_pattern[*j].push(index);
                    let (small, large) = if holders[*i].len() <= holders[*j].len() {
                        (&holders[*i], &holders[*j])
                    } else {
                        (&holders[*j], &holders[*i])
                    };
                    for id in small {
                        if large.binary_search(id).is_ok() {
                            twice[*id] += 1;
                        }
                    }
                }
            }
        }
    }
    let none: Vec<usize> = Vec::new();
    (0..n)
        .map(|id| {
            let patterns = patterns_of.get(id).unwrap_or(&none);
            let mut total = explicit[id].len();
            // The first few of each list hold the first few of all (each list is ascending).
            let mut first: Vec<usize> = explicit[id]
                .iter()
                .take(LISTED_PER_CLAIM)
                .copied()
                .collect();
            for p in patterns {
                total += of_pattern[*p].len();
                first.extend(of_pattern[*p].iter().take(LISTED_PER_CLAIM));
            }
            total -= twice[id];
            crate::text::sort::sort_by_key(&mut first, |i| *i);
            first.dedup();
            first.truncate(LISTED_PER_CLAIM);
            ClaimConflicts {
                unlisted: total - first.len(),
                listed: first,
            }
        })
        .collect()
}

/// The conflicts a hypothetical claim `probe` would have with `claims`: path overlaps and
/// resource clashes between holding claims of different sessions, each naming the claims of
/// `claims` it involves. A probe with the id of one of `claims` stands in for that claim (an
/// update's changed claim) and is named by that id; any other probe is a claim not written
/// yet, named nowhere (its session is still among a conflict's). What a claim and an update
/// are judged by: the rail's conflicts with the probe among its claims, those it is in.
pub fn conflicts_of(claims: &[Claim], probe: Claim) -> Vec<Conflict> {
    let replaces = claims.iter().any(|c| c.id == probe.id).then_some(probe.id);
    let at = claims.len();
    let all = with_probes(claims, vec![probe]);
    let found = detect_in(&all, &mut glob::Budget::rail(), true, at);
    let mut out = Vec::new();
    for (index, c) in found.list.iter().enumerate() {
        if c.kind == ConflictKind::DuplicateTask {
            continue;
        }
        // The probe clashes when it is in the conflict with a claim of a session it does not act
        // for (a group may also hold its branch's or its agents' claims, which are its own).
        let members = found.members(index);
        let probe = &all[at];
        if !members.contains(&at)
            || !(members.iter()).any(|m| *m < at && !acts_for(&probe.session, &all[*m].session))
        {
            continue;
        }
        let mut c = c.clone();
        c.claims = (c.claims.iter())
            .filter_map(|&id| if id < at { Some(id) } else { replaces })
            .collect();
        out.push(c);
    }
    out
}

/// Whether [`conflicts_of`] may find a conflict of `probe` at all: a claim of no paths and no
/// resources is in none but a duplicate task, which is not one there (a task claimed alone,
/// most claims of a shared rail), whatever the other claims. A planner asks first, before it
/// gathers the claims to judge against.
pub fn may_conflict(probe: &Claim) -> bool {
    !probe.paths.is_empty() || !probe.resources.is_empty()
}

/// For each of `probes` (claims not written yet, of one session), the holding claims of
/// `claims` of other sessions whose paths or resources it would clash with, ascending, every
/// one of them: the backlog's `busy`, judged as [`conflicts_of`] judges a claim, for all its
/// tasks at once.
pub fn clashing(claims: &[Claim], probes: Vec<Claim>) -> Vec<Vec<usize>> {
    // No task to judge (most boards): no detection at all.
    if probes.is_empty() {
        return Vec::new();
    }
    let first = claims.len();
    let all = with_probes(claims, probes);
    let found = detect_in(&all, &mut glob::Budget::rail(), true, first);
    let mut out = Vec::new();
    for at in first..all.len() {
        let mut ids = found.partners(at);
        ids.retain(|id| *id < first && !acts_for(&all[at].session, &all[*id].session));
        out.push(ids);
    }
    out
}

/// `claims` and then `probes`, each id its position (what every function here indexes by). A
/// probe with the id of one of the claims stands in for it: that claim is kept in its place
/// but holds nothing (no task, paths or resources), so the ids of the others stay theirs.
fn with_probes(claims: &[Claim], probes: Vec<Claim>) -> Vec<Claim> {
    let mut all: Vec<Claim> = claims.to_vec();
    for mut probe in probes {
        if let Some(replaced) = all.get_mut(probe.id).filter(|c| c.id == probe.id) {
            replaced.task = None;
            replaced.paths.clear();
            replaced.resources.clear();
        }
        probe.id = all.len();
        all.push(probe);
    }
    all
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

fn duplicates(claims: &[Claim]) -> Vec<Unit> {
    let mut by_task: BTreeMap<&str, Vec<&Claim>> = BTreeMap::new();
    for claim in claims {
        if let Some(task) = &claim.task {
            by_task.entry(task).or_default().push(claim);
        }
    }
    let mut out = Vec::new();
    for (task, group) in by_task {
        if group.len() < 2 {
            continue;
        }
        let Some(holder) = holder_of(&group) else {
            continue;
        };
        let mut others: Vec<&Claim> = group
            .iter()
            .copied()
            .filter(|c| c.id != holder.id)
            .collect();
        crate::text::sort::sort_by(&mut others, |a, b| precedence(a, b));
        let named = &others[..others.len().min(LISTED_CLAIMS - 1)];
        let unlisted = others.len() - named.len();
        let mut ids = vec![holder.id];
        ids.extend(named.iter().map(|c| c.id));
        let mut sessions = vec![holder.session.clone()];
        sessions.extend(named.iter().map(|c| c.session.clone()));
        let mut rest = named
            .iter()
            .map(|c| format!("{} ({}:{})", c.session, c.file, c.line))
            .collect::<Vec<_>>()
            .join(", ");
        if unlisted > 0 {
            rest.push_str(&format!(" and {unlisted} more"));
        }
        let mut members: Vec<usize> = group.iter().map(|c| c.id).collect();
        crate::text::sort::sort_by_key(&mut members, |id| *id);
        out.push(Unit {
            conflict: Conflict {
                kind: ConflictKind::DuplicateTask,
                claims: ids,
                sessions,
                claims_unlisted: unlisted,
                task: Some(task.to_string()),
                resource: None,
                overlaps: Vec::new(),
                message: format!(
                    "task {task} is claimed more than once: {} ({}:{}) holds it; also claimed by {rest}",
                    holder.session, holder.file, holder.line
                ),
            },
            members: Members::Claims(members),
        });
    }
    out
}

/// One exclusive resource held by several sessions, or an exclusive holder beside shared ones.
fn resource_clashes(claims: &[Claim], lost: &[bool]) -> Vec<Unit> {
    let mut by_key: BTreeMap<&str, Vec<(&Claim, bool)>> = BTreeMap::new();
    for claim in
        (claims.iter()).filter(|c| c.state().holds() && !lost.get(c.id).copied().unwrap_or(false))
    {
        for resource in &claim.resources {
            let (key, shared) = resource_key(resource);
            add_holder(by_key.entry(key).or_default(), claim, shared);
        }
    }
    (by_key.into_iter())
        .filter_map(|(key, holders)| clash(key, &holders))
        .collect()
}

/// A claim holding a resource, once (a claim naming a resource twice holds it once).
fn add_holder<'a>(holders: &mut Vec<(&'a Claim, bool)>, claim: &'a Claim, shared: bool) {
    if holders.last().is_none_or(|(c, _)| c.id != claim.id) {
        holders.push((claim, shared));
    }
}

/// The clash over one resource, if its holders clash: two sessions and an exclusive holder.
fn clash(key: &str, holders: &[(&Claim, bool)]) -> Option<Unit> {
    // Inserted one by one: `collect()` into a BTreeSet sorts first, another copy of std's
    // sort in the wasm build.
    let mut sessions = BTreeSet::new();
    for (c, _) in holders {
        sessions.insert(c.session.as_str());
    }
    let exclusive = holders.iter().any(|(_, shared)| !shared);
    if sessions.len() < 2 || !exclusive {
        return None;
    }
    let named = &holders[..holders.len().min(LISTED_CLAIMS)];
    let mut list = named
        .iter()
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
    let unlisted = holders.len() - named.len();
    if unlisted > 0 {
        list.push_str(&format!(" and {unlisted} more"));
    }
    Some(Unit {
        conflict: Conflict {
            kind: ConflictKind::ResourceClash,
            claims: named.iter().map(|(c, _)| c.id).collect(),
            sessions: named.iter().map(|(c, _)| c.session.clone()).collect(),
            claims_unlisted: unlisted,
            task: None,
            resource: Some(key.to_string()),
            overlaps: Vec::new(),
            message: format!("{key} is exclusive but held by {list}"),
        },
        members: Members::Claims(holders.iter().map(|(c, _)| c.id).collect()),
    })
}

/// What a claim is about, for "session (…)" texts: its task, or for a claim file without one
/// the file (not [`Claim::label`], whose own parentheses would double up).
fn what(claim: &Claim) -> &str {
    claim.task.as_deref().unwrap_or(&claim.file)
}

/// `a (x) and b (y)`, `a (x), b (y) and c (z)`, `a (x), b (y) and 12 more`: claims as messages
/// name them, those not listed counted.
fn names(claims: &[&Claim], unlisted: usize) -> String {
    let named: Vec<String> = claims
        .iter()
        .map(|c| format!("{} ({})", c.session, what(c)))
        .collect();
    match (named.split_last(), unlisted) {
        (None, _) => format!("{unlisted} claims"),
        (Some((last, [])), 0) => last.clone(),
        (Some((last, rest)), 0) => format!("{} and {last}", rest.join(", ")),
        (Some(_), more) => format!("{} and {more} more", named.join(", ")),
    }
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
