//! Claude Code's worktree hooks through the real `rail hook claude` on real repositories:
//! WorktreeCreate (`claude --worktree NAME`) makes a Rail station — worktree, branch, claim,
//! guard — and answers with its path alone; WorktreeRemove closes only a station the hook made,
//! by `rail worktree remove`'s rules; hostile names are refused with nothing made anywhere; a
//! user's own WorktreeCreate hook is left as the only one. The payloads are those Claude Code
//! 2.1.332 sent (tests/fixtures/hooks/claude/worktree-*.json).

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

use crate::common::NoSession;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{code, commit, git_in, hook_call, rail_bin, stderr, stdout};

/// A repository at `<top>/app` (its stations go beside it, in `top`, removed with it), with
/// `rail init` and `rail init --agents --agent claude` done; nothing of the agents' committed
/// (the README's order).
struct Home {
    top: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let home = Home::bare();
        home.agents();
        home
    }

    /// The repository with the rail and no agent set up.
    fn bare() -> Home {
        let top = tempfile::Builder::new()
            .prefix("rail-wt-hook-")
            .tempdir()
            .unwrap();
        let home = Home { top };
        std::fs::create_dir(home.main()).unwrap();
        home.git(&["init", "-q", "-b", "main"]);
        home.git(&["config", "user.email", "test@example.invalid"]);
        home.git(&["config", "user.name", "Rail Test"]);
        std::fs::write(home.main().join("README.md"), "app\n").unwrap();
        home.git(&["add", "-A"]);
        home.git(&["commit", "-qm", "init"]);
        home.ok(&["init"]);
        home.git(&["add", "-A"]);
        home.git(&["commit", "-qm", "rail init"]);
        home
    }

    fn agents(&self) -> Output {
        self.ok(&["init", "--agents", "--agent", "claude"])
    }

    /// The main checkout, as the file system names it (the temp dir may be behind a link).
    fn main(&self) -> PathBuf {
        self.top.path().canonicalize().unwrap().join("app")
    }

    /// Where Rail puts the station of branch `name`: beside the main checkout.
    fn station(&self, name: &str) -> PathBuf {
        self.main().with_file_name(format!("app-{name}"))
    }

    fn git(&self, args: &[&str]) -> String {
        git_in(&self.main(), args)
    }

    fn rail(&self, args: &[&str]) -> Output {
        std::process::Command::new(rail_bin())
            .args(args)
            .current_dir(self.main())
            .no_session()
            .env_remove("RAIL_DIR")
            .env_remove("RAIL_NOW")
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> Output {
        let out = self.rail(args);
        assert_eq!(code(&out), 0, "rail {args:?}: {}", stderr(&out));
        out
    }

    fn holders(&self, task: &str) -> Vec<String> {
        std::fs::read_to_string(self.main().join("claims.md"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with(&format!("{task} |")))
            .map(str::to_string)
            .collect()
    }

    /// What is in `top` and what git has as worktrees and branches: a refusal changes none of it.
    fn everything(&self) -> (Vec<String>, String, String, String) {
        let mut names: Vec<String> = std::fs::read_dir(self.top.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        (
            names,
            self.git(&["worktree", "list", "--porcelain"]),
            self.git(&["branch", "--list"]),
            std::fs::read_to_string(self.main().join("claims.md")).unwrap_or_default(),
        )
    }

    /// WorktreeCreate for `name`, as Claude Code sends it from the main checkout.
    fn create(&self, name: &str) -> Output {
        self.create_from("worktree-create.json", name, &[])
    }

    fn create_from(&self, fixture: &str, name: &str, env: &[(&str, &str)]) -> Output {
        let main = self.main();
        let payload = fixture_text(fixture)
            .replace("{{CWD}}", &json_text(&main.display().to_string()))
            .replace("{{NAME}}", &json_text(name));
        hook_call("claude", &main, &payload, None, env)
    }

    /// WorktreeRemove for `path`, as Claude Code sends it from inside that worktree.
    fn remove(&self, path: &Path) -> Output {
        let cwd = if path.is_dir() {
            path.to_path_buf()
        } else {
            self.main()
        };
        let payload = fixture_text("worktree-remove.json")
            .replace("{{CWD}}", &json_text(&cwd.display().to_string()))
            .replace("{{PATH}}", &json_text(&path.display().to_string()));
        hook_call("claude", &cwd, &payload, None, &[])
    }
}

fn fixture_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hooks/claude")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// `s` as it stands inside a JSON string.
fn json_text(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

#[test]
fn worktree_create_makes_a_guarded_station_and_answers_with_its_path_alone() {
    let home = Home::new();
    let out = home.create("auth-fix");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let station = home.station("auth-fix");
    // Claude Code takes stdout as the worktree's path: nothing else is on it.
    assert_eq!(stdout(&out), format!("{}\n", station.display()));
    assert!(station.join("README.md").is_file());
    // On its own branch, the task's; the claim held by the station's session.
    assert_eq!(
        git_in(&station, &["symbolic-ref", "--short", "HEAD"]).trim(),
        "auth-fix"
    );
    let held = home.holders("auth-fix");
    assert_eq!(held.len(), 1, "{held:?}");
    assert!(held[0].starts_with("auth-fix | auth-fix |"), "{held:?}");
    // Guarded as `rail worktree` guards: Claude Code's local settings, with the hooks.
    let local = std::fs::read_to_string(station.join(".claude/settings.local.json")).unwrap();
    assert!(
        local.contains("hook claude") && local.contains("PreToolUse"),
        "{local}"
    );
    assert_eq!(git_in(&station, &["status", "--porcelain"]), "");
    // `rail worktree list` finds it, guarded, with its task.
    let list = stdout(&home.ok(&["worktree", "list"]));
    let row = list
        .lines()
        .find(|l| l.starts_with(&station.display().to_string()))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(
        row.contains("auth-fix") && row.contains("live") && row.contains("guarded"),
        "{row}"
    );
    // The hooks in the station act as its session: a write into another session's path is
    // denied there.
    home.ok(&[
        "claim",
        "billing",
        "--session",
        "other",
        "--path",
        "billing/**",
    ]);
    let write = serde_json::json!({
        "hook_event_name": "PreToolUse", "cwd": station, "tool_name": "Write",
        "tool_input": { "file_path": station.join("billing/x.ts"), "content": "x" },
    })
    .to_string();
    let out = hook_call("claude", &station, &write, None, &[]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claimed by other"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn starting_again_goes_back_into_the_station_and_a_subagents_worktree_is_one_too() {
    let home = Home::new();
    let first = home.create("auth");
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    // The session ended (SessionEnd released the claim); the station stays, and the next
    // `claude --worktree auth` goes back into it, claiming the task again.
    home.ok(&["release", "auth", "--session", "auth", "--no-touched"]);
    let again = home.create("auth");
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert_eq!(stdout(&again), stdout(&first));
    assert_eq!(home.holders("auth").len(), 1);
    assert_eq!(
        home.git(&["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        2
    );
    // A subagent's worktree isolation sends its own name (and a prompt id).
    let sub = home.create_from(
        "worktree-create-subagent.json",
        "agent-a959f1e43b981aa74",
        &[],
    );
    assert_eq!(code(&sub), 0, "{}", stderr(&sub));
    assert_eq!(
        stdout(&sub).trim(),
        home.station("agent-a959f1e43b981aa74")
            .display()
            .to_string()
    );
}

#[test]
fn a_task_another_session_holds_is_refused_and_nothing_is_made() {
    let home = Home::new();
    home.ok(&["claim", "auth", "--session", "alice", "--path", "src/**"]);
    // Stale too: taking is a person's decision (`rail take`), never a worktree's.
    home.ok(&[
        "claim",
        "old",
        "--session",
        "bob",
        "--now",
        "2020-01-01T00:00:00Z",
    ]);
    for task in ["auth", "old"] {
        let before = home.everything();
        let out = home.create(task);
        assert_eq!(code(&out), 1, "{task}: {}", stdout(&out));
        assert_eq!(stdout(&out), "", "{task}: no path on a refusal");
        let err = stderr(&out);
        assert!(err.starts_with("Rail: "), "{err}");
        assert!(
            err.contains(if task == "auth" { "alice" } else { "bob" }),
            "{err}"
        );
        assert_eq!(home.everything(), before, "{task}");
    }
}

#[test]
fn hostile_names_are_refused_and_nothing_is_written_anywhere() {
    let home = Home::new();
    let long = "a".repeat(300);
    for name in [
        "../evil",
        "..",
        ".hidden",
        "a/b",
        "/tmp/x",
        "-b",
        "--help",
        "a b",
        "x;$(touch pwned)",
        "`id`",
        "ünï",
        "аuth",
        "a\u{1b}[31m",
        "a\u{0}b",
        "trail.",
        "x.lock",
        long.as_str(),
        "",
    ] {
        let before = home.everything();
        let out = home.create(name);
        assert_eq!(code(&out), 1, "{name:?}: {}", stdout(&out));
        assert_eq!(stdout(&out), "", "{name:?}");
        assert!(stderr(&out).contains("no station is made") || stderr(&out).contains("Rail: "));
        // Nothing escaped: no file in the main checkout's parent, no worktree, branch or claim.
        assert_eq!(home.everything(), before, "{name:?}");
        assert!(!home.main().join("pwned").exists());
        // The terminal gets no raw control character back.
        assert!(!stderr(&out).contains('\u{1b}'), "{name:?}");
    }
    // A payload that is no JSON, or names no worktree: refused, never a path.
    for bad in [
        "not json",
        r#"{"hook_event_name":"WorktreeCreate","cwd":"/"}"#,
        r#"{"hook_event_name":"WorktreeCreate","name":7}"#,
    ] {
        let out = hook_call("claude", &home.main(), bad, None, &[]);
        assert_ne!(code(&out), 0, "{bad}");
        assert_eq!(stdout(&out), "", "{bad}");
    }
    // `hook_failure: warn` is about tool calls: a worktree that cannot be made is still refused.
    std::fs::write(home.main().join("rail.yaml"), "hook_failure: warn\n").unwrap();
    let out = home.create("../evil");
    assert_eq!((code(&out), stdout(&out)), (1, String::new()));
}

#[test]
fn worktree_remove_closes_a_clean_merged_station_the_hook_made() {
    let home = Home::new();
    assert_eq!(code(&home.create("auth")), 0);
    let station = home.station("auth");
    let out = home.remove(&station);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!station.exists());
    assert!(home.holders("auth").is_empty());
    assert_eq!(home.git(&["branch", "--list", "auth"]), "");
    let log = std::fs::read_to_string(home.main().join("claims.log")).unwrap();
    assert!(
        log.contains("| station-removed | auth |") && log.contains("| released | auth |"),
        "{log}"
    );
}

#[test]
fn worktree_remove_keeps_work_and_what_the_hook_did_not_make() {
    let home = Home::new();
    // Uncommitted work, then unmerged commits: kept, and said why.
    assert_eq!(code(&home.create("dirty")), 0);
    let dirty = home.station("dirty");
    std::fs::write(dirty.join("notes.txt"), "mine\n").unwrap();
    assert_eq!(code(&home.create("ahead")), 0);
    let ahead = home.station("ahead");
    commit(&ahead, "feature.txt", "new\n");
    for (station, says) in [
        (&dirty, "1 file uncommitted (notes.txt)"),
        (&ahead, "1 commit not in main"),
    ] {
        let before = home.everything();
        let out = home.remove(station);
        assert_eq!(code(&out), 1, "{}", stdout(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(station.is_dir());
        assert_eq!(home.everything(), before);
    }
    assert_eq!(
        std::fs::read_to_string(dirty.join("notes.txt")).unwrap(),
        "mine\n"
    );
    // The main checkout, a station `rail worktree` made, a worktree made by hand, a path that
    // is no worktree, a relative path: left as they are.
    home.ok(&["worktree", "web", "--path", "web/**"]);
    let by_hand = home.top.path().canonicalize().unwrap().join("by-hand");
    home.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "by-hand",
        by_hand.to_str().unwrap(),
    ]);
    for path in [
        home.main(),
        home.station("web"),
        by_hand.clone(),
        home.top.path().join("nothing"),
        PathBuf::from("app-web"),
    ] {
        let before = home.everything();
        let out = home.remove(&path);
        assert_eq!(code(&out), 1, "{}: {}", path.display(), stdout(&out));
        assert!(stderr(&out).starts_with("Rail: "), "{}", stderr(&out));
        assert_eq!(home.everything(), before, "{}", path.display());
    }
    assert!(home.station("web").is_dir() && by_hand.is_dir());
}

#[test]
fn init_agents_installs_the_worktree_hooks_beside_the_others() {
    let home = Home::new();
    let settings = std::fs::read_to_string(home.main().join(".claude/settings.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&settings).unwrap();
    for event in ["WorktreeCreate", "WorktreeRemove"] {
        let entries = v["hooks"][event].as_array().unwrap();
        assert_eq!(entries.len(), 1, "{event}: {settings}");
        let command = entries[0]["hooks"][0]["command"].as_str().unwrap();
        assert!(command.ends_with("hook claude"), "{command}");
    }
    // A second run changes nothing.
    home.agents();
    assert_eq!(
        std::fs::read_to_string(home.main().join(".claude/settings.json")).unwrap(),
        settings
    );
}

#[test]
fn a_users_own_worktree_hook_is_left_the_only_one_and_init_says_so() {
    for (file, event) in [
        (".claude/settings.json", "WorktreeCreate"),
        (".claude/settings.local.json", "WorktreeRemove"),
    ] {
        let home = Home::bare();
        std::fs::create_dir_all(home.main().join(".claude")).unwrap();
        let theirs = format!(
            "{{\n  // mine\n  \"hooks\": {{ \"{event}\": [ {{ \"hooks\": [ {{ \"type\": \"command\", \"command\": \"./scripts/wt.sh\" }} ] }} ] }}\n}}\n"
        );
        std::fs::write(home.main().join(file), &theirs).unwrap();
        let out = home.agents();
        let said = stdout(&out);
        assert!(
            said.contains("a hook of your own (`./scripts/wt.sh`) is left as it is")
                && said.contains("rail worktree guard"),
            "{file}: {said}"
        );
        // Theirs byte for byte where it is (the local file untouched; beside Rail's other
        // hooks in settings.json), Rail's worktree pair nowhere.
        let now = std::fs::read_to_string(home.main().join(file)).unwrap();
        let entry = format!(
            "\"{event}\": [ {{ \"hooks\": [ {{ \"type\": \"command\", \"command\": \"./scripts/wt.sh\" }} ] }} ]"
        );
        assert!(
            now.starts_with("{\n  // mine\n") && now.contains(&entry),
            "{file}: {now}"
        );
        if file.ends_with("local.json") {
            assert_eq!(now, theirs);
        }
        let ours = std::fs::read_to_string(home.main().join(".claude/settings.json")).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&ours.replace("// mine", "")).unwrap_or_default();
        assert!(
            v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
                .as_str()
                .is_some_and(|c| c.ends_with("hook claude")),
            "{ours}"
        );
        for e in ["WorktreeCreate", "WorktreeRemove"] {
            let rail_entries = v["hooks"][e]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|x| x.to_string().contains("hook claude"))
                        .count()
                })
                .unwrap_or(0);
            assert_eq!(rail_entries, 0, "{file}: {e}: {ours}");
        }
    }
}

#[test]
fn a_users_hook_added_after_rails_is_named_with_rails_beside_it() {
    let home = Home::new();
    let theirs = r#"{"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "./scripts/wt.sh"}]}]}}"#;
    std::fs::write(home.main().join(".claude/settings.local.json"), theirs).unwrap();
    let settings = std::fs::read_to_string(home.main().join(".claude/settings.json")).unwrap();
    let said = stdout(&home.agents());
    assert!(
        said.contains("(`./scripts/wt.sh`) is left as it is")
            && said.contains("Rail's own, added before yours, still runs beside it"),
        "{said}"
    );
    // Said, not decided for the user: both files as they were.
    assert_eq!(
        std::fs::read_to_string(home.main().join(".claude/settings.json")).unwrap(),
        settings
    );
    assert_eq!(
        std::fs::read_to_string(home.main().join(".claude/settings.local.json")).unwrap(),
        theirs
    );
}

#[test]
fn a_station_gets_no_worktree_hook_beside_one_its_branch_tracks() {
    let home = Home::bare();
    std::fs::create_dir_all(home.main().join(".claude")).unwrap();
    let theirs = r#"{"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "./scripts/wt.sh"}]}]}}"#;
    std::fs::write(home.main().join(".claude/settings.json"), theirs).unwrap();
    home.git(&["add", "-A"]);
    home.git(&["commit", "-qm", "our worktree hook"]);
    // Rail's hooks go into the main checkout's settings, uncommitted: the station's branch
    // tracks only the user's, so the station is guarded through settings.local.json.
    home.agents();
    let out = home.ok(&["worktree", "t1", "--path", "web/**"]);
    assert!(stdout(&out).contains("./scripts/wt.sh"), "{}", stdout(&out));
    let station = home.station("t1");
    let local = std::fs::read_to_string(station.join(".claude/settings.local.json")).unwrap();
    assert!(local.contains("PreToolUse"), "{local}");
    assert!(!local.contains("Worktree"), "{local}");
}
