//! Three-way merge of claims.md, for the git merge driver.
//!
//! Lines are matched by key: a claim line by its task, any other line by its text. A patience
//! diff (unique lines as anchors) matches base to each side; the diff3 walk then keeps what
//! both sides kept, takes what only one side changed, and settles the rest without conflict
//! markers:
//!
//! - claims are merged by task: a release on either side wins over an unchanged claim, and a
//!   release beats a mere renewal of the same claim, but not a new claim of the task;
//! - the same task claimed differently on both sides goes by the board's rule: among claims
//!   that still hold, the earliest wins (then the smaller session name); a claim that still
//!   holds never loses to one that does not. Whether a claim holds needs the time and lease
//!   facts, which the host passes in ([`Holding`]); without them every claim counts as holding.
//!   The loser is reported;
//! - both sides' edits of the same claim (same session and claim time) keep the later renewal;
//! - other lines changed on both sides at one place are all kept, in a fixed order.
//!
//! `merge(b, x, y)` and `merge(b, y, x)` give the same bytes; merging with an unchanged side
//! returns the other side as it is.
//!
//! [`driver`] is what the git merge driver (and the wasm `merge`) runs: it first refuses a side
//! that already holds a conflict marker. Merging such a side would carry the marker into a
//! result git then records as resolved (the driver exits 0), so the file would be committed with
//! markers in it and nobody told; refusing makes git report a conflict instead.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use chrono::TimeDelta;

use crate::formats::claims_md::{self, ClaimLine, LineKind, RailDoc};
use crate::model::input::Facts;
use crate::model::lease::{self, LeaseInput};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Loser {
    pub task: String,
    pub kept_session: String,
    pub lost_session: String,
    /// The losing line as it was written.
    pub lost_line: String,
}

impl Loser {
    /// The log line that names this dropped claim, its line as written (so it can be put
    /// back) and the claim kept; `by` says what dropped it (`merge`, `rewind`).
    pub fn log_line(&self, now: crate::text::time::Time, by: &str) -> String {
        crate::formats::log::LogEntry::new(
            now,
            crate::formats::log::LogEvent::Other("dropped".into()),
            Some(&self.task),
            Some(&self.lost_session),
        )
        .with("by", by)
        .with("kept", self.kept_session.clone())
        .with("line", self.lost_line.clone())
        .render()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MergeResult {
    pub text: String,
    /// Claims of a task that lost to another claim of the same task, and edits of one claim
    /// made on both sides where one edit was dropped (then both sessions are the same).
    pub losers: Vec<Loser>,
}

/// A side of a three-way merge that already holds a conflict marker: the merge is refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MarkedSide {
    /// `base`, `ours` or `theirs` (git's `%O`, `%A`, `%B`).
    pub side: String,
    /// One-based line of the first marker in that side.
    pub line: u32,
    /// Its byte span in that side's text.
    pub span: crate::text::Span,
    /// The marker line as written (without its line ending).
    pub text: String,
}

/// What the merge driver does: a [`MergeResult`], or — when a side already holds a conflict
/// marker — `refused` set and `text` left as ours, unchanged (git keeps `%A` as the conflicted
/// file when the driver fails).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DriverResult {
    /// The merged text; ours, unchanged, when refused.
    pub text: String,
    /// As in [`MergeResult`].
    pub losers: Vec<Loser>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub refused: Option<MarkedSide>,
}

/// Is `line` (without its ending) a conflict marker as git writes and recognises them: seven
/// `<`, `=`, `|` or `>` at the start of the line, then a space, a tab or the end of the line.
/// (git's `rerere` reads `<<<<<<<` and `>>>>>>>` only with a label after a space; an unlabelled
/// one is counted here too, as it is no more legitimate in claims.md.) Eight or more, as in a
/// setext underline `========`, are not markers.
pub fn is_git_marker(line: &str) -> bool {
    let b = line.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    matches!(first, b'<' | b'=' | b'|' | b'>')
        && b.len() >= 7
        && b[..7].iter().all(|&c| c == first)
        && matches!(b.get(7), None | Some(b' ' | b'\t' | b'\r'))
}

/// The first conflict marker in `text`: its one-based line, span and text. Every line counts,
/// also lines inside code blocks: git's own check does not read markdown, and neither may the
/// driver's, or a marker in a fence would pass as resolved.
pub fn first_marker(text: &str) -> Option<(u32, crate::text::Span, &str)> {
    let mut start = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        if is_git_marker(line) {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let number = u32::try_from(n + 1).unwrap_or(u32::MAX);
            return Some((
                number,
                crate::text::Span::new(start, start + line.len()),
                line,
            ));
        }
        start += raw.len();
    }
    None
}

/// What decides whether a claim line still holds at merge time: the host's facts (now, owner
/// processes, sessions, branch commit times) and the rail's lease settings, as for the board.
#[derive(Debug)]
pub struct Holding<'a> {
    pub facts: &'a Facts,
    /// The rail's default lease (a line's own `lease:` wins).
    pub lease: TimeDelta,
    pub expiring: TimeDelta,
}

impl Holding<'_> {
    /// Does this claims.md line still hold (live or expiring) as of `facts.now`?
    pub fn holds(&self, c: &ClaimLine) -> bool {
        let branch = c.branch.as_deref().unwrap_or(&c.session);
        let owner_alive = self.facts.owner_alive(c.pid.as_deref(), &c.session);
        lease::evaluate(
            &LeaseInput {
                claimed_at: Some(c.time),
                renewed_at: c.renewed,
                last_commit_at: self.facts.last_commit(branch),
                lease: c.lease.unwrap_or(self.lease),
                branch,
                owner: c.pid.as_deref(),
                owner_alive,
                // The driver sees texts, not files: a future time counts from now.
                seen_at: None,
                observed_at: self.facts.first_seen(|| {
                    lease::activity_key(&c.task, &c.session, Some(c.time), c.renewed)
                }),
            },
            self.facts.now,
            self.expiring,
        )
        .state
        .holds()
    }
}

/// The git merge driver's logic: refuses a side holding a conflict marker (base first, then
/// ours, then theirs), else [`merge`]s. Without lease facts every claim counts as holding.
pub fn driver(base: &str, ours: &str, theirs: &str) -> DriverResult {
    driver_at(base, ours, theirs, None)
}

/// [`driver`] with the facts that say which claims still hold (see [`merge_at`]).
pub fn driver_at(
    base: &str,
    ours: &str,
    theirs: &str,
    holding: Option<&Holding<'_>>,
) -> DriverResult {
    for (side, text) in [("base", base), ("ours", ours), ("theirs", theirs)] {
        if let Some((line, span, marker)) = first_marker(text) {
            return DriverResult {
                text: ours.to_string(),
                losers: Vec::new(),
                refused: Some(MarkedSide {
                    side: side.to_string(),
                    line,
                    span,
                    text: marker.to_string(),
                }),
            };
        }
    }
    let merged = merge_at(base, ours, theirs, holding);
    DriverResult {
        text: merged.text,
        losers: merged.losers,
        refused: None,
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    /// A claim line: its task and which claim of that task in the file (0 for the first).
    Claim(String, usize),
    /// Any other line, by its content.
    Text(String),
}

struct Side<'a> {
    doc: RailDoc,
    keys: Vec<Key>,
    /// Line content (no terminator) per line.
    contents: Vec<&'a str>,
}

fn side(text: &str) -> Side<'_> {
    let doc = claims_md::parse(text);
    let mut contents = Vec::new();
    for line in &doc.lines {
        let content = line.content.slice(text);
        // A BOM belongs to the file, not to the first line's identity.
        contents.push(content.trim_start_matches('\u{feff}'));
    }
    // A task claimed more than once is numbered by claim time, then session, then text, not by
    // position: two sides holding the same claims in another order (each appended its own,
    // then pulled the other's) must pair them claim by claim.
    let mut by_task: HashMap<&str, Vec<(&ClaimLine, &str, usize)>> = HashMap::new();
    for (i, line) in doc.lines.iter().enumerate() {
        if let LineKind::Claim(c) = &line.kind {
            by_task
                .entry(&c.task)
                .or_default()
                .push((c, contents[i], i));
        }
    }
    let mut rank = vec![0usize; doc.lines.len()];
    for claims in by_task.values_mut() {
        crate::text::sort::sort_by(claims, |a, b| {
            (a.0.time, &a.0.session, a.1, a.2).cmp(&(b.0.time, &b.0.session, b.1, b.2))
        });
        for (n, (_, _, i)) in claims.iter().enumerate() {
            rank[*i] = n;
        }
    }
    let keys = doc
        .lines
        .iter()
        .enumerate()
        .map(|(i, line)| match &line.kind {
            LineKind::Claim(c) => Key::Claim(c.task.clone(), rank[i]),
            _ => Key::Text(contents[i].to_string()),
        })
        .collect();
    Side {
        doc,
        keys,
        contents,
    }
}

impl<'a> Side<'a> {
    fn claim(&self, key: &Key) -> Option<(&ClaimLine, &'a str)> {
        let i = self.keys.iter().position(|k| k == key)?;
        match &self.doc.lines[i].kind {
            LineKind::Claim(c) => Some((c.as_ref(), self.contents[i])),
            _ => None,
        }
    }
}

/// Merges three versions of claims.md; every claim counts as holding.
pub fn merge(base: &str, ours: &str, theirs: &str) -> MergeResult {
    merge_at(base, ours, theirs, None)
}

/// Merges three versions of claims.md. Two different claims of one task: one that still holds
/// (by `holding`) beats one that does not; then the earlier claim time, then the session name.
pub fn merge_at(
    base: &str,
    ours: &str,
    theirs: &str,
    holding: Option<&Holding<'_>>,
) -> MergeResult {
    if ours == theirs || theirs == base {
        return MergeResult {
            text: ours.to_string(),
            losers: Vec::new(),
        };
    }
    if ours == base {
        return MergeResult {
            text: theirs.to_string(),
            losers: Vec::new(),
        };
    }
    let b = side(base);
    let o = side(ours);
    let t = side(theirs);
    let mo = matching(&b.keys, &o.keys);
    let mt = matching(&b.keys, &t.keys);

    // Walk stable points: base lines matched on both sides.
    let mut items: Vec<Key> = Vec::new();
    let (mut pb, mut po, mut pt) = (0usize, 0usize, 0usize);
    let stable: Vec<(usize, usize, usize)> = (0..b.keys.len())
        .filter_map(|i| Some((i, mo[i]?, mt[i]?)))
        .collect();
    for (sb, so, st) in
        stable
            .into_iter()
            .chain(std::iter::once((b.keys.len(), o.keys.len(), t.keys.len())))
    {
        if sb < pb || so < po || st < pt {
            continue;
        }
        chunk(
            &b.keys[pb..sb],
            &o.keys[po..so],
            &t.keys[pt..st],
            &mut items,
        );
        if sb < b.keys.len() {
            items.push(b.keys[sb].clone());
        }
        (pb, po, pt) = (sb + 1, so + 1, st + 1);
    }

    // Render, resolving each claim by task once.
    let mut losers = Vec::new();
    let mut done: HashSet<Key> = HashSet::new();
    let mut lines: Vec<String> = Vec::new();
    for key in items {
        match &key {
            Key::Text(text) => lines.push(text.clone()),
            Key::Claim(task, _) => {
                if !done.insert(key.clone()) {
                    continue;
                }
                if let Some(line) = resolve(task, &key, [&b, &o, &t], holding, &mut losers) {
                    lines.push(line);
                }
            }
        }
    }
    MergeResult {
        text: render(&lines, base, ours, theirs),
        losers,
    }
}

/// The unstable chunk between two stable points.
fn chunk(b: &[Key], o: &[Key], t: &[Key], out: &mut Vec<Key>) {
    if o == b {
        out.extend_from_slice(t);
        dropped_claims(b, t, o, out);
    } else if t == b {
        out.extend_from_slice(o);
        dropped_claims(b, o, t, out);
    } else if o == t {
        out.extend_from_slice(o);
    } else {
        // Both changed this place. Keep base lines both kept, then each side's additions, the
        // sides in a fixed order so the result does not depend on which side is "ours".
        let (first, second) = if o <= t { (o, t) } else { (t, o) };
        let mut here: Vec<Key> = Vec::new();
        for k in b {
            if o.contains(k) && t.contains(k) {
                here.push(k.clone());
            }
        }
        for k in first.iter().chain(second) {
            if !b.contains(k) && !here.contains(k) {
                here.push(k.clone());
            }
        }
        // A claim kept (maybe changed) by one side and dropped by the other: resolve() decides.
        for k in b {
            if matches!(k, Key::Claim(..)) && (o.contains(k) || t.contains(k)) && !here.contains(k)
            {
                here.push(k.clone());
            }
        }
        out.extend(here);
    }
}

/// Claim keys of `b` that `changed` dropped while `other` still has them. Keys say nothing of
/// content: the other side may have rewritten the line (a new claim of the task), so resolve()
/// must see these rather than the drop winning unseen.
fn dropped_claims(b: &[Key], changed: &[Key], other: &[Key], out: &mut Vec<Key>) {
    for k in b {
        if matches!(k, Key::Claim(..)) && !changed.contains(k) && other.contains(k) {
            out.push(k.clone());
        }
    }
}

/// Decides a task's line from its three versions.
fn resolve(
    task: &str,
    key: &Key,
    [b, o, t]: [&Side<'_>; 3],
    holding: Option<&Holding<'_>>,
    losers: &mut Vec<Loser>,
) -> Option<String> {
    let (bc, oc, tc) = (b.claim(key), o.claim(key), t.claim(key));
    let text = |c: Option<(&ClaimLine, &str)>| c.map(|(_, s)| s.to_string());
    let (bs, os, ts) = (text(bc), text(oc), text(tc));
    if os == ts {
        return os;
    }
    if os == bs {
        return ts;
    }
    if ts == bs {
        return os;
    }
    let same_claim = |x: &ClaimLine, y: &ClaimLine| x.session == y.session && x.time == y.time;
    match (oc, tc) {
        (None, Some((c, s))) | (Some((c, s)), None) => {
            // One side released, the other changed it. A renewal or edit of the released claim
            // loses to the release; a new claim of the task (another session or time) stays.
            match bc {
                Some((base, _)) if same_claim(base, c) => None,
                _ => Some(s.to_string()),
            }
        }
        (Some((x, xs)), Some((y, ys))) => {
            if same_claim(x, y) {
                // Both edited one claim: the later renewal wins, then the smaller text.
                let rank = |c: &ClaimLine, s: &str| (std::cmp::Reverse(c.renewed), s.to_string());
                let (winner, loser) = if rank(x, xs) <= rank(y, ys) {
                    (xs, ys)
                } else {
                    (ys, xs)
                };
                // The other side's edit of this claim is dropped: say so.
                losers.push(Loser {
                    task: task.to_string(),
                    kept_session: x.session.clone(),
                    lost_session: x.session.clone(),
                    lost_line: loser.to_string(),
                });
                return Some(winner.to_string());
            }
            // The board's rule: a claim that still holds first, then the earliest.
            let stale = |c: &ClaimLine| holding.is_some_and(|h| !h.holds(c));
            let rank =
                |c: &ClaimLine, s: &str| (stale(c), c.time, c.session.clone(), s.to_string());
            let ((wc, ws), (lc, ls)) = if rank(x, xs) <= rank(y, ys) {
                ((x, xs), (y, ys))
            } else {
                ((y, ys), (x, xs))
            };
            losers.push(Loser {
                task: task.to_string(),
                kept_session: wc.session.clone(),
                lost_session: lc.session.clone(),
                lost_line: ls.to_string(),
            });
            Some(ws.to_string())
        }
        (None, None) => None,
    }
}

/// Joins lines with the line ending all versions agree on (`\r\n` only if every non-empty input
/// uses it), ending with one if any side ends with one; keeps a BOM any side has.
fn render(lines: &[String], base: &str, ours: &str, theirs: &str) -> String {
    let inputs = [base, ours, theirs];
    let crlf = inputs
        .iter()
        .filter(|s| s.contains('\n'))
        .all(|s| s.contains("\r\n"))
        && inputs.iter().any(|s| s.contains("\r\n"));
    let nl = if crlf { "\r\n" } else { "\n" };
    let mut out = String::new();
    if [ours, theirs].iter().any(|s| s.starts_with('\u{feff}')) {
        out.push('\u{feff}');
    }
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        if i + 1 < lines.len() {
            out.push_str(nl);
        }
    }
    let ends_nl = [ours, theirs].iter().any(|s| s.ends_with('\n'));
    if !lines.is_empty() && ends_nl {
        out.push_str(nl);
    }
    out
}

/// For each line of `a`, the line of `b` it is matched to (a patience diff: a longest
/// increasing run of lines unique on both sides anchors the match, gaps are matched
/// recursively, with common prefix/suffix trimming and a small LCS for anchorless gaps).
fn matching(a: &[Key], b: &[Key]) -> Vec<Option<usize>> {
    let mut out = vec![None; a.len()];
    patience(a, b, 0, a.len(), 0, b.len(), &mut out);
    out
}

fn patience(
    a: &[Key],
    b: &[Key],
    mut alo: usize,
    mut ahi: usize,
    mut blo: usize,
    mut bhi: usize,
    out: &mut [Option<usize>],
) {
    while alo < ahi && blo < bhi && a[alo] == b[blo] {
        out[alo] = Some(blo);
        alo += 1;
        blo += 1;
    }
    while alo < ahi && blo < bhi && a[ahi - 1] == b[bhi - 1] {
        out[ahi - 1] = Some(bhi - 1);
        ahi -= 1;
        bhi -= 1;
    }
    if alo == ahi || blo == bhi {
        return;
    }
    // Lines unique in both ranges.
    let mut count: HashMap<&Key, (usize, usize, usize)> = HashMap::new();
    for (i, k) in a.iter().enumerate().take(ahi).skip(alo) {
        let e = count.entry(k).or_insert((0, 0, 0));
        e.0 += 1;
        e.2 = i;
    }
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut bcount: HashMap<&Key, (usize, usize)> = HashMap::new();
    for (j, k) in b.iter().enumerate().take(bhi).skip(blo) {
        let e = bcount.entry(k).or_insert((0, 0));
        e.0 += 1;
        e.1 = j;
    }
    for (k, (na, _, i)) in &count {
        if *na == 1 {
            if let Some((1, j)) = bcount.get(k) {
                pairs.push((*i, *j));
            }
        }
    }
    if pairs.is_empty() {
        small_lcs(a, b, alo, ahi, blo, bhi, out);
        return;
    }
    crate::text::sort::sort_by(&mut pairs, |a, b| a.cmp(b));
    let anchors = longest_increasing(&pairs);
    let (mut pa, mut pb) = (alo, blo);
    for (i, j) in anchors {
        patience(a, b, pa, i, pb, j, out);
        out[i] = Some(j);
        pa = i + 1;
        pb = j + 1;
    }
    patience(a, b, pa, ahi, pb, bhi, out);
}

/// Longest run of pairs increasing in both coordinates (pairs sorted by the first).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut tails: Vec<usize> = Vec::new(); // index into pairs of the tail of each length
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (n, &(_, j)) in pairs.iter().enumerate() {
        let pos = tails.partition_point(|&t| pairs[t].1 < j);
        if pos > 0 {
            prev[n] = Some(tails[pos - 1]);
        }
        if pos == tails.len() {
            tails.push(n);
        } else {
            tails[pos] = n;
        }
    }
    let mut out = Vec::new();
    let mut cur = tails.last().copied();
    while let Some(n) = cur {
        out.push(pairs[n]);
        cur = prev[n];
    }
    out.reverse();
    out
}

/// Plain LCS for gaps without unique anchors, when small enough; bigger gaps stay unmatched
/// (a merge still results, with both versions of those lines kept).
fn small_lcs(
    a: &[Key],
    b: &[Key],
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
    out: &mut [Option<usize>],
) {
    let (n, m) = (ahi - alo, bhi - blo);
    if n * m > 250_000 {
        return;
    }
    let mut dp = vec![0u32; (n + 1) * (m + 1)];
    let w = m + 1;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i * w + j] = if a[alo + i] == b[blo + j] {
                dp[(i + 1) * w + j + 1] + 1
            } else {
                dp[(i + 1) * w + j].max(dp[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[alo + i] == b[blo + j] {
            out[alo + i] = Some(blo + j);
            i += 1;
            j += 1;
        } else if dp[(i + 1) * w + j] >= dp[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# Claims\n\nauth | session-a | 2026-10-22T14:05Z\nbilling | session-b | 2026-10-22T14:10Z\n";

    #[test]
    fn a_claim_that_still_holds_beats_an_earlier_stale_one() {
        let base = "# Claims\n\n";
        let alice = format!("{base}auth | alice | 2026-10-22T14:00Z\n");
        let bob = format!("{base}auth | bob | 2026-06-01T10:00Z\n");
        let now = crate::text::time::parse_time("2026-10-22T14:30:00Z").unwrap();
        let mut facts = Facts::at(now);
        let holding = Holding {
            facts: &facts,
            lease: TimeDelta::hours(2),
            expiring: TimeDelta::minutes(15),
        };
        for (o, t) in [(&alice, &bob), (&bob, &alice)] {
            let r = merge_at(base, o, t, Some(&holding));
            assert_eq!(r.text, alice, "the live claim stays");
            assert_eq!(r.losers.len(), 1);
            assert_eq!(r.losers[0].lost_session, "bob");
            assert_eq!(r.losers[0].kept_session, "alice");
        }
        // Both hold (a commit on bob's branch keeps his lease): the earliest wins, as before.
        facts
            .commits
            .insert("bob".into(), now - TimeDelta::minutes(5));
        let holding = Holding {
            facts: &facts,
            lease: TimeDelta::hours(2),
            expiring: TimeDelta::minutes(15),
        };
        assert_eq!(merge_at(base, &alice, &bob, Some(&holding)).text, bob);
        // Without facts every claim holds: the earliest wins.
        assert_eq!(merge(base, &alice, &bob).text, bob);
    }

    #[test]
    fn different_tasks_union() {
        let ours = format!("{BASE}search | session-c | 2026-10-22T15:00Z\n");
        let theirs = BASE.replace("auth | session-a | 2026-10-22T14:05Z\n", "")
            + "docs | session-d | 2026-10-22T15:01Z\n";
        let r = merge(BASE, &ours, &theirs);
        assert_eq!(r.text, "# Claims\n\nbilling | session-b | 2026-10-22T14:10Z\ndocs | session-d | 2026-10-22T15:01Z\nsearch | session-c | 2026-10-22T15:00Z\n");
        assert_eq!(merge(BASE, &theirs, &ours).text, r.text);
    }

    #[test]
    fn release_beats_renewal_of_the_same_claim() {
        let ours = BASE.replace(
            "auth | session-a | 2026-10-22T14:05Z",
            "auth | session-a | 2026-10-22T14:05Z | renewed: 2026-10-22T15:00Z",
        );
        let theirs = BASE.replace("auth | session-a | 2026-10-22T14:05Z\n", "");
        assert_eq!(merge(BASE, &ours, &theirs).text, theirs);
        assert_eq!(merge(BASE, &theirs, &ours).text, theirs);
    }

    #[test]
    fn same_task_claimed_on_both_sides() {
        let ours = format!("{BASE}search | session-c | 2026-10-22T15:00Z\n");
        let theirs = format!("{BASE}search | session-d | 2026-10-22T14:59Z\n");
        let r = merge(BASE, &ours, &theirs);
        assert!(r.text.contains("search | session-d"));
        assert!(!r.text.contains("search | session-c"));
        assert_eq!(r.losers.len(), 1);
        assert_eq!(r.losers[0].lost_session, "session-c");
        assert_eq!(merge(BASE, &theirs, &ours), r);
    }

    #[test]
    fn release_does_not_beat_a_new_claim_of_the_task() {
        // Regression: theirs replaced the line (same key, new content) while ours released it;
        // the key-level walk took ours without ever comparing the contents.
        let ours = BASE.replace("auth | session-a | 2026-10-22T14:05Z\n", "");
        let theirs = BASE.replace(
            "auth | session-a | 2026-10-22T14:05Z",
            "auth | session-e | 2026-10-22T16:00Z",
        );
        let r = merge(BASE, &ours, &theirs);
        assert_eq!(r.text, theirs);
        assert_eq!(merge(BASE, &theirs, &ours), r);
        // A release still beats the claim left as it was.
        let unchanged_elsewhere = BASE.replace("billing", "billing-2");
        let r = merge(BASE, &ours, &unchanged_elsewhere);
        assert!(!r.text.contains("auth |"), "{}", r.text);
    }

    #[test]
    fn the_same_claims_in_another_order_pair_up() {
        // Regression: duplicate claims were paired by position, so `auth | a` came out twice
        // and b's claim, which both sides hold, was lost.
        let a = "auth | a | 2026-10-22T14:05Z";
        let b = "auth | b | 2026-10-22T14:10Z";
        let ours = format!("{a}\n{b}\nx\n");
        let theirs = format!("x\n{b}\n{a}\n");
        let r = merge("x\n", &ours, &theirs);
        assert_eq!(r.text.matches(a).count(), 1, "{}", r.text);
        assert_eq!(r.text.matches(b).count(), 1, "{}", r.text);
        assert!(r.losers.is_empty());
        assert_eq!(merge("x\n", &theirs, &ours), r);
    }

    #[test]
    fn driver_refuses_a_side_that_already_holds_conflict_markers() {
        // Issue 17, finding 11: the driver used to merge the markers through and exit 0.
        let marked = format!("{BASE}<<<<<<< HEAD\nx | a | 2026-10-22T15:00Z\n=======\n>>>>>>> b\n");
        let clean = format!("{BASE}search | session-c | 2026-10-22T15:00Z\n");
        for (b, o, t, side, line) in [
            (BASE, marked.as_str(), clean.as_str(), "ours", 5),
            (BASE, clean.as_str(), marked.as_str(), "theirs", 5),
            (marked.as_str(), clean.as_str(), BASE, "base", 5),
        ] {
            let r = driver(b, o, t);
            let refused = r.refused.expect("refused");
            assert_eq!((refused.side.as_str(), refused.line), (side, line));
            assert_eq!(refused.text, "<<<<<<< HEAD");
            assert_eq!(r.text, o, "ours is left as it was");
        }
        // diff3's base marker and a bare `=======` count; a setext underline does not.
        assert!(first_marker("a\n||||||| base\n").is_some());
        assert_eq!(first_marker("a\r\n=======\r\n").map(|m| m.0), Some(2));
        assert!(first_marker("Title\n========\n<<<<<<<<x\n").is_none());
        assert!(driver(BASE, &clean, BASE).refused.is_none());
    }

    #[test]
    fn unchanged_side_returns_the_other() {
        let ours = "x\r\nno newline";
        assert_eq!(merge(BASE, ours, BASE).text, ours);
        assert_eq!(merge(BASE, BASE, ours).text, ours);
    }
}
