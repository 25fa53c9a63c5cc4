//! A shared rail's state as a set of files (docs/shared-rail.md): what a fetched tree means,
//! what a plan makes of it, and which local files mirroring it changes.
//!
//! The host reads the tree (path → text) and the local files; core decides. Only the rail's
//! data files ([`crate::formats::rail_files::rail_data_path`]) of a tree count: anything else a
//! remote's tree holds (rail.yaml, `src/x.sh`, `claims/a/b.yaml`) is reported and never written.

use std::collections::BTreeMap;

use crate::change::ops::{self, Plan, Refusal, Request};
use crate::formats::claims_md::RailDoc;
use crate::formats::rail_files::{self, ForeignPath};
use crate::formats::rail_files::{CLAIMS_MD, LOG_FILE};
use crate::model::input::Facts;
use crate::model::input::{FileText, RailTexts};
use crate::model::Rail;
use crate::text::edit::{self, EditError, FileEdits, TextEdit};
use crate::text::Span;

/// A shared rail's files, as a snapshot holds them: path (relative to the rail directory) → text.
pub type SharedFiles = BTreeMap<String, String>;

/// The texts core plans on, from a snapshot: claims.md, the claim files and claims.log.
/// rail.yaml stays each checkout's own (`config` is `None`); foreign files are not read.
pub fn texts(files: &SharedFiles) -> RailTexts {
    texts_of(files, true)
}

fn texts_of(files: &SharedFiles, with_log: bool) -> RailTexts {
    let file = |path: &str, text: &String| FileText {
        path: path.to_string(),
        text: text.clone(),
        modified: None,
    };
    let mut texts = RailTexts::default();
    for (path, text) in files {
        if rail_files::rail_data_path(path).is_err() {
            continue;
        }
        match path.as_str() {
            CLAIMS_MD => texts.claims = Some(file(path, text)),
            LOG_FILE if with_log => texts.log = Some(file(path, text)),
            LOG_FILE => {}
            _ => texts.claim_files.push(file(path, text)),
        }
    }
    texts
}

/// A shared rail's files and their parse, kept while operations are planned one after another
/// (a round's fold, a proof's replay), each on the state the ones before it leave. The claims.md
/// a plan writes was parsed by the plan's own check of what it writes ([`ops::plan_landed`]):
/// it is the next state's, so claims.md is parsed once an operation, not twice. claims.log is
/// carried along, never parsed (no planner reads it).
#[derive(Debug)]
pub struct Planning {
    files: SharedFiles,
    rail: Rail,
    /// The last plan's claims.md as its check parsed it.
    landed: Option<RailDoc>,
}

impl Planning {
    pub fn new(files: SharedFiles) -> Planning {
        let rail = Rail::load(&texts_of(&files, false));
        Planning {
            files,
            rail,
            landed: None,
        }
    }

    pub fn files(&self) -> &SharedFiles {
        &self.files
    }

    pub fn into_files(self) -> SharedFiles {
        self.files
    }

    /// Plans `request` on the current state, as [`ops::plan`] does on its texts.
    #[allow(clippy::result_large_err, reason = "as ops::plan returns it")]
    pub fn plan(
        &mut self,
        facts: &Facts,
        session: &str,
        request: &Request,
    ) -> Result<Plan, Refusal> {
        let eval = self.rail.evaluate(facts);
        let (plan, landed) = ops::plan_landed(&self.rail, &eval, facts, session, request)?;
        self.landed = landed;
        Ok(plan)
    }

    /// Applies `plan` (made by [`Planning::plan`] on this state, or any plan) as [`apply_plan`]
    /// does, and returns the files it changed.
    pub fn apply(&mut self, plan: &Plan, extra_log: &[String]) -> Result<SharedFiles, EditError> {
        let changed = apply_plan(&self.files, plan, extra_log)?;
        self.files.extend(changed.clone());
        let landed = self.landed.take();
        if changed.keys().any(|p| p != LOG_FILE) {
            // A parse is taken only for the very text it was made from (Rail::load_parsed).
            self.rail = Rail::load_parsed(&texts_of(&self.files, false), landed);
        }
        Ok(changed)
    }
}

/// The files a plan changes, with their new contents: its edits applied to the snapshot's
/// texts, and `extra_log` then the plan's log line appended to claims.log (after a newline if
/// the log does not end with one).
pub fn apply_plan(
    files: &SharedFiles,
    plan: &Plan,
    extra_log: &[String],
) -> Result<SharedFiles, EditError> {
    let mut changed = SharedFiles::new();
    for fe in &plan.edits {
        if fe.edits.is_empty() {
            continue;
        }
        let old = files.get(&fe.file).map(String::as_str).unwrap_or("");
        changed.insert(fe.file.clone(), edit::apply(old, &fe.edits)?);
    }
    let mut lines = extra_log.iter().chain(plan.log_line.iter()).peekable();
    if lines.peek().is_some() {
        let mut log = files.get(LOG_FILE).cloned().unwrap_or_default();
        if !log.is_empty() && !log.ends_with('\n') {
            log.push('\n');
        }
        for line in lines {
            log.push_str(line);
            log.push('\n');
        }
        changed.insert(LOG_FILE.to_string(), log);
    }
    Ok(changed)
}

/// What mirroring a snapshot into the local rail does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mirror {
    /// Local files to (re)write, each as one whole-text replacement of the local text (or a
    /// creation). Files whose local text already matches are not listed.
    pub writes: Vec<FileEdits>,
    /// Local rail files the snapshot does not have: left alone, never deleted (a claim file
    /// may be one this checkout has not shared yet).
    pub kept: Vec<String>,
    /// Files of the snapshot that are not the rail's: never written.
    pub ignored: Vec<ForeignPath>,
}

/// The lines of a machine's outbox (log lines recorded locally: refusals, bypasses, gate
/// verdicts, recovered locks) that the shared log does not have yet, in their order, each once.
/// Only complete lines count: a line without its newline is an append still being written.
/// A line is delivered when the shared log has a line with exactly its text; log lines carry
/// their time to the second, their session and their details, so two different events are
/// never one line.
pub fn undelivered(outbox: &str, shared_log: &str) -> Vec<String> {
    let shared: std::collections::BTreeSet<&str> = shared_log.lines().collect();
    let mut seen = std::collections::BTreeSet::new();
    let complete = match outbox.rfind('\n') {
        Some(end) => &outbox[..end],
        None => "",
    };
    complete
        .lines()
        .filter(|l| !l.trim().is_empty() && !shared.contains(l) && seen.insert(*l))
        .map(str::to_string)
        .collect()
}

/// The shared log with `pending` lines after it: what a machine shows as its claims.log while
/// those lines wait to be delivered, and what the next commit's claims.log holds.
pub fn log_with(shared_log: &str, pending: &[String]) -> String {
    let mut log = shared_log.to_string();
    if pending.is_empty() {
        return log;
    }
    if !log.is_empty() && !log.ends_with('\n') {
        log.push('\n');
    }
    for line in pending {
        log.push_str(line);
        log.push('\n');
    }
    log
}

/// Plans mirroring `snapshot` into the local rail whose files are `local`. `outbox` is this
/// machine's log lines not yet known to be shared: the mirrored claims.log is the shared one
/// followed by those of them it lacks, so mirroring never erases a line recorded here.
pub fn mirror(snapshot: &SharedFiles, local: &RailTexts, outbox: &str) -> Mirror {
    let current = |path: &str| -> Option<&str> {
        match path {
            CLAIMS_MD => local.claims.as_ref().map(|f| f.text.as_str()),
            LOG_FILE => local.log.as_ref().map(|f| f.text.as_str()),
            _ => local
                .claim_files
                .iter()
                .find(|f| f.path == path)
                .map(|f| f.text.as_str()),
        }
    };
    let mut plan = Mirror::default();
    let shared_log = snapshot.get(LOG_FILE).map(String::as_str).unwrap_or("");
    let pending = undelivered(outbox, shared_log);
    let log = (!pending.is_empty()).then(|| log_with(shared_log, &pending));
    let targets = snapshot
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .filter(|(p, _)| *p != LOG_FILE || log.is_none())
        .chain(log.as_deref().map(|l| (LOG_FILE, l)));
    for (path, text) in targets {
        let path = path.to_string();
        if let Err(foreign) = rail_files::rail_data_path(&path) {
            plan.ignored.push(foreign);
            continue;
        }
        let old = current(&path);
        if old == Some(text) {
            continue;
        }
        plan.writes.push(FileEdits {
            file: path.clone(),
            create: old.is_none(),
            edits: vec![TextEdit::replace(
                Span::new(0, old.map_or(0, str::len)),
                text.to_string(),
            )],
        });
    }
    let local_files = local
        .claims
        .iter()
        .chain(local.log.iter())
        .chain(local.claim_files.iter());
    for f in local_files {
        // A claims.log written from the outbox alone is not left alone.
        let written = snapshot.contains_key(&f.path) || (f.path == LOG_FILE && log.is_some());
        if !written {
            plan.kept.push(f.path.clone());
        }
    }
    plan
}

/// A remote whose shared ref no longer contains the state this machine last saw (a
/// force-push, a restored backup) merged with that state: what the rail then holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rejoined {
    /// The merged files (the remote's where nothing was lost).
    pub files: SharedFiles,
    /// The files that differ from the remote's, to commit on top of it.
    pub changed: SharedFiles,
    /// Claims of one task held on both sides: the one kept and the one dropped, by the merge
    /// driver's rule (a claim that still holds beats one that does not, then the earliest).
    pub losers: Vec<crate::change::merge::Loser>,
}

/// Merges `seen` (the state this machine last saw) into `remote` (the rewound one) from their
/// common ancestor `base` (empty when they share none), with the rail's merge rules: claims.md
/// as the merge driver merges it, claims.log as the union of both sides' lines (the remote's
/// first, then the lines only `seen` has, in their order), and each claim file three-way (a
/// side that did not change it takes the other's; changed on both, the remote's stays). Never
/// anything outside the rail's data files.
pub fn rejoin(
    base: &SharedFiles,
    seen: &SharedFiles,
    remote: &SharedFiles,
    holding: Option<&crate::change::merge::Holding<'_>>,
) -> Rejoined {
    let mut out = Rejoined {
        files: remote.clone(),
        ..Rejoined::default()
    };
    let paths: std::collections::BTreeSet<&String> = seen.keys().chain(remote.keys()).collect();
    for path in paths {
        if rail_files::rail_data_path(path).is_err() {
            continue;
        }
        let (b, s, r) = (base.get(path), seen.get(path), remote.get(path));
        let merged: Option<String> = match path.as_str() {
            CLAIMS_MD => {
                fn text(f: Option<&String>) -> &str {
                    f.map_or("", String::as_str)
                }
                let m = crate::change::merge::merge_at(text(b), text(r), text(s), holding);
                out.losers.extend(m.losers);
                Some(m.text)
            }
            LOG_FILE => {
                let r_log = r.map(String::as_str).unwrap_or("");
                let mut s_log = s.cloned().unwrap_or_default();
                if !s_log.is_empty() && !s_log.ends_with('\n') {
                    s_log.push('\n');
                }
                Some(log_with(r_log, &undelivered(&s_log, r_log)))
            }
            _ if r == b => s.cloned(),
            _ => r.cloned(),
        };
        match merged {
            Some(text) if Some(&text) != r => {
                out.files.insert(path.clone(), text.clone());
                out.changed.insert(path.clone(), text);
            }
            Some(_) => {}
            // Deleted on the remote's side since the ancestor, unchanged here: stays deleted.
            None => {}
        }
    }
    out
}

/// A claim made on one machine while the shared rail could not be reached (`RAIL_LOCAL=1`),
/// offered to the shared state at the next operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offered {
    /// Now on the shared rail (or it was already, by the same session).
    Held { task: String, session: String },
    /// Another session holds the task there: the provisional claim is lost to it.
    Lost {
        task: String,
        session: String,
        holder: String,
        line: String,
    },
    /// Not a claim line (the record was damaged): nothing offered.
    Unreadable { line: String },
}

/// Offers each provisional claims.md line to the shared `files`: a task no holding claim of
/// another session has is claimed with the line as written (appended to claims.md); one that
/// another session holds is lost to it. Returns the new claims.md (`None` when unchanged) and
/// what became of each line, in order.
pub fn offer(
    files: &SharedFiles,
    lines: &[String],
    holding: &crate::change::merge::Holding<'_>,
) -> (Option<String>, Vec<Offered>) {
    use crate::formats::claims_md::LineKind;
    let mut claims = files.get(CLAIMS_MD).cloned().unwrap_or_default();
    let mut changed = false;
    let mut out = Vec::new();
    for line in lines {
        let parsed = crate::formats::claims_md::parse(line);
        let Some(mine) = parsed.lines.iter().find_map(|l| match &l.kind {
            LineKind::Claim(c) => Some(c.clone()),
            _ => None,
        }) else {
            out.push(Offered::Unreadable { line: line.clone() });
            continue;
        };
        let doc = crate::formats::claims_md::parse(&claims);
        let held_by = doc.lines.iter().find_map(|l| match &l.kind {
            LineKind::Claim(c) if c.task == mine.task && holding.holds(c) => {
                Some(c.session.clone())
            }
            _ => None,
        });
        match held_by {
            Some(holder) if holder != mine.session => out.push(Offered::Lost {
                task: mine.task.clone(),
                session: mine.session.clone(),
                holder,
                line: line.clone(),
            }),
            Some(_) => out.push(Offered::Held {
                task: mine.task.clone(),
                session: mine.session.clone(),
            }),
            None => {
                if !claims.is_empty() && !claims.ends_with('\n') {
                    claims.push('\n');
                }
                claims.push_str(line.trim_end_matches(['\r', '\n']));
                claims.push('\n');
                changed = true;
                out.push(Offered::Held {
                    task: mine.task.clone(),
                    session: mine.session.clone(),
                });
            }
        }
    }
    (changed.then_some(claims), out)
}

/// The claims of claims.md as this machine had it (`local`) that `shared`'s claims.md no longer
/// has, and that `shared`'s log says were lost rather than given up: dropped when a rewound
/// rail was merged back (`dropped … | by: rewind`), or taken by another session (`taken … |
/// from: <them>`). Each is a notice for the session that lost it (issue 31: told, not only
/// found later in the log). The latest log line about a claim decides: one released, or lost
/// long ago and claimed again since, is not one of them.
pub fn lost_in_mirror(
    local: Option<&str>,
    shared: &SharedFiles,
) -> Vec<crate::formats::notice::Notice> {
    use crate::formats::notice::{LossCause, Notice};
    let Some(local) = local else {
        return Vec::new();
    };
    let held = |text: &str| {
        crate::formats::claims_md::parse(text)
            .claims()
            .map(|(_, c)| (c.task.clone(), c.session.clone()))
            .collect::<Vec<_>>()
    };
    let now = shared.get(CLAIMS_MD).map(|t| held(t)).unwrap_or_default();
    let gone: Vec<(String, String)> = held(local)
        .into_iter()
        .filter(|c| !now.contains(c))
        .collect();
    if gone.is_empty() {
        return Vec::new();
    }
    let log = crate::formats::log::parse(shared.get(LOG_FILE).map(String::as_str).unwrap_or(""));
    // Per gone claim, what its latest log line says: lost (to whom, why) or not.
    let mut latest: Vec<((String, String), Option<Notice>)> = Vec::new();
    for entry in &log.entries {
        let Some(task) = &entry.task else { continue };
        let (session, lost) = match (entry.event.as_str(), entry.details.get("from")) {
            ("taken", Some(from)) => (
                from.clone(),
                crate::formats::notice::of_log_line(&entry.render()),
            ),
            ("dropped", _) if entry.details.get("by").map(String::as_str) == Some("rewind") => {
                let Some(session) = entry.session.clone() else {
                    continue;
                };
                let holder = entry.details.get("kept").cloned().unwrap_or_default();
                let notice = Notice {
                    session: session.clone(),
                    task: task.clone(),
                    holder,
                    why: LossCause::Rewind,
                    at: entry.time,
                };
                (session, Some(notice))
            }
            _ => match &entry.session {
                Some(s) => (s.clone(), None),
                None => continue,
            },
        };
        let key = (task.clone(), session);
        if !gone.contains(&key) {
            continue;
        }
        latest.retain(|(k, _)| *k != key);
        latest.push((key, lost));
    }
    latest.into_iter().filter_map(|(_, lost)| lost).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> SharedFiles {
        let mut out = SharedFiles::new();
        for (p, t) in pairs {
            out.insert(p.to_string(), t.to_string());
        }
        out
    }

    fn local(pairs: &[(&str, &str)]) -> RailTexts {
        let mut texts = RailTexts::default();
        for (p, t) in pairs {
            let f = FileText {
                path: p.to_string(),
                text: t.to_string(),
                modified: None,
            };
            match *p {
                CLAIMS_MD => texts.claims = Some(f),
                LOG_FILE => texts.log = Some(f),
                _ => texts.claim_files.push(f),
            }
        }
        texts
    }

    #[test]
    fn a_claim_a_rewind_merge_dropped_or_another_took_is_named_for_its_session() {
        use crate::formats::notice::LossCause;
        let local = "# Claims\n\nauth | carol | 2026-10-22T10:10Z\nui | carol | 2026-10-22T10:11Z\nold | dave | 2026-10-22T09:00Z\nbill | erin | 2026-10-22T08:00Z\nre | dave | 2026-10-22T09:30Z\n";
        let mut shared = SharedFiles::new();
        shared.insert(
            CLAIMS_MD.into(),
            "# Claims\n\nauth | alice | 2026-10-22T10:05Z\nui | carol | 2026-10-22T10:11Z\nbill | bob | 2026-10-22T10:12Z\n".into(),
        );
        shared.insert(
            LOG_FILE.into(),
            concat!(
                "2026-10-22T10:12:00Z | released | old | dave\n",
                "2026-10-22T10:12:00Z | dropped | auth | carol | by: rewind | kept: alice\n",
                "2026-10-22T10:12:00Z | dropped | ui | erin | by: rewind | kept: carol\n",
                "2026-10-22T10:12:00Z | taken | bill | bob | from: erin | reason: no activity for 2h\n",
                "2026-10-22T09:00:00Z | taken | re | bob | from: dave | reason: stale\n",
                "2026-10-22T09:30:00Z | claimed | re | dave\n",
                "2026-10-22T10:13:00Z | released | re | dave\n",
            )
            .into(),
        );
        let lost: Vec<(String, String, String, LossCause)> = lost_in_mirror(Some(local), &shared)
            .into_iter()
            .map(|n| (n.task, n.session, n.holder, n.why))
            .collect();
        assert_eq!(
            lost,
            vec![
                ("auth".into(), "carol".into(), "alice".into(), LossCause::Rewind),
                ("bill".into(), "erin".into(), "bob".into(), LossCause::Taken("no activity for 2h".into())),
            ],
            "dave released old in the ordinary way, and re after claiming it back; erin's ui was never held here"
        );
        assert!(lost_in_mirror(None, &shared).is_empty());
        // Once mirrored, the next round finds nothing new to tell.
        assert!(lost_in_mirror(shared.get(CLAIMS_MD).map(String::as_str), &shared).is_empty());
    }
    #[test]
    fn a_rewound_remote_gets_back_what_this_machine_saw() {
        let c1 = "t1 | a | 2026-10-22T14:00Z\n";
        let c2 = "t1 | a | 2026-10-22T14:00Z\nt2 | a | 2026-10-22T14:05Z\n";
        let log1 = "2026-10-22T14:00:00Z | claimed | t1 | a\n";
        let log2 =
            "2026-10-22T14:00:00Z | claimed | t1 | a\n2026-10-22T14:05:00Z | claimed | t2 | a\n";
        let base = files(&[(CLAIMS_MD, c1), (LOG_FILE, log1)]);
        let seen = files(&[
            (CLAIMS_MD, c2),
            (LOG_FILE, log2),
            ("claims/a.yaml", "owner: a\n"),
            ("notes.txt", "not the rail's"),
        ]);
        // Rewound to the ancestor: the state seen comes back whole.
        let r = rejoin(&base, &seen, &base, None);
        assert_eq!(r.files.get(CLAIMS_MD).unwrap(), c2);
        assert_eq!(r.files.get(LOG_FILE).unwrap(), log2);
        assert_eq!(r.files.get("claims/a.yaml").unwrap(), "owner: a\n");
        assert!(!r.files.contains_key("notes.txt"));
        assert_eq!(r.changed.len(), 3);
        // Rewound, then another machine claimed t2 too (later) and t3: both sides' claims are
        // kept, the later claim of t2 is the one dropped, and every log line stays.
        let remote = files(&[
            (CLAIMS_MD, "t1 | a | 2026-10-22T14:00Z\nt2 | b | 2026-10-22T14:09Z\nt3 | b | 2026-10-22T14:09Z\n"),
            (LOG_FILE, "2026-10-22T14:00:00Z | claimed | t1 | a\n2026-10-22T14:09:00Z | claimed | t2 | b\n"),
        ]);
        let r = rejoin(&base, &seen, &remote, None);
        let claims = r.files.get(CLAIMS_MD).unwrap();
        assert!(
            claims.contains("t2 | a |") && claims.contains("t3 | b |"),
            "{claims}"
        );
        assert!(!claims.contains("t2 | b |"), "{claims}");
        assert_eq!(r.losers.len(), 1);
        assert_eq!(
            (
                r.losers[0].kept_session.as_str(),
                r.losers[0].lost_session.as_str()
            ),
            ("a", "b")
        );
        let log = r.files.get(LOG_FILE).unwrap();
        assert_eq!(log.lines().count(), 3, "{log}");
        // Nothing lost and nothing new: nothing to commit.
        assert!(rejoin(&base, &base, &seen, None).changed.is_empty());
    }

    #[test]
    fn a_provisional_claim_is_taken_up_or_lost_to_the_holder() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-10-22T14:30:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let facts = crate::model::input::Facts::at(now);
        let holding = crate::change::merge::Holding {
            facts: &facts,
            lease: chrono::TimeDelta::hours(2),
            expiring: chrono::TimeDelta::minutes(15),
        };
        let shared = files(&[(
            CLAIMS_MD,
            "t5 | bob | 2026-10-22T14:20Z\nold | carol | 2026-10-20T09:00Z",
        )]);
        let lines = [
            "t5 | s5 | 2026-10-22T14:10Z".to_string(),
            "t6 | s5 | 2026-10-22T14:10Z".to_string(),
            "old | s5 | 2026-10-22T14:10Z".to_string(),
            "not a claim".to_string(),
        ];
        let (claims, offered) = offer(&shared, &lines, &holding);
        let claims = claims.unwrap();
        assert_eq!(
            claims,
            "t5 | bob | 2026-10-22T14:20Z\nold | carol | 2026-10-20T09:00Z\nt6 | s5 | 2026-10-22T14:10Z\nold | s5 | 2026-10-22T14:10Z\n"
        );
        assert!(matches!(&offered[0], Offered::Lost { holder, .. } if holder == "bob"));
        assert!(matches!(&offered[1], Offered::Held { task, .. } if task == "t6"));
        // carol's claim ran out: the stale claim does not hold the task.
        assert!(matches!(&offered[2], Offered::Held { task, .. } if task == "old"));
        assert!(matches!(&offered[3], Offered::Unreadable { .. }));
        // Offered again once on the rail: held, nothing changes.
        let again = files(&[(CLAIMS_MD, &claims)]);
        let (unchanged, offered) = offer(&again, &lines[1..2], &holding);
        assert_eq!(unchanged, None);
        assert!(matches!(&offered[0], Offered::Held { .. }));
    }

    #[test]
    fn a_snapshots_texts_are_its_rail_files_only() {
        let t = texts(&files(&[
            ("claims.md", "a | s | 2026-10-22T14:05Z\n"),
            ("claims.log", "log\n"),
            ("claims/s.yaml", "task: b\n"),
            ("claims/a/b.yaml", "task: c\n"),
            ("rail.yaml", "lease: 1m\n"),
            ("src/x.sh", "rm -rf /\n"),
        ]));
        assert_eq!(t.claims.unwrap().text, "a | s | 2026-10-22T14:05Z\n");
        assert_eq!(t.log.unwrap().text, "log\n");
        assert_eq!(
            t.claim_files
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>(),
            ["claims/s.yaml"]
        );
        assert!(t.config.is_none());
    }

    #[test]
    fn mirroring_writes_what_changed_keeps_local_only_files_and_ignores_foreign_ones() {
        let snapshot = files(&[
            ("claims.md", "new\n"),
            ("claims.log", "same\n"),
            ("claims/bob.yaml", "task: b\n"),
            ("rail.yaml", "lease: 1m\n"),
            ("claims/../../.git/config", "x"),
        ]);
        let here = local(&[
            ("claims.md", "old text\n"),
            ("claims.log", "same\n"),
            ("claims/alice.yaml", "task: a\n"),
        ]);
        let m = mirror(&snapshot, &here, "");
        let writes: Vec<(&str, bool, String)> = m
            .writes
            .iter()
            .map(|w| {
                let old = match w.file.as_str() {
                    "claims.md" => "old text\n",
                    _ => "",
                };
                (
                    w.file.as_str(),
                    w.create,
                    edit::apply(old, &w.edits).unwrap(),
                )
            })
            .collect();
        assert_eq!(
            writes,
            [
                ("claims.md", false, "new\n".to_string()),
                ("claims/bob.yaml", true, "task: b\n".to_string()),
            ]
        );
        assert_eq!(m.kept, ["claims/alice.yaml"]);
        let ignored: Vec<&str> = m.ignored.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(ignored, ["claims/../../.git/config", "rail.yaml"]);
        // Mirroring the same state again changes nothing.
        assert_eq!(
            mirror(&files(&[]), &RailTexts::default(), ""),
            Mirror::default()
        );
    }

    #[test]
    fn a_plan_applied_to_a_snapshot() {
        let snapshot = files(&[("claims.md", "a\n"), ("claims.log", "one")]);
        let plan = Plan {
            op: "claim".into(),
            task: "b".into(),
            session: "s".into(),
            edits: vec![FileEdits {
                file: "claims.md".into(),
                create: false,
                edits: vec![TextEdit::replace(Span::new(2, 2), "b\n")],
            }],
            log_line: Some("two".into()),
            message: String::new(),
            noop: false,
            hint: None,
        };
        let changed = apply_plan(&snapshot, &plan, &["gate".to_string()]).unwrap();
        assert_eq!(
            changed,
            files(&[("claims.md", "a\nb\n"), ("claims.log", "one\ngate\ntwo\n")])
        );
        let bad = Plan {
            edits: vec![FileEdits {
                file: "claims.md".into(),
                create: false,
                edits: vec![TextEdit::replace(Span::new(5, 9), "x")],
            }],
            ..plan
        };
        assert!(apply_plan(&snapshot, &bad, &[]).is_err());
    }

    #[test]
    fn local_log_lines_wait_in_the_outbox_until_the_shared_log_has_them() {
        let refusal = "2026-10-22T14:05:03Z | refused | a | s | path: src/a.rs";
        let bypass = "2026-10-22T14:06:00Z | bypass | - | s | check: pre-commit";
        let outbox = format!("{refusal}\n{bypass}\n{refusal}\n2026-10-22T14:07");
        // Each line once, in order; the unfinished last line is not a line yet.
        assert_eq!(undelivered(&outbox, ""), [refusal, bypass]);
        let shared = format!("2026-10-22T14:04:00Z | claimed | b | t\n{refusal}\n");
        assert_eq!(undelivered(&outbox, &shared), [bypass]);
        assert!(undelivered("", &shared).is_empty());
        assert_eq!(
            log_with("x", &[bypass.to_string()]),
            format!("x\n{bypass}\n")
        );

        // Mirroring a shared state that lacks the bypass keeps it after the shared lines.
        let snapshot = files(&[("claims.md", "m\n"), ("claims.log", shared.as_str())]);
        let here = local(&[("claims.md", "m\n"), ("claims.log", "old\n")]);
        let m = mirror(&snapshot, &here, &outbox);
        assert_eq!(m.writes.len(), 1);
        assert_eq!(
            edit::apply("old\n", &m.writes[0].edits).unwrap(),
            format!("{shared}{bypass}\n")
        );
        // With no claims.log shared yet, the pending lines are the log; nothing is "kept".
        let m = mirror(&files(&[("claims.md", "m\n")]), &here, &outbox);
        assert!(m.kept.is_empty());
        assert_eq!(
            edit::apply("old\n", &m.writes[0].edits).unwrap(),
            format!("{refusal}\n{bypass}\n")
        );
    }
}
