//! CommonMark inlines of one paragraph, in linear time.
//!
//! One left-to-right pass, as pulldown-cmark resolves them (it is the oracle of the differential
//! tests): a backtick run, an autolink or a piece of raw HTML takes everything up to its end
//! when it begins first; a `]` closes the nearest `[` or `![` when an inline link
//! `(destination "title")` follows; emphasis (`*`, `_`, and `~` for strikethrough) is matched
//! with a stack of openers inside each link's text and at the end for the rest.
//!
//! Why it is linear: a backtick run finds its closer through a per-length queue of later runs
//! (every run is passed once); a comment, processing instruction, declaration or CDATA section
//! that finds no end marks the rest of the paragraph as searched; a link destination gives up
//! past 32 nested parentheses, so each byte is scanned by a bounded number of attempts;
//! emphasis keeps lower bounds per delimiter kind, so a failed search is not repeated; no
//! recursion anywhere (images nest in the output as flat start/end nodes).
//!
//! Not supported: reference links (`[text][label]`, `[label]`) — a purpose has no link
//! definitions, so they are text, as in pulldown-cmark without definitions.

use std::cell::Cell;
use std::collections::HashMap;

use super::entities::entity;
use super::punct::is_punct;

/// A paragraph's text with the container prefixes (`> `, list indentation) of its lines removed,
/// and how to find an offset of it in the source.
#[derive(Debug)]
pub(crate) struct Para<'a> {
    pub text: String,
    source: &'a str,
    /// Where each line begins: offset in text, offset in source, and for a lazy line the
    /// columns of indentation its unmatched list items would take, and its start column.
    pieces: Vec<Piece>,
    /// The last piece looked up: lookups mostly move forward, so they start here.
    last: Cell<usize>,
}

#[derive(Clone, Copy, Debug)]
struct Piece {
    text: usize,
    source: usize,
    lazy: usize,
    col: usize,
}

impl<'a> Para<'a> {
    pub fn new(source: &'a str, segs: &[super::blocks::Seg]) -> Self {
        let mut text = String::new();
        let mut pieces = Vec::with_capacity(segs.len());
        for seg in segs {
            pieces.push(Piece {
                text: text.len(),
                source: seg.start,
                lazy: seg.lazy,
                col: seg.col,
            });
            text.push_str(&source[seg.start..seg.end]);
        }
        Para {
            text,
            source,
            pieces,
            last: Cell::new(0),
        }
    }

    /// The source offset of a text offset.
    pub fn to_source(&self, at: usize) -> usize {
        self.piece(at).map_or(at, |p| p.source + (at - p.text))
    }

    /// The line that `at` is on.
    fn piece(&self, at: usize) -> Option<Piece> {
        let mut i = self.last.get();
        if self.pieces.get(i).is_none_or(|p| p.text > at) {
            i = self
                .pieces
                .partition_point(|p| p.text <= at)
                .checked_sub(1)?;
        }
        while self.pieces.get(i + 1).is_some_and(|p| p.text <= at) {
            i += 1;
        }
        self.last.set(i);
        self.pieces.get(i).copied()
    }

    /// Where a code span's content starts again on the line of its closer at `close`, when
    /// only spaces and tabs precede the closer there: pulldown-cmark then reads them as a
    /// blank line's container prefix, and on a lazy line of a list item drops up to the items'
    /// indentation. (`open_end`: where the content starts.)
    fn code_resumes(&self, open_end: usize, close: usize) -> Option<usize> {
        let piece = self
            .piece(close)
            .filter(|p| p.text > open_end && p.lazy > 0)?;
        let b = self.text.as_bytes();
        if !b[piece.text..close]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t'))
        {
            return None;
        }
        let (mut at, mut col, mut left) = (piece.text, piece.col, piece.lazy);
        while left > 0 && at < close {
            let width = if b[at] == b'\t' { 4 - col % 4 } else { 1 };
            left -= width.min(left);
            col += width;
            at += 1;
        }
        Some(at)
    }
}

/// Emphasis kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tag {
    Em,
    Strong,
    Del,
}

/// An inline element. Text ranges are offsets into [`Para::text`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Inline {
    Text(usize, usize),
    /// Text that is not in the paragraph as such (a decoded entity, a kept backslash).
    Owned(String),
    Code(String),
    /// Raw HTML: its range in the paragraph text, and the text to show (pulldown-cmark shows
    /// comments, processing instructions, declarations and CDATA as they are in the source,
    /// container prefixes included, and tags without them).
    Html(usize, usize, String),
    SoftBreak,
    /// A hard line break; `true` when written as a backslash.
    HardBreak(bool),
    /// A run of `len` delimiter characters; `closes` are the emphasis ends it makes from its
    /// first characters, `opens` the starts it makes from its last ones (both innermost first);
    /// `used` characters went into them, the others stay text.
    Delim {
        ch: u8,
        len: usize,
        can_open: bool,
        can_close: bool,
        used: usize,
        closes: Vec<Tag>,
        opens: Vec<Tag>,
    },
    /// A link (with the `href` to write when its target is safe) or an image (whose text shows
    /// without a tag).
    LinkStart(Option<String>),
    LinkEnd(bool),
}

/// Parses a paragraph's inlines. `strike`: `~` and `~~` are strikethrough.
pub(crate) fn parse(para: &Para<'_>, strike: bool) -> Vec<Inline> {
    let mut p = Inlines {
        b: para.text.as_bytes(),
        para,
        strike,
        nodes: Vec::new(),
        delims: Vec::new(),
        brackets: Vec::new(),
        active_from: 0,
        text_from: 0,
        runs: None,
        exhausted: Exhausted::default(),
    };
    p.run();
    p.nodes
}

#[derive(Default)]
struct Exhausted {
    /// No `-->`, `?>` or `>` after this point (a comment, processing instruction or declaration
    /// that starts later cannot end).
    comment: bool,
    processing: bool,
    declaration: bool,
    /// A CDATA section starting at or before this offset cannot end.
    cdata: usize,
}

#[derive(Clone, Copy, Debug)]
struct Bracket {
    node: usize,
    image: bool,
    active: bool,
    /// `delims.len()` when it opened: the delimiters inside it come after.
    delims: usize,
}

struct Inlines<'a, 'p> {
    b: &'a [u8],
    para: &'a Para<'p>,
    strike: bool,
    nodes: Vec<Inline>,
    /// Delimiter nodes not yet matched, in order.
    delims: Vec<usize>,
    brackets: Vec<Bracket>,
    /// Brackets below this index have been checked by the last link (links do not nest).
    active_from: usize,
    /// Start of the text not yet put in a node.
    text_from: usize,
    /// Backtick runs by length: start offsets and how many are behind the scan.
    runs: Option<HashMap<usize, (Vec<usize>, usize)>>,
    exhausted: Exhausted,
}

fn is_ws_no_nl(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | 0x0b | 0x0c)
}

impl Inlines<'_, '_> {
    fn flush(&mut self, to: usize) {
        if to > self.text_from {
            self.nodes.push(Inline::Text(self.text_from, to));
        }
    }

    fn push(&mut self, at: usize, node: Inline, next: usize) {
        self.flush(at);
        self.nodes.push(node);
        self.text_from = next;
    }

    fn run(&mut self) {
        let b = self.b;
        let mut i = 0;
        while i < b.len() {
            i = match b[i] {
                b'\n' | b'\r' => self.line_end(i),
                b'\\' => self.backslash(i),
                b'`' => self.backticks(i, i),
                b'<' => self.angle(i),
                b'&' => match entity(&b[i..]) {
                    Some((n, value)) => {
                        self.push(i, Inline::Owned(value), i + n);
                        i + n
                    }
                    None => i + 1,
                },
                b'*' | b'_' => self.delimiter(i),
                b'~' if self.strike => self.delimiter(i),
                b'!' if b.get(i + 1) == Some(&b'[') => self.open_bracket(i, true),
                b'[' => self.open_bracket(i, false),
                b']' => self.close_bracket(i),
                _ => i + 1,
            };
        }
        let spaces = b.iter().rev().take_while(|&&c| is_ws_no_nl(c)).count();
        self.flush(b.len() - spaces);
        let delims = std::mem::take(&mut self.delims);
        emphasis(&mut self.nodes, &delims);
    }

    /// A line ending: a hard break after two spaces or a backslash, else a soft one; the next
    /// line's indentation is not text. At the end of the paragraph, trailing spaces go.
    fn line_end(&mut self, i: usize) -> usize {
        let b = self.b;
        let next = i + if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        let last = next >= b.len();
        let backslashes = b[..i].iter().rev().take_while(|&&c| c == b'\\').count();
        let spaces = b[..i].iter().rev().take_while(|&&c| is_ws_no_nl(c)).count();
        if backslashes % 2 == 1 && !last {
            self.flush(i - 1);
            self.nodes.push(Inline::HardBreak(true));
        } else {
            self.flush((i - spaces).max(self.text_from));
            if !last {
                self.nodes.push(if spaces >= 2 {
                    Inline::HardBreak(false)
                } else {
                    Inline::SoftBreak
                });
            }
        }
        let mut j = next;
        while j < b.len() && matches!(b[j], b' ' | b'\t') {
            j += 1;
        }
        self.text_from = j;
        j
    }

    /// `\` before ASCII punctuation makes it text (a backtick after it still starts a run).
    fn backslash(&mut self, i: usize) -> usize {
        let b = self.b;
        match b.get(i + 1) {
            Some(b'`') => {
                self.flush(i);
                self.text_from = i + 1;
                self.backticks(i + 1, i + 2)
            }
            Some(c) if c.is_ascii_punctuation() => {
                self.flush(i);
                self.text_from = i + 1;
                i + 2
            }
            _ => i + 1,
        }
    }

    /// A backtick run starting at `run`, whose characters from `open` on may open a code span.
    fn backticks(&mut self, run: usize, open: usize) -> usize {
        let b = self.b;
        let len = b[run..].iter().take_while(|&&c| c == b'`').count();
        let end = run + len;
        let want = end - open;
        if want == 0 {
            return end;
        }
        let Some(close) = self.next_run(end, want) else {
            return end;
        };
        let text = &self.para.text;
        let mut code: String = match self.para.code_resumes(end, close) {
            Some(resume) => {
                let line = self.para.piece(close).map_or(close, |p| p.text);
                [&text[end..line], &text[resume..close]].concat()
            }
            None => text[end..close].to_string(),
        }
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
        if code.starts_with(' ') && code.ends_with(' ') && code.bytes().any(|c| c != b' ') {
            code.pop();
            code.remove(0);
        }
        self.push(open, Inline::Code(code), close + want);
        close + want
    }

    /// The first backtick run of exactly `len` starting at or after `from`.
    fn next_run(&mut self, from: usize, len: usize) -> Option<usize> {
        let b = self.b;
        let runs = self.runs.get_or_insert_with(|| {
            let mut runs: HashMap<usize, (Vec<usize>, usize)> = HashMap::new();
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'`' {
                    let n = b[i..].iter().take_while(|&&c| c == b'`').count();
                    runs.entry(n).or_default().0.push(i);
                    i += n;
                } else {
                    i += 1;
                }
            }
            runs
        });
        let (starts, seen) = runs.get_mut(&len)?;
        while *seen < starts.len() && starts[*seen] < from {
            *seen += 1;
        }
        starts.get(*seen).copied()
    }

    /// `<`: an autolink, raw HTML, or text.
    fn angle(&mut self, i: usize) -> usize {
        let b = self.b;
        if b.get(i + 1) == Some(&b'\\') {
            return i + 1;
        }
        if let Some((end, email)) = autolink(b, i + 1) {
            let url = &self.para.text[i + 1..end - 1];
            let href = (!email).then(|| link_href(url)).flatten();
            let kept = href.is_some();
            self.push(i, Inline::LinkStart(href), i + 1);
            self.flush(end - 1);
            self.nodes.push(Inline::LinkEnd(kept));
            self.text_from = end;
            return end;
        }
        let (end, raw) = match b.get(i + 1) {
            Some(b'!') | Some(b'?') => (self.special_html(i), true),
            _ => (html_tag(&b[i..], true).map(|n| i + n), false),
        };
        let Some(end) = end else {
            return i + 1;
        };
        let shown = if raw {
            let (s, e) = (self.para.to_source(i), self.para.to_source(end));
            self.para.source[s..e].to_string()
        } else {
            self.para.text[i..end].to_string()
        };
        self.push(i, Inline::Html(i, end, shown), end);
        end
    }

    /// `<!-- -->`, `<![CDATA[ ]]>`, `<!DECL >` and `<? ?>` at `i`: their end.
    fn special_html(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let find = |from: usize, pat: &[u8]| {
            b.get(from..)?
                .windows(pat.len())
                .position(|w| w == pat)
                .map(|p| from + p + pat.len())
        };
        let ex = &mut self.exhausted;
        if b[i + 1] == b'?' {
            if ex.processing {
                return None;
            }
            let end = find(i + 2, b"?>");
            ex.processing = end.is_none();
            return end;
        }
        match b.get(i + 2) {
            Some(b'-') if b.get(i + 3) == Some(&b'-') && !ex.comment => {
                let end = find(i + 2, b"-->");
                ex.comment = end.is_none();
                end
            }
            Some(b'[') if b[i + 3..].starts_with(b"CDATA[") && i + 3 > ex.cdata => {
                // As pulldown-cmark: the first run of `]` must be followed by `>`.
                let from = i + 9;
                let close = b[from..]
                    .iter()
                    .position(|&c| c == b']')
                    .map_or(b.len(), |p| from + p);
                let brackets = b[close..].iter().take_while(|&&c| c == b']').count();
                if brackets > 0 && b.get(close + brackets) == Some(&b'>') {
                    Some(close + brackets + 1)
                } else {
                    ex.cdata = close + brackets;
                    None
                }
            }
            Some(c) if c.is_ascii_alphabetic() && !ex.declaration => {
                let end = find(i + 3, b">");
                ex.declaration = end.is_none();
                end
            }
            _ => None,
        }
    }

    /// A run of `*`, `_` or `~`: a delimiter if it can open or close emphasis.
    fn delimiter(&mut self, i: usize) -> usize {
        let b = self.b;
        let ch = b[i];
        let len = b[i..].iter().take_while(|&&c| c == ch).count();
        let text = &self.para.text;
        let before = text[..i].chars().next_back();
        let after = text[i + len..].chars().next();
        let (can_open, can_close) = flanking(ch, len, before, after);
        if (can_open || can_close) && (ch != b'~' || len <= 2) {
            self.flush(i);
            self.delims.push(self.nodes.len());
            self.nodes.push(Inline::Delim {
                ch,
                len,
                can_open,
                can_close,
                used: 0,
                closes: Vec::new(),
                opens: Vec::new(),
            });
            self.text_from = i + len;
        }
        i + len
    }

    fn open_bracket(&mut self, i: usize, image: bool) -> usize {
        let end = i + 1 + usize::from(image);
        self.flush(i);
        self.brackets.push(Bracket {
            node: self.nodes.len(),
            image,
            active: true,
            delims: self.delims.len(),
        });
        self.nodes.push(Inline::Text(i, end));
        self.text_from = end;
        end
    }

    /// `]`: a link or image if the nearest open bracket is active and a destination follows.
    fn close_bracket(&mut self, i: usize) -> usize {
        let Some(open) = self.brackets.pop() else {
            return i + 1;
        };
        self.active_from = self.active_from.min(self.brackets.len());
        if !open.active {
            return i + 1;
        }
        let Some((end, url)) = link_tail(self.b, i + 1) else {
            return i + 1;
        };
        self.flush(i);
        let inner = self.delims.split_off(open.delims);
        if let Some(last) = self
            .nodes
            .last_mut()
            .filter(|n| **n == Inline::HardBreak(true))
        {
            // As pulldown-cmark: a backslash break that ends a link's text is a backslash when
            // the text has emphasis delimiters (its second inline pass runs over them then).
            if !inner.is_empty() {
                *last = Inline::Owned("\\".to_string());
            }
        }
        emphasis(&mut self.nodes, &inner);
        let href = if open.image { None } else { link_href(&url) };
        let kept = href.is_some();
        self.nodes[open.node] = Inline::LinkStart(href);
        self.nodes.push(Inline::LinkEnd(kept));
        self.text_from = end;
        if !open.image {
            for bracket in &mut self.brackets[self.active_from..] {
                if !bracket.image {
                    bracket.active = false;
                }
            }
            self.active_from = self.brackets.len();
        }
        end
    }
}

/// The `href` to write for a link target, if it is safe.
fn link_href(url: &str) -> Option<String> {
    super::safe_url(url).then(|| super::escape_attr(url.trim()))
}

/// Can a run of `len` × `ch` between `before` and `after` open, close emphasis? `None` is the
/// start or end of the paragraph. (CommonMark's flanking rules; `~~` may be inside a word, `~`
/// may not, as in GitHub's strikethrough and pulldown-cmark.)
fn flanking(ch: u8, len: usize, before: Option<char>, after: Option<char>) -> (bool, bool) {
    let ws = |c: char| c.is_whitespace();
    let can_open = match (before, after) {
        (_, None) => false,
        (_, Some(a)) if ws(a) => false,
        (None, _) => true,
        (Some(p), Some(a)) => {
            (ch == b'*' && !is_punct(a))
                || (ch == b'~' && len > 1)
                || (ch == b'~' && p == '~' && !is_punct(a))
                || ws(p)
                || is_punct(p)
        }
    };
    let can_close = match (before, after) {
        (None, _) => false,
        (Some(p), _) if ws(p) => false,
        (_, None) => true,
        (Some(p), Some(a)) => {
            ((ch == b'*' || (ch == b'~' && len > 1)) && !is_punct(p))
                || (ch == b'~' && p == '~')
                || ws(a)
                || is_punct(a)
        }
    };
    (can_open, can_close)
}

/// Resolves emphasis among `delims` (node indices, in order), as pulldown-cmark does: each
/// closer looks for the nearest opener of its kind (CommonMark's rule of three; `~` only with a
/// run of its own length) above a lower bound per kind, which a failed search raises to the
/// top of the stack.
fn emphasis(nodes: &mut [Inline], delims: &[usize]) {
    #[derive(Clone, Copy)]
    struct Opener {
        node: usize,
        count: usize,
        len: usize,
        ch: u8,
        both: bool,
    }
    fn bound_index(ch: u8, len: usize) -> (usize, usize) {
        match ch {
            b'_' => (6 + len % 3, 0),
            b'*' => (2 + len % 3, 1),
            _ => (5, 5),
        }
    }
    let mut stack: Vec<Opener> = Vec::new();
    let mut bounds = [0usize; 9];
    for &d in delims {
        let Inline::Delim {
            ch,
            len,
            can_open,
            can_close,
            ..
        } = nodes[d]
        else {
            continue;
        };
        let both = can_open && can_close;
        let mut count = len;
        let (by_len, not_both) = bound_index(ch, len);
        while can_close && count > 0 {
            let mut lower = bounds[by_len];
            if !both {
                lower = lower.min(bounds[not_both]);
            }
            let lower = lower.min(stack.len());
            let found = stack[lower..].iter().rposition(|o| {
                o.ch == ch
                    && (ch != b'~' || o.len == len)
                    && ((!both && !o.both) || (len + o.len) % 3 != 0 || len % 3 == 0)
            });
            let Some(at) = found.map(|f| f + lower) else {
                bounds[by_len] = stack.len();
                if !both {
                    bounds[not_both] = stack.len();
                }
                break;
            };
            let opener = stack[at];
            stack.truncate(at);
            for b in &mut bounds {
                *b = (*b).min(at);
            }
            // Innermost first: pairs make `strong`, an odd one left is `em` around them; a `~`
            // or `~~` pair makes one `del`.
            let used = count.min(opener.count);
            let tags: Vec<Tag> = if ch == b'~' {
                vec![Tag::Del]
            } else {
                let strong = std::iter::repeat_n(Tag::Strong, used / 2);
                strong.chain((used % 2 == 1).then_some(Tag::Em)).collect()
            };
            for (node, is_opener) in [(opener.node, true), (d, false)] {
                if let Inline::Delim {
                    opens,
                    closes,
                    used: u,
                    ..
                } = &mut nodes[node]
                {
                    // Later matches are further out: appending keeps innermost first.
                    if is_opener { opens } else { closes }.extend(&tags);
                    *u += used;
                }
            }
            if opener.count > used {
                push_opener(
                    &mut stack,
                    &mut bounds,
                    Opener {
                        count: opener.count - used,
                        ..opener
                    },
                );
            }
            count -= used;
        }
        if count > 0 && can_open {
            push_opener(
                &mut stack,
                &mut bounds,
                Opener {
                    node: d,
                    count,
                    len,
                    ch,
                    both,
                },
            );
        }
    }
    fn push_opener(stack: &mut Vec<Opener>, bounds: &mut [usize; 9], opener: Opener) {
        if opener.ch == b'~' {
            bounds[5] = bounds[5].min(stack.len());
        }
        stack.push(opener);
    }
}

/// An autolink starting after `<` at `i`: where it ends (after `>`) and whether it is an email
/// address.
fn autolink(b: &[u8], i: usize) -> Option<(usize, bool)> {
    uri(b, i)
        .map(|end| (end, false))
        .or_else(|| email(b, i).map(|end| (end, true)))
}

fn uri(b: &[u8], i: usize) -> Option<usize> {
    let s = &b[i..];
    if !s.first()?.is_ascii_alphabetic() {
        return None;
    }
    let scheme = 1 + s[1..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+'))
        .count();
    if s.get(scheme) != Some(&b':') || !(2..=32).contains(&scheme) {
        return None;
    }
    let rest = &s[scheme + 1..];
    let n = rest
        .iter()
        .position(|&c| c <= b' ' || c == b'<' || c == b'>')?;
    (rest[n] == b'>').then_some(i + scheme + 1 + n + 1)
}

fn email(b: &[u8], i: usize) -> Option<usize> {
    let s = &b[i..];
    let local = s
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || b".!#$%&'*+/=?^_`{|}~-".contains(c))
        .count();
    if local == 0 || s.get(local) != Some(&b'@') {
        return None;
    }
    let mut j = local + 1;
    loop {
        let label = s[j..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
            .count();
        if label == 0 || label > 63 || s[j] == b'-' || s[j + label - 1] == b'-' {
            return None;
        }
        j += label;
        if s.get(j) != Some(&b'.') {
            break;
        }
        j += 1;
    }
    (s.get(j) == Some(&b'>')).then_some(i + j + 1)
}

/// An HTML opening or closing tag at the start of `s` (which starts with `<`): its length.
/// `newlines`: whether line endings may appear between attributes (inline HTML may, an HTML
/// block's opening line may not).
pub(crate) fn html_tag(s: &[u8], newlines: bool) -> Option<usize> {
    let closing = s.get(1) == Some(&b'/');
    let mut i = 1 + usize::from(closing);
    let letters = s[i..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    if letters == 0 {
        return None;
    }
    i += letters;
    i += s[i..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
        .count();
    if !closing {
        loop {
            let before = i;
            i = skip_space(s, i, newlines)?;
            match s.get(i) {
                None => return None,
                Some(b'/' | b'>') => break,
                _ if i == before => return None,
                _ => i = attribute(s, i, newlines)?,
            }
        }
    }
    i += s[i..].iter().take_while(|&&c| is_ws_no_nl(c)).count();
    if !closing && s.get(i) == Some(&b'/') {
        i += 1;
    }
    (s.get(i) == Some(&b'>')).then_some(i + 1)
}

/// Skips spaces, tabs and (when allowed) line endings; `None` at a line ending that is not.
fn skip_space(s: &[u8], mut i: usize, newlines: bool) -> Option<usize> {
    loop {
        match s.get(i) {
            Some(&c) if is_ws_no_nl(c) => i += 1,
            Some(b'\n' | b'\r') if newlines => i += 1,
            Some(b'\n' | b'\r') => return None,
            _ => return Some(i),
        }
    }
}

/// An attribute at `i` (`name`, `name=value`, `name="…"`, `name='…'`): where it ends.
fn attribute(s: &[u8], mut i: usize, newlines: bool) -> Option<usize> {
    let first = *s.get(i)?;
    if !(first.is_ascii_alphabetic() || first == b'_' || first == b':') {
        return None;
    }
    i += 1 + s[i + 1..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
        .count();
    let eq = skip_space(s, i, newlines)?;
    if s.get(eq) != Some(&b'=') {
        return Some(i);
    }
    let v = skip_space(s, eq + 1, newlines)?;
    match *s.get(v)? {
        q @ (b'"' | b'\'') => {
            let close = s[v + 1..].iter().position(|&c| c == q)?;
            let inside = &s[v + 1..v + 1 + close];
            (newlines || !inside.iter().any(|c| matches!(c, b'\n' | b'\r')))
                .then_some(v + close + 2)
        }
        b' ' | b'=' | b'>' | b'<' | b'`' | b'\n' | b'\r' => None,
        _ => Some(
            v + s[v..]
                .iter()
                .take_while(|c| {
                    !matches!(
                        c,
                        b'"' | b'\'' | b' ' | b'=' | b'>' | b'<' | b'`' | b'\n' | b'\r'
                    )
                })
                .count(),
        ),
    }
}

/// After `]` at `i - 1`: an inline link's `(destination "title")`: where it ends and the
/// destination (backslash escapes and entities resolved).
fn link_tail(b: &[u8], i: usize) -> Option<(usize, String)> {
    if b.get(i) != Some(&b'(') {
        return None;
    }
    let mut j = separator(b, i + 1);
    let (dest, after) = destination(b, j)?;
    j = separator(b, after);
    if let Some(end) = title(b, j) {
        j = separator(b, end);
    }
    (b.get(j) == Some(&b')')).then(|| (j + 1, unescape(dest)))
}

/// Spaces and tabs, at most one line ending, spaces and tabs.
fn separator(b: &[u8], mut i: usize) -> usize {
    let spaces = |b: &[u8], i: usize| i + b[i..].iter().take_while(|&&c| is_ws_no_nl(c)).count();
    i = spaces(b, i);
    match b.get(i) {
        Some(b'\r') if b.get(i + 1) == Some(&b'\n') => spaces(b, i + 2),
        Some(b'\n' | b'\r') => spaces(b, i + 1),
        _ => i,
    }
}

/// A link destination at `i`: `<…>` or a run without spaces and with balanced parentheses
/// (at most 32 deep).
fn destination(b: &[u8], i: usize) -> Option<(&[u8], usize)> {
    if b.get(i) == Some(&b'<') {
        let mut j = i + 1;
        while j < b.len() {
            match b[j] {
                b'\n' | b'\r' | b'<' => return None,
                b'>' => return Some((&b[i + 1..j], j + 1)),
                b'\\' if b.get(j + 1).is_some_and(u8::is_ascii_punctuation) => j += 1,
                _ => {}
            }
            j += 1;
        }
        return None;
    }
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        match b[j] {
            0..=b' ' => break,
            b'(' => {
                if depth > 32 {
                    return None;
                }
                depth += 1;
            }
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            b'\\' if b.get(j + 1).is_some_and(u8::is_ascii_punctuation) => j += 1,
            _ => {}
        }
        j += 1;
    }
    (depth == 0).then_some((&b[i..j], j))
}

/// A link title at `i` (`"…"`, `'…'` or `(…)`): where it ends.
fn title(b: &[u8], i: usize) -> Option<usize> {
    let open = *b.get(i)?;
    let close = match open {
        b'"' | b'\'' => open,
        b'(' => b')',
        _ => return None,
    };
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            c if c == close => return Some(j + 1),
            c if c == open => return None,
            b'\\' if b.get(j + 1).is_some_and(u8::is_ascii_punctuation) => j += 1,
            _ => {}
        }
        j += 1;
    }
    None
}

/// Resolves backslash escapes and entities in a link destination (and drops CRs).
fn unescape(s: &[u8]) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'\\' if s.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                out.push(s[i + 1]);
                i += 2;
            }
            b'&' => match entity(&s[i..]) {
                Some((n, value)) => {
                    out.extend_from_slice(value.as_bytes());
                    i += n;
                }
                None => {
                    out.push(b'&');
                    i += 1;
                }
            },
            b'\r' => i += 1,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
