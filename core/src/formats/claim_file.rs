//! Claim files: `claims/<owner>.yaml`, one per participant, naming the paths it owns, the shared
//! resources it uses and its purpose.
//!
//! ```yaml
//! owner: session-a
//! paths:
//! - web/src/image-loader.ts
//! resources:
//! - checkout:test-lock
//! purpose: test the cache invalidation path
//! ```
//!
//! Optional keys: `task`, `since`, `renewed`, `lease`, `after`, `branch`, `pid`, and on release
//! `released` with `touched` (the files actually changed).

use chrono::TimeDelta;

use crate::formats::yaml::{self, Style, Value, YamlDoc, YamlEntry};
use crate::text::diagnostic::{Code, Diagnostic};
use crate::text::edit::TextEdit;
use crate::text::glob;
use crate::text::ident;
use crate::text::time::{self, Time};
use crate::text::Span;

pub const KNOWN_KEYS: &[&str] = &[
    "owner",
    "task",
    "paths",
    "resources",
    "purpose",
    "since",
    "renewed",
    "lease",
    "after",
    "branch",
    "pid",
    "released",
    "touched",
];

/// The meaning of one claim file.
#[derive(Clone, Debug)]
pub struct ClaimFile {
    /// Relative to the rail directory, e.g. `claims/session-a.yaml`.
    pub path: String,
    pub owner: Option<String>,
    pub owner_span: Span,
    pub task: Option<String>,
    pub paths: Vec<String>,
    pub resources: Vec<String>,
    pub after: Vec<String>,
    pub purpose: Option<String>,
    pub since: Option<Time>,
    pub renewed: Option<Time>,
    pub lease: Option<TimeDelta>,
    pub branch: Option<String>,
    pub pid: Option<String>,
    pub released: Option<Time>,
    pub touched: Vec<String>,
    pub yaml: YamlDoc,
    pub diagnostics: Vec<Diagnostic>,
    text: String,
}

impl ClaimFile {
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Usable as a claim: it has an owner (errors elsewhere only drop the bad values).
    pub fn is_valid(&self) -> bool {
        self.owner.is_some()
    }
}

/// Parses a claim file. `path` is used for diagnostics and the owner/file-name check.
pub fn parse(path: &str, text: &str) -> ClaimFile {
    let yaml = yaml::parse(text);
    let mut diags = yaml.diagnostics.clone();
    let mut file = ClaimFile {
        path: path.to_string(),
        owner: None,
        owner_span: Span::empty(0),
        task: None,
        paths: Vec::new(),
        resources: Vec::new(),
        after: Vec::new(),
        purpose: None,
        since: None,
        renewed: None,
        lease: None,
        branch: None,
        pid: None,
        released: None,
        touched: Vec::new(),
        yaml: yaml.clone(),
        diagnostics: Vec::new(),
        text: text.to_string(),
    };
    match yaml.root.as_ref().map(|n| &n.value) {
        Some(Value::Map(_)) => {}
        None => {
            diags.push(Diagnostic::error(
                Code::MissingOwner,
                Span::empty(0),
                "the claim file is empty; it needs at least `owner: <session>`",
            ));
            file.diagnostics = diags;
            return file;
        }
        Some(_) => {
            let span = yaml.root.as_ref().map(|n| n.span).unwrap_or_default();
            diags.push(Diagnostic::error(
                Code::BadValue,
                span,
                "a claim file is a mapping of keys (`owner: …`, `paths: …`)",
            ));
            file.diagnostics = diags;
            return file;
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for entry in yaml.entries() {
        if seen.contains(&entry.key.as_str()) {
            continue; // reported as duplicate-key by the YAML reader
        }
        seen.push(&entry.key);
        read_entry(&mut file, entry, &mut diags);
    }
    // An `owner` that is there but unusable has its own diagnostic already.
    if file.owner.is_none() && yaml.get("owner").is_none() {
        diags.push(Diagnostic::error(
            Code::MissingOwner,
            Span::empty(0),
            "the claim file has no `owner:`; name the session that owns it",
        ));
    }
    if let (Some(owner), Some(name)) = (&file.owner, path.rsplit('/').next()) {
        if let Some(from_name) = ident::owner_from_file_name(name) {
            if &from_name != owner {
                diags.push(Diagnostic::warning(
                    Code::OwnerMismatch,
                    file.owner_span,
                    format!(
                        "owner `{owner}` does not match the file name (expected claims/{})",
                        ident::claim_file_name(owner)
                    ),
                ));
            }
        }
    }
    file.diagnostics = diags;
    file
}

fn scalar(entry: &YamlEntry, diags: &mut Vec<Diagnostic>) -> Option<String> {
    match &entry.value.value {
        Value::Scalar(s) => Some(s.clone()),
        Value::Null => None,
        _ => {
            diags.push(Diagnostic::error(
                Code::BadValue,
                entry.value.span,
                format!("`{}` expects a single value", entry.key),
            ));
            None
        }
    }
}

fn strings(entry: &YamlEntry, diags: &mut Vec<Diagnostic>) -> Vec<(String, Span)> {
    match yaml::string_list(&entry.value) {
        Ok(items) => items,
        Err(message) => {
            diags.push(Diagnostic::error(
                Code::BadValue,
                entry.value.span,
                format!("`{}`: {message}", entry.key),
            ));
            Vec::new()
        }
    }
}

fn read_time(entry: &YamlEntry, diags: &mut Vec<Diagnostic>) -> Option<Time> {
    let value = scalar(entry, diags)?;
    match time::parse_time(&value) {
        Ok(t) => Some(t),
        Err(e) => {
            diags.push(Diagnostic::error(
                Code::BadTime,
                entry.value.span,
                e.to_string(),
            ));
            None
        }
    }
}

fn read_entry(file: &mut ClaimFile, entry: &YamlEntry, diags: &mut Vec<Diagnostic>) {
    let span = entry.value.span;
    match entry.key.as_str() {
        "owner" => {
            if let Some(owner) = scalar(entry, diags) {
                match ident::validate_session(&owner) {
                    Ok(()) => {
                        file.owner = Some(owner);
                        file.owner_span = span;
                    }
                    Err(e) => diags.push(Diagnostic::error(Code::InvalidSession, span, e.0)),
                }
            } else if entry.value.value == Value::Null {
                diags.push(Diagnostic::error(
                    Code::MissingOwner,
                    entry.key_span,
                    "`owner` is empty; name the session that owns this claim",
                ));
            }
        }
        "task" => {
            if let Some(task) = scalar(entry, diags) {
                match ident::validate_task(&task) {
                    Ok(()) => file.task = Some(task),
                    Err(e) => diags.push(Diagnostic::error(Code::InvalidTask, span, e.0)),
                }
            }
        }
        "branch" => {
            if let Some(branch) = scalar(entry, diags) {
                match ident::validate_session(&branch) {
                    Ok(()) => file.branch = Some(branch),
                    Err(e) => diags.push(Diagnostic::error(
                        Code::InvalidSession,
                        span,
                        e.0.replace("session name", "branch"),
                    )),
                }
            }
        }
        "paths" | "touched" => {
            let mut out = Vec::new();
            for (item, item_span) in strings(entry, diags) {
                match glob::normalize(&item) {
                    Ok(p) => out.push(p),
                    Err(e) => diags.push(Diagnostic::error(Code::InvalidPath, item_span, e.0)),
                }
            }
            if entry.key == "paths" {
                file.paths = out;
            } else {
                file.touched = out;
            }
        }
        "resources" => {
            for (item, item_span) in strings(entry, diags) {
                match ident::validate_resource(&item) {
                    Ok(()) => file.resources.push(item),
                    Err(e) => diags.push(Diagnostic::error(Code::InvalidResource, item_span, e.0)),
                }
            }
        }
        "after" => {
            for (item, item_span) in strings(entry, diags) {
                match ident::validate_task(&item) {
                    Ok(()) => file.after.push(item),
                    Err(e) => diags.push(Diagnostic::error(Code::InvalidTask, item_span, e.0)),
                }
            }
        }
        "purpose" => {
            file.purpose = scalar(entry, diags).map(|p| p.trim_end_matches('\n').to_string());
        }
        "since" => file.since = read_time(entry, diags),
        "renewed" => file.renewed = read_time(entry, diags),
        "released" => file.released = read_time(entry, diags),
        "lease" => {
            if let Some(value) = scalar(entry, diags) {
                match time::parse_duration(&value) {
                    Ok(d) => file.lease = Some(d),
                    Err(e) => diags.push(Diagnostic::error(Code::BadDuration, span, e.to_string())),
                }
            }
        }
        "pid" => file.pid = scalar(entry, diags),
        other => diags.push(Diagnostic::warning(
            Code::UnknownField,
            entry.key_span,
            format!(
                "unknown key `{other}` is kept but ignored (known: {})",
                KNOWN_KEYS.join(", ")
            ),
        )),
    }
}

/// A value to write into a claim file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NewValue {
    Scalar(String),
    List(Vec<String>),
}

fn render_entry(key: &str, value: &NewValue, list_indent: &str, flow: bool) -> String {
    match value {
        NewValue::Scalar(s) => format!("{key}: {}", yaml::render_scalar(s)),
        NewValue::List(items) if items.is_empty() => format!("{key}: []"),
        NewValue::List(items) if flow => format!(
            "{key}: [{}]",
            items
                .iter()
                .map(|i| render_flow_item(i))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        NewValue::List(items) => {
            let mut out = format!("{key}:");
            for item in items {
                out.push_str(&format!("\n{list_indent}- {}", yaml::render_scalar(item)));
            }
            out
        }
    }
}

fn render_flow_item(item: &str) -> String {
    let rendered = yaml::render_scalar(item);
    if rendered.starts_with('"') || !item.contains([',', '[', ']', '{', '}', '\'']) {
        rendered
    } else {
        format!("\"{item}\"")
    }
}

/// Edits that set the given top-level keys of a claim file, keeping everything else (comments,
/// order, other keys) byte for byte. Existing keys are rewritten in place, in their own list
/// style; new keys are appended after the last entry. Everything is written at the document's
/// own indentation: a file indented as a whole (`  owner: alice`) stays one mapping (issue 28,
/// finding 6: keys appended at column 0 made it a YAML error).
pub fn set_keys(file: &ClaimFile, values: &[(&str, NewValue)]) -> Vec<TextEdit> {
    let text = file.text();
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let base = match file.yaml.root.as_ref().map(|n| n.style) {
        Some(Style::Block { indent }) => indent,
        _ => 0,
    };
    let margin = " ".repeat(base);
    let mut edits = Vec::new();
    let mut appended = String::new();
    for (key, value) in values {
        match file.yaml.get(key) {
            Some(entry) => {
                let (indent, flow) = match entry.value.style {
                    Style::Block { indent } => (" ".repeat(indent), false),
                    Style::Flow => (margin.clone(), true),
                    _ => (margin.clone(), false),
                };
                // The entry's lines start at its line's start: the key's own indentation is
                // part of what is replaced.
                let mut rendered = format!("{margin}{}", render_entry(key, value, &indent, flow))
                    .replace('\n', nl);
                // Keep the entry's line ending as it was (the last entry may have none).
                let old = entry.lines.slice(text);
                if old.ends_with('\n') {
                    rendered.push_str(nl);
                }
                edits.push(TextEdit::replace(entry.lines, rendered));
            }
            None => {
                appended.push_str(&margin);
                appended.push_str(&render_entry(key, value, &margin, false).replace('\n', nl));
                appended.push_str(nl);
            }
        }
    }
    if !appended.is_empty() {
        let at = file
            .yaml
            .entries()
            .last()
            .map(|e| e.lines.end)
            .unwrap_or(text.len());
        let needs_nl = at > 0 && !text[..at].ends_with('\n');
        let insert = if needs_nl {
            format!("{nl}{appended}")
        } else {
            appended
        };
        edits.push(TextEdit::insert(at, insert));
    }
    edits
}

/// The text of a new claim file.
pub fn render_new(values: &[(&str, NewValue)]) -> String {
    let mut out = String::new();
    for (key, value) in values {
        out.push_str(&render_entry(key, value, "", false));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::edit::apply;

    const SEED: &str = "owner: session-a\npaths:\n- web/src/image-loader.ts\nresources:\n- checkout:test-lock\npurpose: test the cache invalidation path\n";

    #[test]
    fn seed_shape() {
        let file = parse("claims/session-a.yaml", SEED);
        assert!(file.diagnostics.is_empty(), "{:?}", file.diagnostics);
        assert_eq!(file.owner.as_deref(), Some("session-a"));
        assert_eq!(file.paths, ["web/src/image-loader.ts"]);
        assert_eq!(file.resources, ["checkout:test-lock"]);
    }

    #[test]
    fn problems_are_reported() {
        let file = parse(
            "claims/bob.yaml",
            "owner: alice\npaths: /etc\nlease: soon\ncolour: red\nsince: yesterday\n",
        );
        let codes: Vec<_> = file.diagnostics.iter().map(|d| d.code).collect();
        assert!(codes.contains(&Code::InvalidPath));
        assert!(codes.contains(&Code::BadDuration));
        assert!(codes.contains(&Code::UnknownField));
        assert!(codes.contains(&Code::BadTime));
        assert!(codes.contains(&Code::OwnerMismatch));
        let empty = parse("claims/x.yaml", "# nothing\n");
        assert_eq!(empty.diagnostics[0].code, Code::MissingOwner);
        // An owner of the wrong shape or name is reported once, as what it is.
        for (text, code) in [
            ("owner: [a]\n", Code::BadValue),
            ("owner: two words\n", Code::InvalidSession),
            ("owner:\n", Code::MissingOwner),
            ("paths: [a]\n", Code::MissingOwner),
        ] {
            let file = parse("claims/a.yaml", text);
            let codes: Vec<_> = file.diagnostics.iter().map(|d| d.code).collect();
            assert_eq!(codes, [code], "{text:?}");
            assert!(!file.is_valid());
        }
    }

    #[test]
    fn release_edits_keep_the_rest() {
        let text = format!("# mine\n{SEED}");
        let file = parse("claims/session-a.yaml", &text);
        let edits = set_keys(
            &file,
            &[
                ("released", NewValue::Scalar("2026-10-22T16:00:00Z".into())),
                (
                    "touched",
                    NewValue::List(vec!["web/src/image-loader.ts".into()]),
                ),
                ("paths", NewValue::List(vec!["a.ts".into(), "b.ts".into()])),
            ],
        );
        let out = apply(&text, &edits).unwrap();
        assert_eq!(out, "# mine\nowner: session-a\npaths:\n- a.ts\n- b.ts\nresources:\n- checkout:test-lock\npurpose: test the cache invalidation path\nreleased: 2026-10-22T16:00:00Z\ntouched:\n- web/src/image-loader.ts\n");
        let again = parse("claims/session-a.yaml", &out);
        assert!(again.diagnostics.is_empty());
        assert!(again.released.is_some());
    }

    #[test]
    fn edits_keep_the_documents_indentation() {
        // Issue 28 finding 6: appended keys went to column 0 and ended the mapping.
        for (text, expected) in [
            (
                "  owner: alice\n  task: auth\n",
                "  owner: alice\n  task: auth\n  released: 2026-10-22T16:00:00Z\n  touched:\n  - a.ts\n  paths:\n  - b.ts\n",
            ),
            (
                "    owner: alice\n    paths: [x]\n    touched:\n      - old.ts\n",
                "    owner: alice\n    paths: [b.ts]\n    touched:\n      - a.ts\n    released: 2026-10-22T16:00:00Z\n",
            ),
            (
                "  owner: alice\r\n  paths: x\r\n  released: 2026-10-22T15:00:00Z",
                "  owner: alice\r\n  paths:\r\n  - b.ts\r\n  released: 2026-10-22T16:00:00Z\r\n  touched:\r\n  - a.ts\r\n",
            ),
        ] {
            let file = parse("claims/alice.yaml", text);
            assert!(file.diagnostics.is_empty(), "{text:?}: {:?}", file.diagnostics);
            let edits = set_keys(
                &file,
                &[
                    ("released", NewValue::Scalar("2026-10-22T16:00:00Z".into())),
                    ("touched", NewValue::List(vec!["a.ts".into()])),
                    ("paths", NewValue::List(vec!["b.ts".into()])),
                ],
            );
            let out = apply(text, &edits).unwrap();
            assert_eq!(out, expected, "{text:?}");
            let again = parse("claims/alice.yaml", &out);
            assert!(again.diagnostics.is_empty(), "{out:?}: {:?}", again.diagnostics);
            assert_eq!(again.touched, ["a.ts"]);
            assert_eq!(again.paths, ["b.ts"]);
            assert!(again.released.is_some());
        }
    }
}
