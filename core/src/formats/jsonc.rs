//! Editing a person's JSON settings file in place: JSON with comments and trailing commas (what
//! VS Code, Cursor, Claude Code and Gemini CLI accept), where Rail adds or replaces one value and
//! every other byte — comments, order, indentation, other entries — stays as it was.
//!
//! [`parse`] reads the text into a tree of byte spans (never a re-serialised copy); each edit
//! is a range patch on the original text ([`crate::text::edit`]), so a file Rail has nothing to
//! change prints back identically, and a second run changes nothing.

use serde_json::Value;

use crate::text::edit::{self, TextEdit};
use crate::text::Span;

/// A value and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonNode {
    pub start: usize,
    pub end: usize,
    pub kind: JsonKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum JsonKind {
    Object(Vec<Member>),
    Array(Vec<JsonNode>),
    /// A string, number, `true`, `false` or `null`, as parsed.
    Scalar(Value),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub key: String,
    pub value: JsonNode,
}

/// Nesting deeper than this is refused (settings files are shallow; no input exhausts the stack).
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        let line = self.text[..self.at.min(self.text.len())]
            .matches('\n')
            .count()
            + 1;
        format!("line {line}: {what}")
    }

    /// Skips whitespace and comments.
    fn skip(&mut self) -> Result<(), String> {
        let b = self.text.as_bytes();
        loop {
            while self.at < b.len() && b[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            if self.text[self.at..].starts_with("//") {
                self.at = self.text[self.at..]
                    .find('\n')
                    .map_or(b.len(), |i| self.at + i);
            } else if self.text[self.at..].starts_with("/*") {
                match self.text[self.at + 2..].find("*/") {
                    Some(i) => self.at += i + 4,
                    None => return Err(self.error("a comment that never ends")),
                }
            } else {
                return Ok(());
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn value(&mut self, depth: usize) -> Result<JsonNode, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.skip()?;
        let start = self.at;
        match self.peek() {
            Some(b'{') => {
                self.at += 1;
                let mut members = Vec::new();
                loop {
                    self.skip()?;
                    match self.peek() {
                        Some(b'}') => {
                            self.at += 1;
                            break;
                        }
                        Some(b'"') => {}
                        _ => return Err(self.error("expected a key or `}`")),
                    }
                    let key = match self.scalar()? {
                        Value::String(s) => s,
                        _ => return Err(self.error("expected a key")),
                    };
                    self.skip()?;
                    if self.peek() != Some(b':') {
                        return Err(self.error("expected `:`"));
                    }
                    self.at += 1;
                    let value = self.value(depth + 1)?;
                    members.push(Member { key, value });
                    self.skip()?;
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {}
                        _ => return Err(self.error("expected `,` or `}`")),
                    }
                }
                Ok(JsonNode {
                    start,
                    end: self.at,
                    kind: JsonKind::Object(members),
                })
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.skip()?;
                    if self.peek() == Some(b']') {
                        self.at += 1;
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.skip()?;
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(b']') => {}
                        _ => return Err(self.error("expected `,` or `]`")),
                    }
                }
                Ok(JsonNode {
                    start,
                    end: self.at,
                    kind: JsonKind::Array(items),
                })
            }
            Some(_) => {
                let v = self.scalar()?;
                Ok(JsonNode {
                    start,
                    end: self.at,
                    kind: JsonKind::Scalar(v),
                })
            }
            None => Err(self.error("expected a value")),
        }
    }

    fn scalar(&mut self) -> Result<Value, String> {
        let b = self.text.as_bytes();
        let start = self.at;
        if b.get(start) == Some(&b'"') {
            let mut i = start + 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i >= b.len() {
                return Err(self.error("a string that never ends"));
            }
            self.at = i + 1;
        } else {
            while self.at < b.len()
                && (b[self.at].is_ascii_alphanumeric() || b"+-.".contains(&b[self.at]))
            {
                self.at += 1;
            }
        }
        serde_json::from_str(&self.text[start..self.at]).map_err(|_| {
            self.at = start;
            self.error("not a JSON value")
        })
    }
}

/// The document's top value. Comments (`//`, `/* */`) and trailing commas are accepted.
pub fn parse(text: &str) -> Result<JsonNode, String> {
    let text_no_bom = text.strip_prefix('\u{feff}').unwrap_or(text);
    let offset = text.len() - text_no_bom.len();
    let mut p = Parser { text, at: offset };
    let node = p.value(0)?;
    p.skip()?;
    if p.at != text.len() {
        return Err(p.error("text after the value"));
    }
    Ok(node)
}

impl JsonNode {
    /// The value, comments dropped.
    pub fn to_value(&self) -> Value {
        match &self.kind {
            JsonKind::Scalar(v) => v.clone(),
            JsonKind::Array(items) => Value::Array(items.iter().map(JsonNode::to_value).collect()),
            JsonKind::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.clone(), m.value.to_value()))
                    .collect(),
            ),
        }
    }

    fn member(&self, key: &str) -> Option<&JsonNode> {
        match &self.kind {
            JsonKind::Object(members) => members
                .iter()
                .rev()
                .find(|m| m.key == key)
                .map(|m| &m.value),
            _ => None,
        }
    }
}

/// The file's indentation unit (the first indented line's), else two spaces.
fn unit(text: &str) -> String {
    text.lines()
        .filter_map(|l| {
            let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
            (!ws.is_empty() && ws.len() < l.len()).then_some(ws)
        })
        .min_by_key(String::len)
        .unwrap_or_else(|| "  ".into())
}

/// The leading whitespace of the line `at` is on.
fn indent_at(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// `value` as pretty JSON whose lines after the first start with `indent`, in the file's unit.
fn render(value: &Value, indent: &str, unit: &str) -> String {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
    let mut out = String::new();
    for (i, line) in pretty.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(indent);
            let spaces = line.len() - line.trim_start_matches(' ').len();
            for _ in 0..spaces / 2 {
                out.push_str(unit);
            }
            out.push_str(line.trim_start_matches(' '));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Where the line holding `end` ends, past a `//` comment on it (so an inserted line never lands
/// inside or before someone's end-of-line comment).
fn end_of_line_after(text: &str, end: usize) -> usize {
    let rest = &text[end..];
    let line_end = match rest.find('\n') {
        // Before a CRLF's `\r`, never between its two bytes.
        Some(i) if i > 0 && rest.as_bytes()[i - 1] == b'\r' => end + i - 1,
        Some(i) => end + i,
        None => text.len(),
    };
    let between = &text[end..line_end];
    let trimmed = between.trim_start_matches([' ', '\t', ',']);
    if trimmed.is_empty() || trimmed.starts_with("//") {
        line_end
    } else {
        end
    }
}

/// An edit that adds `item` (already rendered) as the last entry of the container `node`
/// (an object's member text `"key": value`, or an array element).
fn append(text: &str, node: &JsonNode, last_end: Option<usize>, item: &str) -> Vec<TextEdit> {
    let u = unit(text);
    let outer = indent_at(text, node.start);
    match last_end {
        None => {
            let inner = &text[node.start + 1..node.end - 1];
            let close = &text[node.end - 1..node.end];
            let open = &text[node.start..node.start + 1];
            if inner.trim().is_empty() {
                vec![TextEdit::replace(
                    Span::new(node.start, node.end),
                    format!("{open}\n{outer}{u}{item}\n{outer}{close}"),
                )]
            } else {
                vec![TextEdit::replace(
                    Span::new(node.start + 1, node.start + 1),
                    format!("\n{outer}{u}{item}"),
                )]
            }
        }
        Some(last) => {
            // After the last entry's trailing comma (kept), else after a comma Rail adds.
            let after = &text[last..node.end - 1];
            let comma = after
                .trim_start()
                .starts_with(',')
                .then(|| last + after.find(',').unwrap_or(0));
            let member_indent = indent_at(text, last);
            let same_line = text[node.start..last].find('\n').is_none();
            let sep = if same_line {
                " ".to_string()
            } else {
                format!("\n{member_indent}")
            };
            match comma {
                Some(c) => {
                    let at = end_of_line_after(text, c + 1);
                    vec![TextEdit::replace(
                        Span::new(at, at),
                        format!("{sep}{item},"),
                    )]
                }
                None => {
                    let at = end_of_line_after(text, last);
                    let mut edits = vec![TextEdit::replace(Span::new(last, last), ",")];
                    let t = format!("{sep}{item}");
                    if at == last {
                        edits[0].text.push_str(&t);
                    } else {
                        edits.push(TextEdit::replace(Span::new(at, at), t));
                    }
                    edits
                }
            }
        }
    }
}

/// Applies `edits`, their new lines written as the file writes its own (CRLF files stay CRLF).
fn patch(text: &str, mut edits: Vec<TextEdit>) -> Result<String, String> {
    if text.contains("\r\n") {
        for e in &mut edits {
            e.text = e.text.replace('\n', "\r\n");
        }
    }
    edit::apply(text, &edits).map_err(|e| e.to_string())
}

/// One change Rail makes to a JSON settings file.
#[derive(Clone, Debug)]
pub enum Change {
    /// Sets the member at `path` (objects created on the way) to `value`.
    Set { path: Vec<String>, value: Value },
    /// In the array at `path` (created if missing), replaces the first element `ours` says is
    /// Rail's with `value`, or appends `value`.
    Upsert {
        path: Vec<String>,
        ours: fn(&Value) -> bool,
        value: Value,
    },
    /// `Upsert` where one entry answers for all (Claude Code's WorktreeCreate: the path of the
    /// one worktree it made; it runs every hook of the event and uses one answer). Nothing
    /// changes while a list at any of `among`, in this file or in one the agent merges with it
    /// ([`apply_beside`]), holds an entry that is not `ours`: the user's own hook stays the only
    /// one. `note` says what leaving it means (shown by the host).
    UpsertAlone {
        path: Vec<String>,
        ours: fn(&Value) -> bool,
        value: Value,
        among: Vec<Vec<String>>,
        note: &'static str,
    },
}

impl Change {
    /// For an [`Change::UpsertAlone`] held back by an entry of the user's in `docs` (the file
    /// and those merged with it): why.
    pub fn held_back(&self, docs: &[Value]) -> Option<HeldBack> {
        let Change::UpsertAlone {
            path,
            ours,
            among,
            note,
            ..
        } = self
        else {
            return None;
        };
        let list = |doc: &'_ Value, p: &[String]| -> Vec<Value> {
            p.iter()
                .try_fold(doc, |v, k| v.get(k))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let theirs = docs.iter().find_map(|doc| {
            among
                .iter()
                .find_map(|p| list(doc, p).into_iter().find(|e| !ours(e)))
        })?;
        let command = theirs["hooks"][0]["command"]
            .as_str()
            .or_else(|| theirs["command"].as_str())
            .unwrap_or("?")
            .to_string();
        Some(HeldBack {
            note,
            command,
            ours_too: docs.iter().any(|d| list(d, path).iter().any(ours)),
        })
    }
}

/// Why an [`Change::UpsertAlone`] changed nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldBack {
    /// What leaving it means.
    pub note: &'static str,
    /// The command of the user's entry.
    pub command: String,
    /// Rail's own entry is there as well (from a run before the user's was added): both run.
    pub ours_too: bool,
}

/// Applies `changes` to `text` in place. An empty text is an empty object. Returns the new text;
/// equal to `text` when everything was already so.
pub fn apply(text: &str, changes: &[Change]) -> Result<String, String> {
    apply_beside(text, changes, &[])
}

/// [`apply`] to a file the agent merges with others (`beside`, parsed: Claude Code's
/// `.claude/settings.json` and `.claude/settings.local.json`), which an
/// [`Change::UpsertAlone`] also looks at.
pub fn apply_beside(text: &str, changes: &[Change], beside: &[Value]) -> Result<String, String> {
    let mut text = if text.trim().is_empty() {
        "{}\n".to_string()
    } else {
        text.to_string()
    };
    for change in changes {
        text = apply_one(&text, change, beside)?;
    }
    Ok(text)
}

fn apply_one(text: &str, change: &Change, beside: &[Value]) -> Result<String, String> {
    let root = parse(text)?;
    if matches!(change, Change::UpsertAlone { .. }) {
        let mut docs = vec![root.to_value()];
        docs.extend(beside.iter().cloned());
        if change.held_back(&docs).is_some() {
            return Ok(text.to_string());
        }
    }
    let (path, value) = match change {
        Change::Set { path, value }
        | Change::Upsert { path, value, .. }
        | Change::UpsertAlone { path, value, .. } => (path, value),
    };
    let mut node = &root;
    let u = unit(text);
    for (i, key) in path.iter().enumerate() {
        if !matches!(node.kind, JsonKind::Object(_)) {
            return Err(format!("`{}` is not an object", path[..i].join(".")));
        }
        match node.member(key) {
            Some(next) => node = next,
            None => {
                // Build the rest of the path as a value and add it here.
                let mut v = match change {
                    Change::Set { .. } => value.clone(),
                    Change::Upsert { .. } | Change::UpsertAlone { .. } => {
                        Value::Array(vec![value.clone()])
                    }
                };
                for k in path[i + 1..].iter().rev() {
                    let mut m = serde_json::Map::new();
                    m.insert(k.clone(), v);
                    v = Value::Object(m);
                }
                let last_end = match &node.kind {
                    JsonKind::Object(m) => m.last().map(|m| m.value.end),
                    _ => None,
                };
                let member_indent = match last_end {
                    Some(e) => indent_at(text, e),
                    None => format!("{}{u}", indent_at(text, node.start)),
                };
                let item = format!(
                    "{}: {}",
                    Value::String(key.clone()),
                    render(&v, &member_indent, &u)
                );
                return patch(text, append(text, node, last_end, &item));
            }
        }
    }
    match change {
        Change::Set { .. } => {
            if node.to_value() == *value {
                return Ok(text.to_string());
            }
            let rendered = render(value, &indent_at(text, node.start), &u);
            patch(
                text,
                vec![TextEdit::replace(Span::new(node.start, node.end), rendered)],
            )
        }
        Change::Upsert { ours, .. } | Change::UpsertAlone { ours, .. } => {
            let JsonKind::Array(items) = &node.kind else {
                return Err(format!("`{}` is not a list", path.join(".")));
            };
            match items.iter().find(|n| ours(&n.to_value())) {
                Some(n) if n.to_value() == *value => Ok(text.to_string()),
                Some(n) => patch(
                    text,
                    vec![TextEdit::replace(
                        Span::new(n.start, n.end),
                        render(value, &indent_at(text, n.start), &u),
                    )],
                ),
                None => {
                    let last_end = items.last().map(|n| n.end);
                    let indent = match last_end {
                        Some(e) => indent_at(text, e),
                        None => format!("{}{u}", indent_at(text, node.start)),
                    };
                    let item = render(value, &indent, &u);
                    patch(text, append(text, node, last_end, &item))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(path: &[&str], value: Value) -> Change {
        Change::Set {
            path: path.iter().map(|s| s.to_string()).collect(),
            value,
        }
    }

    fn is_rail(v: &Value) -> bool {
        v["command"].as_str().is_some_and(|c| c.ends_with("hook x"))
    }

    #[test]
    fn comments_and_other_entries_are_kept_byte_for_byte() {
        let text = "// my settings\n{\n    \"model\": \"opus\", // keep\n    /* block */\n    \"mcpServers\": {\n        \"db\": { \"command\": \"db\" },\n    },\n}\n";
        let out = apply(
            text,
            &[set(
                &["mcpServers", "rail"],
                json!({"args": ["mcp"], "command": "rail"}),
            )],
        )
        .unwrap();
        assert_eq!(
            out,
            "// my settings\n{\n    \"model\": \"opus\", // keep\n    /* block */\n    \"mcpServers\": {\n        \"db\": { \"command\": \"db\" },\n        \"rail\": {\n            \"args\": [\n                \"mcp\"\n            ],\n            \"command\": \"rail\"\n        },\n    },\n}\n"
        );
        assert_eq!(
            parse(&out).unwrap().to_value()["mcpServers"]["rail"]["args"][0],
            "mcp"
        );
        // Idempotent.
        let again = apply(
            &out,
            &[set(
                &["mcpServers", "rail"],
                json!({"args": ["mcp"], "command": "rail"}),
            )],
        )
        .unwrap();
        assert_eq!(again, out);
    }

    #[test]
    fn missing_objects_and_lists_are_created_and_ours_replaced_in_place() {
        let text = "{\n  \"a\": 1 // one\n}\n";
        let up = |v: Value| Change::Upsert {
            path: vec!["hooks".into(), "Pre".into()],
            ours: is_rail,
            value: v,
        };
        let once = apply(text, &[up(json!({"command": "hook x", "t": 1}))]).unwrap();
        assert!(
            once.starts_with("{\n  \"a\": 1, // one\n  \"hooks\": {"),
            "{once}"
        );
        let v = parse(&once).unwrap().to_value();
        assert_eq!(v["hooks"]["Pre"][0]["t"], 1);
        let other = apply(
            &once,
            &[Change::Upsert {
                path: vec!["hooks".into(), "Pre".into()],
                ours: |v| v["command"] == "guard",
                value: json!({"command": "guard"}),
            }],
        )
        .unwrap();
        let changed = apply(&other, &[up(json!({"command": "hook x", "t": 2}))]).unwrap();
        let v = parse(&changed).unwrap().to_value();
        assert_eq!(v["hooks"]["Pre"][0]["t"], 2);
        assert_eq!(v["hooks"]["Pre"][1]["command"], "guard");
        assert!(changed.starts_with("{\n  \"a\": 1, // one\n"));
    }

    #[test]
    fn an_entry_that_must_be_alone_is_not_added_beside_the_users_own() {
        let alone = |v: Value| Change::UpsertAlone {
            path: vec!["hooks".into(), "Make".into()],
            ours: is_rail,
            value: v,
            among: vec![
                vec!["hooks".into(), "Make".into()],
                vec!["hooks".into(), "Drop".into()],
            ],
            note: "theirs kept",
        };
        let ours = json!({"command": "hook x", "timeout": 1});
        // Nobody's: added, then replaced in place, never twice.
        let once = apply("{}", &[alone(ours.clone())]).unwrap();
        assert_eq!(parse(&once).unwrap().to_value()["hooks"]["Make"][0], ours);
        assert_eq!(apply(&once, &[alone(ours.clone())]).unwrap(), once);
        let moved = apply(&once, &[alone(json!({"command": "hook x", "timeout": 2}))]).unwrap();
        let v = parse(&moved).unwrap().to_value();
        assert_eq!(v["hooks"]["Make"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["hooks"]["Make"][0]["timeout"], 2);
        // The user's own, under either event, in this file or one merged with it: nothing
        // changes, and the note names their command.
        let theirs =
            "{ \"hooks\": { \"Drop\": [ { \"hooks\": [ { \"command\": \"./mine.sh\" } ] } ] } }";
        assert_eq!(apply(theirs, &[alone(ours.clone())]).unwrap(), theirs);
        let beside = parse(theirs).unwrap().to_value();
        assert_eq!(
            apply_beside("{}", &[alone(ours.clone())], std::slice::from_ref(&beside)).unwrap(),
            "{}"
        );
        let held = |docs: &[Value]| alone(ours.clone()).held_back(docs);
        assert_eq!(
            held(&[json!({}), beside.clone()]),
            Some(HeldBack {
                note: "theirs kept",
                command: "./mine.sh".into(),
                ours_too: false
            })
        );
        // Rail's from an earlier run beside theirs: said, not removed.
        let both = parse(&once).unwrap().to_value();
        assert!(held(&[both, beside]).unwrap().ours_too);
        assert_eq!(held(&[json!({})]), None);
    }

    #[test]
    fn crlf_files_stay_crlf_and_one_line_arrays_stay_on_one_line() {
        let text = "{\r\n  \"a\": 1 // one\r\n}\r\n";
        let out = apply(text, &[set(&["b"], json!(2))]).unwrap();
        assert_eq!(out, "{\r\n  \"a\": 1, // one\r\n  \"b\": 2\r\n}\r\n");
        let arr = "{\"l\": [1, 2]}";
        let out = apply(
            arr,
            &[Change::Upsert {
                path: vec!["l".into()],
                ours: |v| v == 3,
                value: json!(3),
            }],
        )
        .unwrap();
        assert_eq!(out, "{\"l\": [1, 2, 3]}");
    }

    #[test]
    fn empty_and_broken_files() {
        let out = apply("", &[set(&["servers", "rail"], json!({"type": "stdio"}))]).unwrap();
        assert_eq!(
            parse(&out).unwrap().to_value(),
            json!({"servers": {"rail": {"type": "stdio"}}})
        );
        for bad in ["{", "[1,]]", "{\"a\" 1}", "{\"a\": 1} x", "/* open"] {
            assert!(apply(bad, &[set(&["x"], json!(1))]).is_err(), "{bad}");
        }
        assert!(apply("[]", &[set(&["x"], json!(1))]).is_err());
        assert!(apply("{\"hooks\": 3}", &[set(&["hooks", "x"], json!(1))]).is_err());
    }
}
