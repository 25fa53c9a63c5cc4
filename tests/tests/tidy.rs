//! Tidy: the code map in docs/architecture.md names every module of core, the CLI and the wasm
//! facade, and every module says what it holds in a `//!` header. A new file that neither its
//! crate's section of the code map nor its own first line explains fails here, so the map stays
//! the architecture rather than a memory of it.

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

use std::fs;
use std::path::{Path, PathBuf};

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
