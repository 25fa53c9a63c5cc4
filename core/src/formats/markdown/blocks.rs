//! CommonMark block structure, one line at a time, in linear time.
//!
//! The scanner follows the CommonMark 0.31 block rules as pulldown-cmark 0.13 applies them (it is
//! the oracle of the differential tests, quirks included): containers are block quotes and list
//! items, leaves are paragraphs (with lazy continuation lines), fenced and indented code, the
//! seven kinds of HTML block, ATX and setext headings and thematic breaks.
//!
//! Deliberately not recognised (documented in docs/format.md, "What is a claim"):
//! - link reference definitions: they stay paragraph text (only inline comments could differ);
//! - a lone CR is not a line ending (as everywhere else in Rail; CRLF is);
//! - the BOM is content, as pulldown-cmark reads it.
//!
//! Linear time, no recursion: open containers live on an explicit stack. A line is matched
//! against them from the outside in; every matched container consumes at least one byte of the
//! line or (list items) its indentation, except on a line that is blank from some point on,
//! where the whole remaining match is computed in O(1) from the position of the next block quote
//! and running sums of list item indentations. Closing a container costs O(1) and each is closed
//! once. The thematic-break test before a list marker remembers how far it got, so nested
//! markers on one line (`- - - - … x`) are not rescanned.

use std::ops::Range;

use crate::text::Span;

/// Which blocks are recognised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Everything in CommonMark's block structure (claims.md).
    Full,
    /// Purposes: paragraphs, lists, code and HTML blocks. A block quote, heading or thematic
    /// break is not recognised: its line stays paragraph text (and shows as written).
    Purpose,
}

/// A piece of a line that belongs to a leaf block: `start..end` in the source (`end` includes
/// the line ending), after `pad` columns of a tab that the container prefix only partly used.
/// For a lazy paragraph line, `lazy` is how many columns of indentation the list items it did
/// not continue would take on a blank line, and `col` the column where it starts.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Seg {
    pub start: usize,
    pub end: usize,
    pub pad: usize,
    pub lazy: usize,
    pub col: usize,
}

/// What the scanner reports, in document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    /// `tight` is final once the matching `ListEnd` has been reported.
    ListStart {
        ordered: bool,
        start: u64,
        tight: bool,
    },
    ListEnd,
    ItemStart,
    ItemEnd,
    QuoteStart,
    QuoteEnd,
    /// A paragraph (or the text of a setext heading): segments from after the container prefix.
    Paragraph(Range<usize>),
    /// A code block: its range as pulldown-cmark reports it, and its lines.
    Code(Span, Range<usize>),
    /// An HTML block: its range as pulldown-cmark reports it, and its lines.
    Html(Span, Range<usize>),
}

/// The scanned document: blocks and the segments they point into.
#[derive(Debug, Default)]
pub(crate) struct Doc {
    pub blocks: Vec<Block>,
    pub segs: Vec<Seg>,
    /// A code or HTML block still open when the text ended: where it starts and how it would
    /// have ended. A line added at the end would be inside it.
    pub open_at_end: Option<(usize, Opening)>,
}

/// How a block open at the end of the text would have been closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opening {
    /// A fenced code block: a fence of at least `len` of `ch`.
    Fence { ch: u8, len: usize },
    /// An HTML block of kinds 1–5: a line containing this (`-->`, `?>`, `]]>`, `</pre>`…).
    Html(&'static str),
    /// An HTML block of kinds 6 and 7: a blank line.
    HtmlToBlank,
}

pub(crate) fn parse(text: &str, dialect: Dialect) -> Doc {
    let mut parser = Parser {
        b: text.as_bytes(),
        full: dialect == Dialect::Full,
        stack: Vec::new(),
        sums: Vec::new(),
        quotes: Vec::new(),
        leaf: Leaf::None,
        doc: Doc::default(),
        last_blank: false,
        begin_item: false,
        hr_checked_to: 0,
    };
    let b = text.as_bytes();
    let mut start = 0;
    while start < b.len() {
        let nl = b[start..].iter().position(|&c| c == b'\n');
        let (end, next) = match nl {
            Some(i) if i > 0 && b[start + i - 1] == b'\r' => (start + i - 1, start + i + 1),
            Some(i) => (start + i, start + i + 1),
            None => (b.len(), b.len()),
        };
        parser.line(Line { start, end, next });
        start = next;
    }
    parser.doc.open_at_end = match parser.leaf {
        Leaf::Fenced { start, ch, len, .. } => Some((start, Opening::Fence { ch, len })),
        Leaf::Html { start, end, .. } => Some((
            start,
            match end {
                HtmlEnd::Marker(m) => Opening::Html(m),
                HtmlEnd::Blank => Opening::HtmlToBlank,
            },
        )),
        _ => None,
    };
    parser.close_leaf(b.len());
    parser.close_containers(0);
    parser.doc
}

#[derive(Clone, Copy, Debug)]
struct Line {
    start: usize,
    /// End of the content (before `\n` or `\r\n`).
    end: usize,
    /// Start of the next line.
    next: usize,
}

#[derive(Clone, Copy, Debug)]
enum Container {
    Quote,
    /// A list; `event` is its `ListStart` in the output (to mark it loose).
    List {
        event: usize,
        marker: u8,
    },
    /// A list item whose content starts `indent` columns in.
    Item {
        indent: usize,
    },
}

/// How an HTML block ends.
#[derive(Clone, Copy, Debug)]
enum HtmlEnd {
    /// Kinds 1–5: a line containing this.
    Marker(&'static str),
    /// Kinds 6 and 7: a blank line.
    Blank,
}

#[derive(Clone, Copy, Debug)]
enum Leaf {
    None,
    Paragraph {
        first: usize,
    },
    Fenced {
        start: usize,
        ch: u8,
        len: usize,
        indent: usize,
        first: usize,
    },
    Indented {
        start: usize,
        first: usize,
        /// End of the last non-blank line, and the segment count up to it.
        end: usize,
        segs: usize,
    },
    Html {
        start: usize,
        end: HtmlEnd,
        first: usize,
    },
}

/// A position in a line, with columns for tabs (tab stops every 4 columns).
#[derive(Clone, Copy, Debug)]
struct Cursor {
    pos: usize,
    col: usize,
    /// Columns of the last tab not yet consumed.
    rem: usize,
}

impl Cursor {
    /// Consumes up to `n` columns of spaces and tabs; returns how many it consumed.
    fn spaces(&mut self, b: &[u8], end: usize, n: usize) -> usize {
        let from_rem = self.rem.min(n);
        self.rem -= from_rem;
        let mut left = n - from_rem;
        while left > 0 && self.pos < end {
            match b[self.pos] {
                b' ' => {
                    self.pos += 1;
                    self.col += 1;
                    left -= 1;
                }
                b'\t' => {
                    let width = 4 - self.col % 4;
                    self.pos += 1;
                    self.col += width;
                    let used = width.min(left);
                    left -= used;
                    self.rem = width - used;
                }
                _ => break,
            }
        }
        n - left
    }

    /// Consumes all spaces and tabs.
    fn all_spaces(&mut self, b: &[u8], end: usize) {
        self.rem = 0;
        while self.pos < end && matches!(b[self.pos], b' ' | b'\t') {
            self.pos += 1;
        }
    }

    /// Consumes one ASCII byte. (A partly used tab before it keeps its remaining columns, as in
    /// pulldown-cmark.)
    fn byte(&mut self) {
        self.pos += 1;
        self.col += 1;
    }
}

struct Parser<'a> {
    b: &'a [u8],
    full: bool,
    stack: Vec<Container>,
    /// `sums[i]`: total indentation of the list items in `stack[..=i]` (for blank lines).
    sums: Vec<usize>,
    /// Stack positions of the block quotes, bottom first.
    quotes: Vec<usize>,
    leaf: Leaf,
    doc: Doc,
    /// The last line was blank (decides whether a list is loose).
    last_blank: bool,
    /// The innermost list item began with a blank line and has nothing yet.
    begin_item: bool,
    /// No thematic break can start before this offset on the current line.
    hr_checked_to: usize,
}

impl Parser<'_> {
    fn line(&mut self, line: Line) {
        let mut cur = Cursor {
            pos: line.start,
            col: 0,
            rem: 0,
        };
        self.hr_checked_to = line.start;
        let (matched, next_quote) = self.match_containers(&mut cur, line);
        let all = matched == self.stack.len();
        if all || matches!(self.leaf, Leaf::Paragraph { .. }) {
            let consumed = match self.leaf {
                Leaf::None => false,
                Leaf::Paragraph { .. } => self.paragraph_line(cur, line, matched, next_quote),
                Leaf::Fenced { .. } => {
                    self.fenced_line(cur, line);
                    true
                }
                Leaf::Indented { .. } => self.indented_line(cur, line),
                Leaf::Html { .. } => self.html_line(cur, line),
            };
            if consumed {
                return;
            }
        }
        self.close_leaf(line.start);
        self.close_containers(matched);
        self.new_blocks(cur, line);
    }

    /// How many open containers the line continues, and the stack position of the first block
    /// quote among the others; `cur` ends after their markers.
    fn match_containers(&mut self, cur: &mut Cursor, line: Line) -> (usize, usize) {
        let b = self.b;
        // Everything from `last` on is spaces and tabs.
        let mut last = line.end;
        while last > line.start && matches!(b[last - 1], b' ' | b'\t') {
            last -= 1;
        }
        let mut next_quote = 0;
        let quote_at = |n: usize| self.quotes.get(n).copied().unwrap_or(self.stack.len());
        let mut i = 0;
        while i < self.stack.len() {
            if cur.pos >= last {
                // Blank from here: every list item matches, the next block quote does not.
                let upto = quote_at(next_quote);
                let indent = self.indent_sum(upto) - self.indent_sum(i);
                cur.spaces(b, line.end, indent);
                return (upto, upto);
            }
            match self.stack[i] {
                Container::Quote => {
                    let save = *cur;
                    cur.spaces(b, line.end, 3);
                    if cur.pos < line.end && b[cur.pos] == b'>' {
                        cur.byte();
                        cur.spaces(b, line.end, 1);
                        next_quote += 1;
                    } else {
                        *cur = save;
                        return (i, i);
                    }
                }
                Container::Item { indent } => {
                    let save = *cur;
                    if cur.spaces(b, line.end, indent) < indent && cur.pos < line.end {
                        *cur = save;
                        return (i, quote_at(next_quote));
                    }
                }
                Container::List { .. } => {}
            }
            i += 1;
        }
        (i, i)
    }

    /// Total indentation of the list items in `stack[..upto]`.
    fn indent_sum(&self, upto: usize) -> usize {
        upto.checked_sub(1).map_or(0, |i| self.sums[i])
    }

    /// Continues a paragraph if the line does (also lazily). Returns whether it was consumed.
    /// `quote`: the first block quote among the containers the line did not continue.
    fn paragraph_line(&mut self, cur: Cursor, line: Line, matched: usize, quote: usize) -> bool {
        let b = self.b;
        let all = matched == self.stack.len();
        let mut c = cur;
        if c.spaces(b, line.end, 4) < 4 {
            if all && self.full && setext_underline(&b[c.pos..line.end]) {
                // A setext heading: its text is the paragraph's.
                self.close_leaf(line.start);
                return true;
            }
            if self.interrupts(c.pos, line, all) {
                return false;
            }
        }
        c.all_spaces(b, line.end);
        if c.pos == line.end {
            return false;
        }
        // On a lazy line, the indentation the list items it did not continue would take on a
        // blank line (see `Seg::lazy`).
        let lazy = self.indent_sum(quote) - self.indent_sum(matched);
        self.doc.segs.push(Seg {
            start: cur.pos,
            end: line.next,
            lazy,
            col: cur.col,
            ..Seg::default()
        });
        true
    }

    /// Can the text at `p` interrupt a paragraph? `all`: every container matched (otherwise the
    /// line could only be a lazy continuation).
    fn interrupts(&self, p: usize, line: Line, all: bool) -> bool {
        let b = self.b;
        let rest = &b[p..line.end];
        if rest.is_empty()
            || fence(rest).is_some()
            || (b[p] == b'<' && (html_1_to_5(&b[p + 1..]).is_some() || html_6(&b[p + 1..])))
        {
            return true;
        }
        let hr = hrule(rest).is_ok();
        if self.full && (hr || atx(&b[p..]) || b[p] == b'>') {
            return true;
        }
        match list_item(rest) {
            Some((marker, number, blank)) if self.full || !hr => {
                !all || (matches!(marker, b'-' | b'+' | b'*') || number == 1) && !blank
            }
            _ => false,
        }
    }

    fn fenced_line(&mut self, mut cur: Cursor, line: Line) {
        let Leaf::Fenced {
            start,
            ch,
            len,
            indent,
            first,
        } = self.leaf
        else {
            return;
        };
        let b = self.b;
        cur.spaces(b, line.end, indent);
        let mut close = cur;
        if close.spaces(b, line.end, 4 - indent) < 4 - indent {
            let p = close.pos;
            if p == b.len() {
                // Only a little whitespace left in the whole text: pulldown-cmark reads the end
                // of the text as a closing fence.
                let range = first..self.doc.segs.len();
                self.doc
                    .blocks
                    .push(Block::Code(Span::new(start, p), range));
                self.leaf = Leaf::None;
                return;
            }
            let run = b[p..line.end].iter().take_while(|&&c| c == ch).count();
            let spaces = b[p + run..line.end]
                .iter()
                .take_while(|&&c| c == b' ')
                .count();
            if run >= len && p + run + spaces == line.end {
                let range = first..self.doc.segs.len();
                self.doc
                    .blocks
                    .push(Block::Code(Span::new(start, p + run + spaces), range));
                self.leaf = Leaf::None;
                return;
            }
        }
        self.doc.segs.push(Seg {
            start: cur.pos,
            end: line.next,
            pad: cur.rem,
            ..Seg::default()
        });
    }

    fn indented_line(&mut self, cur: Cursor, line: Line) -> bool {
        let Leaf::Indented {
            start,
            first,
            mut end,
            mut segs,
        } = self.leaf
        else {
            return false;
        };
        let b = self.b;
        let mut c = cur;
        if c.spaces(b, line.end, 4) < 4 && c.pos < line.end {
            return false;
        }
        self.doc.segs.push(Seg {
            start: c.pos,
            end: line.next,
            pad: c.rem,
            ..Seg::default()
        });
        let blank = is_blank(&b[c.pos..line.end]);
        if !blank {
            end = line.next;
            segs = self.doc.segs.len();
        }
        self.last_blank = blank;
        self.leaf = Leaf::Indented {
            start,
            first,
            end,
            segs,
        };
        true
    }

    fn html_line(&mut self, cur: Cursor, line: Line) -> bool {
        let Leaf::Html { start, end, first } = self.leaf else {
            return false;
        };
        let b = self.b;
        match end {
            HtmlEnd::Marker(marker) => {
                self.doc.segs.push(Seg {
                    start: cur.pos,
                    end: line.next,
                    pad: cur.rem,
                    ..Seg::default()
                });
                if contains(&b[cur.pos..line.end], marker.as_bytes()) {
                    let range = first..self.doc.segs.len();
                    self.doc
                        .blocks
                        .push(Block::Html(Span::new(start, line.next), range));
                    self.leaf = Leaf::None;
                }
                true
            }
            HtmlEnd::Blank => {
                if cur.pos == line.end {
                    return false;
                }
                if is_blank(&b[cur.pos..line.end]) {
                    // pulldown-cmark ends this block after the blank line's container prefix.
                    let range = first..self.doc.segs.len();
                    self.doc
                        .blocks
                        .push(Block::Html(Span::new(start, cur.pos), range));
                    self.leaf = Leaf::None;
                    return false;
                }
                self.doc.segs.push(Seg {
                    start: cur.pos,
                    end: line.next,
                    pad: cur.rem,
                    ..Seg::default()
                });
                true
            }
        }
    }

    /// Reports and closes the open leaf block; `at` is where the line that ended it starts.
    fn close_leaf(&mut self, at: usize) {
        let segs = self.doc.segs.len();
        let block = match self.leaf {
            Leaf::None => return,
            Leaf::Paragraph { first } => Block::Paragraph(first..segs),
            Leaf::Fenced { start, first, .. } => Block::Code(Span::new(start, at), first..segs),
            Leaf::Indented {
                start,
                first,
                end,
                segs: kept,
            } => {
                // Trailing blank lines are not part of the block.
                self.doc.segs.truncate(kept);
                Block::Code(Span::new(start, end), first..kept)
            }
            Leaf::Html { start, first, .. } => Block::Html(Span::new(start, at), first..segs),
        };
        self.doc.blocks.push(block);
        self.leaf = Leaf::None;
    }

    /// Closes the containers from `keep` up.
    fn close_containers(&mut self, keep: usize) {
        while self.stack.len() > keep {
            self.pop();
        }
    }

    fn pop(&mut self) {
        let Some(top) = self.stack.pop() else {
            return;
        };
        self.sums.pop();
        let event = match top {
            Container::Quote => {
                self.quotes.pop();
                Block::QuoteEnd
            }
            Container::Item { .. } => Block::ItemEnd,
            Container::List { event, .. } => {
                if matches!(self.doc.blocks[event], Block::ListStart { tight: true, .. }) {
                    self.begin_item = false;
                }
                Block::ListEnd
            }
        };
        self.doc.blocks.push(event);
    }

    fn push(&mut self, container: Container, event: Block) {
        let mut sum = self.indent_sum(self.stack.len());
        match container {
            Container::Quote => self.quotes.push(self.stack.len()),
            Container::Item { indent } => sum += indent,
            Container::List { .. } => {}
        }
        self.sums.push(sum);
        self.stack.push(container);
        self.doc.blocks.push(event);
    }

    /// Before a new block: closes an item that began blank and stayed empty over a blank line,
    /// and a list that this block does not continue; a blank line before the block makes the
    /// enclosing list loose.
    fn finish_list(&mut self) {
        self.finish_empty_item();
        if matches!(self.stack.last(), Some(Container::List { .. })) {
            self.pop();
        }
        if self.last_blank {
            if let Some(Container::List { event, .. }) =
                self.stack.len().checked_sub(2).map(|i| self.stack[i])
            {
                self.set_loose(event);
            }
            self.last_blank = false;
        }
    }

    fn finish_empty_item(&mut self) {
        if self.begin_item
            && self.last_blank
            && matches!(self.stack.last(), Some(Container::Item { .. }))
        {
            self.pop();
        }
        self.begin_item = false;
    }

    fn set_loose(&mut self, event: usize) {
        if let Block::ListStart { tight, .. } = &mut self.doc.blocks[event] {
            *tight = false;
        }
    }

    /// Adds an item to the open list it continues, or opens a list.
    fn continue_list(&mut self, marker: u8, number: u64) {
        self.finish_empty_item();
        if let Some(top) = self.stack.last().copied() {
            if let Container::List { event, marker: m } = top {
                if m == marker {
                    if self.last_blank {
                        self.set_loose(event);
                        self.last_blank = false;
                    }
                    return;
                }
            }
            self.finish_list();
        }
        let event = self.doc.blocks.len();
        self.push(
            Container::List { event, marker },
            Block::ListStart {
                ordered: matches!(marker, b'.' | b')'),
                start: number,
                tight: true,
            },
        );
        self.last_blank = false;
    }

    /// Opens the containers and the leaf that start on this line.
    fn new_blocks(&mut self, mut cur: Cursor, line: Line) {
        let b = self.b;
        loop {
            let save = cur;
            let outer = cur.spaces(b, line.end, 4);
            if outer >= 4 {
                cur = save;
                break;
            }
            if let Some((marker, number, indent)) = self.list_marker(&mut cur, line, outer) {
                self.continue_list(marker, number);
                self.push(Container::Item { indent }, Block::ItemStart);
                if is_blank(&b[cur.pos..line.end]) {
                    self.begin_item = true;
                    return;
                }
            } else if self.full && cur.pos < line.end && b[cur.pos] == b'>' {
                cur.byte();
                cur.spaces(b, line.end, 1);
                self.finish_list();
                self.push(Container::Quote, Block::QuoteStart);
            } else {
                cur = save;
                break;
            }
        }

        if is_blank(&b[cur.pos..line.end]) {
            match self.stack.last_mut() {
                Some(Container::Quote) => {}
                Some(Container::Item { indent }) if self.begin_item => {
                    // It can nest nothing now, so it no longer takes indentation.
                    if let Some(sum) = self.sums.last_mut() {
                        *sum -= *indent;
                    }
                    *indent = 0;
                    self.last_blank = true;
                }
                _ => self.last_blank = true,
            }
            return;
        }

        let rem = cur.rem;
        let indent = cur.spaces(b, line.end, 4);
        if indent == 4 {
            self.finish_list();
            let first = self.doc.segs.len();
            self.doc.segs.push(Seg {
                start: cur.pos,
                end: line.next,
                pad: cur.rem,
                ..Seg::default()
            });
            self.last_blank = false;
            self.leaf = Leaf::Indented {
                start: cur.pos,
                first,
                end: line.next,
                segs: first + 1,
            };
            return;
        }
        let p = cur.pos;
        let first = self.doc.segs.len();
        if b[p] == b'<' {
            let end = html_1_to_5(&b[p + 1..]).map(HtmlEnd::Marker).or_else(|| {
                (html_6(&b[p + 1..]) || html_7(&b[p..line.end])).then_some(HtmlEnd::Blank)
            });
            if let Some(end) = end {
                self.finish_list();
                self.doc.segs.push(Seg {
                    start: p,
                    end: line.next,
                    pad: rem.max(indent),
                    ..Seg::default()
                });
                self.leaf = Leaf::Html {
                    start: p,
                    end,
                    first,
                };
                if let HtmlEnd::Marker(marker) = end {
                    if contains(&b[p..line.end], marker.as_bytes()) {
                        self.doc
                            .blocks
                            .push(Block::Html(Span::new(p, line.next), first..first + 1));
                        self.leaf = Leaf::None;
                    }
                }
                return;
            }
        }
        if self.full && (hrule(&b[p..line.end]).is_ok() || atx(&b[p..])) {
            self.finish_list();
            return;
        }
        if let Some((ch, len)) = fence(&b[p..line.end]) {
            self.finish_list();
            self.leaf = Leaf::Fenced {
                start: p,
                ch,
                len,
                indent,
                first,
            };
            return;
        }
        self.finish_list();
        self.doc.segs.push(Seg {
            start: p,
            end: line.next,
            col: cur.col,
            ..Seg::default()
        });
        self.leaf = Leaf::Paragraph { first };
    }

    /// A list marker at the cursor: `(marker, number, content indent)`; the cursor moves past
    /// the marker and the spaces that belong to it.
    fn list_marker(
        &mut self,
        cur: &mut Cursor,
        line: Line,
        outer: usize,
    ) -> Option<(u8, u64, usize)> {
        let b = self.b;
        let save = *cur;
        let c = *b[..line.end].get(cur.pos)?;
        let (marker, number, width) = match c {
            b'-' | b'+' | b'*' => {
                if cur.pos >= self.hr_checked_to {
                    match hrule(&b[cur.pos..line.end]) {
                        Ok(_) => return None,
                        Err(upto) => self.hr_checked_to = cur.pos + upto,
                    }
                }
                cur.byte();
                (c, 0, 1)
            }
            b'0'..=b'9' => {
                let digits = b[cur.pos..line.end]
                    .iter()
                    .take(10)
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                match b[..line.end].get(cur.pos + digits).copied() {
                    Some(d @ (b'.' | b')')) if digits <= 9 => {
                        let number = b[cur.pos..cur.pos + digits]
                            .iter()
                            .fold(0u64, |n, c| n * 10 + u64::from(c - b'0'));
                        for _ in 0..=digits {
                            cur.byte();
                        }
                        (d, number, digits + 1)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        if cur.spaces(b, line.end, 1) < 1 && cur.pos < line.end {
            *cur = save;
            return None;
        }
        let mut indent = outer + width + 1;
        if !is_blank(&b[cur.pos..line.end]) {
            let after = *cur;
            let more = cur.spaces(b, line.end, 4);
            if more < 4 {
                indent += more;
            } else {
                *cur = after;
            }
        }
        Some((marker, number, indent))
    }
}

/// Spaces, tabs, vertical tabs and form feeds only.
fn is_blank(s: &[u8]) -> bool {
    s.iter().all(|c| matches!(c, b' ' | b'\t' | 0x0b | 0x0c))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A thematic break (`***`, `- - -`, `___`) filling `s`; on failure, how far it got (no break
/// can start before that offset).
fn hrule(s: &[u8]) -> Result<(), usize> {
    let Some(&c) = s.first().filter(|c| matches!(c, b'*' | b'-' | b'_')) else {
        return Err(0);
    };
    let mut n = 0;
    for (i, &x) in s.iter().enumerate() {
        match x {
            x if x == c => n += 1,
            b' ' | b'\t' => {}
            _ => return Err(i),
        }
    }
    if n >= 3 {
        Ok(())
    } else {
        Err(s.len())
    }
}

/// An ATX heading opener (`#` to `######`, then whitespace or the end of the text).
fn atx(rest: &[u8]) -> bool {
    let n = rest.iter().take_while(|&&c| c == b'#').count();
    (1..=6).contains(&n)
        && rest
            .get(n)
            .is_none_or(|&c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// A setext underline (`===` or `---`, then only whitespace).
fn setext_underline(s: &[u8]) -> bool {
    match s.first() {
        Some(&c @ (b'=' | b'-')) => is_blank(&s[s.iter().take_while(|&&x| x == c).count()..]),
        _ => false,
    }
}

/// A code fence opener: the fence character and the run length.
fn fence(s: &[u8]) -> Option<(u8, usize)> {
    let c = *s.first().filter(|c| matches!(c, b'`' | b'~'))?;
    let n = s.iter().take_while(|&&x| x == c).count();
    (n >= 3 && !(c == b'`' && s[n..].contains(&b'`'))).then_some((c, n))
}

/// A list marker that can interrupt a paragraph: `(marker, number, rest is blank)`.
fn list_item(s: &[u8]) -> Option<(u8, u64, bool)> {
    let (marker, number, w) = match *s.first()? {
        c @ (b'-' | b'+' | b'*') => (c, 0, 1),
        b'0'..=b'9' => {
            let digits = s.iter().take(9).take_while(|c| c.is_ascii_digit()).count();
            let d = *s.get(digits).filter(|d| matches!(d, b'.' | b')'))?;
            let number = s[..digits]
                .iter()
                .fold(0u64, |n, c| n * 10 + u64::from(c - b'0'));
            (d, number, digits + 1)
        }
        _ => return None,
    };
    let rest = &s[w..];
    if !rest.is_empty() && !matches!(rest[0], b' ' | b'\t') {
        return None;
    }
    Some((marker, number, is_blank(rest)))
}

/// HTML block kinds 1 to 5 (`s` starts after `<`): the text that ends the block.
fn html_1_to_5(s: &[u8]) -> Option<&'static str> {
    for (tag, end) in [
        ("pre", "</pre>"),
        ("style", "</style>"),
        ("script", "</script>"),
        ("textarea", "</textarea>"),
    ] {
        let n = tag.len();
        if s.len() >= n && s[..n].eq_ignore_ascii_case(tag.as_bytes()) {
            match s.get(n) {
                None => return Some(end),
                Some(&c) if c.is_ascii_whitespace() || c == 0x0b || c == b'>' => return Some(end),
                _ => {}
            }
        }
    }
    if s.starts_with(b"!--") {
        Some("-->")
    } else if s.starts_with(b"?") {
        Some("?>")
    } else if s.starts_with(b"![CDATA[") {
        Some("]]>")
    } else if s.len() > 1 && s[0] == b'!' && s[1].is_ascii_alphabetic() {
        Some(">")
    } else {
        None
    }
}

/// The block-level tag names of HTML block kind 6.
const BLOCK_TAGS: [&str; 62] = [
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// HTML block kind 6 (`s` starts after `<`): a block-level tag name, opening or closing.
fn html_6(s: &[u8]) -> bool {
    let s = s.strip_prefix(b"/").unwrap_or(s);
    let n = s.iter().take_while(|c| c.is_ascii_alphanumeric()).count();
    if !BLOCK_TAGS
        .iter()
        .any(|t| t.as_bytes().eq_ignore_ascii_case(&s[..n]))
    {
        return false;
    }
    match s.get(n) {
        None => true,
        Some(b' ' | b'\t' | b'\r' | b'\n' | b'>') => true,
        Some(b'/') => s.get(n + 1) == Some(&b'>'),
        _ => false,
    }
}

/// HTML block kind 7: a complete opening or closing tag alone on its line (`s` is the line from
/// `<`).
fn html_7(s: &[u8]) -> bool {
    super::inline::html_tag(s, false).is_some_and(|n| is_blank(&s[n..]))
}
