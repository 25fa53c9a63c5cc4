//! Glob-vs-glob overlap: cheap checks first (literal prefixes, fixed segments, file endings),
//! then the product of two byte-level automata searched breadth-first within a budget.

use super::{class_end, covers, expand_braces, is_literal, names_directory};

/// What the overlap of two patterns came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OverlapVerdict {
    /// Some path is covered by both: here is the shortest one the search met.
    Overlapping(String),
    /// No path is covered by both.
    Disjoint,
    /// Not decided within [`MAX_PRODUCT_STATES`] / [`MAX_PRODUCT_STEPS`]. Callers must treat
    /// such a pair as overlapping: "could not tell" never lets two claims share files silently.
    Undecided,
}

impl OverlapVerdict {
    /// Overlapping or undecided: what every judge of claims must assume.
    pub fn may_overlap(&self) -> bool {
        !matches!(self, OverlapVerdict::Disjoint)
    }
}

/// How many state pairs one overlap search may visit. Patterns within the length and
/// alternative limits stay far below it in practice (a pair of 500-byte patterns of literal
/// text visits about 500); a hostile pair reaches it in milliseconds and is then undecided.
pub const MAX_PRODUCT_STATES: usize = 100_000;
/// How many edge pairs one overlap search may compare (the work per visited state grows with
/// alternatives: a search's start compares every first edge of one side with the other's).
pub const MAX_PRODUCT_STEPS: usize = 2_000_000;

/// How many edge comparisons all the overlap searches of one question about the whole rail
/// (a board, the conflicts of one claim) may take together: two hostile pairs' worth. Without
/// it, each pair was bounded but their number was not, and two claims of 400 patterns each
/// made 160,000 searches (issue 28: `rail board` took 277 s). Pairs met once it is spent are
/// undecided, so they count as overlapping.
pub const MAX_RAIL_STEPS: usize = 2 * MAX_PRODUCT_STEPS;

/// The work left for one question about the rail, in edge comparisons (a state built for a
/// pattern's automaton counts as one too), and what was done: counted, not timed, so tests
/// can check it.
#[derive(Clone, Debug)]
pub struct Budget {
    left: usize,
    /// Work units spent so far.
    pub spent: usize,
    /// Product searches run (pairs the cheap checks could not answer, met with budget left).
    pub searches: usize,
    /// Pairs answered undecided because the budget was spent before they were met.
    pub refused: usize,
}

impl Budget {
    pub fn new(units: usize) -> Self {
        Budget {
            left: units,
            spent: 0,
            searches: 0,
            refused: 0,
        }
    }

    /// The budget of one question about the whole rail ([`MAX_RAIL_STEPS`]).
    pub fn rail() -> Self {
        Budget::new(MAX_RAIL_STEPS)
    }

    pub fn is_spent(&self) -> bool {
        self.left == 0
    }

    fn charge(&mut self, units: usize) {
        let units = units.min(self.left);
        self.left -= units;
        self.spent += units;
    }
}

/// Could some path be covered by both patterns? Patterns must be normalized. Undecided pairs
/// count as overlapping (see [`OverlapVerdict::Undecided`]).
pub fn overlaps(a: &str, b: &str) -> bool {
    overlap(a, b).may_overlap()
}

/// Decides whether two normalized patterns overlap, with a witness path when they do.
pub fn overlap(a: &str, b: &str) -> OverlapVerdict {
    overlap_of(&Pattern::new(a), &Pattern::new(b))
}

/// A normalized pattern prepared for many overlap questions: what the cheap checks need,
/// computed once, and its automaton, built on first need and kept.
#[derive(Debug)]
pub struct Pattern<'a> {
    text: &'a str,
    literal: bool,
    /// For a pattern naming files only (see [`names_directory`]) and without braces: the
    /// literal text its last segment ends with (`*.md` → `.md`), which every covered path ends
    /// with too.
    suffix: Option<&'a str>,
    nfa: std::cell::OnceCell<Nfa>,
}

impl<'a> Pattern<'a> {
    pub fn new(text: &'a str) -> Self {
        let suffix = (!text.contains('{') && !names_directory(text)).then(|| {
            // After the last glob character (a `]` closes the last class: an unclosed `[` was
            // refused by `normalize`).
            let tail = text.rfind(['*', '?', ']', '/']).map_or(0, |i| i + 1);
            &text[tail..]
        });
        Pattern {
            text,
            literal: is_literal(text),
            suffix,
            nfa: std::cell::OnceCell::new(),
        }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The leading segments that each match exactly one path segment (those before the first
    /// `**` or `{`, which may span segments): `Some` for literal text, `None` for a glob.
    /// Computed on each call: most patterns of a large board never need it, and a vector per
    /// pattern cost a large board more than every comparison together.
    fn fixed(&self) -> impl Iterator<Item = Option<&'a str>> {
        self.text
            .split('/')
            .take_while(|s| *s != "**" && !s.contains('{'))
            .map(|s| is_literal(s).then_some(s))
    }

    /// The literal text every covered path has as segment `k`, if the pattern fixes it.
    pub fn fixed_literal(&self, k: usize) -> Option<&'a str> {
        self.fixed().nth(k).flatten()
    }

    /// The literal ending of a file pattern (see the field), if it has one.
    pub fn suffix(&self) -> Option<&'a str> {
        self.suffix
    }

    /// The first segment this pattern fixes to literal text, with its position.
    pub fn first_fixed_literal(&self) -> Option<(usize, &'a str)> {
        self.fixed()
            .enumerate()
            .find_map(|(k, s)| s.map(|s| (k, s)))
    }

    pub(super) fn nfa(&self) -> &Nfa {
        self.nfa.get_or_init(|| Nfa::covering(self.text))
    }
}

/// Two fixed segments at the same position that are different literal text: every path one
/// pattern covers has the one there, every path of the other the other. (The literal-prefix
/// index only sees segments before the first wildcard; this sees those after it, so that
/// `*/d1/**` and `*/d2/**` need no automata.)
pub(super) fn fixed_segments_disjoint(a: &Pattern, b: &Pattern) -> bool {
    a.fixed()
        .zip(b.fixed())
        .any(|(x, y)| matches!((x, y), (Some(x), Some(y)) if x != y))
}

/// Two file patterns whose literal endings differ (`**/*.ts`, `**/*.rs`): no path ends with
/// both. (Without this, thousands of `**/*.ext` claims, none with a literal prefix, would each
/// build a product automaton with every other.)
pub(super) fn suffixes_disjoint(a: &Pattern, b: &Pattern) -> bool {
    matches!((a.suffix, b.suffix), (Some(x), Some(y)) if !x.ends_with(y) && !y.ends_with(x))
}

/// [`overlap`] for prepared patterns.
pub fn overlap_of(a: &Pattern, b: &Pattern) -> OverlapVerdict {
    quick_overlap(a, b).unwrap_or_else(|| automata_overlap(a, b))
}

/// The product search alone, for a pair [`quick_overlap`] could not decide (callers that meet
/// one pair many times keep its answer: this is the costly part).
pub fn automata_overlap(a: &Pattern, b: &Pattern) -> OverlapVerdict {
    automata_overlap_within(a, b, &mut Budget::new(usize::MAX))
}

/// [`automata_overlap`] drawing on `budget`, shared by every pair of one question: a pair met
/// once it is spent is undecided without a search, and a search stops when it runs out (as it
/// stops at its own limits).
pub fn automata_overlap_within(a: &Pattern, b: &Pattern, budget: &mut Budget) -> OverlapVerdict {
    if budget.is_spent() {
        budget.refused += 1;
        return OverlapVerdict::Undecided;
    }
    for p in [a, b] {
        if p.nfa.get().is_none() {
            let states = p.nfa().accept.len();
            budget.charge(states);
        }
    }
    budget.searches += 1;
    let (verdict, steps) = a.nfa().intersection(b.nfa(), budget.left);
    budget.charge(steps);
    verdict
}

/// The answer of the cheap checks, when they have one: no automaton is built.
pub fn quick_overlap(a: &Pattern, b: &Pattern) -> Option<OverlapVerdict> {
    let found = |w: Option<String>| w.map_or(OverlapVerdict::Disjoint, OverlapVerdict::Overlapping);
    if a.literal && b.literal {
        // The common case, decided without automata.
        return Some(found(literal_overlap(a.text, b.text)));
    }
    if fixed_segments_disjoint(a, b) || suffixes_disjoint(a, b) {
        return Some(OverlapVerdict::Disjoint);
    }
    // A literal path covered by the other pattern is the shortest witness there is: everything
    // a literal covers is the path itself or lies below it. (A broad glob such as `docs/**`
    // meets many literal files; this spares building two automata for each.)
    for (literal, other) in [(a, b), (b, a)] {
        if literal.literal && covers(other.text, literal.text) {
            return Some(OverlapVerdict::Overlapping(literal.text.to_string()));
        }
    }
    None
}

fn literal_overlap(a: &str, b: &str) -> Option<String> {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long == short
        || (names_directory(short)
            && long.starts_with(short)
            && long.as_bytes()[short.len()] == b'/')
    {
        Some(long.to_string())
    } else {
        None
    }
}

/// A state of the product automaton: one state of each side.
type Pair = (u32, u32);

/// A set of bytes, as four 64-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct ByteSet([u64; 4]);

impl ByteSet {
    const EMPTY: ByteSet = ByteSet([0; 4]);
    const ALL: ByteSet = ByteSet([u64::MAX; 4]);

    fn single(b: u8) -> Self {
        let mut s = ByteSet::EMPTY;
        s.insert(b);
        s
    }

    fn insert(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }

    fn remove(&mut self, b: u8) {
        self.0[(b >> 6) as usize] &= !(1 << (b & 63));
    }

    fn contains(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }

    fn not_slash() -> Self {
        let mut s = ByteSet::ALL;
        s.remove(b'/');
        s
    }

    fn and(self, other: ByteSet) -> ByteSet {
        ByteSet([
            self.0[0] & other.0[0],
            self.0[1] & other.0[1],
            self.0[2] & other.0[2],
            self.0[3] & other.0[3],
        ])
    }

    fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// A readable member, for witnesses: a letter or digit if there is one.
    fn pick(&self) -> Option<u8> {
        b"abcxyz0123456789ABCZ._-/"
            .iter()
            .copied()
            .chain(0u8..=255)
            .find(|b| self.contains(*b))
    }
}

/// A Thompson automaton over bytes while it is built (edges carry byte sets, `eps` are free
/// moves); [`Nfa::covering`] returns it without free moves, ready for the product search.
#[derive(Debug, Default)]
pub(super) struct Nfa {
    edges: Vec<Vec<(ByteSet, u32)>>,
    eps: Vec<Vec<u32>>,
    accept: Vec<bool>,
}

impl Nfa {
    fn state(&mut self) -> u32 {
        self.edges.push(Vec::new());
        self.eps.push(Vec::new());
        self.accept.push(false);
        // At most 64 alternatives of at most 512 bytes each: far below u32::MAX.
        (self.edges.len() - 1) as u32
    }

    fn edge(&mut self, from: u32, set: ByteSet, to: u32) {
        self.edges[from as usize].push((set, to));
    }

    fn free(&mut self, from: u32, to: u32) {
        self.eps[from as usize].push(to);
    }

    /// The automaton for "covered by pattern": the pattern, or the pattern followed by `/` and
    /// at least one more byte (a path inside a matched directory).
    fn covering(pattern: &str) -> Nfa {
        let mut nfa = Nfa::default();
        let start = nfa.state();
        let end = nfa.state();
        // Alternatives that name directories also lead to "/ and anything below".
        let below = nfa.state();
        let slash = nfa.state();
        let inside = nfa.state();
        for alternative in expand_braces(pattern.as_bytes()) {
            let s = nfa.state();
            nfa.free(start, s);
            let e = nfa.compile(&alternative, s);
            nfa.free(e, end);
            if names_directory(&String::from_utf8_lossy(&alternative)) {
                nfa.free(e, below);
            }
        }
        nfa.accept[end as usize] = true;
        nfa.edge(below, ByteSet::single(b'/'), slash);
        nfa.edge(slash, ByteSet::ALL, inside);
        nfa.edge(inside, ByteSet::ALL, inside);
        nfa.accept[inside as usize] = true;
        nfa.without_free_moves()
    }

    /// Folds every state's free moves into it: its edges become those of every state it
    /// reaches freely, and it accepts if one of them does. The product search then visits
    /// pairs of states with no closure to compute per visit (computing it per visit, with a
    /// hash set each time, was most of the old search's time and memory).
    fn without_free_moves(self) -> Nfa {
        let n = self.edges.len();
        let mut edges = Vec::with_capacity(n);
        let mut accept = vec![false; n];
        let mut mark = vec![usize::MAX; n];
        let (mut stack, mut closure) = (Vec::new(), Vec::new());
        for s in 0..n {
            // The closure in the order the search always took it (the state, then what it
            // reaches freely, in discovery order), so witnesses stay what they were.
            closure.clear();
            closure.push(s);
            mark[s] = s;
            stack.push(s);
            while let Some(t) = stack.pop() {
                for &u in &self.eps[t] {
                    if mark[u as usize] != s {
                        mark[u as usize] = s;
                        closure.push(u as usize);
                        stack.push(u as usize);
                    }
                }
            }
            let mut out: Vec<(ByteSet, u32)> = Vec::new();
            for &t in &closure {
                accept[s] |= self.accept[t];
                for e in &self.edges[t] {
                    if !out.contains(e) {
                        out.push(*e);
                    }
                }
            }
            edges.push(out);
        }
        Nfa {
            edges,
            eps: Vec::new(),
            accept,
        }
    }

    /// Adds states for one brace-free alternative starting at `from`; returns its end state.
    fn compile(&mut self, pattern: &[u8], from: u32) -> u32 {
        let segments: Vec<&[u8]> = pattern.split(|b| *b == b'/').collect();
        let mut cur = from;
        let last = segments.len() - 1;
        let mut i = 0;
        while i <= last {
            let segment = segments[i];
            if segment == b"**" {
                // `**/**` means what `**` means: one loop, not two nested ones to search.
                while i < last && segments[i + 1] == b"**" {
                    i += 1;
                }
                if i == last {
                    // Trailing `**`: anything at all, including nothing (fast-glob: `src/**`
                    // matches `src/` and everything below, but not `src`; a leading
                    // `**` alone matches everything).
                    let any = self.state();
                    self.free(cur, any);
                    self.edge(any, ByteSet::ALL, any);
                    cur = any;
                } else {
                    // `**/` : zero or more whole segments each followed by `/`.
                    let loop_state = self.state();
                    self.free(cur, loop_state);
                    let in_segment = self.state();
                    self.edge(loop_state, ByteSet::not_slash(), in_segment);
                    self.edge(in_segment, ByteSet::not_slash(), in_segment);
                    self.edge(in_segment, ByteSet::single(b'/'), loop_state);
                    cur = loop_state;
                }
                i += 1;
                continue;
            }
            cur = self.compile_segment(segment, cur);
            if i < last {
                let next = self.state();
                self.edge(cur, ByteSet::single(b'/'), next);
                cur = next;
            }
            i += 1;
        }
        cur
    }

    fn compile_segment(&mut self, segment: &[u8], from: u32) -> u32 {
        let mut cur = from;
        let mut i = 0;
        while i < segment.len() {
            match segment[i] {
                b'*' | b'?' => {
                    // A run of `*` and `?` matches any run of at least as many bytes as it has
                    // `?` (no `/`), with no upper bound if it has a `*`: compiled as the `?`s
                    // then one star. `*?*?*?…` written as is made every star a state pair
                    // with every other (issue 17: seconds and a gigabyte per pair).
                    let run = segment[i..]
                        .iter()
                        .take_while(|b| matches!(b, b'*' | b'?'))
                        .count();
                    let run_bytes = &segment[i..i + run];
                    for _ in run_bytes.iter().filter(|b| **b == b'?') {
                        let next = self.state();
                        self.edge(cur, ByteSet::not_slash(), next);
                        cur = next;
                    }
                    if run_bytes.contains(&b'*') {
                        let star = self.state();
                        self.free(cur, star);
                        self.edge(star, ByteSet::not_slash(), star);
                        cur = star;
                    }
                    i += run;
                }
                b'[' => {
                    let end = class_end(segment, i).unwrap_or(segment.len());
                    let set = class_set(&segment[i + 1..end.saturating_sub(1).max(i + 1)]);
                    let next = self.state();
                    self.edge(cur, set, next);
                    cur = next;
                    i = end;
                }
                b => {
                    let next = self.state();
                    self.edge(cur, ByteSet::single(b), next);
                    cur = next;
                    i += 1;
                }
            }
        }
        cur
    }

    /// Breadth-first search of the product automaton (each state pair visited once): the
    /// shortest common string, none, or undecided when the budget runs out first. Polynomial:
    /// at most |self| × |other| pairs, and never more than the budget.
    /// Also returns the edge comparisons it made; it stops undecided past `budget` of them.
    pub(super) fn intersection(&self, other: &Nfa, budget: usize) -> (OverlapVerdict, usize) {
        use std::collections::{HashMap, VecDeque};
        let start: Pair = (0, 0);
        let mut parent: HashMap<Pair, Option<(Pair, u8)>> = HashMap::new();
        parent.insert(start, None);
        let mut queue = VecDeque::from([start]);
        let mut steps = 0usize;
        while let Some((a, b)) = queue.pop_front() {
            if self.accept[a as usize] && other.accept[b as usize] {
                let mut bytes = Vec::new();
                let mut cur = (a, b);
                while let Some(Some((prev, byte))) = parent.get(&cur) {
                    bytes.push(*byte);
                    cur = *prev;
                }
                bytes.reverse();
                let witness = String::from_utf8_lossy(&bytes).into_owned();
                return (OverlapVerdict::Overlapping(witness), steps);
            }
            let (xs, ys) = (&self.edges[a as usize], &other.edges[b as usize]);
            steps += xs.len() * ys.len();
            if steps > MAX_PRODUCT_STEPS.min(budget) || parent.len() > MAX_PRODUCT_STATES {
                return (OverlapVerdict::Undecided, steps);
            }
            for &(sx, tx) in xs {
                for &(sy, ty) in ys {
                    let both = sx.and(sy);
                    if both.is_empty() || parent.contains_key(&(tx, ty)) {
                        continue;
                    }
                    let byte = both.pick().unwrap_or(b'a');
                    parent.insert((tx, ty), Some(((a, b), byte)));
                    queue.push_back((tx, ty));
                }
            }
        }
        (OverlapVerdict::Disjoint, steps)
    }
}

/// The bytes a class body (between `[` and `]`) matches. Classes never match `/`.
fn class_set(body: &[u8]) -> ByteSet {
    let (negated, body) = match body.first() {
        Some(b'!') | Some(b'^') => (true, &body[1..]),
        _ => (false, body),
    };
    let mut set = ByteSet::EMPTY;
    let mut i = 0;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == b'-' {
            let (lo, hi) = (body[i], body[i + 2]);
            for b in lo.min(hi)..=lo.max(hi) {
                set.insert(b);
            }
            i += 3;
        } else {
            set.insert(body[i]);
            i += 1;
        }
    }
    if negated {
        set = ByteSet([!set.0[0], !set.0[1], !set.0[2], !set.0[3]]);
    }
    set.remove(b'/');
    set
}
