//! What an agent's edit hook decides about the paths a tool call would write.
//!
//! - **deny** a path held by another session's live (or expiring) claim;
//! - **warn** on a path outside the session's own declared paths, or when the session holds no
//!   claim at all;
//! - **allow** everything else.
//!
//! Paths are repo-relative. Targets written as globs (a Bash `rm src/*`) are compared as
//! patterns: they are denied when they could touch another session's paths. A session's
//! notices of claims it lost ride on the answer ([`tell`]).

use serde::Serialize;

use crate::agent::flight::FlightHit;
use crate::agent::Outcome;
use crate::formats::config::HookUnanalysed;
use crate::formats::notice::{self, Notice};
use crate::model::lease::LeaseState;
use crate::model::scope;
use crate::model::{Claim, Evaluation};
use crate::text::hint::Hint;
use crate::text::ident::Acting;
use crate::text::time::format_duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Decision {
    Allow,
    Warn,
    Deny,
}

/// A path another session holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Held {
    pub path: String,
    pub session: String,
    pub task: Option<String>,
    pub pattern: String,
    pub state: LeaseState,
    pub file: String,
    pub line: u32,
    pub lease_left: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HookVerdict {
    pub decision: Decision,
    /// What to tell the agent: who holds what, and what to do.
    pub message: String,
    /// Paths another session holds, with the claim: the first sixteen (`scope::LISTED_HOLDERS`).
    pub held: Vec<Held>,
    /// How many more (path, claim) pairs are held than `held` lists. Present only when some are
    /// left out.
    #[serde(skip_serializing_if = "crate::model::is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<usize>", optional))]
    pub held_unlisted: usize,
    /// Paths outside the session's own declared scope.
    pub outside: Vec<String>,
    /// What the agent can do instead (each host words it: the CLI as command lines).
    pub hint: Option<Hint>,
}

fn held(path: &str, claim: &Claim, pattern: &str) -> Held {
    Held {
        path: path.to_string(),
        session: claim.session.clone(),
        task: claim.task.clone(),
        pattern: pattern.to_string(),
        state: claim.state(),
        file: claim.file.clone(),
        line: claim.line,
        lease_left: claim
            .lease_state
            .left
            .filter(|l| l.num_seconds() > 0)
            .map(format_duration),
    }
}

/// The name claims are compared with: the acting session's; an agent whose checkout names
/// none (`ident::Acting::Unnamed`: a branch that cannot be a session name, a detached HEAD, and
/// no session set — a valid situation, not a failure) matches no claim, so it holds nothing:
/// another session's paths are denied to it, and every other write is warned about with what to
/// do.
fn name_of(acting: &Acting) -> &str {
    match acting {
        Acting::Session(s) => s,
        Acting::Unnamed(_) => "",
    }
}

/// Decides about `targets` (repo-relative paths or globs) written by `actor`.
///
/// Every target is compared as a pattern covering itself and everything below it, so writing a
/// directory (`cp x src/auth/`, `rm -rf src`) counts as writing the files inside it.
pub fn decide(eval: &Evaluation, actor: &Acting, targets: &[String]) -> HookVerdict {
    let session = name_of(actor);
    let mut held_paths: Vec<Held> = Vec::new();
    // A patch of many files under a pattern many sessions claim would name every file with
    // every claim: the first few are named, the rest counted.
    let mut held_unlisted = 0;
    let mut outside: Vec<String> = Vec::new();
    let own: Vec<&Claim> = eval
        .claims
        .iter()
        .filter(|c| eval.acts_for(session, c))
        .collect();
    let declared: Vec<&str> = own
        .iter()
        .flat_map(|c| c.paths.iter().map(String::as_str))
        .collect();
    for raw in targets {
        let target = scope::normalize_path(raw);
        if target.is_empty() {
            continue;
        }
        let written = scope::Written::new(&target);
        let touches = |p: &str| written.touches(p);
        for claim in eval
            .claims
            .iter()
            .filter(|c| !eval.acts_for(session, c) && c.state().holds())
        {
            if let Some(p) = claim.paths.iter().find(|p| touches(p)) {
                if held_paths.len() < scope::LISTED_HOLDERS {
                    held_paths.push(held(&target, claim, p));
                } else {
                    held_unlisted += 1;
                }
            }
        }
        if !declared.is_empty() && !declared.iter().any(|p| touches(p)) {
            outside.push(target);
        }
    }
    let report_declared = declared.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    if !held_paths.is_empty() {
        let lines: Vec<String> = held_paths
            .iter()
            .map(|h| {
                let task = h
                    .task
                    .as_deref()
                    .map_or("no task".to_string(), |t| format!("task {t}"));
                let left = h
                    .lease_left
                    .as_ref()
                    .map(|l| format!(", {l} left"))
                    .unwrap_or_default();
                format!(
                    "{} is claimed by {} ({task}, {}{left}, {}:{}, via `{}`)",
                    h.path,
                    h.session,
                    h.state.as_str(),
                    h.file,
                    h.line,
                    h.pattern
                )
            })
            .collect();
        let first = &held_paths[0];
        let hint = Hint::OtherWork {
            take: first.task.clone(),
        };
        let more = if held_unlisted > 0 {
            format!("; and {held_unlisted} more held")
        } else {
            String::new()
        };
        return HookVerdict {
            decision: Decision::Deny,
            message: format!(
                "Rail: {}{more}. Do not edit another session's paths: work on something else, or ask {} to release it",
                lines.join("; "),
                first.session
            ),
            held: held_paths,
            held_unlisted,
            outside,
            hint: Some(hint),
        };
    }
    if !outside.is_empty() {
        // Whose paths they are: the agent's own, or the branch's it works on (`web`, not
        // `web~claude-6a0c4e11`) when every one it may write is that session's.
        let mut owners: Vec<&str> = own.iter().map(|c| c.session.as_str()).collect();
        crate::text::sort::sort_by(&mut owners, |a, b| a.cmp(b));
        owners.dedup();
        let whose = match owners.as_slice() {
            [one] => *one,
            _ => session,
        };
        return HookVerdict {
            decision: Decision::Warn,
            message: format!(
                "Rail: {} {} outside {whose}'s claimed paths ({}). If the task needs {}, add {} to its claim first",
                outside.join(", "),
                if outside.len() == 1 { "is" } else { "are" },
                report_declared.join(", "),
                if outside.len() == 1 { "it" } else { "them" },
                if outside.len() == 1 { "it" } else { "them" }
            ),
            held: held_paths,
            held_unlisted,
            outside,
            hint: Some(Hint::AddPaths { task: None }),
        };
    }
    if own.is_empty() && !targets.is_empty() {
        return HookVerdict {
            decision: Decision::Warn,
            message: match actor {
                Acting::Session(_) => {
                    format!("Rail: {session} holds no claim. Claim your task before editing")
                }
                Acting::Unnamed(why) => format!(
                    "Rail: this checkout names no session ({}), so it holds no claim. Set RAIL_SESSION for this agent, then claim your task before editing",
                    why.message()
                ),
            },
            held: held_paths,
            held_unlisted,
            outside,
            hint: Some(Hint::ClaimFirst),
        };
    }
    HookVerdict {
        decision: Decision::Allow,
        message: String::new(),
        held: held_paths,
        held_unlisted,
        outside,
        hint: None,
    }
}

/// Where the host found that a written path lands, after following symlinks (the host's I/O).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Landing {
    /// The absolute path with every symlink of its existing part resolved (a part that does not
    /// exist yet, and a glob tail, appended as written).
    At(String),
    /// The host could not follow it (a symlink loop, a dangling chain, an unreadable link).
    Unresolved(String),
}

/// The repo-relative paths a tool call writes, and what could not be judged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Landed {
    pub targets: Vec<String>,
    pub unanalysed: Vec<String>,
}

/// The tasks an agent's Stop renews or its session end releases: the claims of `session` and
/// of the subagents below it, and of the sessions above it (its branch's, its agent's) — those
/// it works on. A session end releases only its own line's: the claims of its branch too when
/// it is an agent right under its branch (a station's claim ends with the agent working in
/// it), unless another agent under that branch holds a claim — that sibling may be working on
/// the branch's claims too, and its own end or lease decides. A subagent's end leaves its
/// agent's claims: that agent still works. Sorted, each task once.
pub fn lifecycle_tasks(eval: &Evaluation, session: &str, end: bool) -> Vec<String> {
    use crate::text::ident::{is_above, parent_session, AGENT_SEP};
    let branch = parent_session(session).filter(|p| !p.contains(AGENT_SEP));
    let siblings_hold = branch.is_some_and(|branch| {
        eval.claims.iter().any(|c| {
            is_above(branch, &c.session)
                && crate::text::ident::on_machine(c.machine.as_deref(), eval.here.as_deref())
                && c.session != session
                && !is_above(session, &c.session)
                && c.state().holds()
        })
    });
    let mut tasks: Vec<String> = eval
        .claims
        .iter()
        // Another machine's claims are its own sessions', whatever their names (issue 42).
        .filter(|c| crate::text::ident::on_machine(c.machine.as_deref(), eval.here.as_deref()))
        .filter(|c| {
            let above = is_above(&c.session, session);
            c.session == session
                || is_above(session, &c.session)
                || above && !end
                || above && Some(c.session.as_str()) == branch && !siblings_hold
        })
        .filter_map(|c| c.task.clone())
        .collect();
    crate::text::sort::sort_by(&mut tasks, |a, b| a.cmp(b));
    tasks.dedup();
    tasks
}

/// Judges written paths where they land: `worktrees` are the repository's checkouts (main and
/// stations, symlinks resolved); a path inside one is judged by its path in the repository,
/// whichever checkout it is in (claims are repository-wide), so a symlink in a station into the
/// main checkout or another station is judged there. A path outside every checkout is not the
/// repository's. The rail's own files, in the checkout holding the rail (`rail_root`), are
/// nobody's work. A whole checkout (`tar -x` at its top, `rm -rf .`) is every path in it.
pub fn land(worktrees: &[String], rail_root: Option<&str>, writes: &[(String, Landing)]) -> Landed {
    let mut out = Landed::default();
    for (written, landing) in writes {
        let at = match landing {
            Landing::At(at) => at,
            Landing::Unresolved(why) => {
                out.unanalysed.push(format!(
                    "`{written}` (a symlink Rail cannot resolve: {why})"
                ));
                continue;
            }
        };
        let found = worktrees
            .iter()
            .filter_map(|wt| within(wt, at).map(|r| (wt, r)))
            .max_by_key(|(wt, _)| wt.len());
        let Some((wt, rel)) = found else { continue };
        if Some(wt.as_str()) == rail_root && crate::formats::rail_files::is_rail_file(&rel) {
            continue;
        }
        out.targets
            .push(if rel.is_empty() { "**".into() } else { rel });
    }
    out
}

/// Whether `at` (an absolute landing) lies in one of `worktrees`: a path outside every checkout
/// of this repository is judged by the rail of the repository it lands in, if any (the host
/// finds that repository).
pub fn in_checkouts(worktrees: &[String], at: &str) -> bool {
    worktrees.iter().any(|wt| within(wt, at).is_some())
}

/// One answer for a tool call whose paths land in several repositories, each judged against its
/// own rail: the strongest decision, with what each rail said at that strength.
pub fn combine(verdicts: Vec<HookVerdict>) -> HookVerdict {
    let top = verdicts.iter().map(|v| v.decision).max();
    let mut out: Option<HookVerdict> = None;
    for v in verdicts.into_iter().filter(|v| Some(v.decision) == top) {
        match &mut out {
            None => out = Some(v),
            Some(o) => {
                if !v.message.is_empty() {
                    if !o.message.is_empty() {
                        o.message.push_str("; ");
                    }
                    o.message.push_str(&v.message);
                }
                o.held.extend(v.held);
                o.held_unlisted += v.held_unlisted;
                o.outside.extend(v.outside);
                if o.hint.is_none() {
                    o.hint = v.hint;
                }
            }
        }
    }
    out.unwrap_or(HookVerdict {
        decision: Decision::Allow,
        message: String::new(),
        held: Vec::new(),
        held_unlisted: 0,
        outside: Vec::new(),
        hint: None,
    })
}

/// `path` relative to `root` ("" for the root itself), lexically; `None` outside it.
fn within(root: &str, path: &str) -> Option<String> {
    let fold = |p: &str| -> Vec<String> {
        let mut parts: Vec<String> = Vec::new();
        for seg in p.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                s => parts.push(s.to_string()),
            }
        }
        parts
    };
    let root = fold(root);
    let parts = fold(path);
    if parts.len() < root.len() || parts[..root.len()] != root[..] {
        return None;
    }
    Some(parts[root.len()..].join("/"))
}

/// The hook's verdict on a tool call: [`decide`] on the paths it writes, and what to do with
/// the parts Rail could not judge — never a silent allow: a warning that names them, or (rail.yaml
/// `hook_unanalysed: deny`) a denial. A denial for a held path stays that denial.
///
/// `in_flight`: other sessions' uncommitted files in this checkout that the call writes
/// (`flight::collisions`, judged by the host's facts): a live session's is denied, named; a
/// stale or ended one's is named (`flight::join`).
pub fn judge(
    eval: &Evaluation,
    actor: &Acting,
    targets: &[String],
    unanalysed: &[String],
    mode: HookUnanalysed,
    in_flight: &[FlightHit],
) -> HookVerdict {
    let verdict = decide(eval, actor, targets);
    crate::agent::flight::join(with_unanalysed(verdict, unanalysed, mode), in_flight)
}

/// What could not be judged joined to `verdict` (a denial stays that denial).
fn with_unanalysed(
    mut verdict: HookVerdict,
    unanalysed: &[String],
    mode: HookUnanalysed,
) -> HookVerdict {
    if unanalysed.is_empty() || verdict.decision == Decision::Deny {
        return verdict;
    }
    let parts = unanalysed.join("; ");
    match mode {
        HookUnanalysed::Deny => {
            verdict.decision = Decision::Deny;
            verdict.message = format!(
                "Rail: cannot judge what this command writes: {parts}. rail.yaml sets `hook_unanalysed: deny`: write the paths out literally, or use the edit tools"
            );
            verdict.hint = None;
        }
        HookUnanalysed::Warn => {
            let said = format!(
                "Rail could not judge: {parts}. Make sure it writes nothing another session holds"
            );
            verdict.message = if verdict.decision == Decision::Warn {
                format!("{} ({said})", verdict.message)
            } else {
                said
            };
            verdict.decision = Decision::Warn;
        }
    }
    verdict
}

/// Resolves a path a tool reported (absolute, or relative to `cwd`) to a repo-relative path
/// under `worktree`, lexically (`..` and `.` folded). `None` if it lies outside the worktree,
/// or is the worktree itself.
pub fn repo_relative(worktree: &str, cwd: &str, path: &str) -> Option<String> {
    pathspec_relative(worktree, cwd, path).filter(|rel| rel != ".")
}

/// [`repo_relative`] for a git pathspec, where the worktree itself is `.` (all of it).
pub fn pathspec_relative(worktree: &str, cwd: &str, path: &str) -> Option<String> {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{}", cwd.trim_end_matches('/'), path)
    };
    let mut parts: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let root: Vec<&str> = worktree
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    if parts.len() < root.len() || parts[..root.len()] != root[..] {
        return None;
    }
    let rel = parts[root.len()..].join("/");
    Some(if rel.is_empty() { ".".to_string() } else { rel })
}

/// Where the hook call stands, for [`tell`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallStage {
    /// Before a tool call.
    BeforeTool,
    /// After a tool call.
    AfterTool,
    /// A Stop or session end.
    Lifecycle,
}

/// The hook's `outcome` with `notices` told (issue 31: a session is told of a claim it lost in
/// the one place its agent looks). Before a tool, the call is stopped (once: the
/// host removes the notices it told), its own answer kept after the notice; after a tool, the
/// notice is the after-tool message (with any of its own); at a Stop or session end it goes to
/// the person. No notices: the outcome as it was. A denial is how every agent shows its model
/// a message (a warning, some only show the person), so before a tool the notice stops it.
pub fn tell(outcome: Outcome, call: CallStage, notices: &[Notice]) -> Outcome {
    if notices.is_empty() {
        return outcome;
    }
    let said = notice::message(notices);
    let join = |own: String| {
        if own.trim().is_empty() {
            said.clone()
        } else {
            format!("{said}\n{own}")
        }
    };
    match (call, outcome) {
        // A worktree's answer is its path alone (or the refusal): a notice waits for the next call.
        (_, worktree @ Outcome::Worktree(_)) => worktree,
        (_, Outcome::Lifecycle(own)) => Outcome::Lifecycle(Some(join(own.unwrap_or_default()))),
        (CallStage::BeforeTool, Outcome::Deny(own)) => Outcome::Deny(join(own)),
        (CallStage::BeforeTool, Outcome::Allow) => Outcome::Deny(format!(
            "{said}\nThis tool call was not run, so that the notice is read; the next one is judged as usual."
        )),
        (CallStage::BeforeTool, Outcome::Warn(own)) => Outcome::Deny(format!(
            "{}\nThis tool call was not run, so that the notice is read; the next one is judged as usual.",
            join(own)
        )),
        (_, Outcome::After(own)) => Outcome::After(join(own)),
        (CallStage::AfterTool, Outcome::Allow) => Outcome::After(said),
        (CallStage::AfterTool, Outcome::Warn(own)) | (CallStage::AfterTool, Outcome::Deny(own)) => {
            Outcome::After(join(own))
        }
        (CallStage::Lifecycle, other) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::notice::LossCause;

    /// Two agents on `main` (each its own session), and the branch's own claim.
    fn two_agents() -> Evaluation {
        let texts = crate::model::input::RailTexts {
            claims: Some(crate::model::input::FileText {
                path: "claims.md".into(),
                text: "# Claims\n\n\
                       docs | main | 2026-12-01T00:00:00Z | paths: docs/**\n\
                       auth | main~claude-aaaa | 2026-12-01T00:00:00Z | paths: src/auth/**\n\
                       ui | main~claude-bbbb | 2026-12-01T00:00:00Z | paths: src/ui/**\n\
                       ui-test | main~claude-bbbb~sub-cccc | 2026-12-01T00:00:00Z | paths: test/ui/**\n"
                    .into(),
                modified: None,
            }),
            ..Default::default()
        };
        let facts = crate::model::input::Facts::at("2026-12-01T00:10:00Z".parse().unwrap());
        crate::model::Rail::load(&texts).evaluate(&facts)
    }

    #[test]
    fn two_agents_on_one_branch_are_denied_each_others_paths_not_the_branchs() {
        let eval = two_agents();
        let a = Acting::Session("main~claude-aaaa".into());
        let b_sub = Acting::Session("main~claude-bbbb~sub-cccc".into());
        let verdict = |who: &Acting, path: &str| decide(&eval, who, &[path.to_string()]).decision;
        assert_eq!(verdict(&a, "src/ui/a.ts"), Decision::Deny);
        assert_eq!(verdict(&a, "test/ui/a.ts"), Decision::Deny);
        assert_eq!(verdict(&b_sub, "src/auth/a.ts"), Decision::Deny);
        assert_ne!(verdict(&a, "src/auth/a.ts"), Decision::Deny);
        assert_ne!(
            verdict(&a, "docs/a.md"),
            Decision::Deny,
            "the branch's claim"
        );
        assert_ne!(
            verdict(&b_sub, "src/ui/a.ts"),
            Decision::Deny,
            "its agent's"
        );
        let main = Acting::Session("main".into());
        assert_ne!(verdict(&main, "src/ui/a.ts"), Decision::Deny, "its agents'");
    }

    #[test]
    fn an_agents_end_releases_its_own_and_leaves_a_siblings_and_their_branch() {
        let eval = two_agents();
        assert_eq!(
            lifecycle_tasks(&eval, "main~claude-aaaa", true),
            ["auth"],
            "b still works on main: main's docs stay"
        );
        assert_eq!(
            lifecycle_tasks(&eval, "main~claude-aaaa", false),
            ["auth", "docs"],
            "a Stop renews what it works on"
        );
        assert_eq!(
            lifecycle_tasks(&eval, "main~claude-bbbb", true),
            ["ui", "ui-test"],
            "its subagent's go with it"
        );
        assert_eq!(
            lifecycle_tasks(&eval, "main~claude-bbbb~sub-cccc", true),
            ["ui-test"],
            "its agent holds ui: a subagent's end leaves its agent's claims"
        );
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            repo_relative("/w/app", "/w/app/src", "../docs/a.md").as_deref(),
            Some("docs/a.md")
        );
        assert_eq!(
            repo_relative("/w/app", "/w/app", "/w/app/src/x.ts").as_deref(),
            Some("src/x.ts")
        );
        assert_eq!(repo_relative("/w/app", "/w/app", "/etc/passwd"), None);
        assert_eq!(repo_relative("/w/app", "/w/app", "/w/app2/x"), None);
        assert_eq!(repo_relative("/w/app", "/w/app", "."), None);
        assert_eq!(
            pathspec_relative("/w/app", "/w/app/src", "..").as_deref(),
            Some(".")
        );
        assert_eq!(
            pathspec_relative("/w/app", "/w/app/src", "./a/../b.ts").as_deref(),
            Some("src/b.ts")
        );
        assert_eq!(pathspec_relative("/w/app", "/w/app", "../x"), None);
    }

    #[test]
    fn an_unnamed_checkout_holds_nothing_and_is_told_what_to_do() {
        let texts = crate::model::input::RailTexts {
            claims: Some(crate::model::input::FileText {
                path: "claims.md".into(),
                text: "# Claims\n\nauth | auth | 2026-12-01T00:00:00Z | paths: src/auth/**\n"
                    .into(),
                modified: None,
            }),
            ..Default::default()
        };
        let facts = crate::model::input::Facts::at("2026-12-01T00:10:00Z".parse().unwrap());
        let eval = crate::model::Rail::load(&texts).evaluate(&facts);
        let who = crate::text::ident::acting(None, Some("fix$(id)"), None);
        let held = judge(
            &eval,
            &who,
            &["src/auth/a.ts".into()],
            &[],
            HookUnanalysed::Warn,
            &[],
        );
        assert_eq!(held.decision, Decision::Deny, "{}", held.message);
        let free = judge(
            &eval,
            &who,
            &["docs/a.md".into()],
            &[],
            HookUnanalysed::Warn,
            &[],
        );
        assert_eq!(free.decision, Decision::Warn);
        assert!(
            free.message.contains("cannot be a session name"),
            "{}",
            free.message
        );
        assert!(free.message.contains("RAIL_SESSION"), "{}", free.message);
        let nothing = judge(&eval, &who, &[], &[], HookUnanalysed::Warn, &[]);
        assert_eq!(nothing.decision, Decision::Allow);
    }

    #[test]
    fn the_strongest_verdict_of_several_rails_wins() {
        let v = |decision, message: &str| HookVerdict {
            decision,
            message: message.into(),
            held: Vec::new(),
            held_unlisted: 0,
            outside: Vec::new(),
            hint: None,
        };
        let one = combine(vec![
            v(Decision::Allow, ""),
            v(Decision::Deny, "held in b"),
            v(Decision::Warn, "w"),
            v(Decision::Deny, "held in c"),
        ]);
        assert_eq!(one.decision, Decision::Deny);
        assert_eq!(one.message, "held in b; held in c");
        assert_eq!(combine(vec![]).decision, Decision::Allow);
        assert!(in_checkouts(&["/w/a".into()], "/w/a/x"));
        assert!(!in_checkouts(&["/w/a".into()], "/w/b/x"));
    }

    #[test]
    fn paths_are_judged_where_they_land() {
        let wts = ["/w/app".to_string(), "/w/app-web".to_string()];
        let at = |p: &str| Landing::At(p.into());
        let landed = land(
            &wts,
            Some("/w/app"),
            &[
                ("link/t.ts".into(), at("/w/app/src/auth/t.ts")),
                ("x".into(), at("/w/app-web/web/x")),
                ("claims.md".into(), at("/w/app/claims.md")),
                ("../app-web/claims.md".into(), at("/w/app-web/claims.md")),
                ("/tmp/x".into(), at("/tmp/x")),
                (".".into(), at("/w/app-web")),
                (
                    "loop/x".into(),
                    Landing::Unresolved("a symlink loop".into()),
                ),
            ],
        );
        assert_eq!(
            landed.targets,
            ["src/auth/t.ts", "web/x", "claims.md", "**"]
        );
        assert_eq!(
            landed.unanalysed,
            ["`loop/x` (a symlink Rail cannot resolve: a symlink loop)"]
        );
    }

    #[test]
    fn a_notice_stops_the_next_tool_call_once_and_rides_on_every_other_answer() {
        let ns = [Notice {
            session: "s5".into(),
            task: "t5".into(),
            holder: "bob".into(),
            why: LossCause::Rewind,
            at: "2026-12-03T21:40:00Z".parse().unwrap(),
        }];
        let said = notice::message(&ns);
        let deny = |o: Outcome| match o {
            Outcome::Deny(m) => m,
            other => panic!("{other:?}"),
        };
        let m = deny(tell(Outcome::Allow, CallStage::BeforeTool, &ns));
        assert!(m.starts_with(&said) && m.contains("was not run"), "{m}");
        let m = deny(tell(Outcome::Warn("w".into()), CallStage::BeforeTool, &ns));
        assert!(m.starts_with(&format!("{said}\nw\n")), "{m}");
        assert_eq!(
            deny(tell(
                Outcome::Deny("own".into()),
                CallStage::BeforeTool,
                &ns
            )),
            format!("{said}\nown")
        );
        assert_eq!(
            tell(Outcome::Allow, CallStage::AfterTool, &ns),
            Outcome::After(said.clone())
        );
        assert_eq!(
            tell(Outcome::After("put back".into()), CallStage::AfterTool, &ns),
            Outcome::After(format!("{said}\nput back"))
        );
        assert_eq!(
            tell(Outcome::Lifecycle(None), CallStage::Lifecycle, &ns),
            Outcome::Lifecycle(Some(said.clone()))
        );
        for o in [
            Outcome::Allow,
            Outcome::Lifecycle(None),
            Outcome::Deny("d".into()),
        ] {
            assert_eq!(tell(o.clone(), CallStage::BeforeTool, &[]), o);
        }
    }
}
