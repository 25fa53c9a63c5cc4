//! Path overlaps between holding claims of different sessions, grouped by pattern.
//!
//! Claimed patterns are taken once per distinct text, with the claims holding each. Two
//! patterns that overlap (or one pattern held by claims of two sessions) make one conflict of
//! the claims holding them: every two of those claims of different sessions claim a path in
//! common. A group of at most [`LISTED_CLAIMS`] claims is one conflict however many pattern
//! pairs bring them together (two claims are one conflict, as before grouping); a larger group
//! (a crowd: 1,500 claims of `src/**`) is one conflict per pattern pair, listing a few claims
//! and counting the rest. So a conflict's size is bounded, and their number is too: a pattern
//! gets a conflict of its own with each pattern it overlaps until it has
//! [`LISTED_PER_PATTERN`], and a pair past that on both sides is counted, not listed
//! (`overlaps_unlisted`) — thousands of distinct patterns that all overlap one another make a
//! number of conflicts that grows with the patterns, not with their pairs.
//!
//! Which pairs are compared, so that thousands of patterns do not compare all pairs:
//! - patterns with a literal prefix (`src/auth/**` → `src/auth`) only meet patterns filed under
//!   that prefix or one of its ancestors;
//! - patterns without one (`*/d7/**`, `**/*.md`) meet every pattern, but are filed again by
//!   their first fixed literal segment (`d7` at position 1): a pattern whose own segment 1 is
//!   another literal skips that whole group; or, for file patterns, by their literal ending.
//!
//! Each distinct pair of patterns is decided once (`glob::quick_overlap`, else the automata
//! within the one budget of the question), and a pair it cannot decide within that budget
//! counts as overlapping, said so in the message.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;

use super::{names, Conflict, ConflictKind, Fnv, Members, Overlap, Unit, LISTED_CLAIMS};
use crate::model::Claim;
use crate::text::glob;
use crate::text::ident::acts_for;

/// How many overlapping pattern pairs one conflict lists at most.
const LISTED_OVERLAPS: usize = 16;

/// How many other patterns a claimed pattern has a conflict of its own with, at least (when it
/// overlaps that many): a pair of patterns that both have as many already is counted in
/// `overlaps_unlisted` instead.
pub const LISTED_PER_PATTERN: usize = 8;

type FnvMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// What [`find`] found.
pub(super) struct PathFound {
    pub units: Vec<Unit>,
    /// Per distinct claimed pattern: the claims holding it, ascending.
    pub holders: Vec<Vec<usize>>,
    /// Per claim id: its distinct patterns.
    pub of_claim: Vec<Vec<usize>>,
    pub overlaps_unlisted: usize,
}

/// The holding claims' patterns, each distinct text once.
struct Claimed<'a> {
    texts: Vec<&'a str>,
    holders: Vec<Vec<usize>>,
    /// Per pattern: when no two of its holders clash (their sessions form a chain: a branch's
    /// session, its agent, that agent's subagent, each acting for the others), the deepest of
    /// them; `None` when two of them clash.
    session: Vec<Option<&'a str>>,
    of_claim: Vec<Vec<usize>>,
}

impl<'a> Claimed<'a> {
    fn new(claims: &'a [Claim], lost: &[bool]) -> Claimed<'a> {
        let mut ids: FnvMap<&str, usize> =
            HashMap::with_capacity_and_hasher(claims.len(), Default::default());
        let mut out = Claimed {
            texts: Vec::new(),
            holders: Vec::new(),
            session: Vec::new(),
            of_claim: vec![Vec::new(); claims.len()],
        };
        for c in claims.iter().filter(|c| holds(c, lost)) {
            for p in &c.paths {
                let id = *ids.entry(p).or_insert_with(|| {
                    out.texts.push(p);
                    out.holders.push(Vec::new());
                    out.session.push(Some(c.session.as_str()));
                    out.texts.len() - 1
                });
                let holders = &mut out.holders[id];
                // A claim naming a pattern twice holds it once.
                if holders.last() == Some(&c.id) {
                    continue;
                }
                holders.push(c.id);
                out.session[id] = out.session[id].and_then(|d| deepest(d, &c.session));
                out.of_claim[c.id].push(id);
            }
        }
        out
    }

    /// Whether the holders of `i` and `j` include two claims that clash (of sessions neither of
    /// which acts for the other). Two chains make one when their deepest sessions are on one line.
    fn across_sessions(&self, i: usize, j: usize) -> bool {
        match (self.session[i], self.session[j]) {
            (Some(a), Some(b)) => !acts_for(a, b),
            _ => true,
        }
    }
}

/// The deeper of two sessions when one acts for the other (they are on one line from a branch's
/// session down through its agents), else `None`: they clash.
fn deepest<'a>(a: &'a str, b: &'a str) -> Option<&'a str> {
    acts_for(a, b).then_some(if a.len() >= b.len() { a } else { b })
}

/// Whether a claim holds paths: it holds (live or expiring) and did not lose its task.
fn holds(claim: &Claim, lost: &[bool]) -> bool {
    claim.state().holds() && !lost.get(claim.id).copied().unwrap_or(false)
}

/// The path overlaps of `claims` (ids are positions) as conflicts, with who is in each. The
/// claims from `probes` on are probes: a pattern they hold is never left without a conflict of
/// its own with each pattern it overlaps.
pub(super) fn find(
    claims: &[Claim],
    lost: &[bool],
    probes: usize,
    budget: &mut glob::Budget,
) -> PathFound {
    let claimed = Claimed::new(claims, lost);
    let n = claimed.texts.len();
    let mut grouping = Grouping {
        claims,
        claimed: &claimed,
        units: Vec::new(),
        by_first: vec![Vec::new(); claims.len()],
        set: Vec::new(),
        conflicts_of_pattern: vec![0; n],
        overlaps_unlisted: 0,
        probes,
    };
    let index = Index::new(&claimed.texts);
    let mut candidates = Vec::new();
    for i in 0..n {
        index.candidates(i, &mut candidates);
        for &j in &candidates {
            if claimed.across_sessions(j, i) {
                grouping.meet(j, i, &index, budget);
            }
        }
        // The pattern with itself last: among its own holders, when they are of two sessions.
        if claimed.session[i].is_none() {
            grouping.meet(i, i, &index, budget);
        }
    }
    let Grouping {
        mut units,
        overlaps_unlisted,
        ..
    } = grouping;
    for unit in &mut units {
        let c = &mut unit.conflict;
        let named: Vec<&Claim> = c.claims.iter().map(|id| &claims[*id]).collect();
        c.message = message(&named, c.claims_unlisted, &c.overlaps);
    }
    PathFound {
        units,
        holders: claimed.holders,
        of_claim: claimed.of_claim,
        overlaps_unlisted,
    }
}

/// Patterns met so far, grouped into conflicts.
struct Grouping<'a, 'c> {
    claims: &'a [Claim],
    claimed: &'a Claimed<'c>,
    units: Vec<Unit>,
    /// Conflicts of at most [`LISTED_CLAIMS`] claims, by their first claim: pattern pairs that
    /// bring the same few claims together are one conflict. (A list per claim rather than a
    /// map keyed by the claims: one more map type is kilobytes of wasm.)
    by_first: Vec<Vec<usize>>,
    /// The claims of the pair being met, when few (see `meet`).
    set: Vec<usize>,
    /// Per pattern: the conflicts made for it.
    conflicts_of_pattern: Vec<usize>,
    overlaps_unlisted: usize,
    /// The first claim that is a probe.
    probes: usize,
}

impl Grouping<'_, '_> {
    /// Patterns `j` ≤ `i` met: decided, and joined to a conflict or made one.
    fn meet(&mut self, j: usize, i: usize, index: &Index<'_>, budget: &mut glob::Budget) {
        let holders = &self.claimed.holders;
        let pair = if i == j { 0 } else { holders[i].len() };
        let few = holders[j].len() + pair <= LISTED_CLAIMS;
        // The few claims, merged into a buffer kept between calls: two wide claims meet in
        // every pair of their patterns, and a list made per pair cost more than the search.
        let mut set = std::mem::take(&mut self.set);
        set.clear();
        if few {
            union_into(&holders[j], &holders[i], &mut set);
        }
        let known = if few { self.unit_of(&set) } else { None };
        self.set = set;
        let set = &self.set;
        // Claims already in conflict need no more searches (they would spend the rail's budget
        // on a verdict already known), and list at most LISTED_OVERLAPS overlaps.
        if known.is_some_and(|u| self.units[u].conflict.overlaps.len() >= LISTED_OVERLAPS) {
            return;
        }
        let (pj, pi) = (index.pattern(j), index.pattern(i));
        // Only the automata's answers cost: each distinct pair is met once.
        let verdict = match glob::quick_overlap(pj, pi) {
            Some(v) => v,
            None if known.is_some() => return,
            None => glob::automata_overlap_within(pj, pi, budget),
        };
        let (example, undecided) = match verdict {
            glob::OverlapVerdict::Disjoint => return,
            glob::OverlapVerdict::Overlapping(w) => (w, false),
            glob::OverlapVerdict::Undecided => (String::new(), true),
        };
        let (left, right) = self.sides(j, i);
        let texts = &self.claimed.texts;
        let overlap = Overlap {
            left: texts[left].to_string(),
            right: texts[right].to_string(),
            example,
            undecided,
        };
        if let Some(u) = known {
            let list = &mut self.units[u].conflict.overlaps;
            if !list.contains(&overlap) {
                list.push(overlap);
            }
            return;
        }
        // A probe's pattern (its holders are ascending: a probe is the last) is never full.
        let full = |p: usize| {
            self.conflicts_of_pattern[p] >= LISTED_PER_PATTERN
                && holders[p].last().is_some_and(|last| *last < self.probes)
        };
        if i != j && full(i) && full(j) {
            self.overlaps_unlisted += 1;
            return;
        }
        self.conflicts_of_pattern[j] += 1;
        if i != j {
            self.conflicts_of_pattern[i] += 1;
        }
        let (listed, unlisted, members) = if few {
            let set = set.clone();
            self.by_first[set[0]].push(self.units.len());
            (set.clone(), 0, Members::Claims(set))
        } else {
            let listed = some_of(&holders[j], &holders[i]);
            let all = if i == j {
                holders[i].len()
            } else {
                holders[i].len() + holders[j].len() - common(&holders[i], &holders[j])
            };
            (listed.clone(), all - listed.len(), Members::Patterns(j, i))
        };
        self.units.push(Unit {
            conflict: Conflict {
                kind: ConflictKind::PathOverlap,
                sessions: (listed.iter())
                    .map(|id| self.claims[*id].session.clone())
                    .collect(),
                claims: listed,
                claims_unlisted: unlisted,
                task: None,
                resource: None,
                overlaps: vec![overlap],
                message: String::new(),
            },
            members,
        });
    }

    /// The conflict of exactly these few claims, if there is one.
    fn unit_of(&self, set: &[usize]) -> Option<usize> {
        let first = *set.first()?;
        (self.by_first[first].iter().copied())
            .find(|u| matches!(&self.units[*u].members, Members::Claims(ids) if ids == set))
    }

    /// Which of two patterns is `left` in their overlap: the one held by the first claim (as
    /// two claims' conflict names the first claim's pattern first); when that claim holds
    /// both, the one fewer claims hold (the other's holders are the other side).
    fn sides(&self, j: usize, i: usize) -> (usize, usize) {
        let h = &self.claimed.holders;
        let key = |p: usize| (h[p][0], h[p].len());
        if key(i) < key(j) {
            (i, j)
        } else {
            (j, i)
        }
    }
}

/// Two ascending lists as one into `out`, ascending, each id once.
fn union_into(a: &[usize], b: &[usize], out: &mut Vec<usize>) {
    let (mut x, mut y) = (0, 0);
    while x < a.len() || y < b.len() {
        let next = match (a.get(x), b.get(y)) {
            (Some(p), Some(q)) if p <= q => {
                x += 1;
                y += usize::from(p == q);
                *p
            }
            (Some(p), None) => {
                x += 1;
                *p
            }
            (_, Some(q)) => {
                y += 1;
                *q
            }
            (None, None) => break,
        };
        out.push(next);
    }
}

/// How many ids two ascending lists share (each of the shorter one looked up in the other).
fn common(a: &[usize], b: &[usize]) -> usize {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small
        .iter()
        .filter(|id| large.binary_search(id).is_ok())
        .count()
}

/// The claims a crowd's conflict lists: as many of each pattern's holders as fit in half, then
/// the rest filled from either, ascending.
fn some_of(a: &[usize], b: &[usize]) -> Vec<usize> {
    let half = LISTED_CLAIMS / 2;
    let mut out: Vec<usize> = a.iter().take(half).copied().collect();
    for id in b.iter().chain(a) {
        if out.len() >= LISTED_CLAIMS {
            break;
        }
        if !out.contains(id) {
            out.push(*id);
        }
    }
    crate::text::sort::sort_by_key(&mut out, |id| *id);
    out
}

/// The message of a path conflict: its claims named (`unlisted` more counted), its first
/// overlap, how many more it lists.
pub(super) fn message(claims: &[&Claim], unlisted: usize, overlaps: &[Overlap]) -> String {
    let Some(first) = overlaps.first() else {
        return String::new();
    };
    let names = names(claims, unlisted);
    let each = if claims.len() + unlisted == 2 {
        "both"
    } else {
        "all"
    };
    let more = if overlaps.len() > 1 {
        format!(" (and {} more overlapping paths)", overlaps.len() - 1)
    } else {
        String::new()
    };
    let (left, right) = (&first.left, &first.right);
    if first.undecided {
        format!(
            "{names} may {each} claim the same files: `{left}` and `{right}` are too complex to compare within Rail's limits, so they count as overlapping{more}"
        )
    } else if left == right {
        format!("{names} {each} claim `{left}`{more}")
    } else {
        format!(
            "{names} {each} claim {}: `{left}` overlaps `{right}`{more}",
            first.example
        )
    }
}

/// The claimed patterns filed for finding which may overlap which.
struct Index<'a> {
    texts: &'a [&'a str],
    prefixes: Vec<&'a str>,
    /// Patterns by literal prefix as chains through `next` (the first pattern of each prefix in
    /// `first`), built backwards so every chain runs in ascending order: no list per prefix.
    first: FnvMap<&'a str, usize>,
    next: Vec<usize>,
    /// Patterns without a literal prefix.
    wild: WildIndex<'a>,
    /// Each prepared on first need: on a large board most patterns are never compared with
    /// anything (their prefixes meet no other claim's), and preparing them all cost more than
    /// every comparison.
    prepared: Vec<std::cell::OnceCell<glob::Pattern<'a>>>,
}

impl<'a> Index<'a> {
    fn new(texts: &'a [&'a str]) -> Index<'a> {
        let prefixes: Vec<&str> = texts.iter().map(|t| glob::literal_prefix(t)).collect();
        let mut first: FnvMap<&str, usize> =
            HashMap::with_capacity_and_hasher(texts.len(), Default::default());
        let mut next = vec![usize::MAX; texts.len()];
        for (i, prefix) in prefixes.iter().enumerate().rev() {
            if prefix.is_empty() {
                continue;
            }
            let head = first.entry(prefix).or_insert(usize::MAX);
            next[i] = *head;
            *head = i;
        }
        let mut index = Index {
            texts,
            prefixes,
            first,
            next,
            wild: WildIndex::default(),
            prepared: texts.iter().map(|_| std::cell::OnceCell::new()).collect(),
        };
        let mut wild = WildIndex::default();
        for i in 0..texts.len() {
            if index.prefixes[i].is_empty() {
                wild.insert(i, index.pattern(i));
            }
        }
        index.wild = wild;
        index
    }

    fn pattern(&self, id: usize) -> &glob::Pattern<'a> {
        self.prepared[id].get_or_init(|| glob::Pattern::new(self.texts[id]))
    }

    /// The patterns before `i` that `i` could overlap, ascending: each pair is met once, from
    /// its later pattern.
    fn candidates(&self, i: usize, out: &mut Vec<usize>) {
        out.clear();
        let prefix = self.prefixes[i];
        // Wildcard patterns meet each other once (the earlier one first, as in the chains
        // below); every other pattern meets them all but the groups its own fixed segments
        // rule out.
        let limit = if prefix.is_empty() { i } else { usize::MAX };
        self.wild.candidates(self.pattern(i), limit, out);
        if !out.is_sorted() {
            crate::text::sort::sort_by_key(out, |j| *j);
        }
        for ancestor in ancestors(prefix).filter(|a| !a.is_empty()) {
            let Some(&head) = self.first.get(ancestor) else {
                continue;
            };
            let same_prefix = ancestor.len() == prefix.len();
            let chain = std::iter::successors(Some(head), |&j| {
                Some(self.next[j]).filter(|n| *n != usize::MAX)
            });
            for j in chain {
                // Patterns under one prefix are seen from both sides: take each pair once.
                if same_prefix && j >= i {
                    break;
                }
                out.push(j);
            }
        }
    }
}

/// Patterns without a literal prefix, grouped by their first fixed literal segment (position,
/// text); of those with none, file patterns with a literal ending of at least [`TAIL`] bytes
/// are grouped by its last [`TAIL`] bytes (`**/*.x17` under `x17`: two such endings can only
/// both end a path when those bytes agree); the rest are `free`. Lists stay ascending.
#[derive(Default)]
struct WildIndex<'a> {
    /// Per position: the groups by segment text.
    keyed: BTreeMap<usize, FnvMap<&'a str, Vec<usize>>>,
    tails: FnvMap<&'a [u8], Vec<usize>>,
    free: Vec<usize>,
}

const TAIL: usize = 3;

/// The last [`TAIL`] bytes of a file pattern's literal ending, when it has that many.
fn tail<'a>(pattern: &glob::Pattern<'a>) -> Option<&'a [u8]> {
    let suffix = pattern.suffix()?.as_bytes();
    suffix.len().checked_sub(TAIL).map(|start| &suffix[start..])
}

impl<'a> WildIndex<'a> {
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

    /// Appends the patterns below `limit` that `pattern` could overlap: all of them but the
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

/// `a/b/c` → `""`, `a`, `a/b`, `a/b/c`.
fn ancestors(prefix: &str) -> impl Iterator<Item = &str> {
    std::iter::once("")
        .chain(prefix.match_indices('/').map(move |(i, _)| &prefix[..i]))
        .chain((!prefix.is_empty()).then_some(prefix))
}
