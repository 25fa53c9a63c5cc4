//! Setting agents up: `rail init --agents` and a station's guard: the instruction section, and each agent's files
//! (core's `rail_core::agent::AGENTS`, each agent's `files`) merged into what is there, through
//! core's `jsonc` and, for TOML, `toml_edit`; which agents a checkout is set up for.

use std::path::{Path, PathBuf};

use clap::Args;
use rail_core::agent::setup::{self, FileChanges};
use rail_core::agent::{self, Agent};
use rail_core::formats::jsonc;
use serde_json::Value;

use crate::context::Ctx;
use crate::fail::Fail;
use crate::git::repo;
use crate::out::hint::shell_quote;

#[derive(Args, Debug, Default)]
pub struct AgentsArgs {
    /// Print what would be written (the instruction section and each agent file as merged)
    /// instead of writing it.
    #[arg(long)]
    pub print: bool,
    /// Instruction files to write (default: AGENTS.md, CLAUDE.md and each agent's own that
    /// exist, else AGENTS.md and CLAUDE.md).
    #[arg(long = "file", value_name = "PATH", help = files_help())]
    pub files: Vec<PathBuf>,
    /// The agents to configure, comma-separated: core's list (default: those the repository
    /// shows signs of, else claude).
    #[arg(
        long = "agent",
        id = "agent",
        value_name = "NAMES",
        value_delimiter = ',',
        help = agents_help()
    )]
    pub only: Vec<String>,
}

/// The `--file` help, naming each agent's own instruction file.
fn files_help() -> String {
    format!(
        "Instruction files to write (default: {} that exist, else AGENTS.md and CLAUDE.md)",
        instruction_names().join(", ")
    )
}

/// The `--agent` help, naming every agent of the list.
fn agents_help() -> String {
    let names: Vec<&str> = agent::AGENTS.iter().map(|a| a.name()).collect();
    format!(
        "The agents to configure, comma-separated: {} (default: those the repository shows signs of, else claude)",
        names.join(", ")
    )
}

/// The instruction files that may carry the rail section: AGENTS.md, CLAUDE.md, then each
/// agent's own.
fn instruction_names() -> Vec<&'static str> {
    let mut names = vec!["AGENTS.md", "CLAUDE.md"];
    for own in agent::AGENTS.iter().filter_map(|a| a.own_instructions()) {
        if !names.contains(&own) {
            names.push(own);
        }
    }
    names
}

/// The command git should run for the merge driver: `rail` if it is on PATH and is this
/// binary, else this binary's absolute path.
pub fn rail_command() -> String {
    let exe = std::env::current_exe().ok();
    let on_path = crate::sys::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(format!("rail{}", std::env::consts::EXE_SUFFIX)))
            .find(|p| p.is_file())
    });
    match (exe, on_path) {
        (Some(exe), Some(found))
            if std::fs::canonicalize(&found).ok() == std::fs::canonicalize(&exe).ok() =>
        {
            "rail".into()
        }
        (Some(exe), _) => shell_quote(&exe.display().to_string()),
        (None, _) => "rail".into(),
    }
}

const BEGIN: &str = "<!-- rail:begin -->";
const END: &str = "<!-- rail:end -->";

/// The section for AGENTS.md / CLAUDE.md.
pub fn instructions() -> String {
    format!(
        "{BEGIN}
## Working beside other agents: the rail

Several agent sessions work on this repository at once. Rail keeps them off each other's work;
its hooks enforce the rules below, so follow them rather than fight them.

- **Claim before you edit.** Look at `rail board`, then `rail claim TASK --path GLOB… --purpose \"…\"`
  (add `--resource port:3000` etc. for shared things you will use). If the claim is refused, the
  task or its files are someone else's: pick other work (`rail ready`).
- **Work in your station**: one worktree and branch per task, `rail worktree TASK --path GLOB…`.
- **Keep your lease**: commit on your branch or run `rail renew TASK`. A claim idle past its lease
  (2h by default) goes stale and may be taken.
- **Never edit another session's paths** (`rail who PATH` tells who holds a file). If you need a
  file outside your claim, add it first: `rail update TASK --add-path …` (it keeps the
  paths you hold).
- **Finish through the gate**: `rail done TASK` runs the checks and releases the claim only when
  they pass and your changes are in scope. If you stop early, `rail release TASK`. Never delete
  your worktree yourself: `rail done` closes the station when rail.yaml asks for it and nothing
  would be lost; otherwise it stays for review (`rail worktree remove` is for whoever merges it).
{END}
"
    )
}

/// Puts the section into `text`: replaces an existing one in place, or appends it. Nothing else
/// in the file changes.
pub fn upsert_section(text: &str, section: &str) -> String {
    if let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) {
        if start < end {
            let mut after = end + END.len();
            if text[after..].starts_with("\r\n") {
                after += 2;
            } else if text[after..].starts_with('\n') {
                after += 1;
            }
            return format!("{}{section}{}", &text[..start], &text[after..]);
        }
    }
    let mut out = text.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(section);
    out
}

/// The agents to configure: those named, else those whose files are in the repository, else
/// Claude Code (what `rail init --agents` always configured).
fn targets(args: &AgentsArgs, top: &Path) -> Result<Vec<Agent>, Fail> {
    if !args.only.is_empty() {
        let mut out: Vec<Agent> = Vec::new();
        for name in &args.only {
            let t = Agent::parse(name).map_err(Fail::usage)?;
            if !out.contains(&t) {
                out.push(t);
            }
        }
        return Ok(out);
    }
    let found: Vec<Agent> = agent::AGENTS
        .iter()
        .copied()
        .filter(|t| t.markers().iter().any(|m| top.join(m).exists()))
        .collect();
    Ok(if found.is_empty() {
        vec![agent::claude::AGENT]
    } else {
        found
    })
}

/// Sets `entries` in the TOML table at `table`, keeping everything else as it was (toml_edit
/// keeps comments, order and formatting); a value already equal is left untouched.
fn merge_toml(text: &str, table: &[&str], entries: &[(&str, Value)]) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut =
        text.parse().map_err(|e| format!("not valid TOML ({e})"))?;
    let mut at: &mut toml_edit::Table = doc.as_table_mut();
    for (i, key) in table.iter().enumerate() {
        if !at.contains_key(key) {
            let mut t = toml_edit::Table::new();
            // `[mcp_servers.rail]` alone, not an empty `[mcp_servers]` header above it.
            t.set_implicit(i + 1 < table.len());
            at.insert(key, toml_edit::Item::Table(t));
        }
        at = match at.get_mut(key) {
            Some(toml_edit::Item::Table(t)) => t,
            _ => return Err(format!("`{}` is not a table", table[..=i].join("."))),
        };
    }
    for (key, value) in entries {
        let wanted = toml_value(value)?;
        let same = at
            .get(key)
            .and_then(|i| i.as_value())
            .is_some_and(|v| v.to_string().trim() == wanted.to_string().trim());
        if !same {
            at.insert(key, toml_edit::Item::Value(wanted));
        }
    }
    let out = doc.to_string();
    // An unchanged document prints back as it was read; keep the original bytes regardless.
    if out == text {
        return Ok(text.to_string());
    }
    Ok(out)
}

fn toml_value(v: &Value) -> Result<toml_edit::Value, String> {
    Ok(match v {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => n.as_i64().ok_or("not an integer")?.into(),
        Value::Array(items) => {
            let mut a = toml_edit::Array::new();
            for i in items {
                a.push(toml_value(i)?);
            }
            toml_edit::Value::Array(a)
        }
        _ => return Err("not a TOML value Rail writes".into()),
    })
}

/// The program an MCP client starts (no shell, so no quoting): `rail` on PATH, else this one.
fn rail_exe(rail: &str) -> String {
    if rail == "rail" {
        return rail.into();
    }
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| rail.to_string())
}

/// One file Rail would write: where, what is there (`None`: missing), and the text Rail wants.
struct Planned {
    path: PathBuf,
    /// An instruction file (the rail section), not an agent's config.
    section: bool,
    old: Option<String>,
    new: String,
    /// Entries of Rail's left out beside one of the user's (core's `Change::UpsertAlone`), each
    /// in a sentence.
    notes: Vec<String>,
}

impl Planned {
    fn changes(&self) -> bool {
        self.old.as_deref() != Some(self.new.as_str())
    }
}

/// Every file `targets` need under `top`, read and merged (nothing written): the agents' config
/// files (each at `place(path)`: the project file, or for a station the agent's local variant,
/// core's `setup::station_path`), then the rail section of each of `instruction_files`. One
/// unreadable or unparsable file anywhere is an error before anything is written. This is the
/// one implementation behind `rail init --agents` and a station's guard.
fn plan(
    top: &Path,
    targets: &[Agent],
    instruction_files: Vec<PathBuf>,
    rail: &str,
    place: fn(&'static str) -> &'static str,
) -> Result<Vec<Planned>, Fail> {
    let exe = rail_exe(rail);
    let mut writes: Vec<Planned> = Vec::new();
    for target in targets {
        for file in target.files(rail, &exe) {
            let path = top.join(place(file.path()));
            // A file merged already (Claude's settings serve VS Code too) is merged again from
            // the merged text: the changes are idempotent.
            let (text, old) = match writes.iter().position(|w| w.path == path) {
                Some(i) => {
                    let w = writes.remove(i);
                    (w.new, w.old)
                }
                // Read without following a link, the directories on the way included (a
                // committed `.claude -> ~/.claude` is refused here, before anything is written).
                None => match crate::sys::railfile::read_inside(top, &path) {
                    Ok(Some(t)) => (t.clone(), Some(t)),
                    Ok(None) => (String::new(), None),
                    Err(e) => return Err(Fail::env(crate::sys::railfile::describe(&path, &e))),
                },
            };
            // The files the agent merges with this one (Claude Code's settings.json and
            // settings.local.json), as they are: an entry that must be alone looks at them too.
            let beside: Vec<Value> = setup::merged_with(place(file.path()))
                .iter()
                .filter_map(|p| {
                    crate::sys::railfile::read_inside(top, &top.join(p))
                        .ok()
                        .flatten()
                })
                .filter_map(|t| jsonc::parse(&t).ok().map(|n| n.to_value()))
                .collect();
            let new = match &file {
                FileChanges::Json { changes, .. } => jsonc::apply_beside(&text, changes, &beside),
                FileChanges::Toml { table, entries, .. } => merge_toml(&text, table, entries),
            }
            .map_err(|e| {
                Fail::usage(format!(
                    "{}: {e}; fix it, then run `rail init --agents` again (nothing was changed)",
                    path.display()
                ))
            })?;
            let mut notes = Vec::new();
            if let (FileChanges::Json { changes, .. }, Ok(doc)) = (&file, jsonc::parse(&new)) {
                let mut docs = vec![doc.to_value()];
                docs.extend(beside);
                for held in changes.iter().filter_map(|c| c.held_back(&docs)) {
                    let mut said = format!(
                        "{}: a hook of your own (`{}`) is left as it is; {}",
                        rel(top, &path),
                        held.command,
                        held.note
                    );
                    if held.ours_too {
                        said.push_str(
                            "; Rail's own, added before yours, still runs beside it: remove one of the two",
                        );
                    }
                    if !notes.contains(&said) {
                        notes.push(said);
                    }
                }
            }
            writes.push(Planned {
                path,
                section: false,
                old,
                new,
                notes,
            });
        }
    }
    let section = instructions();
    let mut instruction_files = instruction_files;
    instruction_files.dedup();
    // Each instruction file read now, in the same read phase: a refused one changes nothing.
    for file in instruction_files {
        let old = crate::sys::railfile::read_inside(top, &file)
            .map_err(|e| Fail::env(crate::sys::railfile::describe(&file, &e)))?;
        let new = upsert_section(old.as_deref().unwrap_or_default(), &section);
        writes.push(Planned {
            path: file,
            section: true,
            old,
            new,
            notes: Vec::new(),
        });
    }
    Ok(writes)
}

/// Writes `planned` under `top` through Rail's one safe writer (no link followed, no directory
/// created through one).
fn write_planned(top: &Path, planned: &Planned) -> Result<(), Fail> {
    crate::sys::railfile::write_inside(top, &planned.path, planned.new.as_bytes(), false)
        .map_err(|e| Fail::env(crate::sys::railfile::describe(&planned.path, &e)))
}

fn rel(top: &Path, path: &Path) -> String {
    path.strip_prefix(top)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Which of `paths` (relative to `top`) git tracks in the checkout `top`.
fn tracked(top: &Path, paths: &[String]) -> Result<Vec<String>, Fail> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let line = crate::git::GitLine::new(&["--literal-pathspecs", "ls-files", "-z"])
        .paths(paths.iter().map(String::as_str));
    let out = crate::git::run(top, &line).map_err(Fail::env)?;
    Ok(out
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect())
}

pub fn init_agents(ctx: &Ctx, args: &AgentsArgs, rail: &str) -> Result<Vec<String>, Fail> {
    let top = ctx
        .repo
        .as_ref()
        .map(|r| r.worktree.clone())
        .unwrap_or_else(|| ctx.rail.root.clone());
    let targets = targets(args, &top)?;
    let mut instruction_files: Vec<PathBuf> = if args.files.is_empty() {
        let present: Vec<PathBuf> = instruction_names()
            .iter()
            .map(|n| top.join(n))
            // Present in any form: a link counts (and is then refused, never followed).
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect();
        let mut files = if present.is_empty() {
            vec![top.join("AGENTS.md"), top.join("CLAUDE.md")]
        } else {
            present
        };
        // An agent that reads only its own file gets the section there too.
        for own in targets.iter().filter_map(|t| t.own_instructions()) {
            let path = top.join(own);
            if !files.contains(&path) {
                files.push(path);
            }
        }
        files
    } else {
        args.files
            .iter()
            .map(|f| {
                if f.is_absolute() {
                    f.clone()
                } else {
                    top.join(f)
                }
            })
            .collect()
    };
    instruction_files.dedup();
    let planned = plan(&top, &targets, instruction_files, rail, |p| p)?;

    if args.print {
        outln!("{}", instructions());
        for w in planned.iter().filter(|w| !w.section) {
            outln!(
                "# {} (merged into what is there by `rail init --agents`):\n{}",
                rel(&top, &w.path),
                w.new.trim_end()
            );
        }
        for t in &targets {
            outln!("# {}: {}", t.title(), t.needs());
        }
        return Ok(Vec::new());
    }

    let mut done = Vec::new();
    // The sections first, then the agents' files (as before: what a reader meets first).
    let (sections, configs): (Vec<&Planned>, Vec<&Planned>) =
        planned.iter().partition(|w| w.section);
    for w in sections.iter().filter(|w| w.changes()) {
        write_planned(&top, w)?;
        done.push(format!("wrote the rail section of {}", w.path.display()));
    }
    for w in configs.iter().filter(|w| w.changes()) {
        write_planned(&top, w)?;
        done.push(format!("merged Rail's entries into {}", w.path.display()));
    }
    if !done.is_empty() {
        for t in &targets {
            done.push(format!("{}: {}", t.title(), t.needs()));
        }
    }
    for w in &planned {
        done.extend(w.notes.iter().cloned());
    }
    // What a clone (a teammate's, or a station made from a commit) gets only once committed.
    if ctx.repo.is_some() {
        let mut files: Vec<String> = planned.iter().map(|w| rel(&top, &w.path)).collect();
        files.dedup();
        let known = tracked(&top, &files).unwrap_or_default();
        let untracked: Vec<String> = files.into_iter().filter(|f| !known.contains(f)).collect();
        if !untracked.is_empty() {
            done.push(format!(
                "commit these so teammates' clones and stations made from later commits are guarded too: git add -f -- {} && git commit -m \"Rail: agent hooks\" (until then `rail worktree` copies them into each new station; -f: stations list them in .git/info/exclude)",
                untracked.join(" ")
            ));
        }
        // What still leaves an agent unguarded here (trust, stations): `rail doctor`'s findings.
        if let Ok(found) = crate::ops::doctor::findings(ctx) {
            for f in found.iter().filter(|f| f.unguarded && f.agent.is_some()) {
                done.push(format!(
                    "rail doctor: {}: {} (at {}); fix: {}",
                    f.agent.as_deref().unwrap_or(""),
                    f.problem,
                    f.place,
                    f.fix
                ));
            }
        }
    }
    Ok(done)
}

/// The agents Rail is set up for in the checkout `top` (core `setup::configured`, from the
/// files as they are there: tracked, or written by Rail).
pub fn configured_in(top: &Path) -> Vec<Agent> {
    setup::configured(|p| {
        crate::sys::railfile::read_inside(top, &top.join(p))
            .ok()
            .flatten()
    })
}

/// What guarding a station did.
#[derive(Debug, Default, serde::Serialize)]
pub struct Guarded {
    /// The agents set up in the main checkout, by title.
    pub agents: Vec<String>,
    /// Files written into the station (relative to it).
    pub wrote: Vec<String>,
    /// Files left as they were: tracked by the station's branch, or already there.
    pub kept: Vec<String>,
    /// Patterns added to the repository's info/exclude.
    pub excluded: Vec<String>,
    /// Entries of Rail's left out beside the user's own (a WorktreeCreate hook of theirs).
    pub notes: Vec<String>,
}

impl Guarded {
    pub fn message(&self) -> Option<String> {
        if self.agents.is_empty() {
            return None;
        }
        let mut m = format!("guarded for {}", self.agents.join(", "));
        if self.wrote.is_empty() {
            m.push_str(": its branch tracks the agents' files");
        } else {
            m.push_str(&format!(
                ": wrote {} (not tracked by its branch; kept out of git by info/exclude)",
                self.wrote.join(", ")
            ));
        }
        if !self.kept.is_empty() {
            m.push_str(&format!("; left as they are: {}", self.kept.join(", ")));
        }
        for note in &self.notes {
            m.push_str(&format!("; {note}"));
        }
        // Their trust is per folder, and a station is a folder of its own.
        let per_folder: Vec<&str> = agent::AGENTS
            .iter()
            .filter(|a| a.trust().is_some_and(|t| !t.by_main_checkout))
            .map(|a| a.title())
            .filter(|a| self.agents.iter().any(|t| t == a))
            .collect();
        if !per_folder.is_empty() {
            m.push_str(&format!(
                "; {} load project hooks only in a trusted folder: trust this one (or a folder above it and the main checkout)",
                per_folder.join(" and ")
            ));
        }
        Some(m)
    }
}

/// Gives the checkout `station` (a worktree of `repo`) every agent set up in the main checkout:
/// each agent file and rail section `rail init --agents` writes (the same plan, at each agent's
/// station path), written only where the station's branch does not track the file and no file
/// is there, so nothing the user tracks or wrote changes; each written path is listed in the
/// common dir's info/exclude, so `git status`, Rail's scope checks, `git add -A` and
/// `git worktree remove` leave it out. Design: docs/agents.md, "Stations".
pub fn guard_station(repo: &repo::Repo, station: &Path, rail: &str) -> Result<Guarded, Fail> {
    let main = repo.main_checkout();
    let read_main = |p: &str| {
        crate::sys::railfile::read_inside(&main, &main.join(p))
            .ok()
            .flatten()
    };
    let targets = configured_in(&main);
    let mut guarded = Guarded {
        agents: targets.iter().map(|t| t.title().to_string()).collect(),
        ..Guarded::default()
    };
    if targets.is_empty() {
        return Ok(guarded);
    }
    // The instruction files that carry the rail section in the main checkout, and each agent's
    // own one.
    let mut files: Vec<PathBuf> = instruction_names()
        .into_iter()
        .filter(|n| read_main(n).is_some_and(|t| t.contains(BEGIN)))
        .map(|n| station.join(n))
        .collect();
    for own in targets.iter().filter_map(|t| t.own_instructions()) {
        let path = station.join(own);
        if !files.contains(&path) {
            files.push(path);
        }
    }
    // An agent whose Rail hook the station has already (its branch tracks the agent's files)
    // needs nothing more: no second copy of its hooks beside the committed ones.
    let needed = setup::unguarded(&targets, &configured_in(station));
    let planned = plan(station, &needed, files, rail, setup::station_path)?;
    let rels: Vec<String> = planned.iter().map(|w| rel(station, &w.path)).collect();
    let known = tracked(station, &rels)?;
    let mut writes = Vec::new();
    for (w, r) in planned.iter().zip(&rels) {
        guarded.notes.extend(w.notes.iter().cloned());
        if known.contains(r) || w.old.is_some() {
            // A file Rail wrote before (guarded again) is what Rail would write: not news.
            if w.changes() {
                guarded.kept.push(r.clone());
            }
            continue;
        }
        writes.push((w, r));
    }
    // Excluded before the files appear: `git status` never shows them, even for a moment.
    let exclude = repo.common_dir.join("info").join("exclude");
    let paths: Vec<&str> = writes.iter().map(|(_, r)| r.as_str()).collect();
    let old = crate::sys::railfile::read_inside(&repo.common_dir, &exclude)
        .map_err(|e| Fail::env(crate::sys::railfile::describe(&exclude, &e)))?
        .unwrap_or_default();
    if let Some(text) = setup::with_excludes(&old, &paths) {
        crate::sys::railfile::write_inside(&repo.common_dir, &exclude, text.as_bytes(), false)
            .map_err(|e| Fail::env(crate::sys::railfile::describe(&exclude, &e)))?;
        guarded.excluded = text
            .lines()
            .filter(|l| !old.lines().any(|o| o.trim() == l.trim()))
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect();
    }
    for (w, r) in writes {
        write_planned(station, w)?;
        guarded.wrote.push(r.clone());
    }
    Ok(guarded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_is_replaced_in_place_never_duplicated() {
        let section = instructions();
        let user = "# Agents\n\nBe nice.\n";
        let once = upsert_section(user, &section);
        assert!(once.starts_with(user));
        assert_eq!(upsert_section(&once, &section), once);
        let edited = once.replace("Keep your lease", "Keep the lease");
        let fixed = upsert_section(&format!("{edited}\n## After\nmore\n"), &section);
        assert_eq!(fixed, format!("{once}\n## After\nmore\n"));
    }

    #[test]
    fn toml_is_merged_in_place_and_idempotently() {
        let text =
            "# my codex config\nmodel = \"gpt-5\" # pinned\n\n[mcp_servers.db]\ncommand = \"db\"\n";
        let entries = [
            ("command", serde_json::json!("rail")),
            ("args", serde_json::json!(["mcp"])),
        ];
        let once = merge_toml(text, &["mcp_servers", "rail"], &entries).unwrap();
        assert!(once.starts_with(text), "{once}");
        assert!(
            once.ends_with("[mcp_servers.rail]\ncommand = \"rail\"\nargs = [\"mcp\"]\n"),
            "{once}"
        );
        assert_eq!(
            merge_toml(&once, &["mcp_servers", "rail"], &entries).unwrap(),
            once
        );
        let empty = merge_toml("", &["mcp_servers", "rail"], &entries).unwrap();
        assert_eq!(
            empty,
            "[mcp_servers.rail]\ncommand = \"rail\"\nargs = [\"mcp\"]\n"
        );
        assert!(merge_toml("mcp_servers = 3\n", &["mcp_servers", "rail"], &entries).is_err());
        assert!(merge_toml("[x\n", &["mcp_servers", "rail"], &entries).is_err());
    }
}
