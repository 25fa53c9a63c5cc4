//! Work in flight gathered for claims, `rail who` and the board (issue 43, "Behind!"): each
//! session's files changed and not merged, as core's [`InFlight`] facts — the writes its agent's
//! tool calls recorded in any checkout and that are still uncommitted
//! ([`crate::agent::flight::recorded`]), and for each station what is uncommitted there and what
//! its branch committed since it forked from the base (two git processes per station, all
//! stations at once, limited to the folders asked about). Every rule is core's
//! ([`rail_core::model::behind`]): who counts, what blocks, what is said.

use std::path::Path;

use rail_core::formats::gitobject;
use rail_core::model::behind::{self, Behind, InFlight, WorkKind};
use rail_core::model::lease::LeaseState;
use rail_core::model::Evaluation;
use rail_core::text::ident::{acts_for, branch_session};
use rail_core::text::time::Time;

use crate::context::Ctx;
use crate::fail::Fail;
use crate::git::objects::{self, Head, ObjectFiles};
use crate::git::repo::Repo;
use crate::git::{self, repo};
use crate::store::flight::recorded;

/// The folders (or files) git is asked about for `patterns`: each pattern's literal part before
/// its first wildcard; none when one of them has no literal part (then all of the checkout).
fn roots(patterns: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for p in patterns {
        let p = rail_core::model::scope::normalize_path(p);
        let cut = p.find(['*', '?', '[', '{', '\\']).unwrap_or(p.len());
        let lit = &p[..cut];
        // A cut inside a name keeps only the folders above it.
        let lit = if cut < p.len() {
            lit.rfind('/').map_or("", |i| &lit[..i])
        } else {
            lit
        };
        if lit.is_empty() || lit == "." {
            return Vec::new();
        }
        out.push(format!(":(literal){lit}"));
    }
    out.sort();
    out.dedup();
    out
}

/// When `session`, or an agent or branch acting with it, was last seen by a hook here.
fn last_seen(
    marks: &std::collections::BTreeMap<String, rail_core::formats::heartbeat::HookSeen>,
    session: &str,
) -> Option<Time> {
    marks
        .iter()
        .filter(|(k, _)| *k == session || acts_for(session, k) || acts_for(k, session))
        .map(|(_, seen)| seen.at)
        .max()
}

/// Whether `session` (or one acting with it) holds a claim that holds.
fn claim_live(eval: &Evaluation, session: &str) -> bool {
    eval.claims.iter().any(|c| {
        matches!(c.state(), LeaseState::Live | LeaseState::Expiring)
            && (c.session == session
                || acts_for(session, &c.session)
                || acts_for(&c.session, session))
    })
}

/// Every live, stale or ended session's work in flight under `patterns` (`**` for all), each
/// judged. Best effort: a station git cannot read is left out, and said on stderr.
pub fn gather(ctx: &Ctx, eval: &Evaluation, patterns: &[String]) -> Vec<InFlight> {
    let Some(repo) = &ctx.repo else {
        return Vec::new();
    };
    let marks = crate::store::heartbeat::read_all(repo);
    let lease = ctx.settings().lease;
    let now = ctx.now;
    let dirs = repo::worktree_dirs(repo);
    let main = repo.main_checkout();
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let main_canon = canon(&main);
    let stations: Vec<(String, String, &Path)> = dirs
        .iter()
        .filter(|d| d.admin.is_some() && canon(&d.path) != main_canon)
        .filter(|d| {
            repo::is_checkout_of(&d.path, d.admin.as_deref(), &repo.common_dir)
                && !std::fs::symlink_metadata(&d.path).is_ok_and(|m| m.file_type().is_symlink())
        })
        .filter_map(|d| {
            let branch = d.branch.clone()?;
            Some((
                canon(&d.path).display().to_string(),
                branch,
                d.path.as_path(),
            ))
        })
        .collect();
    let station_of = |checkout: &str| {
        stations
            .iter()
            .find(|(path, _, _)| path == checkout)
            .map(|(_, b, _)| b.clone())
    };
    let mut work: Vec<InFlight> = recorded(repo, patterns, None)
        .into_iter()
        .map(|(flight, entry)| InFlight {
            standing: behind::standing(
                flight.ended,
                entry.at,
                last_seen(&marks, &flight.session),
                claim_live(eval, &flight.session),
                now,
                lease,
            ),
            station: station_of(&entry.checkout),
            path: entry.path,
            session: flight.session,
            checkout: entry.checkout,
            kind: WorkKind::Written,
            at: entry.at,
            machine: None,
        })
        .collect();
    // Other machines' work in flight, as their shared marks carried it (a shared rail).
    for (machine, text) in crate::store::heartbeat::shared_texts(repo) {
        for mut w in behind::parse_shared(&machine, &text) {
            if !patterns.iter().any(|p| behind::covers(p, &w.path)) {
                continue;
            }
            w.standing = behind::standing(
                None,
                w.at,
                last_seen(&marks, &w.session),
                claim_live(eval, &w.session),
                now,
                lease,
            );
            work.push(w);
        }
    }
    if !stations.is_empty() {
        let judge = Judge {
            ctx,
            eval,
            marks: &marks,
            patterns,
        };
        stations_work(&judge, repo, &stations, &mut work);
    }
    work
}

/// What judging a station's work needs besides the station.
struct Judge<'a> {
    ctx: &'a Ctx,
    eval: &'a Evaluation,
    marks: &'a std::collections::BTreeMap<String, rail_core::formats::heartbeat::HookSeen>,
    patterns: &'a [String],
}

/// Each station's uncommitted and unmerged files under the patterns, added to `work` (those its
/// own agents' recorded writes name already left out). `stations`: checkout, branch, folder.
fn stations_work(
    judge: &Judge<'_>,
    repo: &Repo,
    stations: &[(String, String, &Path)],
    work: &mut Vec<InFlight>,
) {
    let Judge {
        ctx,
        eval,
        marks,
        patterns,
    } = *judge;
    let (lease, now) = (ctx.settings().lease, ctx.now);
    let base = repo::head_branch(&repo.common_dir);
    let base = rail_core::model::station::base_branch(
        ctx.settings().stations.base.as_deref(),
        base.as_deref(),
    );
    let recorded = work.len();
    let roots = roots(patterns);
    // The base's commit: a station's commits are asked of git again only when its HEAD or the
    // base moved (kept in store::flight's `branches/`).
    let base_commit = base.as_deref().and_then(|b| {
        let name = format!("refs/heads/{b}");
        objects::refs_under(&repo.common_dir, &[name.as_str()])?
            .into_iter()
            .next()
            .map(|(_, id)| id)
    });
    let found: Vec<_> = std::thread::scope(|scope| {
        let jobs: Vec<_> = stations
            .iter()
            .map(|(checkout, branch, dir)| {
                let key = station_key(dir, base_commit.as_deref());
                let kept = key
                    .as_deref()
                    .and_then(|k| crate::store::flight::branch_files(repo, checkout, k));
                let ask = if kept.is_some() {
                    None
                } else {
                    base.as_deref()
                };
                let roots = &roots;
                let job = scope.spawn(move || git::work_in(dir, ask, roots));
                (checkout, branch, *dir, key, kept, job)
            })
            .collect();
        jobs.into_iter()
            .map(|(checkout, branch, dir, key, kept, job)| {
                let result = job.join().ok().map(|(uncommitted, asked)| {
                    if let (Some(key), Some(Ok(files))) = (&key, &asked) {
                        crate::store::flight::save_branch_files(repo, checkout, key, files);
                    }
                    (uncommitted, kept.map(Ok).or(asked))
                });
                (checkout, branch, dir, result)
            })
            .collect()
    });
    for (checkout, branch, dir, result) in found {
        let Some((uncommitted, unmerged)) = result else {
            continue;
        };
        // The session whose station it is: its branch's claim holder, else the branch.
        let session = eval
            .claims
            .iter()
            .filter(|c| &c.branch == branch || branch_session(&c.session) == branch)
            .max_by_key(|c| matches!(c.state(), LeaseState::Live | LeaseState::Expiring))
            .map_or_else(|| branch.clone(), |c| c.session.clone());
        let seen = last_seen(marks, &session);
        let live_claim = claim_live(eval, &session);
        let mut add = |path: String, kind: WorkKind, at: Time| {
            if !patterns.iter().any(|p| behind::covers(p, &path)) {
                return;
            }
            // Written by one of the station's own agents: recorded already, under its name.
            let (known, _) = work.split_at(recorded);
            if known.iter().any(|w| {
                w.path == path
                    && &w.checkout == checkout
                    && (acts_for(&w.session, &session) || acts_for(&session, &w.session))
            }) {
                return;
            }
            work.push(InFlight {
                standing: behind::standing(None, at, seen, live_claim, now, lease),
                path,
                session: session.clone(),
                checkout: checkout.clone(),
                station: Some(branch.clone()),
                kind,
                at,
                machine: None,
            });
        };
        match uncommitted {
            Ok(files) => {
                for f in rail_core::formats::rail_files::work_files(files) {
                    let at = changed_at(dir, &f).unwrap_or(now);
                    add(f, WorkKind::Uncommitted, at);
                }
            }
            Err(e) => errln!("rail: work in flight in {checkout}: {e}"),
        }
        match unmerged {
            Some(Ok(files)) if !files.is_empty() => {
                let at = head_time(dir).unwrap_or(now);
                for f in rail_core::formats::rail_files::work_files(files) {
                    add(f, WorkKind::Unmerged, at);
                }
            }
            Some(Err(e)) => errln!("rail: work in flight in {checkout}: {e}"),
            _ => {}
        }
    }
}

/// What a station's commits since the base are kept under: its HEAD's and the base's commits.
fn station_key(dir: &Path, base_commit: Option<&str>) -> Option<String> {
    let there = repo::discover(dir)?;
    match objects::head(&there)? {
        Head::Commit(oid) => Some(format!("{} {}", gitobject::hex(&oid), base_commit?)),
        Head::Unborn => None,
    }
}

/// When the station's HEAD was committed (read from git's files).
fn head_time(dir: &Path) -> Option<Time> {
    let there = repo::discover(dir)?;
    let Head::Commit(oid) = objects::head(&there)? else {
        return None;
    };
    let secs = ObjectFiles::open(&there.common_dir)?.commit_time(&oid)?;
    chrono::DateTime::from_timestamp(secs, 0)
}

/// When the file at `rel` was last changed: its own time, or for a file removed its folder's.
fn changed_at(dir: &Path, rel: &str) -> Option<Time> {
    let at = dir.join(rel);
    let m = std::fs::symlink_metadata(&at)
        .ok()
        .or_else(|| std::fs::symlink_metadata(at.parent()?).ok())?;
    Some(m.modified().ok()?.into())
}

/// A claim (or update, or station) of `patterns` by `session` against the work in flight, on
/// the rail as judged (`eval`): refused (exit 1) over a live session's work unless
/// `on_purpose`; else what to say besides the claim's result and whom to tell. `verb`: the
/// command, for the refusal's words.
pub fn judge_claim(ctx: &Ctx, eval: &Evaluation, claim: &FlightCheck) -> Result<Behind, Fail> {
    if claim.patterns.is_empty() {
        return Ok(Behind::default());
    }
    let work = gather(ctx, eval, &claim.patterns);
    let found = behind::for_claim(&claim.session, &claim.patterns, &work);
    if !claim.on_purpose {
        if let Some(message) = behind::refusal(&claim.task, claim.verb, &found, ctx.now) {
            let json = serde_json::json!({ "ok": false, "in_flight": found });
            return Err(Fail::refused(message, Some(json)));
        }
    }
    Ok(found)
}

/// What a claim asks of the work in flight: whose claim, of what, how, and whether on purpose.
pub struct FlightCheck {
    pub session: String,
    pub task: String,
    pub verb: &'static str,
    pub patterns: Vec<String>,
    pub on_purpose: bool,
}

/// After a claim made over work in flight: says so on stderr, and tells each live session whose
/// work it is at its agent's next hook call (and its agents, when it is a branch).
pub fn claimed_over(ctx: &Ctx, holder: &str, task: &str, found: &Behind, on_purpose: bool) {
    if let Some(note) = behind::note(found, on_purpose, ctx.now) {
        errln!("rail: {task}: {note}");
    }
    if !on_purpose {
        return;
    }
    let Some(repo) = &ctx.repo else {
        return;
    };
    for (session, files) in found.told() {
        crate::store::notice::post_behind(repo, &session, holder, task, &files, false, ctx.now);
    }
}
