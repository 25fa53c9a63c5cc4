//! Stations: the git worktrees sessions work in, one per task (`rail worktree TASK`).
//!
//! What each station is — whose claim it carries and in what state — and whether it may be
//! removed, and if not why not, given the facts the host gathered about it: is it the main
//! checkout, is its path a link, what is uncommitted in it, how many of its commits are not in
//! its base branch. Core never looks at a directory; the host never decides.
//!
//! The rule, in order of strength:
//! - the main checkout is never removed (it holds the rail and everyone's shared state);
//! - a path that is a symbolic link, a directory that is not the worktree git recorded, or one
//!   that is gone is never removed by Rail either (git or the user sorts those out);
//! - uncommitted changes (untracked, non-ignored files included), commits not in the base
//!   branch, or a base Rail cannot determine keep the station unless the user forces it;
//! - the branch is deleted only when all its commits are in the base — never by force.

use serde::Serialize;

use crate::formats::log::{LogEntry, LogEvent};
use crate::model::lease::LeaseState;
use crate::model::Evaluation;
use crate::text::hint::Hint;

/// What the host found out about one worktree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StationFacts {
    /// The worktree's directory, as git recorded it.
    pub path: String,
    /// The branch checked out there (`None`: detached HEAD).
    pub branch: Option<String>,
    /// The main checkout: where the rail lives. Never removed.
    pub main: bool,
    /// The recorded path is a symbolic link.
    pub link: bool,
    /// The directory exists but is not that worktree (its `.git` names another git dir).
    pub foreign: bool,
    /// The directory is gone.
    pub missing: bool,
    /// Locked with `git worktree lock` (e.g. on a removable disk): left alone.
    pub locked: bool,
    /// Uncommitted changes: modified, staged, deleted and untracked (not ignored) files.
    /// `None`: git could not tell.
    pub dirty: Option<Vec<String>>,
    /// The branch its commits are judged against (see `base_branch`).
    pub base: Option<String>,
    /// How many commits of the station's HEAD are not in `base`. `None`: unknown (no base, or
    /// git could not tell).
    pub unmerged: Option<u32>,
    /// The commit the station's HEAD is at (the branch is deleted only if it is still there).
    pub head: Option<String>,
    /// Its branch is also checked out in another worktree (so it is not deleted).
    pub branch_elsewhere: bool,
}

/// The base branch of a station: rail.yaml `stations.base` if set, else the main checkout's
/// branch. `None` when neither is known (a detached main checkout and no setting).
pub fn base_branch(configured: Option<&str>, main_branch: Option<&str>) -> Option<String> {
    configured.or(main_branch).map(str::to_string)
}

/// A station's claim state, as `rail worktree list` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum StationState {
    Live,
    /// Live, with less than the `expiring` threshold of its lease left.
    Expiring,
    Stale,
    /// No claim names the station's branch.
    Unclaimed,
}

impl StationState {
    pub fn as_str(self) -> &'static str {
        match self {
            StationState::Live => "live",
            StationState::Expiring => "expiring",
            StationState::Stale => "stale",
            StationState::Unclaimed => "unclaimed",
        }
    }
}

/// A claim carried by a station: one whose branch (or session) is the station's branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StationClaim {
    pub task: Option<String>,
    pub session: String,
    pub state: LeaseState,
}

/// One station with its claims, as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Station {
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(flatten))]
    pub facts: StationFacts,
    pub state: StationState,
    pub claims: Vec<StationClaim>,
}

impl Station {
    /// The station with the claims of its branch from `eval`.
    pub fn new(facts: StationFacts, eval: &Evaluation) -> Station {
        let claims: Vec<StationClaim> = match &facts.branch {
            Some(branch) => eval
                .claims
                .iter()
                .filter(|c| {
                    &c.branch == branch || crate::text::ident::branch_session(&c.session) == branch
                })
                .map(|c| StationClaim {
                    task: c.task.clone(),
                    session: c.session.clone(),
                    state: c.state(),
                })
                .collect(),
            None => Vec::new(),
        };
        let has = |s: LeaseState| claims.iter().any(|c| c.state == s);
        let state = if has(LeaseState::Live) {
            StationState::Live
        } else if has(LeaseState::Expiring) {
            StationState::Expiring
        } else if has(LeaseState::Stale) {
            StationState::Stale
        } else {
            StationState::Unclaimed
        };
        Station {
            facts,
            state,
            claims,
        }
    }

    /// The station's name in messages: its path and branch.
    fn label(&self) -> String {
        match &self.facts.branch {
            Some(b) => format!("{} (branch {b})", self.facts.path),
            None => format!("{} (detached HEAD)", self.facts.path),
        }
    }
}

/// Which station `name` (a task id or a branch) means: the station whose branch carries a claim
/// of that task, else the station of the session that last released it (a claim file's record,
/// else the log), else the station on a branch of that name. Paths are the host's to match
/// (they need the file system).
pub fn find(
    stations: &[Station],
    eval: &Evaluation,
    log: &[LogEntry],
    name: &str,
) -> Result<usize, String> {
    let on_branch = |branch: &str| -> Vec<usize> {
        stations
            .iter()
            .enumerate()
            .filter(|(_, s)| s.facts.branch.as_deref() == Some(branch))
            .map(|(i, _)| i)
            .collect()
    };
    let mut found: Vec<usize> = stations
        .iter()
        .enumerate()
        .filter(|(_, s)| s.claims.iter().any(|c| c.task.as_deref() == Some(name)))
        .map(|(i, _)| i)
        .collect();
    if found.is_empty() {
        // Released already (`rail done`): the session that released it names the branch.
        let from_file = eval
            .released
            .iter()
            .rev()
            .find(|r| r.task.as_deref() == Some(name))
            .map(|r| r.session.as_str());
        let from_log = || {
            log.iter()
                .rev()
                .find(|e| {
                    matches!(e.event, LogEvent::Released | LogEvent::Done)
                        && e.task.as_deref() == Some(name)
                })
                .and_then(|e| e.session.as_deref())
        };
        if let Some(session) = from_file.or_else(from_log) {
            found = on_branch(session);
        }
    }
    if found.is_empty() {
        found = on_branch(name);
    }
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "no station for `{name}`: no worktree's branch carries that task or is named so (see `rail worktree list`)"
        )),
        many => Err(format!(
            "`{name}` names {} stations ({}); name one by its path",
            many.len(),
            many.iter()
                .filter_map(|i| stations.get(*i))
                .map(|s| s.facts.path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Why a station is not removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Blocker {
    /// The main checkout: never removed, not even by force.
    MainCheckout,
    /// The recorded path is a symbolic link: what it points at is not the station.
    Link,
    /// The directory is not the worktree git recorded there.
    Foreign,
    /// The directory is gone: `git worktree prune` forgets it.
    Missing,
    /// Locked with `git worktree lock`: whoever locked it unlocks it first.
    Locked,
    /// Uncommitted changes, untracked files included.
    Dirty { files: Vec<String> },
    /// git could not say whether anything is uncommitted.
    DirtyUnknown,
    /// Commits not in the base branch.
    Unmerged { commits: u32, base: String },
    /// No base branch to judge the commits against (detached main checkout, no
    /// `stations.base`), or git could not count them.
    NoBase,
}

impl Blocker {
    /// Whether `--force` may override it: only what costs the user work they chose to drop.
    pub fn forceable(&self) -> bool {
        matches!(
            self,
            Blocker::Dirty { .. }
                | Blocker::DirtyUnknown
                | Blocker::Unmerged { .. }
                | Blocker::NoBase
        )
    }

    pub fn describe(&self) -> String {
        match self {
            Blocker::MainCheckout => {
                "it is the main checkout, where the rail lives: Rail never removes it".into()
            }
            Blocker::Link => {
                "its path is a symbolic link: Rail removes only the directory git created".into()
            }
            Blocker::Foreign => {
                "the directory there is not that worktree (its .git names another repository or worktree)".into()
            }
            Blocker::Missing => {
                "its directory is gone; `git worktree prune` forgets it".into()
            }
            Blocker::Locked => {
                "it is locked (`git worktree lock`); `git worktree unlock` it first if it may go"
                    .into()
            }
            Blocker::Dirty { files } => {
                let shown: Vec<&str> = files.iter().take(5).map(String::as_str).collect();
                let more = files.len().saturating_sub(shown.len());
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                format!(
                    "{} uncommitted ({}{more})",
                    count(files.len(), "file"),
                    shown.join(", ")
                )
            }
            Blocker::DirtyUnknown => "git could not tell whether it has uncommitted changes".into(),
            Blocker::Unmerged { commits, base } => {
                format!("{} not in {base}", count(*commits as usize, "commit"))
            }
            Blocker::NoBase => {
                "there is no base branch to tell whether its commits are merged (set `stations: base:` in rail.yaml, or pass --base)".into()
            }
        }
    }
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The verdict on removing a station.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Removal {
    pub allowed: bool,
    /// Allowed only because of `--force`: the log records what was overridden.
    pub forced: bool,
    pub blockers: Vec<Blocker>,
    /// Whether `--force` would make it allowed (every blocker is forceable).
    pub forceable: bool,
    /// The claims removing it releases (each held claim of a task on its branch).
    pub release: Vec<StationClaim>,
    /// Delete the branch: every commit of it is in the base. Never by force.
    pub delete_branch: bool,
    /// Why the branch is kept, when there is one and it is not deleted.
    pub keep_branch: Option<String>,
    /// A branch to create at the station's HEAD before it goes: its HEAD is detached (a
    /// checked-out commit, a rebase stopped half way) and its commits may be in no other ref, so
    /// removing it by force would make them unreachable. Rail never does that.
    pub rescue: Option<String>,
    /// What happened or why not.
    pub message: String,
    pub hint: Option<Hint>,
}

/// May `station` be removed? `named`: how the person named it (for the hint's command line).
pub fn removal(station: &Station, force: bool, named: &str) -> Removal {
    let f = &station.facts;
    let mut blockers = Vec::new();
    if f.main {
        blockers.push(Blocker::MainCheckout);
    }
    if f.link {
        blockers.push(Blocker::Link);
    } else if f.missing {
        blockers.push(Blocker::Missing);
    } else if f.foreign {
        blockers.push(Blocker::Foreign);
    }
    if f.locked {
        blockers.push(Blocker::Locked);
    }
    if blockers.is_empty() {
        match &f.dirty {
            Some(files) if files.is_empty() => {}
            Some(files) => blockers.push(Blocker::Dirty {
                files: files.clone(),
            }),
            None => blockers.push(Blocker::DirtyUnknown),
        }
        match (&f.base, f.unmerged) {
            (Some(_), Some(0)) => {}
            (Some(base), Some(commits)) => blockers.push(Blocker::Unmerged {
                commits,
                base: base.clone(),
            }),
            _ => blockers.push(Blocker::NoBase),
        }
    }
    let forceable = blockers.iter().all(Blocker::forceable);
    let allowed = blockers.is_empty() || (force && forceable);
    let merged = f.base.is_some() && f.unmerged == Some(0);
    let is_base = f.branch.is_some() && f.branch == f.base;
    let delete_branch = allowed
        && merged
        && !is_base
        && !f.branch_elsewhere
        && f.branch.is_some()
        && f.head.is_some();
    let keep_branch = match (&f.branch, allowed, delete_branch) {
        (Some(_), true, false) if is_base => Some("it is the base branch".to_string()),
        (Some(_), true, false) if f.branch_elsewhere => {
            Some("it is checked out in another worktree".to_string())
        }
        (Some(_), true, false) => Some(match (&f.base, f.unmerged) {
            (Some(base), Some(n)) if n > 0 => format!(
                "{} not in {base}: the branch keeps {}",
                count(n as usize, "commit"),
                if n == 1 { "it" } else { "them" }
            ),
            _ => "Rail cannot tell whether its commits are merged".to_string(),
        }),
        _ => None,
    };
    let rescue = (allowed && f.branch.is_none() && !merged).then(|| rescue_branch(&f.path));
    let release = if allowed {
        station
            .claims
            .iter()
            .filter(|c| c.task.is_some())
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    let reasons = blockers
        .iter()
        .map(Blocker::describe)
        .collect::<Vec<_>>()
        .join("; ");
    let (message, hint) = if !allowed {
        let hint = forceable.then(|| Hint::ForceClose {
            station: named.to_string(),
        });
        let message = if forceable {
            format!(
                "station {} is not removed: {reasons}; it and its branch are left as they were",
                station.label()
            )
        } else {
            format!("{} is not removed: {reasons}", station.label())
        };
        (message, hint)
    } else if !blockers.is_empty() {
        (
            format!(
                "station {} is removed by force although {reasons}",
                station.label()
            ),
            None,
        )
    } else {
        (
            format!(
                "station {} may be removed: nothing uncommitted, every commit in {}",
                station.label(),
                f.base.as_deref().unwrap_or("its base")
            ),
            None,
        )
    };
    Removal {
        allowed,
        forced: allowed && !blockers.is_empty(),
        blockers,
        forceable,
        release,
        delete_branch,
        keep_branch,
        rescue,
        message,
        hint,
    }
}

/// An agent's worktree hook (Claude Code's `claude --worktree NAME`) asks for the station of a
/// branch that has a worktree already: the agent goes back into it, as Claude Code goes back
/// into its own worktree of that name. `Ok(Some(i))`: station `i`; `Ok(None)`: there is none (a
/// new one is made); `Err`: one Rail cannot hand over — the main checkout, a path that is a
/// link, gone, or not that worktree's checkout.
pub fn reentry(stations: &[Station], branch: &str) -> Result<Option<usize>, String> {
    let Some(i) = stations
        .iter()
        .position(|s| s.facts.branch.as_deref() == Some(branch))
    else {
        return Ok(None);
    };
    let f = &stations[i].facts;
    let blocker = if f.main {
        Some(Blocker::MainCheckout)
    } else if f.link {
        Some(Blocker::Link)
    } else if f.missing {
        Some(Blocker::Missing)
    } else if f.foreign {
        Some(Blocker::Foreign)
    } else {
        None
    };
    match blocker {
        None => Ok(Some(i)),
        Some(b) => Err(format!(
            "branch {branch} is checked out at {}, which is no station to work in: {}",
            f.path,
            b.describe()
        )),
    }
}

/// `rail-rescue/NAME`, NAME the station directory's last component with what a branch name
/// cannot hold replaced by `-` (the CLI adds the commit's id when that branch exists).
pub fn rescue_branch(path: &str) -> String {
    let last = path
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("");
    let mut name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect();
    name = name.trim_matches('-').to_string();
    if name.is_empty() {
        name.push_str("station");
    }
    format!("rail-rescue/{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean() -> StationFacts {
        StationFacts {
            path: "/r-auth".into(),
            branch: Some("auth".into()),
            dirty: Some(Vec::new()),
            base: Some("main".into()),
            unmerged: Some(0),
            head: Some("abc".into()),
            ..StationFacts::default()
        }
    }

    fn station(facts: StationFacts) -> Station {
        Station {
            facts,
            state: StationState::Unclaimed,
            claims: Vec::new(),
        }
    }

    #[test]
    fn an_agent_goes_back_into_its_station_but_never_into_the_main_checkout() {
        let main = StationFacts {
            path: "/r".into(),
            branch: Some("main".into()),
            main: true,
            ..StationFacts::default()
        };
        let gone = StationFacts {
            path: "/r-gone".into(),
            branch: Some("gone".into()),
            missing: true,
            ..StationFacts::default()
        };
        let all = [station(main), station(clean()), station(gone)];
        assert_eq!(reentry(&all, "auth"), Ok(Some(1)));
        assert_eq!(reentry(&all, "web"), Ok(None));
        let e = reentry(&all, "main").unwrap_err();
        assert!(e.contains("/r") && e.contains("main checkout"), "{e}");
        assert!(reentry(&all, "gone").unwrap_err().contains("gone"));
    }

    #[test]
    fn a_clean_merged_station_is_removed_and_its_branch_deleted() {
        let r = removal(&station(clean()), false, "auth");
        assert!(r.allowed && !r.forced && r.blockers.is_empty());
        assert!(r.delete_branch);
        assert_eq!(r.keep_branch, None);
        assert_eq!(r.hint, None);
    }

    #[test]
    fn uncommitted_files_refuse_and_force_overrides_them() {
        let mut f = clean();
        f.dirty = Some(vec!["a.rs".into(), "notes.txt".into()]);
        let r = removal(&station(f.clone()), false, "auth");
        assert!(!r.allowed && r.forceable && !r.delete_branch);
        assert!(r.release.is_empty(), "a refusal releases nothing");
        assert_eq!(
            r.message,
            "station /r-auth (branch auth) is not removed: 2 files uncommitted (a.rs, notes.txt); it and its branch are left as they were"
        );
        assert_eq!(
            r.hint,
            Some(Hint::ForceClose {
                station: "auth".into()
            })
        );
        let r = removal(&station(f), true, "auth");
        assert!(r.allowed && r.forced);
        // The commits are all merged: the branch loses nothing.
        assert!(r.delete_branch);
        assert!(r
            .message
            .contains("removed by force although 2 files uncommitted"));
    }

    #[test]
    fn unmerged_commits_refuse_and_force_keeps_the_branch() {
        let mut f = clean();
        f.unmerged = Some(3);
        let r = removal(&station(f.clone()), false, "auth");
        assert!(!r.allowed);
        assert_eq!(
            r.blockers,
            vec![Blocker::Unmerged {
                commits: 3,
                base: "main".into()
            }]
        );
        assert!(r.message.contains("3 commits not in main"));
        let r = removal(&station(f), true, "auth");
        assert!(r.allowed && r.forced && !r.delete_branch);
        assert_eq!(
            r.keep_branch.as_deref(),
            Some("3 commits not in main: the branch keeps them")
        );
    }

    #[test]
    fn what_git_cannot_tell_counts_as_work() {
        let mut f = clean();
        f.dirty = None;
        f.base = None;
        f.unmerged = None;
        let r = removal(&station(f.clone()), false, "auth");
        assert_eq!(r.blockers, vec![Blocker::DirtyUnknown, Blocker::NoBase]);
        assert!(!r.allowed && r.forceable);
        let r = removal(&station(f), true, "auth");
        assert!(r.allowed && !r.delete_branch);
        assert!(r.keep_branch.unwrap().contains("cannot tell"));
    }

    #[test]
    fn the_main_checkout_links_and_strangers_are_never_removed() {
        for (mutate, blocker) in [
            (
                (|f: &mut StationFacts| f.main = true) as fn(&mut StationFacts),
                Blocker::MainCheckout,
            ),
            (|f: &mut StationFacts| f.link = true, Blocker::Link),
            (|f: &mut StationFacts| f.foreign = true, Blocker::Foreign),
            (|f: &mut StationFacts| f.missing = true, Blocker::Missing),
            (|f: &mut StationFacts| f.locked = true, Blocker::Locked),
        ] {
            let mut f = clean();
            mutate(&mut f);
            for force in [false, true] {
                let r = removal(&station(f.clone()), force, "x");
                assert!(!r.allowed, "{blocker:?} force={force}");
                assert!(!r.forceable && !r.delete_branch && r.hint.is_none());
                assert_eq!(r.blockers.first(), Some(&blocker));
            }
        }
        let mut f = clean();
        f.main = true;
        let r = removal(&station(f), true, "main");
        assert_eq!(
            r.message,
            "/r-auth (branch auth) is not removed: it is the main checkout, where the rail lives: Rail never removes it"
        );
    }

    #[test]
    fn the_base_branch_and_a_branch_in_use_elsewhere_are_kept() {
        let mut f = clean();
        f.base = Some("auth".into());
        let r = removal(&station(f), false, "auth");
        assert!(r.allowed && !r.delete_branch);
        assert_eq!(r.keep_branch.as_deref(), Some("it is the base branch"));
        let mut f = clean();
        f.branch_elsewhere = true;
        let r = removal(&station(f), false, "auth");
        assert!(r.allowed && !r.delete_branch);
        assert_eq!(
            r.keep_branch.as_deref(),
            Some("it is checked out in another worktree")
        );
    }

    #[test]
    fn a_detached_station_has_no_branch_to_delete_or_keep() {
        let mut f = clean();
        f.branch = None;
        let r = removal(&station(f), false, "/r-auth");
        assert!(r.allowed && !r.delete_branch && r.keep_branch.is_none());
    }

    #[test]
    fn many_uncommitted_files_are_summed_up() {
        let files: Vec<String> = (0..8).map(|i| format!("f{i}")).collect();
        let d = Blocker::Dirty { files }.describe();
        assert_eq!(d, "8 files uncommitted (f0, f1, f2, f3, f4 and 3 more)");
    }

    #[test]
    fn base_is_the_setting_else_the_main_branch() {
        assert_eq!(
            base_branch(Some("trunk"), Some("main")).as_deref(),
            Some("trunk")
        );
        assert_eq!(base_branch(None, Some("main")).as_deref(), Some("main"));
        assert_eq!(base_branch(None, None), None);
    }

    fn eval(claims: &str, log: &str) -> (Evaluation, Vec<LogEntry>) {
        use crate::model::input::{Facts, FileText, RailTexts};
        let texts = RailTexts {
            claims: Some(FileText {
                path: "claims.md".into(),
                text: claims.into(),
                modified: None,
            }),
            log: Some(FileText {
                path: "claims.log".into(),
                text: log.into(),
                modified: None,
            }),
            ..RailTexts::default()
        };
        let now = crate::text::time::parse_time("2026-10-22T14:10:00Z").unwrap();
        let rail = crate::model::Rail::load(&texts);
        (rail.evaluate(&Facts::at(now)), rail.log().entries.clone())
    }

    fn at(path: &str, branch: Option<&str>) -> StationFacts {
        StationFacts {
            path: path.into(),
            branch: branch.map(str::to_string),
            ..StationFacts::default()
        }
    }

    #[test]
    fn stations_carry_the_claims_of_their_branch() {
        let (eval, log) = eval(
            "auth | auth | 2026-10-22T14:05Z
             old | web | 2020-01-01T00:00Z
             api | alice | 2026-10-22T14:05Z | branch: feature/api
",
            "2026-10-22T13:00:00Z | released | search | search-s | touched: a
",
        );
        let stations: Vec<Station> = [
            at("/r", Some("main")),
            at("/r-auth", Some("auth")),
            at("/r-web", Some("web")),
            at("/r-api", Some("feature/api")),
            at("/r-search", Some("search-s")),
            at("/r-detached", None),
        ]
        .into_iter()
        .map(|f| Station::new(f, &eval))
        .collect();
        let states: Vec<&str> = stations.iter().map(|s| s.state.as_str()).collect();
        assert_eq!(
            states,
            [
                "unclaimed",
                "live",
                "stale",
                "live",
                "unclaimed",
                "unclaimed"
            ]
        );
        assert_eq!(stations[3].claims[0].session, "alice");
        // By a held task, by the session that released it, by branch; else a clear error.
        assert_eq!(find(&stations, &eval, &log, "auth"), Ok(1));
        assert_eq!(find(&stations, &eval, &log, "api"), Ok(3));
        assert_eq!(find(&stations, &eval, &log, "search"), Ok(4));
        assert_eq!(find(&stations, &eval, &log, "web"), Ok(2));
        assert_eq!(find(&stations, &eval, &log, "old"), Ok(2));
        let e = find(&stations, &eval, &log, "nope").unwrap_err();
        assert!(e.starts_with("no station for `nope`"), "{e}");
        // Removing a claimed station releases its claims.
        let mut f = stations[1].facts.clone();
        f.dirty = Some(Vec::new());
        f.base = Some("main".into());
        f.unmerged = Some(0);
        let r = removal(&Station::new(f, &eval), false, "auth");
        assert_eq!(r.release.len(), 1);
        assert_eq!(r.release[0].task.as_deref(), Some("auth"));
    }

    #[test]
    fn a_name_on_two_stations_is_ambiguous() {
        let (eval, log) = eval("", "");
        let stations: Vec<Station> = [at("/a", Some("x")), at("/b", Some("x"))]
            .into_iter()
            .map(|f| Station::new(f, &eval))
            .collect();
        assert_eq!(
            find(&stations, &eval, &log, "x").unwrap_err(),
            "`x` names 2 stations (/a, /b); name one by its path"
        );
    }
}
