//! Tidy: the architecture's rules as tests, so docs/architecture.md cannot drift from the code.
//! The code map names every module of core, the CLI and the wasm facade, and every module says
//! what it holds in a `//!` header; core does no I/O; core's folders import only downwards; the
//! CLI keeps its files, functions and top level small; no two public types share a name. Each
//! rule fails with every `file:line` that breaks it. `tidy/scan.rs` reads the Rust source
//! (tokens, paths, public types, functions) for them.

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "tidy/scan.rs"]
mod scan;

use scan::{NamedPath, Tok};

const CRATES: [&str; 3] = ["core", "cli", "wasm"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, as paths relative to it with `/` separators, in a fixed order.
fn sources(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(base, &path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(base).expect("under the base");
                let parts: Vec<_> = rel
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

/// The code map's section for `krate`: from its `### \`krate/\`` heading to the next heading.
fn section<'a>(doc: &'a str, krate: &str) -> &'a str {
    let head = format!("### `{krate}/`");
    let start = doc
        .find(&head)
        .unwrap_or_else(|| panic!("docs/architecture.md has no `{head}` section"));
    let rest = &doc[start + head.len()..];
    let end = rest.find("\n#").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

/// Whether `name` occurs in `text` as a whole path, or after the section's own `src/`: not
/// inside a longer name, so `lock.rs` is not found in `store_lock.rs`, nor in
/// `cli/src/lock.rs` of another crate's prose.
fn names(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = &text[..i];
        let own_src = before.ends_with("src/") && !before.ends_with("/src/");
        let joined = before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || "_/.".contains(c));
        let after = text[i + name.len()..].chars().next();
        (own_src || !joined) && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Whether the code map's section names the module at `rel`: a top-level file by its name; a
/// file in a folder by `folder/file.rs`, or by its name where the section names `folder/`; a
/// folder's `mod.rs` by the folder. The crate roots (`lib.rs`, `main.rs`) are the section itself.
fn mapped(section: &str, rel: &str) -> bool {
    match rel.rsplit_once('/') {
        None => matches!(rel, "lib.rs" | "main.rs") || names(section, rel),
        Some((folder, file)) => {
            let folder = format!("{folder}/");
            names(section, rel)
                || (names(section, &folder) && (file == "mod.rs" || names(section, file)))
        }
    }
}

#[test]
fn the_code_map_names_every_module_and_every_module_has_a_header() {
    let root = root();
    let doc = fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md");
    let mut missing = Vec::new();
    for krate in CRATES {
        let section = section(&doc, krate);
        let src = root.join(krate).join("src");
        for rel in sources(&src) {
            let text = fs::read_to_string(src.join(&rel)).expect("a source file");
            if !text.starts_with("//!") {
                missing.push(format!(
                    "{krate}/src/{rel}: no `//!` header saying what it holds"
                ));
            }
            if !mapped(section, &rel) {
                missing.push(format!(
                    "{krate}/src/{rel}: not in docs/architecture.md's code map (`{krate}/` section)"
                ));
            }
        }
    }
    assert!(missing.is_empty(), "\n{}\n", missing.join("\n"));
}

#[test]
fn a_name_is_found_only_as_a_whole_path() {
    assert!(names("- `lock.rs` — the lock", "lock.rs"));
    assert!(!names("- `store_lock.rs` — x", "lock.rs"));
    assert!(!names("see cli/src/lock.rs", "lock.rs"));
    assert!(names("`src/pack.rs` (a serializer)", "pack.rs"));
    assert!(!names("`lock.rsx`", "lock.rs"));
    assert!(mapped(
        "- `shell/` — the reader: `programs.rs`",
        "shell/programs.rs"
    ));
    assert!(mapped("- `shell/` — the reader", "shell/mod.rs"));
    assert!(!mapped("- `shell/` — the reader", "shell/programs.rs"));
    assert!(!mapped("- `programs.rs`", "shell/programs.rs"));
    assert!(mapped("anything", "lib.rs"));
}

/// The files of core allowed past 800 lines: each one concept that splits no further (a
/// parser, a table), named so in the code map. A file that grows past the limit fails here
/// until it is split or added with its reason; one that shrank below it leaves the list.
const LONG_FILES: [(&str, &str); 6] = [
    ("agent/shell.rs", "one walk over the shell syntax tree"),
    (
        "agent/shell/programs.rs",
        "one table: what each program writes",
    ),
    ("formats/claims_md/mod.rs", "the claims.md parser"),
    ("formats/markdown/blocks.rs", "the block parser"),
    ("formats/markdown/inline.rs", "the inline parser"),
    ("formats/yaml/mod.rs", "the YAML parser"),
];

#[test]
fn no_core_file_passes_800_lines_but_a_named_parser_or_table() {
    let src = root().join("core/src");
    let mut wrong = Vec::new();
    for rel in sources(&src) {
        let lines = fs::read_to_string(src.join(&rel))
            .expect("a source file")
            .lines()
            .count();
        let listed = LONG_FILES.iter().any(|(name, _)| *name == rel);
        if lines > 800 && !listed {
            wrong.push(format!(
                "core/src/{rel}: {lines} lines; split it, or add it to LONG_FILES if it is one parser or table"
            ));
        } else if lines <= 800 && listed {
            wrong.push(format!(
                "core/src/{rel}: {lines} lines, no longer past 800: take it off LONG_FILES"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

/// The diagram at the top of docs/architecture.md: every module of core, by its name, in the
/// row of its folder (the five folders are the architecture; a module the picture leaves out
/// is one the reader never meets).
#[test]
fn the_diagram_names_every_core_module_in_its_folder() {
    let doc =
        fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md");
    let start = doc
        .find("rail-core ─")
        .expect("the diagram's rail-core box");
    let end = start + doc[start..].find("┘").expect("the box's last corner");
    let diagram = &doc[start..end];
    // Each folder's rows: from its `folder/` label to the next folder's.
    let mut rows: Vec<(String, String)> = Vec::new();
    for line in diagram.lines() {
        let cell = line.trim_start_matches(['│', ' ']);
        let (label, rest) = cell.split_once(' ').unwrap_or((cell, ""));
        if label.ends_with('/') {
            rows.push((label.to_string(), rest.to_string()));
        } else if let Some(last) = rows.last_mut() {
            last.1.push(' ');
            last.1.push_str(cell);
        }
    }
    let src = root().join("core/src");
    let mut missing = Vec::new();
    for rel in sources(&src) {
        let Some((folder, file)) = rel.split_once('/') else {
            continue; // lib.rs
        };
        // A module's name: its file's stem, or for a folder module its folder's; the folder's
        // own `mod.rs` is the row's label, and a folder module's parts are the code map's.
        let parts: Vec<&str> = file.split('/').collect();
        let name = match parts.as_slice() {
            [one] => one.trim_end_matches(".rs"),
            [sub, "mod.rs"] => sub,
            _ => continue,
        };
        if matches!(name, "mod" | "tests") {
            continue;
        }
        let words = rows
            .iter()
            .find(|(label, _)| *label == format!("{folder}/"))
            .map(|(_, text)| text.as_str())
            .unwrap_or("");
        let named = words
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == name);
        if !named {
            missing.push(format!(
                "core/src/{rel}: `{name}` is not in the diagram's `{folder}/` row"
            ));
        }
    }
    assert!(missing.is_empty(), "\n{}\n", missing.join("\n"));
}

/// The text and tokens of every `.rs` file under `krate/src`, by path relative to it.
fn scanned(krate: &str) -> Vec<(String, String, Vec<scan::Token>)> {
    let src = root().join(krate).join("src");
    sources(&src)
        .into_iter()
        .map(|rel| {
            let text = fs::read_to_string(src.join(&rel)).expect("a source file");
            let tokens = scan::lex(&text);
            (rel, text, tokens)
        })
        .collect()
}

/// Whether `segments` holds `pattern` as consecutive segments.
fn holds(segments: &[String], pattern: &[&str]) -> bool {
    segments
        .windows(pattern.len())
        .any(|w| w.iter().zip(pattern).all(|(a, b)| a == b))
}

/// What core may not name, and the outside world each reaches. A path matches where it holds
/// these segments in a row, written out (`std::fs::read`) or imported (`use std::{fs, env}`);
/// in-memory `std::io::{Read, Write, Cursor}` are not I/O and stay allowed.
const NO_IO: [(&[&str], &str); 17] = [
    (&["std", "fs"], "the file system"),
    (&["std", "process"], "processes"),
    (&["std", "env"], "the environment"),
    (&["std", "net"], "the network"),
    (&["std", "os"], "the operating system"),
    (&["std", "thread", "sleep"], "the clock"),
    (&["io", "stdin"], "the terminal"),
    (&["io", "stdout"], "the terminal"),
    (&["io", "stderr"], "the terminal"),
    (&["SystemTime"], "the clock"),
    (&["Instant"], "the clock"),
    (&["Utc", "now"], "the clock"),
    (&["Local", "now"], "the clock"),
    (&["chrono", "Local"], "the local time zone"),
    (&["File", "open"], "the file system"),
    (&["File", "create"], "the file system"),
    (&["OpenOptions"], "the file system"),
];

/// Macros that print: core returns text, its hosts print it.
const PRINTING: [&str; 5] = ["print", "println", "eprint", "eprintln", "dbg"];

/// Architecture Invariant: core does no I/O. No file system, process, environment, network,
/// clock or terminal anywhere in `core/src`: hosts pass texts, times and facts in, so every
/// rule runs the same natively, in wasm and in a test at a fixed time. Unit tests included: a
/// test that needs a file or the clock is testing a host, and belongs in the host's tests (or
/// in `core/tests/`, `core/benches/`, which may read their inputs and are not checked here).
/// `include_str!` and `include_bytes!` read at compile time, which is no I/O, but only files
/// inside `core/`: a path outside it would not be in the published crate.
#[test]
fn core_does_no_io() {
    let core = root().join("core");
    let mut found = Vec::new();
    for (rel, _, tokens) in scanned("core") {
        let file_exists = |path: &Path| core.join(path).exists();
        found.extend(io_in(&rel, &tokens, &file_exists));
    }
    assert!(found.is_empty(), "\ncore does I/O:\n{}\n", found.join("\n"));
}

/// What in the file `core/src/{rel}` reaches the outside world, each as `file:line: what`.
/// `exists` says whether a path relative to `core/` is a file there.
fn io_in(rel: &str, tokens: &[scan::Token], exists: &dyn Fn(&Path) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for p in scan::paths(tokens) {
        for (pattern, what) in NO_IO {
            if holds(&p.segments, pattern) {
                found.push(format!(
                    "core/src/{rel}:{}: `{}` reaches {what}",
                    p.line,
                    p.text()
                ));
            }
        }
    }
    for (i, t) in tokens.iter().enumerate() {
        let Tok::Ident(name) = &t.tok else { continue };
        let bang = tokens.get(i + 1).is_some_and(|t| t.is_punct('!'));
        let call = tokens
            .get(i + 2)
            .is_some_and(|t| t.is_punct('(') || t.is_punct('[') || t.is_punct('{'));
        if !(bang && call) {
            continue;
        }
        if PRINTING.contains(&name.as_str()) {
            found.push(format!("core/src/{rel}:{}: `{name}!` prints", t.line));
        }
        if name == "include_str" || name == "include_bytes" {
            let Some(Tok::Str(arg)) = tokens.get(i + 3).map(|t| &t.tok) else {
                found.push(format!(
                    "core/src/{rel}:{}: `{name}!` of a path not written out",
                    t.line
                ));
                continue;
            };
            let file = Path::new("src").join(rel);
            let path = file.parent().expect("a file's folder").join(arg);
            if !inside(&path) || !exists(&path) {
                found.push(format!(
                    "core/src/{rel}:{}: `{name}!(\"{arg}\")` is not a file inside core/",
                    t.line
                ));
            }
        }
    }
    found
}

#[test]
fn io_is_found_however_it_is_written() {
    let src = r#"
use std::{fs, io::{self, Write}};
use chrono::Utc;
fn f(a: &Answer) {
    let now = Utc::now();
    let t = std::time::SystemTime::now();
    io::stdout().flush();
    println!("x");
    let said = a.stdout.clone(); // a field, not the terminal: std::env::var("X")
    let s = "std::process::Command";
    let ok = include_str!("../README.md");
    let far = include_str!("../../docs/format.md");
    if x != y {}
}
"#;
    let readme = |p: &Path| p == Path::new("src/../README.md");
    let found = io_in("x.rs", &scan::lex(src), &readme);
    assert_eq!(
        found,
        [
            "core/src/x.rs:2: `std::fs` reaches the file system",
            "core/src/x.rs:5: `Utc::now` reaches the clock",
            "core/src/x.rs:6: `std::time::SystemTime::now` reaches the clock",
            "core/src/x.rs:7: `io::stdout` reaches the terminal",
            "core/src/x.rs:8: `println!` prints",
            "core/src/x.rs:12: `include_str!(\"../../docs/format.md\")` is not a file inside core/",
        ]
    );
}

/// Whether a relative path stays inside the folder it is relative to (`..` never climbs out).
fn inside(path: &Path) -> bool {
    let mut depth = 0i32;
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => depth -= 1,
            std::path::Component::Normal(_) => depth += 1,
            std::path::Component::CurDir => {}
            _ => return false,
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

#[test]
fn a_path_inside_core_stays_inside() {
    assert!(inside(Path::new("src/../README.md")));
    assert!(!inside(Path::new("src/../../docs/x.md")));
    assert!(!inside(Path::new("/etc/passwd")));
}

/// core/src's folders in the order they are read (core/src/lib.rs): each builds on those before.
const FOLDERS: [&str; 5] = ["text", "formats", "model", "change", "agent"];

/// The module a file of core/src is, as segments: `agent/codex/mod.rs` is `agent::codex`.
fn module_of(rel: &str) -> Vec<String> {
    let rel = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The top folder of core a path written in `module` names, if it names one: `crate::x::…`
/// names `x`; `super::…` climbs out of `module` (and the inline modules the path sits in) and
/// names the folder it lands in, or at the crate root the segment after the last `super`.
fn folder_named(module: &[String], p: &NamedPath) -> Option<String> {
    let segs = &p.segments;
    let named = match segs.first().map(String::as_str) {
        Some("crate") => segs.get(1).cloned(),
        Some("super") => {
            let mut here: Vec<String> = module.to_vec();
            here.extend(p.inline_mods.iter().cloned());
            let ups = segs.iter().take_while(|s| *s == "super").count();
            let base = here.len().checked_sub(ups)?;
            here.first()
                .filter(|_| base > 0)
                .cloned()
                .or_else(|| segs.get(ups).cloned())
        }
        _ => None,
    }?;
    FOLDERS.contains(&named.as_str()).then_some(named)
}

#[test]
fn super_paths_resolve_to_the_folder_they_land_in() {
    let p = |text: &str, inline: &[&str]| NamedPath {
        segments: text.split("::").map(str::to_string).collect(),
        line: 1,
        imported: true,
        inline_mods: inline.iter().map(|s| s.to_string()).collect(),
    };
    let m = module_of("agent/codex/mod.rs");
    assert_eq!(m, ["agent", "codex"]);
    assert_eq!(
        folder_named(&m, &p("super::super::tests::tool", &["tests"])).as_deref(),
        Some("agent")
    );
    assert_eq!(
        folder_named(&m, &p("super::super::model::Rail", &[])).as_deref(),
        Some("model")
    );
    assert_eq!(
        folder_named(&module_of("formats/mod.rs"), &p("super::agent::x", &[])).as_deref(),
        Some("agent")
    );
    assert_eq!(
        folder_named(&m, &p("crate::text::Span", &[])).as_deref(),
        Some("text")
    );
    assert_eq!(folder_named(&m, &p("serde::Serialize", &[])), None);
}

/// Architecture Invariant: core's folders are layers. `text` < `formats` < `model` < `change`
/// < `agent` (core/src/lib.rs): a module uses its own folder and the folders before it, never
/// one after, so each folder can be read, tested and reasoned about without those above it, and
/// a concept lives in the lowest folder that needs it (a type `model` uses lives in `model` or
/// below). Checked on every `use` (grouped and nested trees expanded), every `crate::folder::`
/// path in code and in a derive's string (`serde(with = "crate::…")`), and every `super::` that
/// climbs out of its folder; comments and doc links are not imports and may point anywhere.
#[test]
fn core_folders_import_only_folders_before_them() {
    let wrong: Vec<String> = scanned("core")
        .iter()
        .flat_map(|(rel, _, tokens)| against_the_order(rel, tokens))
        .collect();
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

/// Each path of the file `core/src/{rel}` that names a folder after its own, as `file:line`.
fn against_the_order(rel: &str, tokens: &[scan::Token]) -> Vec<String> {
    let module = module_of(rel);
    let Some(own) = module
        .first()
        .and_then(|f| FOLDERS.iter().position(|x| x == f))
    else {
        return Vec::new(); // lib.rs
    };
    let mut wrong = Vec::new();
    for p in scan::paths(tokens) {
        let Some(named) = folder_named(&module, &p) else {
            continue;
        };
        let at = FOLDERS.iter().position(|x| *x == named).expect("a folder");
        if at > own {
            wrong.push(format!(
                "core/src/{rel}:{}: `{}`: {} may not use {named} ({})",
                p.line,
                p.text(),
                FOLDERS[own],
                FOLDERS.join(" < ")
            ));
        }
    }
    wrong
}

#[test]
fn an_import_of_a_later_folder_is_found_however_it_is_written() {
    let src = r#"
//! See [`crate::agent::hook`]: a doc link, not an import.
use crate::{text::Span, model::{lease::{self, State}, Rail}};
use super::gitindex::Stat;
#[serde(with = "crate::change::lock::time")]
struct S;
fn f() { let x = crate::agent::hook::land(); }
mod tests {
    use super::super::super::agent::read;
}
"#;
    let wrong = against_the_order("formats/log.rs", &scan::lex(src));
    let lines: Vec<&str> = wrong
        .iter()
        .map(|w| w.split(": `").next().unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            "core/src/formats/log.rs:3",
            "core/src/formats/log.rs:3",
            "core/src/formats/log.rs:3",
            "core/src/formats/log.rs:5",
            "core/src/formats/log.rs:7",
            "core/src/formats/log.rs:9",
        ]
    );
    assert!(wrong[0].contains("`crate::model::lease`: formats may not use model"));
    assert!(against_the_order("agent/hook.rs", &scan::lex(src)).is_empty());
}

/// The CLI's files allowed past 800 lines, each with its reason (one parser or table that
/// splits no further). Empty: every file of the CLI is a concept small enough to read whole.
const LONG_CLI_FILES: [(&str, &str); 0] = [];

/// The CLI stays as clear as core: no file of `cli/src` past 800 lines but one on
/// `LONG_CLI_FILES` with its reason (a long file is several concepts, and a reader must hold
/// it all to change one).
#[test]
fn no_cli_file_passes_800_lines() {
    let mut wrong = Vec::new();
    for (rel, text, _) in scanned("cli") {
        let lines = text.lines().count();
        let listed = LONG_CLI_FILES.iter().any(|(name, _)| *name == rel);
        if lines > 800 && !listed {
            wrong.push(format!(
                "cli/src/{rel}: {lines} lines; split it, or add it to LONG_CLI_FILES with its reason"
            ));
        } else if lines <= 800 && listed {
            wrong.push(format!(
                "cli/src/{rel}: {lines} lines, no longer past 800: take it off LONG_CLI_FILES"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

/// The longest function of `cli/src` without a reason, in lines from `fn` to its closing brace.
const MAX_FN_LINES: usize = 150;

/// No function of `cli/src` over 150 lines (from `fn` to its closing brace) unless a
/// `// long: <reason>` comment sits right above it: in the comments directly above the item,
/// or among its attributes. A long function is steps that want names; where it is one thing
/// (a table, a match over every command), the reason says so where the next reader looks.
#[test]
fn no_cli_function_passes_150_lines_without_a_reason() {
    let mut wrong = Vec::new();
    for (rel, text, tokens) in scanned("cli") {
        let lines: Vec<&str> = text.lines().collect();
        for f in scan::functions(&tokens) {
            if f.lines() > MAX_FN_LINES && !scan::marked_long(&lines, &f) {
                wrong.push(format!(
                    "cli/src/{rel}:{}: fn {} is {} lines; split it, or say why above it (`// long: <reason>`)",
                    f.fn_line,
                    f.name,
                    f.lines()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

/// `cli/src` has at most 12 `.rs` files at its top level: the rest is in folders that say what
/// they hold (the flat 23-module `src/` was where the CLI's import circles grew).
#[test]
fn cli_src_has_at_most_12_top_level_files() {
    let top: Vec<String> = sources(&root().join("cli/src"))
        .into_iter()
        .filter(|rel| !rel.contains('/'))
        .collect();
    assert!(
        top.len() <= 12,
        "\ncli/src has {} .rs files at its top level (at most 12; move the rest into folders):\n{}\n",
        top.len(),
        top.join("\n")
    );
}

/// A command never reaches into another: no file `cli/src/cmd/*.rs` but `cmd/mod.rs` (the
/// dispatcher) names `crate::cmd::…`, in a `use` or in code. What two commands share lives
/// outside `cmd/`, where both import it, so commands stay leaves and no import circle runs
/// through them.
#[test]
fn commands_do_not_import_each_other() {
    let mut wrong = Vec::new();
    for (rel, _, tokens) in scanned("cli") {
        let Some(file) = rel.strip_prefix("cmd/") else {
            continue;
        };
        if file.contains('/') || file == "mod.rs" {
            continue;
        }
        for p in scan::paths(&tokens) {
            if p.segments.len() > 1 && p.segments[0] == "crate" && p.segments[1] == "cmd" {
                wrong.push(format!("cli/src/{rel}:{}: `{}`", p.line, p.text()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "\ncommands importing crate::cmd:: (move what they share out of cmd/):\n{}\n",
        wrong.join("\n")
    );
}

/// One name per meaning: no two public types (`pub`, or `pub(…)` of any reach: struct, enum,
/// type, trait, union) share a name across `core/src`, `cli/src` and `wasm/src`. A reader who
/// meets `Verdict` or `Entry` in an import must know which one it is without looking; a name
/// that says what the type is (`GateVerdict`, `JournalEntry`) does, and a search finds it.
#[test]
fn no_two_public_types_share_a_name() {
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for krate in CRATES {
        for (rel, _, tokens) in scanned(krate) {
            for t in scan::pub_types(&tokens) {
                by_name
                    .entry(t.name)
                    .or_default()
                    .push(format!("{krate}/src/{rel}:{} ({})", t.line, t.kind));
            }
        }
    }
    let shared: Vec<String> = by_name
        .into_iter()
        .filter(|(_, at)| at.len() > 1)
        .map(|(name, at)| format!("{name}: {}", at.join(", ")))
        .collect();
    assert!(
        shared.is_empty(),
        "\npublic types sharing a name (rename each to what it is):\n{}\n",
        shared.join("\n")
    );
}

/// The CLI's layers, bottom up (cli/src/main.rs and docs/architecture.md name them): a module
/// imports only from its own layer or the ones below it, so what two commands, or a command and
/// a hook, share lives in a lower module, and nothing imports in a circle.
const CLI_LAYERS: [&[&str]; 8] = [
    &["sys", "fail", "faults", "out"],
    &["git"],
    &["store"],
    &["context"],
    &["shared"],
    &["ops"],
    &["agent"],
    &["cmd"],
];

/// The layer of a top-level CLI module (`main` is above them all).
fn cli_layer(module: &str) -> Option<usize> {
    if module == "main" {
        return Some(CLI_LAYERS.len());
    }
    CLI_LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `crate::<module>` path a source names (in `use` lines and in code alike), with its
/// line number; comments are skipped.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `rail_core::…` and `some_crate::` are not this crate's paths.
            let joined = rest[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !joined && !name.is_empty() {
                out.push((n + 1, name));
            }
            rest = after;
        }
    }
    out
}

#[test]
fn the_cli_imports_only_from_its_own_layer_or_below() {
    let src = root().join("cli/src");
    let mut wrong = Vec::new();
    for rel in sources(&src) {
        let module = rel
            .split('/')
            .next()
            .unwrap_or_default()
            .trim_end_matches(".rs");
        let Some(own) = cli_layer(module) else {
            wrong.push(format!(
                "cli/src/{rel}: `{module}` is in no layer of CLI_LAYERS (tests/tests/tidy.rs)"
            ));
            continue;
        };
        let text = fs::read_to_string(src.join(&rel)).expect("a source file");
        for (line, used) in crate_paths(&text) {
            if used == module {
                continue;
            }
            match cli_layer(&used) {
                Some(theirs) if theirs <= own => {}
                _ => wrong.push(format!(
                    "cli/src/{rel}:{line}: `{module}` imports `crate::{used}`, a layer above it"
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

#[test]
fn a_crate_path_is_found_in_code_but_not_in_comments_or_other_crates() {
    let text = "use crate::git::repo;\nlet x = rail_core::x; // crate::cmd::y\nmy_crate::z();\n(crate::ops::write::claim)(1);";
    assert_eq!(
        crate_paths(text),
        vec![(1, "git".to_string()), (4, "ops".to_string())]
    );
}

/// Where the CLI may read the process environment and the wall clock: one module each, so every
/// setting a command obeys is read once and named in one place, and every time a command judges
/// by is its context's (`Ctx::now`) or, for what really happens, the clock's.
#[test]
fn the_cli_reads_the_environment_and_the_clock_only_in_sys() {
    let src = root().join("cli/src");
    let reads: [(&str, &[&str]); 2] = [
        (
            "sys/env.rs",
            &["std::env::var", "use std::env;", "use std::env::"],
        ),
        (
            "sys/clock.rs",
            &["Utc::now()", "Local::now()", "SystemTime::now()"],
        ),
    ];
    let mut wrong = Vec::new();
    for rel in sources(&src) {
        let text = fs::read_to_string(src.join(&rel)).expect("a source file");
        for (home, calls) in reads {
            if rel == home {
                continue;
            }
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if let Some(call) = calls.iter().find(|c| code.contains(*c)) {
                    wrong.push(format!(
                        "cli/src/{rel}:{}: `{call}` outside cli/src/{home}",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

/// The tokens of a file outside its test modules (`#[cfg(test)] mod …` and `#[cfg(all(test,
/// …))] mod …`, to their closing brace): what the program itself runs.
fn outside_test_modules(tokens: &[scan::Token]) -> Vec<&scan::Token> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        // `# [ cfg ( … test … ) ]` then `mod name {`.
        if tokens[i].is_punct('#')
            && tokens.get(i + 1).is_some_and(|t| t.is_punct('['))
            && tokens.get(i + 2).is_some_and(|t| t.is_ident("cfg"))
        {
            let close = (i + 3..tokens.len()).find(|&j| tokens[j].is_punct(']'));
            if let Some(close) = close {
                let tested = tokens[i + 3..close].iter().any(|t| t.is_ident("test"));
                let module = tokens.get(close + 1).is_some_and(|t| t.is_ident("mod"))
                    || (tokens.get(close + 1).is_some_and(|t| t.is_ident("pub"))
                        && tokens.get(close + 2).is_some_and(|t| t.is_ident("mod")));
                let open = (close + 1..tokens.len()).find(|&j| tokens[j].is_punct('{'));
                if let (true, true, Some(open)) = (tested, module, open) {
                    let mut depth = 0usize;
                    let mut j = open;
                    while j < tokens.len() {
                        if tokens[j].is_punct('{') {
                            depth += 1;
                        } else if tokens[j].is_punct('}') {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        j += 1;
                    }
                    i = j + 1;
                    continue;
                }
            }
        }
        out.push(&tokens[i]);
        i += 1;
    }
    out
}

/// Architecture Invariant: no value from outside Rail reaches a git command line as an option
/// (issue 41: `rail check --base=--output=F` emptied F, rail.yaml's `remote:
/// --upload-pack=CMD` ran CMD). Every git process of the CLI starts in `cli/src/git/line.rs`,
/// from a `GitLine` that takes options only as Rail's own `&'static str` words and every other
/// value as an operand after `--end-of-options`, refused if it still looks like an option; a
/// started `GitProcess` cannot be given another argument. So: `Command::new("git")` and the
/// `--end-of-options` word appear nowhere else in `cli/src` (test modules aside).
#[test]
fn git_starts_only_from_a_git_line() {
    let mut wrong = Vec::new();
    for (rel, _, tokens) in scanned("cli") {
        if rel == "git/line.rs" {
            continue;
        }
        let code = outside_test_modules(&tokens);
        for (k, t) in code.iter().enumerate() {
            let starts_git = matches!(&t.tok, scan::Tok::Str(s) if s == "git")
                && k >= 2
                && code[k - 1].is_punct('(')
                && code[k - 2].is_ident("new");
            let ends_options = matches!(&t.tok, scan::Tok::Str(s) if s == "--end-of-options");
            if starts_git || ends_options {
                wrong.push(format!("cli/src/{rel}:{}", t.line));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "\ngit started, or its options ended, outside cli/src/git/line.rs (build a GitLine and run it through git::run or git::line::process):\n{}\n",
        wrong.join("\n")
    );
}

#[test]
fn a_git_start_is_found_outside_test_modules_only() {
    let src = "fn a() { Command::new(\"git\"); }\n#[cfg(test)]\nmod tests { fn b() { Command::new(\"git\"); } }\nfn c() { std::process::Command::new(\n \"git\") }";
    let tokens = scan::lex(src);
    let code = outside_test_modules(&tokens);
    let lines: Vec<usize> = code
        .iter()
        .enumerate()
        .filter(|(k, t)| {
            matches!(&t.tok, scan::Tok::Str(s) if s == "git") && code[k - 2].is_ident("new")
        })
        .map(|(_, t)| t.line)
        .collect();
    assert_eq!(lines, vec![1, 5]);
}
