//! Which files a shell command line would write, as far as the command line can tell — and,
//! just as important, what in it could not be judged.
//!
//! Agents edit files through Bash as well as through their edit tools. The Bash hook asks this
//! module for the paths a command writes (`targets`, as written: relative to the command's
//! working directory, or absolute; the host resolves them) and for the parts it could not judge
//! (`unanalysed`, in words). An empty `unanalysed` is a promise: every write the command line
//! can make is in `targets`, up to the limits documented in docs/agents.md (programs that write
//! files of their own accord — build tools, test runners, scripts — are not listed).
//!
//! # The grammar: tree-sitter-bash
//!
//! Commands are read with tree-sitter-bash (the grammar GitHub, Neovim and Zed use), behind the
//! `shell` feature. Measured on this machine (release builds, 2026-12) against the other
//! maintained candidates:
//!
//! - **brush-parser 0.4** (pure Rust, PEG): exponential on unbalanced parentheses — 18 unclosed
//!   `(` took 138 ms, 20 took 540 ms, 50 did not finish in 5 minutes — a hostile agent could
//!   stall the hook with a 100-byte command. Its normal dependencies also bring `insta`, `pest`
//!   and `stacker` (whose `psm` compiles assembly with a C toolchain anyway): 120 crates.
//! - **yash-syntax**: GPL-3.0 (Rail is MIT) and async (a `futures` executor to read a line).
//! - **conch-parser**: last released in 2019.
//! - **tree-sitter-bash 0.25** (C grammar, Rust bindings): linear — 20,000 unclosed `(` in
//!   16 ms, 10,000 commands (120 KB) in 93 ms, a typical command in 0.2 ms; it recovers from
//!   syntax errors with a partial tree (marked `ERROR`) instead of failing the whole line, so a
//!   half-broken command still shows its `rm`; it is fuzzed upstream (OSS-Fuzz). Its cost is a
//!   C compiler at build time, which is why it is an optional feature: the wasm build (no C
//!   compiler for wasm32 here, and no use for a shell reader) leaves it out.
//!
//! What each program writes is Rail's own table below, not the grammar's.
//!
//! # Bounds
//!
//! The reader walks the tree recursively; nesting deeper than [`MAX_NESTING`] is not read (and
//! said), so no input can exhaust the stack. Strings run as commands (`bash -c '…'`, `eval …`)
//! are read again, at most [`MAX_DEPTH`] levels deep. Every node is visited a bounded number of
//! times, so the work is linear in the input's size.

use serde::Serialize;

/// What a command line writes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Writes {
    /// Paths as written in the command (relative to its working directory, or absolute).
    /// A directory stands for everything in it; globs are kept as written.
    pub targets: Vec<String>,
    /// Parts Rail could not judge, in words (each names the part).
    pub unanalysed: Vec<String>,
    /// The commits the command line makes (`git commit`), with what each would take: a
    /// commit writes no file, but it can sweep another session's uncommitted work into this
    /// one's (`git add -A && git commit`), which the hook judges before the command runs —
    /// some agents run their shells with git's hooks turned off (Gemini CLI), and any agent
    /// can pass `--no-verify`.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub commits: Vec<GitCommit>,
}

/// One `git commit` in a command line and what it takes, as far as the line says. Paths are as
/// written, joined to the directory the command runs in (relative to the agent's working
/// directory, or absolute); git's pathspecs, so `.` or a folder stands for what is under it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GitCommit {
    /// Every change to a tracked file is staged before it (`git add -A`, `git add -u`, `git
    /// commit -a`): what the work tree has changed, not only what is staged now.
    pub all: bool,
    /// And every untracked file (`git add -A`, `git add --all`).
    pub new_files: bool,
    /// Pathspecs staged before it by `git add PATH…` in the same line.
    pub added: Vec<String>,
    /// Only these pathspecs are committed (`git commit -- PATH…`, `git commit PATH…`), whatever
    /// else is staged.
    pub only: Vec<String>,
    /// A pathspec only known when the command runs, or after a `cd` Rail cannot follow: what
    /// the commit takes cannot be told from the line.
    pub unknown: bool,
}

/// How many strings-run-as-commands deep (`bash -c "sh -c '…'"`) the reader goes.
pub const MAX_DEPTH: usize = 4;
/// How deeply nested a command may be before the reader stops descending.
pub const MAX_NESTING: usize = 200;

/// The paths a command line writes, and what in it could not be judged.
pub fn writes(command: &str) -> Writes {
    let mut out = Writes::default();
    read::program(command, &mut Some(String::new()), 0, &mut out);
    let mut seen = std::collections::HashSet::new();
    out.targets.retain(|t| seen.insert(t.clone()));
    let mut seen = std::collections::HashSet::new();
    out.unanalysed.retain(|t| seen.insert(t.clone()));
    out
}

#[cfg(not(feature = "shell"))]
mod read {
    use super::Writes;

    /// A build without the grammar reads nothing, and says so: never a silent allow.
    pub(super) fn program(command: &str, _cwd: &mut Option<String>, _d: usize, out: &mut Writes) {
        if !command.trim().is_empty() {
            out.unanalysed
                .push("the whole command (this build of rail reads no shell commands)".into());
        }
    }
}

#[cfg(feature = "shell")]
mod read {
    use super::{Writes, MAX_DEPTH, MAX_NESTING};
    use crate::agent::shell::programs;
    use tree_sitter::{Node, Parser};

    /// Where relative paths of the next command are: `Some("")` for the starting directory,
    /// `Some("sub")` after `cd sub`, `None` once a `cd` went somewhere Rail cannot follow.
    pub(crate) type Cwd = Option<String>;

    /// A word after quote removal; `dynamic` when its value is only known when it runs
    /// (variables, command substitution, `~`), then `text` is the source as written.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub(crate) struct Val {
        pub text: String,
        pub dynamic: bool,
    }

    impl Val {
        pub fn fixed(text: impl Into<String>) -> Val {
            Val {
                text: text.into(),
                dynamic: false,
            }
        }
    }

    pub(crate) struct ShellReader<'a> {
        pub src: &'a str,
        pub out: &'a mut Writes,
        pub depth: usize,
        /// The text on the standard input of the command being read, when the command line
        /// writes it out (a heredoc or a here-string); `None` for a file, a pipe, the agent's
        /// own input, or text only known when it runs.
        pub stdin: Option<String>,
        /// What `git add` staged so far in this line, for the next `git commit` in it.
        pub staging: super::GitCommit,
    }

    /// Reads `command` (a whole command line, or a `bash -c` string at `depth`).
    pub(crate) fn program(command: &str, cwd: &mut Cwd, depth: usize, out: &mut Writes) {
        let mut parser = Parser::new();
        if parser
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .is_err()
        {
            out.unanalysed
                .push("the whole command (the shell grammar did not load)".into());
            return;
        }
        let Some(tree) = parser.parse(command, None) else {
            out.unanalysed
                .push("the whole command (the shell grammar could not read it)".into());
            return;
        };
        let root = tree.root_node();
        if root.has_error() {
            out.unanalysed.push(format!(
                "a part Rail could not read (a syntax error near `{}`)",
                error_excerpt(root, command)
            ));
        }
        let mut reader = ShellReader {
            src: command,
            out,
            depth,
            stdin: None,
            staging: super::GitCommit::default(),
        };
        reader.statement(root, cwd, 0);
    }

    /// The text around the first error in the tree, short.
    fn error_excerpt(root: Node, src: &str) -> String {
        let mut stack = vec![root];
        let mut steps = 0;
        while let Some(node) = stack.pop() {
            steps += 1;
            if node.is_error() || node.is_missing() || steps > 100_000 {
                let text = src.get(node.start_byte()..node.end_byte()).unwrap_or("");
                let line = text.lines().next().unwrap_or("").trim();
                let short: String = line.chars().take(40).collect();
                return if short.is_empty() {
                    "the end".into()
                } else {
                    short
                };
            }
            let mut cursor = node.walk();
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        "the end".into()
    }

    fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
        let mut cursor = node.walk();
        node.named_children(&mut cursor).collect()
    }

    fn field<'t>(node: Node<'t>, name: &str) -> Vec<Node<'t>> {
        let mut cursor = node.walk();
        node.children_by_field_name(name, &mut cursor).collect()
    }

    /// After branches that may or may not run, the directory is known only if they agree.
    fn merge(before: &Cwd, after: &[Cwd]) -> Cwd {
        if after.iter().all(|c| c == before) {
            before.clone()
        } else {
            None
        }
    }

    impl ShellReader<'_> {
        pub fn text(&self, node: Node) -> &str {
            self.src
                .get(node.start_byte()..node.end_byte())
                .unwrap_or("")
        }

        pub fn note(&mut self, what: String) {
            self.out.unanalysed.push(what);
        }

        /// One statement (or a list of them) run in `cwd`, which a `cd` changes.
        pub fn statement(&mut self, node: Node, cwd: &mut Cwd, nest: usize) {
            if nest > MAX_NESTING {
                self.note(format!("commands nested deeper than {MAX_NESTING} levels"));
                return;
            }
            let nest = nest + 1;
            match node.kind() {
                "comment" | "heredoc_body" | "heredoc_start" | "heredoc_end" => {}
                "command" => self.command(node, cwd, nest, &[], &[]),
                // A pipeline's commands each run in a subshell: a `cd` there does not last.
                "pipeline" => {
                    for child in named_children(node) {
                        let mut own = cwd.clone();
                        self.statement(child, &mut own, nest);
                    }
                }
                "subshell" | "command_substitution" | "process_substitution" => {
                    let mut own = cwd.clone();
                    for child in named_children(node) {
                        self.statement(child, &mut own, nest);
                    }
                }
                "redirected_statement" => {
                    let mut redirects = field(node, "redirect");
                    redirects.extend(
                        named_children(node)
                            .into_iter()
                            .filter(|c| c.kind() == "herestring_redirect"),
                    );
                    let bodies = field(node, "body");
                    if bodies.is_empty() {
                        // `> file` alone still creates (truncates) the file.
                        let here = cwd.clone();
                        for r in &redirects {
                            self.redirect(*r, &here, nest);
                        }
                    }
                    for body in bodies {
                        self.redirected(body, &redirects, cwd, nest);
                    }
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    let here = cwd.clone();
                    self.redirect(node, &here, nest);
                }
                "if_statement" => {
                    let conditions: Vec<usize> =
                        field(node, "condition").iter().map(|n| n.id()).collect();
                    let before = cwd.clone();
                    let mut branches: Vec<Cwd> = Vec::new();
                    let mut then = cwd.clone();
                    let mut has_else = false;
                    for child in named_children(node) {
                        if conditions.contains(&child.id()) {
                            self.statement(child, cwd, nest);
                            then = cwd.clone();
                        } else if child.kind() == "elif_clause" || child.kind() == "else_clause" {
                            has_else |= child.kind() == "else_clause";
                            let mut own = cwd.clone();
                            for c in named_children(child) {
                                self.statement(c, &mut own, nest);
                            }
                            branches.push(own);
                        } else {
                            self.statement(child, &mut then, nest);
                        }
                    }
                    branches.push(then);
                    if !has_else {
                        branches.push(cwd.clone());
                    }
                    *cwd = merge(&before, &branches);
                }
                "while_statement" | "for_statement" | "c_style_for_statement" => {
                    let before = cwd.clone();
                    for c in field(node, "condition") {
                        self.statement(c, cwd, nest);
                    }
                    for v in field(node, "value") {
                        self.substitutions(v, cwd, nest);
                    }
                    // The body may run any number of times.
                    let mut body_cwd = cwd.clone();
                    for b in field(node, "body") {
                        self.statement(b, &mut body_cwd, nest);
                    }
                    *cwd = merge(&before, &[cwd.clone(), body_cwd]);
                }
                "case_statement" => {
                    for v in field(node, "value") {
                        self.substitutions(v, cwd, nest);
                    }
                    let before = cwd.clone();
                    let mut branches = vec![cwd.clone()];
                    for item in named_children(node) {
                        if item.kind() != "case_item" {
                            continue;
                        }
                        let values: Vec<usize> =
                            field(item, "value").iter().map(|n| n.id()).collect();
                        let mut own = cwd.clone();
                        for c in named_children(item) {
                            if !values.contains(&c.id()) {
                                self.statement(c, &mut own, nest);
                            }
                        }
                        branches.push(own);
                    }
                    *cwd = merge(&before, &branches);
                }
                // A function's body runs when it is called, wherever that is: read it as if
                // run here, and forget its `cd`.
                "function_definition" => {
                    let mut own = cwd.clone();
                    for b in field(node, "body") {
                        self.statement(b, &mut own, nest);
                    }
                    for r in field(node, "redirect") {
                        self.redirect(r, cwd, nest);
                    }
                }
                // Words, assignments and tests write nothing themselves; commands substituted
                // into them do.
                "variable_assignment"
                | "variable_assignments"
                | "declaration_command"
                | "unset_command"
                | "test_command"
                | "word"
                | "string"
                | "concatenation"
                | "simple_expansion"
                | "expansion"
                | "arithmetic_expansion" => self.substitutions(node, cwd, nest),
                // program, list, compound_statement `{ }`, do_group, negated_command `!`,
                // ERROR (what the grammar recovered), and anything newer: their statements in
                // order, in the same shell.
                _ => {
                    for child in named_children(node) {
                        self.statement(child, cwd, nest);
                    }
                }
            }
        }

        /// `body` with `redirects` after it. The grammar hangs a redirection written after
        /// `a && b > f` on the whole list, but the shell gives it to `b` alone, which runs
        /// after `a`'s `cd`; in a pipeline it belongs to the last command, which starts where
        /// the pipeline does. Redirections open before the command's own `cd` runs.
        fn redirected(&mut self, body: Node, redirects: &[Node], cwd: &mut Cwd, nest: usize) {
            if body.kind() == "list" {
                let kids = named_children(body);
                if let Some((last, first)) = kids.split_last() {
                    for k in first {
                        self.statement(*k, cwd, nest);
                    }
                    self.redirected(*last, redirects, cwd, nest + 1);
                    return;
                }
            }
            let here = cwd.clone();
            for r in redirects {
                self.redirect(*r, &here, nest);
            }
            let extra: Vec<Node> = redirects.iter().flat_map(|r| self.operands(*r)).collect();
            self.with_operands(body, &extra, redirects, cwd, nest);
        }

        /// `body`, the statement `redirects` followed, given the words hung on them.
        fn with_operands(
            &mut self,
            body: Node,
            extra: &[Node],
            redirects: &[Node],
            cwd: &mut Cwd,
            nest: usize,
        ) {
            if nest > MAX_NESTING {
                self.note(format!("commands nested deeper than {MAX_NESTING} levels"));
                return;
            }
            match body.kind() {
                "command" => self.command(body, cwd, nest, extra, redirects),
                // `! rm < /dev/null x`: the negated command.
                "negated_command" if named_children(body).len() == 1 => {
                    let inner = named_children(body)[0];
                    self.with_operands(inner, extra, redirects, cwd, nest + 1)
                }
                // The last command of a pipeline, in its own subshell.
                "pipeline" => {
                    let kids = named_children(body);
                    if let Some((last, first)) = kids.split_last() {
                        for k in first {
                            let mut own = cwd.clone();
                            self.statement(*k, &mut own, nest);
                        }
                        let mut own = cwd.clone();
                        self.with_operands(*last, extra, redirects, &mut own, nest + 1);
                    }
                }
                _ => {
                    if !extra.is_empty() {
                        // `{ …; } > f x`: bash refuses the whole line.
                        self.note("a part Rail could not read (a syntax error: words after the redirection of a compound command)".into());
                    }
                    self.statement(body, cwd, nest);
                }
            }
        }

        /// Commands substituted anywhere inside `node` (`$(…)`, backticks, `<(…)`).
        pub fn substitutions(&mut self, node: Node, cwd: &Cwd, nest: usize) {
            if nest > MAX_NESTING {
                self.note(format!("commands nested deeper than {MAX_NESTING} levels"));
                return;
            }
            match node.kind() {
                "command_substitution" | "process_substitution" => {
                    let mut own = cwd.clone();
                    self.statement(node, &mut own, nest + 1);
                }
                _ => {
                    for child in named_children(node) {
                        self.substitutions(child, cwd, nest + 1);
                    }
                }
            }
        }

        /// A redirection opened in `cwd`.
        fn redirect(&mut self, node: Node, cwd: &Cwd, nest: usize) {
            match node.kind() {
                "file_redirect" => {
                    let mut cursor = node.walk();
                    let mut op = String::new();
                    let mut broken = false;
                    let mut op_row = None;
                    for c in node.children(&mut cursor) {
                        if c.is_error() {
                            broken = true;
                        } else if !c.is_named() {
                            op.push_str(self.text(c));
                            op_row.get_or_insert(c.start_position().row);
                        }
                    }
                    // `cmd <` at the end of a line is a syntax error to the shell (nothing
                    // runs); the grammar takes the next line's first word as the file.
                    if field(node, "destination")
                        .first()
                        .is_some_and(|d| Some(d.start_position().row) != op_row)
                    {
                        self.note("a part Rail could not read (a syntax error: a redirection with no file on its line)".into());
                    }
                    let dests = field(node, "destination");
                    for dest in &dests {
                        self.substitutions(*dest, cwd, nest);
                    }
                    // Only the first word is the file: the grammar hangs the words after it
                    // on the redirection, but they are the command's ([`ShellReader::operands`]).
                    for dest in dests.into_iter().take(1) {
                        let val = self.word(dest);
                        let number = !val.dynamic
                            && (val.text == "-" || val.text.chars().all(|c| c.is_ascii_digit()));
                        let writes = match op.as_str() {
                            ">" | ">>" | ">|" | "&>" | "&>>" | "<>" => true,
                            // `>&2` duplicates a descriptor; `>& file` is bash for `&> file`.
                            ">&" | "&>&" => !number,
                            "<" | "<&" | "<&-" | ">&-" => broken,
                            _ => true,
                        };
                        if writes && !(dest.kind() == "number" && op.ends_with('&')) {
                            self.path(&val, cwd, "a redirection to");
                        }
                    }
                }
                "heredoc_redirect" => {
                    // `cat <<EOF > out | tee copy`: what follows the operator on its line
                    // (redirections, a pipeline, `&& …`) is inside this node.
                    let here = cwd.clone();
                    for c in named_children(node) {
                        match c.kind() {
                            "heredoc_start" | "heredoc_body" | "heredoc_end" => {
                                self.substitutions(c, cwd, nest)
                            }
                            "file_redirect" | "herestring_redirect" => {
                                self.redirect(c, &here, nest)
                            }
                            _ => {
                                let mut own = cwd.clone();
                                self.statement(c, &mut own, nest + 1);
                            }
                        }
                    }
                }
                _ => self.substitutions(node, cwd, nest),
            }
        }

        /// The words after a redirection's file (`rm < /dev/null a b`: `a`, `b`). Bash lets a
        /// redirection stand anywhere in a simple command; the grammar hangs what follows its
        /// file on it, but they are the command's operands all the same.
        fn operands<'t>(&self, redirect: Node<'t>) -> Vec<Node<'t>> {
            match redirect.kind() {
                "file_redirect" => field(redirect, "destination").into_iter().skip(1).collect(),
                // `rm <<EOF x`, `cat <<EOF > out x`: the words on the heredoc's line, and
                // those of the redirections there.
                "heredoc_redirect" => {
                    let arguments: Vec<usize> =
                        field(redirect, "argument").iter().map(|n| n.id()).collect();
                    let mut out = Vec::new();
                    for c in named_children(redirect) {
                        if arguments.contains(&c.id()) {
                            out.push(c);
                        } else if c.kind() == "file_redirect" {
                            out.extend(self.operands(c));
                        }
                    }
                    out
                }
                _ => Vec::new(),
            }
        }

        /// What standard input `redirects` (in order: the last for descriptor 0 wins) give.
        fn stdin_of(&self, redirects: &[Node]) -> Option<Option<String>> {
            let mut found = None;
            for r in redirects {
                let fd = field(*r, "descriptor")
                    .first()
                    .map(|d| self.text(*d).to_string());
                if fd.as_deref().is_some_and(|d| d != "0") {
                    continue;
                }
                match r.kind() {
                    "file_redirect" => {
                        let mut cursor = r.walk();
                        let reads = r
                            .children(&mut cursor)
                            .any(|c| !c.is_named() && self.text(c).starts_with('<'));
                        if reads {
                            found = Some(None);
                        }
                    }
                    "herestring_redirect" => {
                        let word = named_children(*r)
                            .into_iter()
                            .rfind(|c| c.kind() != "file_descriptor")
                            .map(|w| self.word(w));
                        found = Some(word.filter(|w| !w.dynamic).map(|w| w.text + "\n"));
                    }
                    "heredoc_redirect" => {
                        let body = named_children(*r)
                            .into_iter()
                            .find(|c| c.kind() == "heredoc_body");
                        found = Some(
                            body.filter(|b| !has_expansion(*b))
                                .map(|b| self.text(b).to_string()),
                        );
                    }
                    _ => {}
                }
            }
            found
        }

        /// A simple command: its assignments, name, arguments and redirections; `extra`, the
        /// words the grammar hung on redirections after it (`rm x > log y`: `y`); `outer`,
        /// those redirections.
        fn command(
            &mut self,
            node: Node,
            cwd: &mut Cwd,
            nest: usize,
            extra: &[Node],
            outer: &[Node],
        ) {
            let here = cwd.clone();
            let mut words = Vec::new();
            let mut redirects: Vec<Node> = named_children(node)
                .into_iter()
                .filter(|c| c.kind().ends_with("_redirect"))
                .collect();
            redirects.extend_from_slice(outer);
            let stdin = self.stdin_of(&redirects).flatten();
            for child in named_children(node) {
                match child.kind() {
                    "variable_assignment" => self.substitutions(child, cwd, nest),
                    "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                        self.redirect(child, &here, nest);
                        for w in self.operands(child) {
                            words.push(self.word(w));
                        }
                    }
                    "command_name" => {
                        self.substitutions(child, cwd, nest);
                        if let Some(w) = named_children(child).first() {
                            words.push(self.word(*w));
                        }
                    }
                    "subshell" => {
                        let mut own = cwd.clone();
                        self.statement(child, &mut own, nest);
                    }
                    _ => {
                        self.substitutions(child, cwd, nest);
                        words.push(self.word(child));
                    }
                }
            }
            words.extend(extra.iter().map(|w| self.word(*w)));
            let before = std::mem::replace(&mut self.stdin, stdin);
            programs::run(self, &words, cwd);
            self.stdin = before;
        }

        /// A word's value after quote removal.
        pub fn word(&self, node: Node) -> Val {
            let raw = self.text(node);
            match node.kind() {
                "raw_string" => Val::fixed(strip(raw, 1, 1)),
                "ansi_c_string" => Val::fixed(ansi_c(strip(raw, 2, 1))),
                "string" | "translated_string" => {
                    if has_expansion(node) {
                        Val {
                            text: raw.to_string(),
                            dynamic: true,
                        }
                    } else {
                        let inner = if node.kind() == "string" {
                            strip(raw, 1, 1)
                        } else {
                            strip(raw, 2, 1)
                        };
                        Val::fixed(unescape_double(inner))
                    }
                }
                "concatenation" => {
                    let mut text = String::new();
                    let mut dynamic = false;
                    let mut cursor = node.walk();
                    for c in node.children(&mut cursor) {
                        let v = if c.is_named() {
                            self.word(c)
                        } else {
                            Val::fixed(self.text(c))
                        };
                        dynamic |= v.dynamic;
                        text.push_str(&v.text);
                    }
                    if dynamic {
                        text = raw.to_string();
                    }
                    Val { text, dynamic }
                }
                "simple_expansion"
                | "expansion"
                | "command_substitution"
                | "process_substitution"
                | "arithmetic_expansion" => Val {
                    text: raw.to_string(),
                    dynamic: true,
                },
                _ => {
                    // `~` and `~user` are the home directory: the host's, not the command's.
                    if raw.starts_with('~') {
                        Val {
                            text: raw.to_string(),
                            dynamic: true,
                        }
                    } else {
                        Val::fixed(unescape_bare(raw))
                    }
                }
            }
        }

        /// Records a write of `val` (a path relative to `cwd`, or absolute).
        pub fn path(&mut self, val: &Val, cwd: &Cwd, what: &str) {
            if val.text.is_empty() && !val.dynamic {
                return;
            }
            if val.dynamic {
                self.note(format!(
                    "{what} `{}` (a path only known when it runs)",
                    val.text
                ));
            } else if val.text.starts_with("/dev/") {
                // /dev/null, /dev/stderr: never files of a repository.
            } else if val.text.starts_with('/') {
                self.out.targets.push(val.text.clone());
            } else if let Some(dir) = cwd {
                self.out.targets.push(join(dir, &val.text));
            } else {
                self.note(format!(
                    "{what} `{}` after a `cd` Rail cannot follow",
                    val.text
                ));
            }
        }
    }

    fn has_expansion(node: Node) -> bool {
        named_children(node).iter().any(|c| {
            matches!(
                c.kind(),
                "simple_expansion"
                    | "expansion"
                    | "command_substitution"
                    | "arithmetic_expansion"
                    | "process_substitution"
            ) || has_expansion(*c)
        })
    }

    fn strip(raw: &str, front: usize, back: usize) -> &str {
        if raw.len() >= front + back {
            raw.get(front..raw.len() - back).unwrap_or("")
        } else {
            ""
        }
    }

    /// An unquoted word: a backslash keeps the next character; backslash-newline vanishes.
    fn unescape_bare(raw: &str) -> String {
        let mut out = String::new();
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('\n') | None => {}
                    Some(n) => out.push(n),
                },
                _ => out.push(c),
            }
        }
        out
    }

    /// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and newline.
    fn unescape_double(inner: &str) -> String {
        let mut out = String::new();
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.peek() {
                    Some('$' | '`' | '"' | '\\') => {
                        if let Some(n) = chars.next() {
                            out.push(n);
                        }
                        continue;
                    }
                    Some('\n') => {
                        chars.next();
                        continue;
                    }
                    _ => {}
                }
            }
            out.push(c);
        }
        out
    }

    /// `$'…'`: the common escapes; others are kept as written.
    fn ansi_c(inner: &str) -> String {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('\\') => out.push('\\'),
                Some('\'') => out.push('\''),
                Some('"') => out.push('"'),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push('\\'),
            }
        }
        out
    }

    /// `cwd` + `path`, both relative to where the command line started.
    pub(crate) fn join(cwd: &str, path: &str) -> String {
        if cwd.is_empty() || path.starts_with('/') {
            path.to_string()
        } else {
            format!("{}/{path}", cwd.trim_end_matches('/'))
        }
    }

    /// Reads a string run as commands (`bash -c`, `eval`) at the next depth.
    pub(crate) fn nested(reader: &mut ShellReader, command: &str, cwd: &mut Cwd, what: &str) {
        if reader.depth + 1 > MAX_DEPTH {
            reader.note(format!("{what} nested more than {MAX_DEPTH} strings deep"));
            return;
        }
        program(command, cwd, reader.depth + 1, reader.out);
    }
}

#[cfg(feature = "shell")]
mod programs;

#[cfg(all(test, feature = "shell"))]
mod tests;
