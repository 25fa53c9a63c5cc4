//! Scope: which claims cover a path (`rail who`), and how a session's changed files relate to
//! what it declared (`rail check`, the pre-commit hook, the gate, edit-time warnings).
//!
//! A changed file is
//! - `conflict` when a holding claim of another session covers it,
//! - `in-scope` when one of the session's own claims covers it,
//! - `out-of-scope` (drift) when the session declared paths and none covers it,
//! - `undeclared` when the session declared no paths at all (nothing to drift from).
//!
//! Files no claim covers are also listed as `unclaimed`.

use std::collections::HashMap;

use serde::Serialize;

use crate::model::lease::LeaseState;
use crate::model::{Claim, Evaluation};
use crate::text::glob;

/// Patterns filed by literal prefix; a path only needs the patterns under its ancestors.
#[derive(Debug)]
pub struct PathIndex<'a> {
    by_prefix: HashMap<&'a str, Vec<(&'a Claim, &'a str)>>,
}

impl<'a> PathIndex<'a> {
    pub fn new(claims: impl IntoIterator<Item = &'a Claim>) -> Self {
        let mut by_prefix: HashMap<&'a str, Vec<(&'a Claim, &'a str)>> = HashMap::new();
        for claim in claims {
            for pattern in &claim.paths {
                by_prefix
                    .entry(glob::literal_prefix(pattern))
                    .or_default()
                    .push((claim, pattern));
            }
        }
        PathIndex { by_prefix }
    }

    /// Every (claim, pattern) covering `path`, in claim order.
    pub fn covering(&self, path: &str) -> Vec<(&'a Claim, &'a str)> {
        let mut out = Vec::new();
        let prefixes = std::iter::once("")
            .chain(path.match_indices('/').map(|(i, _)| &path[..i]))
            .chain(std::iter::once(path));
        for prefix in prefixes {
            if let Some(list) = self.by_prefix.get(prefix) {
                for &(claim, pattern) in list {
                    if glob::covers(pattern, path) {
                        out.push((claim, pattern));
                    }
                }
            }
        }
        crate::text::sort::sort_by_key(&mut out, |(c, _)| c.id);
        out.dedup_by_key(|(c, p)| (c.id, *p));
        out
    }
}

/// Normalizes a path as hosts report it: `./a/b` → `a/b`, `\` → `/`.
pub fn normalize_path(path: &str) -> String {
    let p = path.replace('\\', "/");
    let p = p.trim_start_matches("./");
    p.trim_end_matches('/').to_string()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Holder {
    pub claim: usize,
    pub session: String,
    pub task: Option<String>,
    pub pattern: String,
    pub state: LeaseState,
}

fn holder(claim: &Claim, pattern: &str) -> Holder {
    Holder {
        claim: claim.id,
        session: claim.session.clone(),
        task: claim.task.clone(),
        pattern: pattern.to_string(),
        state: claim.state(),
    }
}

/// A path as a write names it: itself and everything below it (writing a directory writes the
/// files inside: `cp x src/auth/`, `rm -rf src`), so a claim of `src/auth/**` is touched by
/// `src/auth/token.ts`, by `src/auth` and by `src`. A name no pattern can express (a `,` or `|`
/// in a file name) is matched literally. The one rule behind the hook's denial and `rail who`.
#[derive(Clone, Debug)]
pub struct Written<'a> {
    path: &'a str,
    /// The path as a pattern (itself and below), made once for every claim it is compared with.
    pattern: Option<String>,
}

impl<'a> Written<'a> {
    pub fn new(path: &'a str) -> Written<'a> {
        Written {
            path,
            pattern: glob::normalize(path).ok(),
        }
    }

    /// Whether writing this path touches what `pattern` names.
    pub fn touches(&self, pattern: &str) -> bool {
        match &self.pattern {
            // The literal-prefix test first: a long script writes hundreds of paths, and the
            // automaton product of `overlaps` for each of them and every claim is what costs.
            Some(t) => glob::may_overlap(pattern, t) && glob::overlaps(pattern, t),
            None => glob::covers(pattern, self.path),
        }
    }
}

/// `rail who PATH`: every claim the path touches ([`Written`]: a directory names what is under
/// it), stale ones included (marked by state).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Who {
    pub path: String,
    /// The claims it touches, in claim order: all of them when one path is asked; of many
    /// paths, each lists up to the rail's claims divided by the paths, at least sixteen
    /// ([`LISTED_HOLDERS`]).
    pub holders: Vec<Holder>,
    /// How many more claims it touches. Present only when some are left out.
    #[serde(skip_serializing_if = "crate::model::is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<usize>", optional))]
    pub holders_unlisted: usize,
    /// Sessions' work in flight under it (changed, not merged), when the host gathered it
    /// ([`who_in_flight`]): at most [`LISTED_HOLDERS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(
        feature = "ts",
        ts(as = "Option<Vec<crate::model::behind::InFlight>>", optional)
    )]
    pub in_flight: Vec<crate::model::behind::InFlight>,
}

/// `answers` with the work in flight under each path (`work`, as the host gathered it).
pub fn who_in_flight(answers: &mut [Who], work: &[crate::model::behind::InFlight]) {
    for a in answers {
        a.in_flight = work
            .iter()
            .filter(|w| crate::model::behind::covers(&a.path, &w.path))
            .take(LISTED_HOLDERS)
            .cloned()
            .collect();
    }
}

/// How many holders one path lists (`rail check`, the edit hook's denial; `rail who` when asked
/// about many paths); the rest are counted. A path under 1,500 claims of `src/**` named every
/// one of them, and every file of a change did: the answers grew with files times claims.
pub const LISTED_HOLDERS: usize = 16;

/// The first [`LISTED_HOLDERS`] of `all`, and how many more there are.
pub fn listed<T>(all: impl Iterator<Item = T>) -> (Vec<T>, usize) {
    listed_up_to(LISTED_HOLDERS, all)
}

/// The first `most` of `all`, and how many more there are.
fn listed_up_to<T>(most: usize, all: impl Iterator<Item = T>) -> (Vec<T>, usize) {
    let mut listed = Vec::new();
    let mut unlisted = 0;
    for item in all {
        if listed.len() < most {
            listed.push(item);
        } else {
            unlisted += 1;
        }
    }
    (listed, unlisted)
}

pub fn who(eval: &Evaluation, paths: &[String]) -> Vec<Who> {
    // About as many holders in all as the rail has claims, however many paths are asked: one
    // path names every claim it touches (what the web board filters by), a hundred paths
    // sixteen each.
    let most = LISTED_HOLDERS.max(eval.claims.len().div_ceil(paths.len().max(1)));
    paths
        .iter()
        .map(|p| {
            let path = normalize_path(p);
            let (holders, holders_unlisted) = listed_up_to(most, touched(eval, &path).into_iter());
            Who {
                holders: (holders.into_iter())
                    .map(|(c, pattern)| holder(c, pattern))
                    .collect(),
                holders_unlisted,
                path,
                in_flight: Vec::new(),
            }
        })
        .collect()
}

/// The claims a normalized path touches ([`Written`]: a directory names what is under it),
/// each with its first pattern that does.
fn touched<'a>(eval: &'a Evaluation, path: &str) -> Vec<(&'a Claim, &'a str)> {
    if path.is_empty() {
        return Vec::new();
    }
    let written = Written::new(path);
    (eval.claims.iter())
        .filter_map(|c| {
            let pattern = c.paths.iter().find(|pat| written.touches(pat))?;
            Some((c, pattern.as_str()))
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FileClass {
    InScope,
    OutOfScope,
    Conflict,
    Undeclared,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileScope {
    pub path: String,
    pub class: FileClass,
    /// The session's own patterns covering the file.
    pub own: Vec<String>,
    /// Other sessions' holding claims covering the file: the first sixteen ([`LISTED_HOLDERS`]).
    pub others: Vec<Holder>,
    /// How many more of them cover it. Present only when some are left out.
    #[serde(skip_serializing_if = "crate::model::is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<usize>", optional))]
    pub others_unlisted: usize,
    /// No claim at all covers it.
    pub unclaimed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ScopeReport {
    pub session: String,
    /// Everything the session declared (all its claims' paths).
    pub declared: Vec<String>,
    pub files: Vec<FileScope>,
    pub in_scope: Vec<String>,
    pub out_of_scope: Vec<String>,
    pub conflicts: Vec<String>,
    pub undeclared: Vec<String>,
    pub unclaimed: Vec<String>,
    /// True when nothing is out of scope and nothing conflicts.
    pub clean: bool,
}

pub fn classify(eval: &Evaluation, session: &str, changed: &[String]) -> ScopeReport {
    let index = PathIndex::new(&eval.claims);
    let mut declared: Vec<String> = Vec::new();
    for claim in eval.claims.iter().filter(|c| eval.acts_for(session, c)) {
        for p in &claim.paths {
            if !declared.contains(p) {
                declared.push(p.clone());
            }
        }
    }
    let mut report = ScopeReport {
        session: session.to_string(),
        declared,
        files: Vec::new(),
        in_scope: Vec::new(),
        out_of_scope: Vec::new(),
        conflicts: Vec::new(),
        undeclared: Vec::new(),
        unclaimed: Vec::new(),
        clean: true,
    };
    let mut seen = std::collections::HashSet::new();
    for raw in changed {
        let path = normalize_path(raw);
        if path.is_empty() || !seen.insert(path.clone()) {
            continue;
        }
        let covering = index.covering(&path);
        let own: Vec<String> = covering
            .iter()
            .filter(|(c, _)| eval.acts_for(session, c))
            .map(|(_, p)| p.to_string())
            .collect();
        let (others, others_unlisted) = listed(
            (covering.iter()).filter(|(c, _)| !eval.acts_for(session, c) && c.state().holds()),
        );
        let others: Vec<Holder> = others.into_iter().map(|(c, p)| holder(c, p)).collect();
        let class = if !others.is_empty() {
            FileClass::Conflict
        } else if !own.is_empty() {
            FileClass::InScope
        } else if report.declared.is_empty() {
            FileClass::Undeclared
        } else {
            FileClass::OutOfScope
        };
        let unclaimed = covering.is_empty();
        match class {
            FileClass::Conflict => report.conflicts.push(path.clone()),
            FileClass::InScope => report.in_scope.push(path.clone()),
            FileClass::OutOfScope => report.out_of_scope.push(path.clone()),
            FileClass::Undeclared => report.undeclared.push(path.clone()),
        }
        if unclaimed {
            report.unclaimed.push(path.clone());
        }
        report.files.push(FileScope {
            path,
            class,
            own,
            others,
            others_unlisted,
            unclaimed,
        });
    }
    report.clean = report.out_of_scope.is_empty() && report.conflicts.is_empty();
    report
}
