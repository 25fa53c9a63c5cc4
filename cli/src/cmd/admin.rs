//! Setup and maintenance: init, lock, merge-driver, validating single files.

use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use rail_core::formats::log::{LogEntry, LogEvent as Event};
use rail_core::formats::rail_files::{CLAIMS_MD, CONFIG_FILE, LOG_FILE};
use rail_core::text::diagnostic::Located;
use rail_core::text::LineIndex;

use crate::context::Ctx;
use crate::fail::{self, Fail};
use crate::git;
use crate::lock;

#[derive(Args, Debug)]
pub struct InitArgs {
    /// Also install the pre-commit and pre-push checks (chaining hooks already there).
    #[arg(long)]
    pub hooks: bool,
    /// Also write the rail section of AGENTS.md / CLAUDE.md and configure each agent found (or
    /// named with --agent): its hooks and the `rail mcp` server, merged into its own files.
    #[arg(long)]
    pub agents: bool,
    /// Share the rail across machines through this git remote (e.g. origin).
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
    #[command(flatten)]
    pub agent_args: crate::cmd::agents::AgentsArgs,
}

const CLAIMS_HEADER: &str = "# Claims\n\n<!-- The rail: one line per claimed task, `task | session | time`, written by `rail claim`.\n     Lines inside comments or code blocks are never claims. -->\n";

const HOOK_MARK: &str = "# installed by rail init --hooks";

/// The command git should run for the merge driver: `rail` if it is on PATH and is this
/// binary, else this binary's absolute path.
pub fn rail_command() -> String {
    let exe = std::env::current_exe().ok();
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(format!("rail{}", std::env::consts::EXE_SUFFIX)))
            .find(|p| p.is_file())
    });
    match (exe, on_path) {
        (Some(exe), Some(found))
            if fs::canonicalize(&found).ok() == fs::canonicalize(&exe).ok() =>
        {
            "rail".into()
        }
        (Some(exe), _) => shell_quote(&exe.display().to_string()),
        (None, _) => "rail".into(),
    }
}

pub fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Appends `line` to the work-tree file `path` (inside `root`) unless a line equal to it is
/// already there. True if written. Through [`crate::railfile::write_inside`]: a committed link
/// (`.gitattributes -> ~/.bashrc`) is refused, never followed.
fn ensure_line(root: &Path, path: &Path, line: &str) -> Result<bool, Fail> {
    let describe = |e: std::io::Error| Fail::env(crate::railfile::describe(path, &e));
    let existing = crate::railfile::read_inside(root, path)
        .map_err(describe)?
        .unwrap_or_default();
    if existing.lines().any(|l| l.trim() == line) {
        return Ok(false);
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
    crate::railfile::write_inside(root, path, text.as_bytes(), false).map_err(describe)?;
    Ok(true)
}

pub fn init(ctx: &Ctx, args: &InitArgs) -> Result<(), Fail> {
    // Naming agents asks for them.
    let agents = args.agents || !args.agent_args.only.is_empty();
    if args.agent_args.print && !agents {
        return Err(Fail::usage("--print goes with --agents"));
    }
    if agents && args.agent_args.print {
        crate::cmd::agents::init_agents(ctx, &args.agent_args, &rail_command())?;
        return Ok(());
    }
    let mut done: Vec<String> = Vec::new();
    let claims = ctx.rail.path(CLAIMS_MD);
    // Created only as a new file (a dangling link's target is never created); one already
    // there must be a plain file, as for every other command.
    let describe = |e: std::io::Error| Fail::env(crate::railfile::describe(&claims, &e));
    match crate::railfile::create_new(&claims) {
        Ok(mut f) => {
            use std::io::Write;
            if let Err(e) = f.write_all(CLAIMS_HEADER.as_bytes()) {
                drop(f);
                let _ = fs::remove_file(&claims);
                return Err(describe(e));
            }
            done.push(format!("created {}", claims.display()));
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            crate::railfile::open_read(&claims).map_err(describe)?;
        }
        Err(e) => return Err(describe(e)),
    }
    let repo = ctx.repo.as_ref();
    if let Some(repo) = repo {
        let top = repo.main_checkout();
        // Paths in .gitattributes/.gitignore are relative to the checkout root.
        let rel = ctx.rail.root.canonicalize().ok().and_then(|r| {
            top.canonicalize()
                .ok()
                .and_then(|t| r.strip_prefix(t).ok().map(Path::to_path_buf))
        });
        if let Some(rel) = rel {
            let prefix = if rel.as_os_str().is_empty() {
                String::new()
            } else {
                format!("{}/", rel.display())
            };
            let attrs = top.join(".gitattributes");
            let ignore = top.join(".gitignore");
            // Both looked at before either is written: one refused means neither changes.
            for path in [&attrs, &ignore] {
                crate::railfile::check_inside(&top, path)
                    .map_err(|e| Fail::env(crate::railfile::describe(path, &e)))?;
            }
            if ensure_line(&top, &attrs, &format!("{prefix}{CLAIMS_MD} merge=rail"))? {
                done.push(format!(
                    "{}: {prefix}{CLAIMS_MD} merge=rail",
                    attrs.display()
                ));
            }
            if ensure_line(&top, &attrs, &format!("{prefix}{LOG_FILE} merge=union"))? {
                done.push(format!(
                    "{}: {prefix}{LOG_FILE} merge=union",
                    attrs.display()
                ));
            }
            for pattern in ["claims.md.lock*", "claims.md.journal", "claims/*.rail-tmp"] {
                if ensure_line(&top, &ignore, &format!("{prefix}{pattern}"))? {
                    done.push(format!("{}: {prefix}{pattern}", ignore.display()));
                }
            }
        }
        let driver = format!("{} merge-driver %O %A %B %P", rail_command());
        if git::config_get(&top, "merge.rail.driver").as_deref() != Some(driver.as_str()) {
            git::config_set(&top, "merge.rail.name", "Rail claims merge").map_err(Fail::env)?;
            git::config_set(&top, "merge.rail.driver", &driver).map_err(Fail::env)?;
            done.push(format!("git config merge.rail.driver \"{driver}\""));
        }
        if args.hooks {
            done.extend(install_hooks(repo)?);
        }
        if agents {
            done.extend(crate::cmd::agents::init_agents(
                ctx,
                &args.agent_args,
                &rail_command(),
            )?);
        }
        if let Some(remote) = &args.remote {
            done.extend(crate::shared::init_remote(ctx, remote)?);
        }
    } else if args.hooks || args.remote.is_some() {
        return Err(Fail::env("--hooks needs a git repository"));
    }
    if ctx.json {
        outln_raw!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "ok": true, "done": done }))
                .unwrap_or_default()
        );
    } else if done.is_empty() {
        outln!("rail is already set up in {}", ctx.rail.root.display());
    } else {
        for d in &done {
            outln!("{d}");
        }
    }
    Ok(())
}

/// The hooks directory git uses (core.hooksPath, else <common dir>/hooks).
pub fn hooks_dir(repo: &crate::repo::Repo) -> PathBuf {
    match git::config_get(&repo.worktree, "core.hooksPath") {
        Some(p) => {
            let p = PathBuf::from(p);
            if p.is_absolute() {
                p
            } else {
                repo.worktree.join(p)
            }
        }
        None => repo.common_dir.join("hooks"),
    }
}

fn install_hooks(repo: &crate::repo::Repo) -> Result<Vec<String>, Fail> {
    let dir = hooks_dir(repo);
    // The hooks are written as every work-tree file: no link followed below the checkout (a
    // committed core.hooksPath directory) or the git directory; a hooks directory the user
    // configured elsewhere (a shared one in their home) is theirs, only its files are checked.
    let root = [&repo.worktree, &repo.common_dir]
        .into_iter()
        .find(|r| dir.starts_with(r))
        .cloned()
        .or_else(|| dir.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| dir.clone());
    let describe = |path: &Path, e: std::io::Error| Fail::env(crate::railfile::describe(path, &e));
    let mut done = Vec::new();
    let rail = rail_command();
    for (name, command) in [
        ("pre-commit", format!("{rail} check --staged")),
        ("pre-push", format!("{rail} check --pre-push")),
        // git rewrites claims.md in these without Rail's lock: put back what they dropped.
        ("post-checkout", format!("{rail} reconcile")),
        ("post-merge", format!("{rail} reconcile")),
        ("post-rewrite", format!("{rail} reconcile")),
    ] {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}.rail-chained"));
        let script = format!(
            "#!/bin/sh\n{HOOK_MARK}\n# A hook that was here before runs first, unchanged: {name}.rail-chained\nhere=$(dirname \"$0\")\nif [ -x \"$here/{name}.rail-chained\" ]; then\n  \"$here/{name}.rail-chained\" \"$@\" || exit $?\nfi\nexec {command}\n"
        );
        // A hook that is a link (to a script kept elsewhere) is the user's: it is moved aside
        // as a link (rename moves the name, it does not follow it) and chained like any other.
        let existing = if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            Some(String::new())
        } else {
            crate::railfile::read_bytes_inside(&root, &path)
                .map_err(|e| describe(&path, e))?
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        match existing {
            // Ours already: as it should be, or rewritten below.
            Some(existing) if existing == script => continue,
            Some(existing) if existing.contains(HOOK_MARK) => {}
            Some(_) => {
                if fs::symlink_metadata(&chained).is_ok() {
                    return Err(Fail::env(format!(
                        "{} and {} both exist; merge them by hand",
                        path.display(),
                        chained.display()
                    )));
                }
                fs::rename(&path, &chained)
                    .map_err(|e| Fail::env(format!("{}: {e}", path.display())))?;
                done.push(format!(
                    "kept your {name} hook as {} (it runs first)",
                    chained.display()
                ));
            }
            None => {}
        }
        crate::railfile::write_inside(&root, &path, script.as_bytes(), true)
            .map_err(|e| describe(&path, e))?;
        done.push(format!("installed {}", path.display()));
    }
    Ok(done)
}

pub fn sync(ctx: &Ctx) -> Result<(), Fail> {
    let remote = crate::shared::remote_of(ctx).ok_or_else(|| {
        Fail::usage(
            "this rail is not shared; `rail init --remote NAME` shares it through a git remote",
        )
    })?;
    let outcome = crate::shared::sync(ctx, &remote)?;
    match (&outcome.json, ctx.json) {
        (Some(json), true) => outln_raw!("{json}"),
        _ => outln!("{}", outcome.text),
    }
    Ok(())
}

/// Who holds the rail lock, if anyone, and core's verdict on it (`rail lock`).
#[derive(Debug)]
pub struct LockStatus {
    /// The lock file's owner record (`None`: unreadable) and the verdict; `None`: the lock is free.
    pub found: Option<(
        Option<rail_core::change::lock::LockRecord>,
        rail_core::change::lock::LockVerdict,
    )>,
}

impl LockStatus {
    /// What `rail lock --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        match &self.found {
            None => serde_json::json!({ "held": false }),
            Some((record, verdict)) => {
                serde_json::json!({ "held": true, "record": record, "verdict": verdict })
            }
        }
    }
}

pub fn lock_status(ctx: &Ctx) -> Result<LockStatus, Fail> {
    let found =
        lock::inspect(&ctx.rail.root).map_err(|e| Fail::env(format!("reading the lock: {e}")))?;
    Ok(LockStatus { found })
}

pub fn lock(ctx: &Ctx, break_lock: bool, force: bool) -> Result<(), Fail> {
    if !break_lock {
        let status = lock_status(ctx)?;
        if ctx.json {
            let json = status.to_json();
            if status.found.is_some() {
                outln_raw!(
                    "{}",
                    serde_json::to_string_pretty(&json).unwrap_or_default()
                );
            } else {
                outln_raw!("{json}");
            }
            return Ok(());
        }
        match &status.found {
            None => outln!("the rail lock is free"),
            Some((_, verdict)) => {
                outln!(
                    "the rail lock is {}",
                    crate::hint::say(&verdict.message, verdict.hint.as_ref())
                );
                if verdict.breakable {
                    outln!("it may be broken: `rail lock --break`");
                }
            }
        }
        return Ok(());
    }
    let session = ctx.session().unwrap_or_else(|_| "unknown".into());
    match lock::break_on_request(&ctx.rail.root, force, &session) {
        Ok(None) => {
            if ctx.json {
                outln_raw!("{}", serde_json::json!({ "ok": true, "broken": null }));
            } else {
                outln!("the rail lock is free; nothing to break");
            }
            Ok(())
        }
        Ok(Some(broken)) => {
            if ctx.json {
                outln_raw!(
                    "{}",
                    serde_json::json!({
                        "ok": true,
                        "broken": { "holder": broken.holder, "reason": broken.reason }
                    })
                );
            } else {
                outln!(
                    "broke the lock held by {}: {}",
                    broken.holder,
                    broken.reason
                );
            }
            // Record it, under the lock like every other log line.
            let held = ctx.lock(&session)?;
            let line = LogEntry::new(ctx.now, Event::LockBroken, None, Some(&session))
                .with("holder", broken.holder)
                .with("reason", broken.reason)
                .render();
            let texts = ctx.read(true)?;
            crate::shared::record_local(ctx, &held, &texts, &[line]).map_err(Fail::env)
        }
        Err(message) => Err(Fail::refused(message, None)),
    }
}

/// `rail merge-driver %O %A %B %P`: merges into %A, reports losing claims on stderr.
pub fn merge_driver(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    pathname: Option<&str>,
) -> Result<(), Fail> {
    let read = |p: &Path| {
        fs::read(p)
            .map_err(|e| Fail::refused(format!("{}: {e}", p.display()), None))
            .and_then(|b| {
                String::from_utf8(b).map_err(|_| {
                    Fail::refused(
                        format!("{} is not UTF-8; leaving the merge to you", p.display()),
                        None,
                    )
                })
            })
    };
    let (b, o, t) = (read(base)?, read(ours)?, read(theirs)?);
    // The board's rule needs the time and lease facts: which claims still hold now. Without a
    // rail to read them from (a merge outside any checkout), every claim counts as holding.
    let ctx = Ctx::new(None, None, None, false, false).ok();
    let (facts, config) = match &ctx {
        Some(ctx) => merge_facts(ctx, [&b, &o, &t]),
        None => (
            rail_core::model::input::Facts::at(chrono::Utc::now()),
            rail_core::formats::config::Config::default(),
        ),
    };
    let holding = rail_core::change::merge::Holding {
        facts: &facts,
        lease: config.lease,
        expiring: config.expiring,
    };
    let result = rail_core::change::merge::driver_at(&b, &o, &t, Some(&holding));
    let name = pathname.unwrap_or(CLAIMS_MD);
    if let Some(marked) = &result.refused {
        // %A is not written: git keeps it, ours as it was, as the conflicted file, and exit 1
        // makes git report the conflict instead of recording the markers as resolved.
        errln!(
            "rail merge {name}: {} already holds a conflict marker at line {} (`{}`), left by an \
             earlier merge; not merging: resolve that conflict by hand, then merge again",
            marked.side,
            marked.line,
            // A marker's label can be a whole line of anything: quote its start only.
            if marked.text.chars().count() > 60 {
                format!("{}…", marked.text.chars().take(60).collect::<String>())
            } else {
                marked.text.clone()
            }
        );
        return Err(Fail::refused(String::new(), None));
    }
    // A dropped claim is named in claims.log, its line as written, so it can be put back;
    // written before the merge result: if the log cannot be written, the merge is refused
    // (git reports a conflict) rather than a claim dropped with only a note on stderr.
    if !result.losers.is_empty() {
        let logged = ctx
            .as_ref()
            .ok_or_else(|| "not inside a rail".to_string())
            .and_then(|ctx| log_dropped(ctx, &result.losers));
        if let Err(why) = logged {
            errln!(
                "rail merge {name}: a claim would be dropped and claims.log cannot record it \
                 ({why}); not merging: resolve claims.md by hand"
            );
            return Err(Fail::refused(String::new(), None));
        }
    }
    fs::write(ours, &result.text)
        .map_err(|e| Fail::refused(format!("{}: {e}", ours.display()), None))?;
    for l in &result.losers {
        errln!(
            "rail merge {name}: {} was claimed on both sides; kept {}'s claim, dropped {}'s: {}",
            l.task,
            l.kept_session,
            l.lost_session,
            l.lost_line
        );
    }
    Ok(())
}

/// The facts the merge driver judges leases by: now, the rail's lease settings, the liveness
/// of owner processes on this host named in any side, and branch commit times.
fn merge_facts(
    ctx: &Ctx,
    sides: [&str; 3],
) -> (
    rail_core::model::input::Facts,
    rail_core::formats::config::Config,
) {
    let mut facts = rail_core::model::input::Facts::at(ctx.now);
    facts.host = lock::hostname();
    let config = crate::context::rail_config(ctx);
    for side in sides {
        let doc = rail_core::formats::claims_md::parse(side);
        let pids = doc.lines.iter().filter_map(|line| match &line.kind {
            rail_core::formats::claims_md::LineKind::Claim(c) => c.pid.as_deref(),
            _ => None,
        });
        crate::context::probe_owners(pids, &mut facts);
    }
    let base = ctx
        .repo
        .as_ref()
        .and_then(|r| crate::repo::head_branch(&r.common_dir));
    facts.commits = git::branch_commit_times(&ctx.rail.root, base.as_deref());
    (facts, config)
}

/// Appends a `dropped` entry per claim the merge dropped, under the rail lock, waiting briefly:
/// git holds its index lock meanwhile, and a Rail command holding the rail lock may wait on it.
fn log_dropped(ctx: &Ctx, losers: &[rail_core::change::merge::Loser]) -> Result<(), String> {
    // The merge running this driver holds its checkout's index lock; the log is all this
    // writes (claims.md is git's to write from %A), so that lock is not waited for.
    if let Some(repo) = &ctx.repo {
        crate::gitguard::parent_git_holds(&repo.git_dir);
    }
    let held = ctx
        .lock_within("merge-driver", Some(std::time::Duration::from_secs(2)))
        .map_err(|f| f.message)?;
    let texts = ctx.read(true).map_err(|f| f.message)?;
    let lines: Vec<String> = losers
        .iter()
        .map(|l| l.log_line(ctx.now, "merge"))
        .collect();
    crate::shared::record_local(ctx, &held, &texts, &lines)
}

/// Diagnostics of single files, the kind chosen by name.
pub fn validate_files(paths: &[PathBuf]) -> Result<Vec<Located>, Fail> {
    let mut out = Vec::new();
    for path in paths {
        // The same reading as the rail's own: a link, a FIFO or a device is refused (exit 3)
        // instead of followed or read forever.
        let bytes = match crate::railfile::read(path) {
            Ok(Some((bytes, _))) => bytes,
            Ok(None) => return Err(Fail::usage(format!("{}: no such file", path.display()))),
            Err(e) if crate::railfile::refusal(&e).is_some() => {
                return Err(Fail::env(crate::railfile::describe(path, &e)))
            }
            Err(e) => {
                return Err(Fail {
                    code: fail::USAGE,
                    message: format!("{}: {e}", path.display()),
                    json: None,
                })
            }
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| Fail::usage(format!("{} is not UTF-8", path.display())))?;
        let name = path.display().to_string();
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let diags = if file_name == CONFIG_FILE {
            rail_core::formats::config::parse(&text).1
        } else if file_name.ends_with(".yaml") || file_name.ends_with(".yml") {
            rail_core::formats::claim_file::parse(&format!("claims/{file_name}"), &text).diagnostics
        } else if file_name.ends_with(".log") {
            rail_core::formats::log::parse(&text).diagnostics
        } else {
            rail_core::formats::claims_md::parse(&text).diagnostics
        };
        let index = LineIndex::new(&text);
        out.extend(diags.iter().map(|d| d.locate(&name, &text, &index)));
    }
    Ok(out)
}

/// `rail reconcile`: puts back claims Rail wrote that claims.md lost outside Rail (the
/// post-checkout, post-merge and post-rewrite hooks run it; every change runs it first anyway).
pub fn reconcile(ctx: &Ctx) -> Result<(), Fail> {
    let session = ctx.session().unwrap_or_else(|_| "reconcile".to_string());
    let lock = ctx.lock(&session)?;
    match ctx.rail.recover(&lock) {
        Ok(Some(note)) => errln!("rail: {note}"),
        Ok(None) => {}
        Err(e) => return Err(Fail::env(format!("recovering an interrupted write: {e}"))),
    }
    let texts = ctx.read(true)?;
    let restore = ctx.rail.lost_claims(&texts, ctx.now);
    crate::cmd::mutate::restore_lost(ctx, &lock, texts)?;
    drop(lock);
    let restored: Vec<_> = restore.lost.iter().filter(|l| l.restored).collect();
    if ctx.json {
        let lost: Vec<_> = restore
            .lost
            .iter()
            .map(|l| {
                serde_json::json!({
                    "task": l.task, "session": l.session, "restored": l.restored, "note": l.note
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "ok": true, "lost": lost }))
                .unwrap_or_default()
        );
    } else if restore.lost.is_empty() {
        outln!("claims.md has every claim Rail wrote");
    } else {
        outln!(
            "restored {} of {} claims claims.md lost outside Rail",
            restored.len(),
            restore.lost.len()
        );
    }
    Ok(())
}
