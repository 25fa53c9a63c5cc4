//! Markdown, as much of it as Rail needs, in linear time: where claims.md has code and HTML
//! (lines there are never claims), and purposes rendered as safe HTML.
//!
//! Our own CommonMark subset instead of a full parser: pulldown-cmark was a third of the wasm
//! package and takes seconds on deeply nested input, and claims.md is untrusted. It is verified
//! against pulldown-cmark by differential tests (`core/tests/prop_markdown.rs`), which also list
//! where and why the two differ.
//!
//! - [`blocks`]: block structure, line by line (containers on an explicit stack).
//! - [`inline`]: one paragraph's inlines: code spans, autolinks, raw HTML, links, emphasis.
//! - this module: [`excluded_ranges`] for claims.md and [`render`] for purposes.
//!
//! Everything in a claim is untrusted. In rendered purposes raw HTML is escaped (shown as
//! text), links keep their text but lose their target unless it is `http:`, `https:` or
//! `mailto:` (so `javascript:`, `data:` and `vbscript:` never reach a page), images become
//! their alt text, and links that stay open get `rel="noopener noreferrer nofollow"`. The only
//! tags ever written are `p`, `em`, `strong`, `del`, `code`, `a`, `br`, `ul`, `ol`, `li` and
//! `pre`; the only attributes `href` and `rel` on `a` and a number as `start` on `ol`.

mod blocks;
mod entities;
mod inline;
mod punct;

use blocks::{Block, Dialect, Seg};
use inline::{Inline, Para, Tag};

use crate::text::Span;

/// Is this link target safe to put in an `href`?
pub fn safe_url(url: &str) -> bool {
    // Browsers ignore whitespace and control characters inside a scheme (`java\tscript:`).
    let squeezed: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    squeezed.starts_with("https://")
        || squeezed.starts_with("http://")
        || squeezed.starts_with("mailto:")
}

fn escape_attr(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Byte ranges of claims.md where no line is a claim: fenced and indented code blocks, HTML
/// blocks, and the lines after the first of an HTML comment that spans lines inside a
/// paragraph. A line is inside when its first non-space byte is. Sorted by start.
pub fn excluded_ranges(text: &str) -> Vec<Span> {
    markup(text).0
}

/// [`excluded_ranges`] and [`unclosed_at_end`] of `text` from one scan of its blocks (what
/// reading claims.md needs, once an operation on a shared rail's replay).
pub fn markup(text: &str) -> (Vec<Span>, Option<Unclosed>) {
    if !may_have_markup(text) {
        return (Vec::new(), None);
    }
    let doc = blocks::parse(text, Dialect::Full);
    let open = doc
        .open_at_end
        .and_then(|(start, opening)| unclosed(text, start, opening));
    (excluded_in(text, &doc), open)
}

fn excluded_in(text: &str, doc: &blocks::Doc) -> Vec<Span> {
    let mut out = Vec::new();
    for block in &doc.blocks {
        match block {
            Block::Code(span, _) | Block::Html(span, _) => out.push(*span),
            Block::Paragraph(range) if range.len() > 1 => {
                let segs = &doc.segs[range.clone()];
                let (from, to) = (segs[0].start, segs[segs.len() - 1].end);
                if !text[from..to].contains("<!--") {
                    continue;
                }
                let para = Para::new(text, segs);
                for node in inline::parse(&para, false) {
                    let Inline::Html(start, end, _) = node else {
                        continue;
                    };
                    let (start, end) = (para.to_source(start), para.to_source(end));
                    let raw = &text[start..end];
                    if let Some(nl) = raw.find('\n').filter(|_| raw.starts_with("<!--")) {
                        out.push(Span::new(start + nl + 1, end));
                    }
                }
            }
            _ => {}
        }
    }
    crate::text::sort::sort_by_key(&mut out, |s| (s.start, s.end));
    out
}

/// A fenced code block or an HTML block that is still open where claims.md ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unclosed {
    /// The opening line's marker (the fence, or the line's first bytes up to its end), for a
    /// diagnostic that points at it.
    pub span: Span,
    /// What it is, in words: "code fence ```", "HTML comment `<!--`".
    pub what: String,
    /// What would close it.
    pub closer: String,
}

/// The code or HTML block still open at the end of `text`, if any: a line added after the end
/// would be inside it, not a claim. (A block inside a list item or block quote at the end
/// counts too: it also runs to the end of the text.)
pub fn unclosed_at_end(text: &str) -> Option<Unclosed> {
    markup(text).1
}

/// The block opened at `start` by `opening`, said.
fn unclosed(text: &str, start: usize, opening: blocks::Opening) -> Option<Unclosed> {
    let line_end = text[start..]
        .find(['\r', '\n'])
        .map_or(text.len(), |i| start + i);
    // The opening token: the fence, `<!--`, `<div>`… up to the first space.
    let first = &text[start..line_end];
    let word = first
        .find(char::is_whitespace)
        .map_or(first, |i| &first[..i]);
    let shown: String = word.chars().take(16).collect();
    let (marker_len, what, closer) = match opening {
        blocks::Opening::Fence { ch, len } => {
            let fence = (ch as char).to_string().repeat(len);
            (
                len,
                format!("code fence {shown}"),
                format!("a line {fence}"),
            )
        }
        blocks::Opening::Html("-->") => (4, "HTML comment `<!--`".to_string(), "`-->`".to_string()),
        blocks::Opening::Html(end) => (
            word.len(),
            format!("HTML block `{shown}`"),
            format!("`{end}`"),
        ),
        blocks::Opening::HtmlToBlank => (
            word.len(),
            format!("HTML block `{shown}`"),
            "a blank line".to_string(),
        ),
    };
    Some(Unclosed {
        span: Span::new(start, (start + marker_len).min(line_end)),
        what,
        closer,
    })
}

/// Fast path: a code block or HTML needs a `<`, a fence (```` ``` ```` or `~~~`) or an indented
/// code block, and that needs four columns of indentation after its container's marker: four
/// spaces in a row or a tab somewhere. Without any of them there is nothing to exclude.
/// One pass over the bytes. (Five substring searches were as fast natively, where the standard
/// library vectorises them, and several times slower in wasm, where it does not: the three
/// multi-byte ones build a two-way searcher and scan the whole rail each.)
fn may_have_markup(text: &str) -> bool {
    // The byte of the current run of spaces, backticks or tildes, and its length.
    let (mut byte, mut run) = (0u8, 0usize);
    for &b in text.as_bytes() {
        match b {
            b'<' | b'\t' => return true,
            b' ' | b'`' | b'~' => {
                run = if b == byte { run + 1 } else { 1 };
                byte = b;
                if run == if b == b' ' { 4 } else { 3 } {
                    return true;
                }
            }
            _ => run = 0,
        }
    }
    false
}

/// Renders a purpose (markdown) to HTML that is safe to insert into a page.
///
/// Paragraphs, bullet and numbered lists, fenced and indented code, and inline emphasis,
/// strikethrough, code, links, autolinks, entities and hard breaks. Block quotes, headings and
/// thematic breaks are not rendered: their lines show as written. HTML blocks show as escaped
/// text, as raw HTML inside a paragraph does.
pub fn render(markdown: &str) -> String {
    let doc = blocks::parse(markdown, Dialect::Purpose);
    let mut w = Writer {
        out: String::with_capacity(markdown.len() + 16),
        end_newline: true,
    };
    // Open lists (ordered, tight) and items (`None`): which paragraphs go without `<p>`.
    let mut open: Vec<Option<(bool, bool)>> = Vec::new();
    for block in &doc.blocks {
        match block {
            Block::ListStart {
                ordered,
                start,
                tight,
            } => {
                let tag = match (ordered, start) {
                    (false, _) => "<ul>\n".to_string(),
                    (true, 1) => "<ol>\n".to_string(),
                    (true, n) => format!("<ol start=\"{n}\">\n"),
                };
                w.block(&tag);
                open.push(Some((*ordered, *tight)));
            }
            Block::ListEnd => match open.pop() {
                Some(Some((true, _))) => w.raw("</ol>\n"),
                _ => w.raw("</ul>\n"),
            },
            Block::ItemStart => {
                w.block("<li>");
                open.push(None);
            }
            Block::ItemEnd => {
                open.pop();
                w.raw("</li>\n");
            }
            // Not recognised in purposes (`Dialect::Purpose`).
            Block::QuoteStart | Block::QuoteEnd => {}
            Block::Paragraph(range) => {
                let tight = matches!(open[..], [.., Some((_, true)), None]);
                if !tight {
                    w.block("<p>");
                }
                let para = Para::new(markdown, &doc.segs[range.clone()]);
                let nodes = inline::parse(&para, true);
                inlines(&mut w, &para, &nodes);
                if !tight {
                    w.raw("</p>\n");
                }
            }
            Block::Code(_, range) => {
                if !w.end_newline {
                    w.raw("\n");
                }
                w.raw("<pre><code>");
                lines(&mut w, markdown, &doc.segs[range.clone()]);
                w.raw("</code></pre>\n");
            }
            Block::Html(_, range) => lines(&mut w, markdown, &doc.segs[range.clone()]),
        }
    }
    w.out.truncate(w.out.trim_end().len());
    w.out
}

/// Code or HTML block lines as text: a partly used tab's columns as spaces, CRLF as LF.
fn lines(w: &mut Writer, source: &str, segs: &[Seg]) {
    for seg in segs {
        w.text(&"   "[..seg.pad.min(3)]);
        let line = &source[seg.start..seg.end];
        match line.strip_suffix("\r\n") {
            Some(body) => {
                w.text(body);
                w.text("\n");
            }
            None => w.text(line),
        }
    }
}

fn inlines(w: &mut Writer, para: &Para<'_>, nodes: &[Inline]) {
    let tag = |t: &Tag, close: bool| match (t, close) {
        (Tag::Em, false) => "<em>",
        (Tag::Em, true) => "</em>",
        (Tag::Strong, false) => "<strong>",
        (Tag::Strong, true) => "</strong>",
        (Tag::Del, false) => "<del>",
        (Tag::Del, true) => "</del>",
    };
    for node in nodes {
        match node {
            Inline::Text(start, end) => w.text(&para.text[*start..*end]),
            Inline::Owned(text) | Inline::Html(_, _, text) => w.text(text),
            Inline::Code(code) => {
                w.raw("<code>");
                w.text(code);
                w.raw("</code>");
            }
            Inline::SoftBreak => w.raw("\n"),
            Inline::HardBreak(_) => w.raw("<br />\n"),
            Inline::Delim {
                ch,
                len,
                used,
                closes,
                opens,
                ..
            } => {
                for t in closes {
                    w.raw(tag(t, true));
                }
                let literal = [*ch].repeat(len - used);
                w.text(std::str::from_utf8(&literal).unwrap_or(""));
                for t in opens.iter().rev() {
                    w.raw(tag(t, false));
                }
            }
            Inline::LinkStart(Some(href)) => {
                w.raw("<a href=\"");
                w.raw(href);
                w.raw("\" rel=\"noopener noreferrer nofollow\">");
            }
            Inline::LinkStart(None) | Inline::LinkEnd(false) => {}
            Inline::LinkEnd(true) => w.raw("</a>"),
        }
    }
}

/// HTML output that remembers whether it ends a line (block tags start on a new line), as
/// pulldown-cmark's writer does.
struct Writer {
    out: String,
    end_newline: bool,
}

impl Writer {
    fn raw(&mut self, s: &str) {
        self.out.push_str(s);
        if !s.is_empty() {
            self.end_newline = s.ends_with('\n');
        }
    }

    /// A block's opening tag, on a line of its own.
    fn block(&mut self, tag: &str) {
        if !self.end_newline {
            self.raw("\n");
        }
        self.raw(tag);
    }

    fn text(&mut self, s: &str) {
        for c in s.chars() {
            match c {
                '&' => self.out.push_str("&amp;"),
                '<' => self.out.push_str("&lt;"),
                '>' => self.out.push_str("&gt;"),
                c => self.out.push(c),
            }
        }
        if !s.is_empty() {
            self.end_newline = s.ends_with('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass check against the five searches it replaced, on every string of up to seven
    /// bytes over the bytes that matter (and one that does not).
    #[test]
    fn markup_check_is_the_five_searches() {
        let oracle = |t: &str| {
            t.contains('<')
                || t.contains('\t')
                || t.contains("    ")
                || t.contains("```")
                || t.contains("~~~")
        };
        let alphabet = [" ", "`", "~", "a", "<", "\t"];
        let mut strings = vec![String::new()];
        for _ in 0..7 {
            let longer: Vec<String> = strings
                .iter()
                .filter(|s| s.len() == strings.last().map_or(0, String::len))
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            strings.extend(longer);
        }
        assert!(strings.len() > 300_000);
        for s in &strings {
            assert_eq!(may_have_markup(s), oracle(s), "{s:?}");
        }
    }

    /// Purposes as people write them. Where the HTML differs from pulldown-cmark's (through
    /// the same filter), the comment says why.
    #[test]
    fn purposes() {
        for (md, html) in [
            ("rotate the *refresh* tokens", "<p>rotate the <em>refresh</em> tokens</p>"),
            (
                "see [the docs](https://e.com/a_b) and <https://x.y/z>",
                "<p>see <a href=\"https://e.com/a_b\" rel=\"noopener noreferrer nofollow\">the docs</a> and <a href=\"https://x.y/z\" rel=\"noopener noreferrer nofollow\">https://x.y/z</a></p>",
            ),
            ("use `cargo test`, ~~not make~~", "<p>use <code>cargo test</code>, <del>not make</del></p>"),
            ("a &amp; b &copy; &#x41; &bogus;", "<p>a &amp; b © A &amp;bogus;</p>"),
            (
                "Rebuild the index.\nKeep the old one.",
                "<p>Rebuild the index.\nKeep the old one.</p>",
            ),
            ("line one  \nline two", "<p>line one<br />\nline two</p>"),
            ("- one\n- two *b*", "<ul>\n<li>one</li>\n<li>two <em>b</em></li>\n</ul>"),
            ("1. a\n\n2. b", "<ol>\n<li>\n<p>a</p>\n</li>\n<li>\n<p>b</p>\n</li>\n</ol>"),
            ("3. three\n4. four", "<ol start=\"3\">\n<li>three</li>\n<li>four</li>\n</ol>"),
            ("snake_case_name and 2*3*4", "<p>snake_case_name and 2<em>3</em>4</p>"),
            ("[x](javascript:alert(1)) ![logo](https://e.com/l.png)", "<p>x logo</p>"),
            ("<!-- note --> fix", "&lt;!-- note --&gt; fix"),
            // No `class="language-sh"`.
            ("```sh\ncargo test <x>\n```", "<pre><code>cargo test &lt;x&gt;\n</code></pre>"),
            // Headings, block quotes and thematic breaks show as written.
            ("# not a heading", "<p># not a heading</p>"),
            ("> quoted", "<p>&gt; quoted</p>"),
            ("---", "<p>---</p>"),
        ] {
            assert_eq!(render(md), html, "{md:?}");
        }
    }

    #[test]
    fn code_and_comments_are_excluded() {
        for (text, ranges) in [
            ("a | s | t\n```\nb | s | t\n```\n", vec![Span::new(10, 27)]),
            ("Notes <!--\nb | s | t\n-->\n", vec![Span::new(11, 24)]),
            ("- item\n\n      b | s | t\n", vec![Span::new(14, 24)]),
            ("> ~~~\n> b | s | t\n", vec![Span::new(2, 18)]),
            ("a | s | t\nb | s | t\n", vec![]),
        ] {
            assert_eq!(excluded_ranges(text), ranges, "{text:?}");
        }
    }

    #[test]
    fn markdown_is_rendered() {
        assert_eq!(
            render("fix **totals**"),
            "<p>fix <strong>totals</strong></p>"
        );
    }

    #[test]
    fn html_is_escaped() {
        let out = render("<script>alert(1)</script> <img src=x onerror=alert(1)>");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
    }

    #[test]
    fn unsafe_links_lose_their_target() {
        for bad in [
            "[x](javascript:alert(1))",
            "[x](JAVASCRIPT:alert(1))",
            "[x](java\tscript:alert(1))",
            "[x](data:text/html,<script>alert(1)</script>)",
            "[x](vbscript:msgbox)",
            "<javascript:alert(1)>",
            "![x](javascript:alert(1))",
        ] {
            let out = render(bad);
            assert!(!out.to_lowercase().contains("href"), "{bad} → {out}");
            assert!(!out.contains("<img"), "{bad} → {out}");
        }
        let ok = render("[docs](https://example.com/a?b=\"c\")");
        assert_eq!(
            ok,
            "<p><a href=\"https://example.com/a?b=&quot;c&quot;\" rel=\"noopener noreferrer nofollow\">docs</a></p>"
        );
    }
}
