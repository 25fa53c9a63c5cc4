//! A small YAML reader for the subset claim files use.
//!
//! Supported: block mappings and block sequences (also a sequence at the same indentation as its
//! key, and compact `- key: value` items), flow sequences on one line (`[a, "b"]`), plain
//! scalars (also continued on more-indented lines), single- and double-quoted scalars, comments,
//! `|` and `>` block scalars with chomping and indentation indicators, one optional `---`.
//!
//! Anything else (anchors, aliases, tags, directives, flow mappings, complex keys, several
//! documents) gets a `yaml-unsupported` diagnostic naming the construct; syntax errors get
//! `yaml-syntax`. Parsing never fails and never panics: the result is the tree it could read.
//! Token-level parsing (quoted scalars, flow sequences, keys) is done with nom.

use nom::{
    branch::alt,
    bytes::complete::{is_not, tag, take_while_m_n},
    character::complete::{char, none_of},
    combinator::{map, map_opt, value},
    multi::fold_many0,
    sequence::{delimited, preceded},
    IResult, Parser,
};

use crate::text::diagnostic::{Code, Diagnostic};
use crate::text::{lines, Span};

/// A YAML value. Scalars are kept as strings: claim files hold names, paths and times, never
/// numbers to compute with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Scalar(String),
    Seq(Vec<YamlNode>),
    Map(Vec<YamlEntry>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlNode {
    pub value: Value,
    /// The value's own text (for a block node, from its first to its last byte).
    pub span: Span,
    pub style: Style,
}

/// How a node was written; edits keep the style of what they replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    Quoted,
    BlockScalar,
    Flow,
    /// A block sequence or mapping; `indent` is its column.
    Block {
        indent: usize,
    },
    Empty,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlEntry {
    pub key: String,
    pub key_span: Span,
    pub value: YamlNode,
    /// The whole entry: from the key's line start to the end of its last line (terminator
    /// included). Replacing or deleting this span edits exactly this entry.
    pub lines: Span,
}

#[derive(Clone, Debug)]
pub struct YamlDoc {
    pub root: Option<YamlNode>,
    pub diagnostics: Vec<Diagnostic>,
}

impl YamlDoc {
    /// The root mapping's entries (empty if the root is not a mapping).
    pub fn entries(&self) -> &[YamlEntry] {
        match self.root.as_ref().map(|n| &n.value) {
            Some(Value::Map(entries)) => entries,
            _ => &[],
        }
    }

    pub fn get(&self, key: &str) -> Option<&YamlEntry> {
        self.entries().iter().find(|e| e.key == key)
    }
}

#[derive(Clone, Debug)]
struct LineInfo {
    /// Whole line, terminator included.
    full: Span,
    /// Column of the first character the parser has not consumed yet.
    indent: usize,
    /// From `indent` to the end of the content, comment and trailing spaces removed.
    body: Span,
    blank: bool,
}

/// Parses a YAML text. Never fails.
pub fn parse(text: &str) -> YamlDoc {
    let mut p = YamlParser {
        text,
        lines: Vec::new(),
        pos: 0,
        diags: Vec::new(),
        depth: 0,
    };
    p.scan_lines();
    let root = p.document();
    p.diags
        .extend(crate::text::diagnostic::unsafe_char_warnings(text));
    YamlDoc {
        root,
        diagnostics: p.diags,
    }
}

/// How deep block nodes may nest. Claim files need three or four levels; the limit keeps
/// untrusted input from exhausting the stack (a trap in WebAssembly).
pub const MAX_DEPTH: usize = 64;

struct YamlParser<'a> {
    text: &'a str,
    lines: Vec<LineInfo>,
    pos: usize,
    diags: Vec<Diagnostic>,
    depth: usize,
}

impl<'a> YamlParser<'a> {
    fn scan_lines(&mut self) {
        for (i, spans) in lines(self.text).enumerate() {
            let mut start = spans.content.start;
            if i == 0 && self.text.starts_with('\u{feff}') {
                start += 3;
            }
            let content = Span::new(start, spans.content.end).slice(self.text);
            let spaces = content.len() - content.trim_start_matches(' ').len();
            let after = &content[spaces..];
            if after.starts_with('\t') {
                self.diags.push(Diagnostic::error(
                    Code::YamlSyntax,
                    Span::new(start + spaces, start + spaces + 1),
                    "tabs are not allowed for indentation in YAML; use spaces",
                ));
            }
            let body_text = strip_comment(after);
            let body = Span::new(start + spaces, start + spaces + body_text.len());
            self.lines.push(LineInfo {
                full: spans.full,
                indent: spaces,
                body,
                blank: body_text.trim().is_empty(),
            });
        }
    }

    fn body(&self, line: usize) -> &'a str {
        self.lines[line].body.slice(self.text)
    }

    fn skip_blank(&mut self) {
        while self.pos < self.lines.len() && self.lines[self.pos].blank {
            self.pos += 1;
        }
    }

    fn unsupported(&mut self, span: Span, what: &str) {
        self.diags.push(Diagnostic::error(
            Code::YamlUnsupported,
            span,
            format!("{what} are not supported in Rail's YAML; write plain keys, lists and strings"),
        ));
    }

    fn syntax(&mut self, span: Span, message: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(Code::YamlSyntax, span, message.into()));
    }

    fn document(&mut self) -> Option<YamlNode> {
        self.skip_blank();
        if self.pos < self.lines.len() {
            let body = self.body(self.pos);
            if body.starts_with('%') {
                let span = self.lines[self.pos].body;
                self.unsupported(span, "directives (`%YAML`, `%TAG`)");
                self.pos += 1;
                self.skip_blank();
            }
        }
        if self.pos < self.lines.len() && is_marker(self.body(self.pos), "---") {
            self.pos += 1;
        }
        let root = self.node(0);
        self.skip_blank();
        if self.pos < self.lines.len() {
            let line = self.pos;
            let body = self.body(line);
            let span = self.lines[line].body;
            if is_marker(body, "---") {
                self.unsupported(span, "several documents in one file");
            } else if is_marker(body, "...") {
                self.pos += 1;
                self.skip_blank();
                if self.pos < self.lines.len() {
                    let span = self.lines[self.pos].body;
                    self.unsupported(span, "several documents in one file");
                }
            } else {
                self.syntax(
                    span,
                    "unexpected text after the end of the document (check the indentation)",
                );
            }
        }
        root
    }

    /// Parses the node starting at the next non-blank line if it is indented at least `min`.
    fn node(&mut self, min: usize) -> Option<YamlNode> {
        self.skip_blank();
        if self.pos >= self.lines.len() {
            return None;
        }
        let line = self.lines[self.pos].clone();
        if line.indent < min {
            return None;
        }
        if self.depth >= MAX_DEPTH {
            // Too deep: report once, and skip everything nested here.
            self.unsupported(
                line.body,
                &format!("values nested more than {MAX_DEPTH} levels deep"),
            );
            while self.pos < self.lines.len()
                && (self.lines[self.pos].blank || self.lines[self.pos].indent >= min)
            {
                self.pos += 1;
            }
            return Some(YamlNode {
                value: Value::Null,
                span: line.body,
                style: Style::Empty,
            });
        }
        self.depth += 1;
        let node = self.node_at(min, line);
        self.depth -= 1;
        node
    }

    fn node_at(&mut self, min: usize, line: LineInfo) -> Option<YamlNode> {
        let body = self.body(self.pos);
        if is_seq_item(body) {
            return Some(self.sequence(line.indent));
        }
        if key_of(body).is_some() {
            return Some(self.mapping(line.indent));
        }
        // A bare scalar or flow sequence as a whole node.
        let node = self.inline_value(self.pos, line.body, min.saturating_sub(1));
        Some(node)
    }

    fn mapping(&mut self, indent: usize) -> YamlNode {
        let mut entries: Vec<YamlEntry> = Vec::new();
        let start = self.lines[self.pos].body.start;
        let mut end = start;
        loop {
            self.skip_blank();
            if self.pos >= self.lines.len() {
                break;
            }
            let line = self.lines[self.pos].clone();
            if line.indent < indent {
                break;
            }
            let body = self.body(self.pos);
            if line.indent > indent {
                self.syntax(line.body, "unexpected indentation");
                self.pos += 1;
                continue;
            }
            if is_marker(body, "---") || is_marker(body, "...") {
                break;
            }
            let Some((key, key_len, rest_offset)) = key_of(body) else {
                if is_complex_key(body) {
                    // `? key` then `: value` on the next line: one unsupported construct.
                    self.unsupported(line.body, "complex keys (`? key`)");
                    self.pos += 1;
                    self.skip_blank();
                    if self.pos < self.lines.len()
                        && self.lines[self.pos].indent == indent
                        && is_complex_value(self.body(self.pos))
                    {
                        self.pos += 1;
                    }
                    continue;
                }
                if is_seq_item(body) {
                    self.syntax(
                        line.body,
                        "a list item where a `key: value` was expected (check the indentation)",
                    );
                } else {
                    self.syntax(line.body, "expected `key: value`");
                }
                self.pos += 1;
                continue;
            };
            let key_span = Span::new(line.body.start, line.body.start + key_len);
            if key_span.slice(self.text).starts_with('?') {
                self.unsupported(key_span, "complex keys (`? key`)");
            }
            if entries.iter().any(|e| e.key == key) {
                self.diags.push(Diagnostic::error(
                    Code::DuplicateKey,
                    key_span,
                    format!("`{key}` appears twice; the first one counts"),
                ));
            }
            let entry_line = self.pos;
            let rest = Span::new(line.body.start + rest_offset, line.body.end);
            let value = self.entry_value(entry_line, rest, indent);
            let last_line = self.pos.saturating_sub(1).max(entry_line);
            let lines_span = Span::new(
                self.lines[entry_line].full.start,
                self.lines[last_line].full.end,
            );
            end = end.max(value.span.end).max(key_span.end);
            entries.push(YamlEntry {
                key,
                key_span,
                value,
                lines: lines_span,
            });
        }
        YamlNode {
            value: Value::Map(entries),
            span: Span::new(start, end),
            style: Style::Block { indent },
        }
    }

    /// The value after `key:` on line `line`; `rest` is what follows the colon.
    fn entry_value(&mut self, line: usize, rest: Span, indent: usize) -> YamlNode {
        let rest_text = rest.slice(self.text);
        let trimmed = rest_text.trim_start();
        let rest = Span::new(rest.end - trimmed.len(), rest.end);
        if trimmed.is_empty() {
            self.pos = line + 1;
            self.skip_blank();
            if self.pos < self.lines.len() {
                let next = self.lines[self.pos].clone();
                let next_body = self.body(self.pos);
                if next.indent > indent {
                    return self.node(indent + 1).unwrap_or(YamlNode {
                        value: Value::Null,
                        span: Span::empty(rest.start),
                        style: Style::Empty,
                    });
                }
                if next.indent == indent && is_seq_item(next_body) {
                    return self.sequence(indent);
                }
            }
            // A null value: do not consume the blank lines after it.
            self.pos = line + 1;
            return YamlNode {
                value: Value::Null,
                span: Span::empty(rest.start),
                style: Style::Empty,
            };
        }
        if trimmed.starts_with('|') || trimmed.starts_with('>') {
            return self.block_scalar(line, rest, indent);
        }
        self.inline_value(line, rest, indent)
    }

    /// A scalar or flow sequence starting on `line` at `span`; plain scalars may continue on
    /// following lines indented more than `parent_indent`.
    fn inline_value(&mut self, line: usize, span: Span, parent_indent: usize) -> YamlNode {
        let text = span.slice(self.text);
        self.pos = line + 1;
        let first = text.chars().next().unwrap_or(' ');
        match first {
            '&' => self.unsupported(span, "anchors (`&name`)"),
            '*' => self.unsupported(span, "aliases (`*name`)"),
            '!' => self.unsupported(span, "tags (`!tag`)"),
            '{' => self.unsupported(span, "flow mappings (`{a: b}`)"),
            '?' if is_complex_key(text) => self.unsupported(span, "complex keys (`? key`)"),
            '@' | '`' => self.syntax(
                span,
                format!("a plain value cannot start with `{first}`; quote it"),
            ),
            ':' if text == ":" || text.starts_with(": ") => {
                self.syntax(span, "a key is missing before `:`")
            }
            _ => {}
        }
        if first == '[' {
            return match flow_sequence(text) {
                Ok((rest, items)) if rest.trim().is_empty() => {
                    let nodes = items
                        .into_iter()
                        .map(|(offset, len, value, style)| YamlNode {
                            value,
                            span: Span::new(span.start + offset, span.start + offset + len),
                            style,
                        })
                        .collect();
                    YamlNode {
                        value: Value::Seq(nodes),
                        span,
                        style: Style::Flow,
                    }
                }
                _ => {
                    if text.contains('{') {
                        self.unsupported(span, "flow mappings (`{a: b}`)");
                    } else {
                        self.syntax(
                            span,
                            "a flow list must be `[a, b]` on one line, with quoted items if they contain `,` `[` `]`",
                        );
                    }
                    YamlNode {
                        value: Value::Seq(Vec::new()),
                        span,
                        style: Style::Flow,
                    }
                }
            };
        }
        if first == '"' || first == '\'' {
            let parsed = if first == '"' {
                double_quoted(text)
            } else {
                single_quoted(text)
            };
            return match parsed {
                Ok((rest, value)) => {
                    let used = text.len() - rest.len();
                    if !rest.trim().is_empty() {
                        self.syntax(
                            Span::new(span.start + used, span.end),
                            "unexpected text after a quoted value",
                        );
                    }
                    YamlNode {
                        value: Value::Scalar(value),
                        span: Span::new(span.start, span.start + used),
                        style: Style::Quoted,
                    }
                }
                Err(_) => {
                    self.syntax(
                        span,
                        "unterminated or malformed quoted value (quoted values must end on the same line)",
                    );
                    YamlNode {
                        value: Value::Scalar(text.trim_matches(first).to_string()),
                        span,
                        style: Style::Quoted,
                    }
                }
            };
        }
        if key_of(text).is_some() && !text.starts_with("- ") {
            self.syntax(
                span,
                "a `key: value` cannot follow a value on the same line; put nested keys on their own lines",
            );
        }
        // A plain scalar, perhaps continued on more-indented lines (folded with spaces).
        let mut value = text.trim_end().to_string();
        let mut end = span.end;
        loop {
            let save = self.pos;
            self.skip_blank();
            if self.pos >= self.lines.len() || self.lines[self.pos].indent <= parent_indent {
                self.pos = save;
                break;
            }
            let body = self.body(self.pos);
            if key_of(body).is_some() || is_seq_item(body) {
                let span = self.lines[self.pos].body;
                self.syntax(
                    span,
                    "unexpected indentation: this line continues the value above; put nested keys under a key with no value",
                );
                self.pos += 1;
                continue;
            }
            value.push(' ');
            value.push_str(body.trim());
            end = self.lines[self.pos].body.end;
            self.pos += 1;
        }
        let value = if value == "~" || value == "null" || value.is_empty() {
            Value::Null
        } else {
            Value::Scalar(value)
        };
        YamlNode {
            value,
            span: Span::new(span.start, end),
            style: Style::Plain,
        }
    }

    fn block_scalar(&mut self, line: usize, header: Span, indent: usize) -> YamlNode {
        let header_text = header.slice(self.text);
        let literal = header_text.starts_with('|');
        let mut chomp = ' ';
        let mut explicit: Option<usize> = None;
        for c in header_text[1..].chars() {
            match c {
                '+' | '-' if chomp == ' ' => chomp = c,
                '1'..='9' if explicit.is_none() => explicit = c.to_digit(10).map(|d| d as usize),
                ' ' => break,
                _ => {
                    self.syntax(header, "a block scalar header is `|` or `>`, optionally with `+`, `-` and an indentation digit");
                    break;
                }
            }
        }
        self.pos = line + 1;
        // Collect lines that belong to the block: blank ones and those indented past `indent`.
        let mut raw: Vec<(usize, Span)> = Vec::new();
        let mut content_indent = explicit.map(|e| indent + e);
        while self.pos < self.lines.len() {
            let info = &self.lines[self.pos];
            let full_content = Span::new(info.full.start, info.body.end.max(info.full.start));
            let physical = self.physical_content(self.pos);
            let leading = physical.len() - physical.trim_start_matches(' ').len();
            let is_blank = physical.trim().is_empty();
            if !is_blank {
                if leading <= indent {
                    break;
                }
                if content_indent.is_none() {
                    content_indent = Some(leading);
                }
            }
            let _ = full_content;
            raw.push((self.pos, info.full));
            self.pos += 1;
        }
        // Trailing blank lines belong to the block only for `+` chomping.
        let ci = content_indent.unwrap_or(indent + 1);
        let mut texts: Vec<String> = Vec::new();
        let mut last_content = header.end;
        for (line_no, _) in &raw {
            let physical = self.physical_content(*line_no);
            if physical.trim().is_empty() {
                texts.push(String::new());
            } else {
                let leading = physical.len() - physical.trim_start_matches(' ').len();
                if leading < ci {
                    let span = self.lines[*line_no].body;
                    self.syntax(
                        span,
                        "this line is indented less than the first line of the block",
                    );
                }
                texts.push(physical.get(ci.min(leading)..).unwrap_or("").to_string());
                last_content = self.lines[*line_no].full.start + physical.len();
            }
        }
        while raw
            .last()
            .is_some_and(|(l, _)| self.physical_content(*l).trim().is_empty())
        {
            raw.pop();
        }
        // Un-consume trailing blank lines so following entries' spans start cleanly.
        if let Some((l, _)) = raw.last() {
            self.pos = l + 1;
        } else {
            self.pos = line + 1;
        }
        let trailing_blanks = texts.iter().rev().take_while(|t| t.is_empty()).count();
        let body_lines = &texts[..texts.len() - trailing_blanks];
        let mut value = if literal {
            body_lines.join("\n")
        } else {
            fold(body_lines)
        };
        match chomp {
            '-' => {}
            '+' => {
                value.push('\n');
                for _ in 0..trailing_blanks {
                    value.push('\n');
                }
            }
            _ => {
                if !body_lines.is_empty() {
                    value.push('\n');
                }
            }
        }
        YamlNode {
            value: Value::Scalar(value),
            span: Span::new(header.start, last_content.max(header.end)),
            style: Style::BlockScalar,
        }
    }

    /// The line's content without terminator, comments included (block scalars keep `#`).
    fn physical_content(&self, line: usize) -> &'a str {
        let info = &self.lines[line];
        let full = info.full.slice(self.text);
        let without_nl = full.trim_end_matches(['\n', '\r']);
        // Respect a BOM on the first line.
        if line == 0 {
            without_nl.trim_start_matches('\u{feff}')
        } else {
            without_nl
        }
    }

    fn sequence(&mut self, indent: usize) -> YamlNode {
        let mut items = Vec::new();
        let start = self.lines[self.pos].body.start;
        let mut end = start;
        loop {
            self.skip_blank();
            if self.pos >= self.lines.len() {
                break;
            }
            let line = self.lines[self.pos].clone();
            let body = self.body(self.pos);
            if line.indent != indent || !is_seq_item(body) {
                if line.indent > indent {
                    self.syntax(line.body, "unexpected indentation inside a list");
                    self.pos += 1;
                    continue;
                }
                break;
            }
            // Consume `-` and the spaces after it: the rest of the line is the item, at a
            // deeper virtual indentation (this is how `- key: value` and `- - x` work).
            let after_dash = &body[1..];
            let spaces = after_dash.len() - after_dash.trim_start_matches(' ').len();
            let item_col = indent + 1 + spaces;
            let item_start = line.body.start + 1 + spaces;
            if after_dash.trim().is_empty() {
                self.pos += 1;
                let node = self.node(indent + 1).unwrap_or(YamlNode {
                    value: Value::Null,
                    span: Span::empty(item_start),
                    style: Style::Empty,
                });
                end = end.max(node.span.end).max(line.body.end);
                items.push(node);
                continue;
            }
            self.lines[self.pos].indent = item_col;
            self.lines[self.pos].body = Span::new(item_start, line.body.end);
            let node = self.node(item_col).unwrap_or(YamlNode {
                value: Value::Null,
                span: Span::empty(item_start),
                style: Style::Empty,
            });
            end = end.max(node.span.end);
            items.push(node);
        }
        YamlNode {
            value: Value::Seq(items),
            span: Span::new(start, end),
            style: Style::Block { indent },
        }
    }
}

fn is_marker(body: &str, marker: &str) -> bool {
    body == marker || body.starts_with(&format!("{marker} "))
}

fn is_complex_key(body: &str) -> bool {
    body == "?" || body.starts_with("? ")
}

fn is_complex_value(body: &str) -> bool {
    body == ":" || body.starts_with(": ")
}

fn is_seq_item(body: &str) -> bool {
    body == "-" || body.starts_with("- ")
}

/// Folds `>` block lines: single newlines become spaces, blank lines stay as newlines.
fn fold(lines: &[String]) -> String {
    let mut out = String::new();
    let mut prev_blank = true;
    for line in lines {
        if line.is_empty() {
            out.push('\n');
            prev_blank = true;
        } else {
            if !prev_blank && !line.starts_with(' ') {
                out.push(' ');
            } else if !prev_blank {
                out.push('\n');
            }
            out.push_str(line);
            prev_blank = false;
        }
    }
    out
}

/// Removes a `# comment` (a `#` at the start or after whitespace, outside quotes) and
/// trailing spaces.
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' && q == b'"' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => {
                if (b == b'"' || b == b'\'')
                    && (i == 0 || matches!(bytes[i - 1], b' ' | b'[' | b',' | b':' | b'-'))
                {
                    quote = Some(b);
                } else if b == b'#' && (i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') {
                    return line[..i].trim_end();
                }
            }
        }
        i += 1;
    }
    line.trim_end()
}

/// If `body` starts with a mapping key, returns (key, byte length of the key as written,
/// offset just past the `:`).
fn key_of(body: &str) -> Option<(String, usize, usize)> {
    if body.starts_with('"') || body.starts_with('\'') {
        let parsed = if body.starts_with('"') {
            double_quoted(body)
        } else {
            single_quoted(body)
        };
        let (rest, key) = parsed.ok()?;
        let used = body.len() - rest.len();
        let after = rest.trim_start_matches(' ');
        let spaces = rest.len() - after.len();
        if after == ":" || after.starts_with(": ") {
            return Some((key, used, used + spaces + 1));
        }
        return None;
    }
    if body.starts_with([
        '-', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', ',',
    ]) && !body.starts_with("-")
    {
        return None;
    }
    if body.starts_with("- ") || body == "-" {
        return None;
    }
    let bytes = body.as_bytes();
    for i in 0..bytes.len() {
        if bytes[i] == b':' && (i + 1 == bytes.len() || bytes[i + 1] == b' ') {
            let key = body[..i].trim_end();
            if key.is_empty() {
                return None;
            }
            return Some((key.to_string(), key.len(), i + 1));
        }
    }
    None
}

fn single_quoted(input: &str) -> IResult<&str, String> {
    delimited(
        char('\''),
        fold_many0(
            alt((
                map(is_not("'"), str::to_string),
                value("'".to_string(), tag("''")),
            )),
            String::new,
            |mut acc, s| {
                acc.push_str(&s);
                acc
            },
        ),
        char('\''),
    )
    .parse(input)
}

fn double_quoted(input: &str) -> IResult<&str, String> {
    let hex = |n: usize| {
        map_opt(
            take_while_m_n(n, n, |c: char| c.is_ascii_hexdigit()),
            |h: &str| u32::from_str_radix(h, 16).ok().and_then(char::from_u32),
        )
    };
    let escape = preceded(
        char('\\'),
        alt((
            value('\n', char('n')),
            value('\t', char('t')),
            value('\r', char('r')),
            value('"', char('"')),
            value('\\', char('\\')),
            value('/', char('/')),
            value('\0', char('0')),
            value(' ', char(' ')),
            preceded(char('x'), hex(2)),
            preceded(char('u'), hex(4)),
            preceded(char('U'), hex(8)),
        )),
    );
    delimited(
        char('"'),
        fold_many0(
            alt((
                map(is_not("\"\\"), str::to_string),
                map(escape, |c: char| c.to_string()),
            )),
            String::new,
            |mut acc, s| {
                acc.push_str(&s);
                acc
            },
        ),
        char('"'),
    )
    .parse(input)
}

type FlowItem = (usize, usize, Value, Style);

/// `[a, "b", 'c']` → items with their offsets relative to the input.
fn flow_sequence(input: &str) -> IResult<&str, Vec<FlowItem>> {
    let (mut rest, _) = char('[').parse(input)?;
    let mut items = Vec::new();
    loop {
        let trimmed = rest.trim_start_matches(' ');
        if let Some(after) = trimmed.strip_prefix(']') {
            return Ok((after, items));
        }
        let offset = input.len() - trimmed.len();
        let (after, (value, style)) = alt((
            map(double_quoted, |s| (Value::Scalar(s), Style::Quoted)),
            map(single_quoted, |s| (Value::Scalar(s), Style::Quoted)),
            map(
                (
                    none_of("[]{},'\"&*!"),
                    nom::bytes::complete::take_while(|c| !matches!(c, ',' | ']' | '[' | '{' | '}')),
                ),
                |(_, _): (char, &str)| (Value::Null, Style::Plain),
            ),
        ))
        .parse(trimmed)?;
        let used = trimmed.len() - after.len();
        let raw = &trimmed[..used];
        let (value, len) = if style == Style::Plain {
            let t = raw.trim_end();
            (Value::Scalar(t.to_string()), t.len())
        } else {
            (value, used)
        };
        items.push((offset, len, value, style));
        let after = after.trim_start_matches(' ');
        if let Some(next) = after.strip_prefix(',') {
            rest = next;
        } else if after.starts_with(']') {
            rest = after;
        } else {
            return Err(nom::Err::Error(nom::error::Error::new(
                after,
                nom::error::ErrorKind::Char,
            )));
        }
    }
}

/// Renders a string as a YAML scalar: plain when Rail's reader would read it back unchanged,
/// double-quoted otherwise.
pub fn render_scalar(value: &str) -> String {
    let plain_ok = !value.is_empty()
        && value.trim() == value
        && !value.contains(": ")
        && !value.ends_with(':')
        && !value.contains(" #")
        && !value.contains(['\n', '\r', '\t', '"'])
        && !value.starts_with([
            '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '%', '@',
            '`',
        ])
        && !matches!(value, "~" | "null")
        && !value.chars().any(crate::text::is_unsafe_char);
    if plain_ok {
        return value.to_string();
    }
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            // Controls, bidi overrides and invisible characters are written as escapes: the
            // file then reads back the same and shows nothing a terminal or editor acts on.
            c if crate::text::is_unsafe_char(c) && (c as u32) <= 0xFFFF => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if crate::text::is_unsafe_char(c) => out.push_str(&format!("\\U{:08x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A node's strings: a scalar gives one, a sequence of scalars gives each, null gives none.
/// Anything else is reported through the returned error message.
pub fn string_list(node: &YamlNode) -> Result<Vec<(String, Span)>, &'static str> {
    match &node.value {
        Value::Null => Ok(Vec::new()),
        Value::Scalar(s) => Ok(vec![(s.clone(), node.span)]),
        Value::Seq(items) => items
            .iter()
            .filter(|n| n.value != Value::Null)
            .map(|n| match &n.value {
                Value::Scalar(s) => Ok((s.clone(), n.span)),
                _ => Err("expected a list of plain values"),
            })
            .collect(),
        Value::Map(_) => Err("expected a list, found a mapping"),
    }
}

#[cfg(test)]
mod tests;
