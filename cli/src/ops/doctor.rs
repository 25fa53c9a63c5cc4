//! What `rail doctor` finds: is every agent set up here actually guarded? Per agent configured in the main
//! checkout: its hook config in every worktree, the hook command resolving as the agent runs
//! it, and the agent's own trust of the folder and, where it trusts hooks one by one (Codex), of
//! each of Rail's hooks, where Rail can read it (core's agent modules judge the trust files);
//! then the repository's git hooks and merge driver. Each problem comes with its exact fix;
//! exit 1 when one leaves an agent unguarded.

use std::path::{Path, PathBuf};

use rail_core::agent::doctor::{self, Finding, HookCheck, Trust};
use rail_core::agent::{Agent, TrustEnv, TrustFile};

use crate::context::Ctx;
use crate::fail::Fail;

/// A file Rail only reads: its text, `None` when missing; a file too large or not text is the
/// same as one Rail cannot read.
fn read(path: &Path) -> Result<Option<String>, String> {
    match crate::sys::railfile::read_max(path, 4 << 20) {
        Ok(Some((bytes, _))) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{} is not UTF-8", path.display())),
        Ok(None) => Ok(None),
        Err(e) => Err(crate::sys::railfile::describe(path, &e)),
    }
}

/// Whether `program` (a hook command's first word) starts as the agent would start it.
fn resolves(program: &str) -> bool {
    let p = Path::new(program);
    if p.components().count() > 1 || p.is_absolute() {
        return crate::sys::runnable(p);
    }
    crate::sys::on_path(program).is_some()
}

/// The agent's own trust file (where core's agent module says it is): its path as shown, and
/// its text (`None`: there is none).
fn trust_file(trust: &TrustFile) -> Option<(String, Result<Option<String>, String>)> {
    let path = match trust.env {
        TrustEnv::Dir(var) => crate::sys::env::var_os(var)
            .map(PathBuf::from)
            .or_else(|| crate::sys::env::home().map(|h| h.join(trust.home_dir)))?
            .join(trust.file),
        TrustEnv::File(var) => crate::sys::env::var_os(var)
            .map(PathBuf::from)
            .or_else(|| crate::sys::env::home().map(|h| h.join(trust.home_dir).join(trust.file)))?,
    };
    Some((path.display().to_string(), read(&path)))
}

/// What the agent's own trust file says about `folder`: the file's path and the answer.
fn trust_of(agent: Agent, folder: &str) -> Option<(String, Trust)> {
    let trust = agent.trust()?;
    if let Some(var) = trust.trust_all {
        if crate::sys::env::var(var).is_some_and(|v| v == "true") {
            return Some((var.into(), Trust::Trusted));
        }
    }
    let (shown, text) = trust_file(&trust)?;
    Some(match text {
        Ok(Some(text)) => (shown, (trust.judge)(&text, folder)),
        Ok(None) => (shown, Trust::NotTrusted),
        Err(e) => (shown, Trust::Unknown(e)),
    })
}

/// The agent's trust of each of Rail's hooks in the main checkout's hook file, where it trusts
/// hooks one by one (Codex): core judges the trust file and the hook file, and words the
/// findings. Nothing when the agent has no such trust or the hook file cannot be read here (the
/// other checks say so).
fn hook_trust(agent: Agent, main: &Path) -> Vec<Finding> {
    let Some(trust) = agent.trust() else {
        return Vec::new();
    };
    let Some(per) = trust.hooks else {
        return Vec::new();
    };
    // The path spelled as the agent spells it: it keys each hook's trust by it.
    let file = per
        .file
        .split('/')
        .fold(main.to_path_buf(), |p, c| p.join(c));
    let Ok(Some(hooks)) = crate::sys::railfile::read_inside(main, &file) else {
        return Vec::new();
    };
    let Some((shown, config)) = trust_file(&trust) else {
        return Vec::new();
    };
    let config = config.map(Option::unwrap_or_default);
    let hook_file = file.display().to_string();
    let folder = main.display().to_string();
    let judged = (per.judge)(&HookCheck {
        trust_file: config.as_deref().map_err(String::as_str),
        hook_file: &hook_file,
        hooks: &hooks,
        windows: cfg!(windows),
    });
    doctor::hook_findings(
        agent,
        &folder,
        &hook_file,
        &shown,
        judged,
        &(per.fix)(&folder),
    )
}

fn trust_fix(agent: Agent, folder: &str) -> String {
    agent.trust().map(|t| (t.fix)(folder)).unwrap_or_default()
}

/// The findings for this repository (also what `rail init --agents` ends with).
pub fn findings(ctx: &Ctx) -> Result<Vec<Finding>, Fail> {
    let repo = ctx
        .repo
        .as_ref()
        .ok_or_else(|| Fail::env("rail doctor needs a git repository"))?;
    let main = repo.main_checkout();
    let agents = crate::ops::setup::configured_in(&main);
    let mut out = Vec::new();
    let dirs = crate::git::repo::worktree_dirs(repo);
    for target in &agents {
        let name = Some(target.title().to_string());
        // The hook command as the agent runs it.
        for file in target.evidence_files() {
            let path = main.join(file);
            let Ok(Some(text)) = crate::sys::railfile::read_inside(&main, &path) else {
                continue;
            };
            // Entries from an older Rail (or edited since) leave some events without a hook.
            // Only a file that has Rail's entries at all: the agent's other hook files may
            // rightly have none.
            let missing = rail_core::formats::jsonc::parse(&text)
                .map(|node| node.to_value())
                .ok()
                .filter(|value| target.set_up(value))
                .map(|value| rail_core::agent::setup::missing_hooks(*target, file, &value))
                .unwrap_or_default();
            if !missing.is_empty() {
                out.push(Finding {
                    agent: name.clone(),
                    place: path.display().to_string(),
                    problem: format!(
                        "Rail's hooks here lack {} (written by an older Rail, or edited since): {} runs no Rail hook on {}",
                        missing.join(", "),
                        target.title(),
                        if missing.len() == 1 { "that event" } else { "those events" }
                    ),
                    fix: format!("rail init --agents --agent {}", target.name()),
                    unguarded: true,
                });
            }
            for program in rail_core::agent::setup::hook_programs(*target, &text) {
                if !resolves(&program) {
                    out.push(Finding {
                        agent: name.clone(),
                        place: path.display().to_string(),
                        problem: format!("the hook command's program `{program}` does not resolve (not on PATH, or no longer there)"),
                        fix: format!("run `rail init --agents --agent {}` again with the rail you use, or put `{program}` on PATH", target.name()),
                        unguarded: true,
                    });
                }
            }
        }
        for wt in &dirs {
            let top = &wt.path;
            if !top.is_dir() {
                continue;
            }
            let folder = top.display().to_string();
            if top != &main && !crate::ops::setup::configured_in(top).contains(target) {
                out.push(Finding {
                    agent: name.clone(),
                    place: folder.clone(),
                    problem: format!(
                        "{} is set up in the main checkout but has no Rail hook in this worktree",
                        target.title()
                    ),
                    fix: format!("rail worktree guard {folder}"),
                    unguarded: true,
                });
            }
            // Codex trusts a project by its main checkout, which covers the stations.
            if target.trust().is_some_and(|t| t.by_main_checkout) && top != &main {
                continue;
            }
            if let Some((file, trust)) = trust_of(*target, &folder) {
                match trust {
                    Trust::Trusted => {}
                    Trust::NotTrusted => out.push(Finding {
                        agent: name.clone(),
                        place: folder.clone(),
                        problem: format!("{} does not trust this folder ({file}): it loads no project hook here and writes unguarded", target.title()),
                        fix: trust_fix(*target, &folder),
                        unguarded: true,
                    }),
                    Trust::Unknown(why) => out.push(Finding {
                        agent: name.clone(),
                        place: folder.clone(),
                        problem: format!("cannot tell whether {} trusts this folder: {why}", target.title()),
                        fix: trust_fix(*target, &folder),
                        unguarded: true,
                    }),
                }
            }
        }
        out.extend(hook_trust(*target, &main));
    }
    if agents.is_empty() {
        out.push(Finding {
            agent: None,
            place: main.display().to_string(),
            problem: "no agent is set up with Rail's hooks here".into(),
            fix: "rail init --agents".into(),
            unguarded: true,
        });
    }
    // Too large to check after each tool call: prediction and the pre-commit check remain.
    let tracked = crate::git::tracked_count(repo);
    let limit = crate::sys::env::env().after_limit();
    if !rail_core::agent::after::fits(tracked, limit) {
        let (problem, fix) = rail_core::agent::after::too_large(tracked, limit);
        out.push(Finding {
            agent: None,
            place: repo.worktree.display().to_string(),
            problem,
            fix,
            unguarded: false,
        });
    }
    out.extend(git_side(repo, &main));
    Ok(out)
}

/// The git side: the pre-commit and pre-push checks there, every hook Rail installed and the
/// merge driver running a program that resolves (a `rail` gone from PATH fails every commit).
fn git_side(repo: &crate::git::repo::Repo, main: &Path) -> Vec<Finding> {
    use crate::ops::git_hooks::{first_word, hooks_dir, program_of, HOOKS};
    let mut out = Vec::new();
    let hooks = hooks_dir(repo);
    for (name, _) in HOOKS {
        let path = hooks.join(name);
        let text = read(&path).ok().flatten();
        let program = text.as_deref().and_then(program_of);
        let checks = matches!(name, "pre-commit" | "pre-push");
        match program {
            Some(p) if !resolves(&p) => out.push(Finding {
                agent: None,
                place: path.display().to_string(),
                problem: format!("git's {name} hook runs `{p}`, which does not resolve (not on PATH, or no longer there): {}", if checks { "every commit or push it checks fails" } else { "claims git drops are not put back" }),
                fix: format!("put `{p}` on PATH, or run `rail init --hooks` again with the rail you use"),
                unguarded: true,
            }),
            Some(_) => {}
            // Not Rail's hook (or none): the checks are missing; the reconciles are optional
            // (every change puts back lost claims itself).
            None if checks && !text.as_deref().is_some_and(|t| t.contains(" check ")) => out.push(Finding {
                agent: None,
                place: path.display().to_string(),
                problem: format!("git's {name} hook does not run `rail check`: a commit into another session's paths is not caught"),
                fix: "rail init --hooks".into(),
                unguarded: false,
            }),
            None => {}
        }
    }
    match crate::git::config::get(Some(repo), main, "merge.rail.driver") {
        None => out.push(Finding {
            agent: None,
            place: main.join(".git/config").display().to_string(),
            problem: "the merge driver is not configured: a git merge of claims.md can conflict or drop a claim".into(),
            fix: "rail init".into(),
            unguarded: false,
        }),
        Some(driver) => {
            if let Some(p) = first_word(&driver).filter(|p| !resolves(p)) {
                out.push(Finding {
                    agent: None,
                    place: main.join(".git/config").display().to_string(),
                    problem: format!("the merge driver runs `{p}`, which does not resolve: git fails every merge of claims.md"),
                    fix: format!("put `{p}` on PATH, or run `rail init` again with the rail you use"),
                    unguarded: true,
                });
            }
        }
    }
    out
}
