//! Text output for people: the board and scope reports. Everything shown comes from core's
//! models; this file only lays it out.
//!
//! The board is printed as it is (not through `outln!`'s escaping, which would turn its colour
//! codes into text), so every value in it that comes from a file goes through [`safe`] here.

use std::borrow::Cow;
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::Path;

use rail_core::model::board::{Board, BoardClaim, Column};
use rail_core::model::conflict::ConflictKind;
use rail_core::model::lease::LeaseState;
use rail_core::model::scope::{self, FileClass, ScopeReport};

/// A value from a file, terminal-safe: controls, bidi and invisible characters shown as
/// `\u{1b}` escapes (core's rule, `text::terminal_safe`).
pub fn safe(text: &str) -> Cow<'_, str> {
    rail_core::text::terminal_safe(text)
}

pub fn use_color() -> bool {
    !crate::sys::env::env().no_color && std::io::stdout().is_terminal()
}

struct Paint(bool);

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn bold(&self, t: &str) -> String {
        self.wrap("1", t)
    }
    fn green(&self, t: &str) -> String {
        self.wrap("32", t)
    }
    fn yellow(&self, t: &str) -> String {
        self.wrap("33", t)
    }
    fn red(&self, t: &str) -> String {
        self.wrap("31", t)
    }
    fn dim(&self, t: &str) -> String {
        self.wrap("2", t)
    }
}

/// `n` things, in the singular for one.
fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

fn claim_line(c: &BoardClaim, p: &Paint, task_w: usize, session_w: usize) -> String {
    let task = safe(&c.task.clone().unwrap_or_else(|| format!("({})", c.file))).into_owned();
    let left = match (&c.lease_left_text, c.state) {
        (Some(t), LeaseState::Live | LeaseState::Expiring) => format!("{t} left"),
        (Some(_), LeaseState::Stale) => "stale".to_string(),
        (None, _) => "no time".to_string(),
    };
    // Core's reason starts with the time left the column already shows: said once.
    let reason = (c.lease_left_text.as_deref())
        .and_then(|t| c.reason.strip_prefix(&format!("{t} left")))
        .map_or(c.reason.as_str(), str::trim_start);
    let mut line = format!(
        "  {:task_w$}  {:session_w$}  {:>10}  {}",
        task,
        safe(&c.session),
        left,
        p.dim(&safe(reason))
    );
    if !c.holds {
        line.push_str(&p.red("  [duplicate: does not hold]"));
    }
    if !c.conflicts.is_empty() {
        line.push_str(&p.red("  [conflict]"));
    }
    let mut details = Vec::new();
    if let Some(machine) = &c.machine_text {
        details.push(format!("machine: {}", safe(machine)));
    }
    if !c.paths.is_empty() {
        details.push(format!("paths: {}", safe(&c.paths.join(", "))));
    }
    if !c.resources.is_empty() {
        details.push(format!("resources: {}", safe(&c.resources.join(", "))));
    }
    if !c.blocked_by.is_empty() {
        details.push(format!("waits for: {}", safe(&c.blocked_by.join(", "))));
    }
    if let Some(purpose) = &c.purpose {
        details.push(format!("purpose: {}", safe(purpose)));
    }
    for d in details {
        line.push_str(&format!("\n  {:task_w$}  {}", "", p.dim(&d)));
    }
    line.push('\n');
    line
}

/// The whole board as text.
pub fn board(board: &Board, root: &Path, color: bool) -> String {
    let p = Paint(color);
    let mut out = String::new();
    let s = &board.summary;
    let _ = writeln!(
        out,
        "{} {}  ({}: {} live, {} expiring, {} stale; {}) at {}",
        p.bold("Rail"),
        safe(&root.display().to_string()),
        count(s.claims, "claim"),
        s.live,
        s.expiring,
        s.stale,
        count(s.conflicts, "conflict"),
        board.now
    );
    // A shared rail: how far its state is proven, in core's words (a warning when unverified).
    if let Some(shared) = &board.shared {
        let text = safe(&shared.text);
        let line = match shared.warning {
            true => p.yellow(&format!("warning: {text}")),
            false => p.dim(&text),
        };
        let _ = writeln!(out, "{line}");
    }
    let (task_w, session_w) = widths(board);
    columns(&mut out, board, &p, task_w, session_w);
    conflicts(&mut out, board, &p);
    sessions(&mut out, board, &p, session_w);
    in_flight(&mut out, board, &p);
    resources(&mut out, board, &p);
    backlog(&mut out, board, &p, task_w);
    notes(&mut out, board, &p);
    out
}

/// `rail flight`'s text: the board's In flight section alone.
pub fn flight_text(
    work: &[rail_core::model::behind::InFlight],
    now: rail_core::text::time::Time,
) -> String {
    let views = rail_core::model::behind::views(work, now);
    if views.is_empty() {
        return "no work in flight (no session has files changed and not merged)\n".to_string();
    }
    let mut out = String::new();
    flight_views(&mut out, &views, &Paint(false));
    out.trim_start().to_string()
}

/// Each session's work in flight: files changed and not merged, where.
fn in_flight(out: &mut String, board: &Board, p: &Paint) {
    if !board.in_flight.is_empty() {
        flight_views(out, &board.in_flight, p);
    }
}

fn flight_views(out: &mut String, views: &[rail_core::model::behind::FlightView], p: &Paint) {
    let _ = writeln!(out, "\n{}", p.bold("IN FLIGHT (changed, not merged)"));
    for v in views {
        let why = match v.standing {
            rail_core::agent::flight::FlightStanding::Live => String::new(),
            rail_core::agent::flight::FlightStanding::Stale => {
                format!(" {}", p.red("(stale: not blocking, rescue it)"))
            }
            rail_core::agent::flight::FlightStanding::Ended => {
                format!(" {}", p.red("(session ended: not blocking, rescue it)"))
            }
        };
        let _ = writeln!(out, "  {} {}{why}", safe(&v.session), safe(&v.place));
        for f in &v.files {
            let _ = writeln!(
                out,
                "    {}  {}, {}",
                safe(&f.path),
                f.kind_text,
                f.age_text
            );
        }
        if v.files_unlisted > 0 {
            let _ = writeln!(out, "    and {} more", v.files_unlisted);
        }
    }
}

/// The task and session columns' widths.
fn widths(board: &Board) -> (usize, usize) {
    let task_w = board
        .claims
        .iter()
        .map(|c| {
            c.task
                .as_ref()
                .map(|t| safe(t).chars().count())
                .unwrap_or(c.file.len() + 2)
        })
        .max()
        .unwrap_or(4)
        .clamp(4, 32);
    let session_w = board
        .claims
        .iter()
        .map(|c| safe(&c.session).chars().count())
        .max()
        .unwrap_or(7)
        .clamp(7, 24);
    (task_w, session_w)
}

/// The claims, column by column.
fn columns(out: &mut String, board: &Board, p: &Paint, task_w: usize, session_w: usize) {
    if board.claims.is_empty() {
        let _ = writeln!(out, "\n  no claims yet: `rail claim TASK --path GLOB`");
    }
    for column in Column::ALL {
        let claims: Vec<&BoardClaim> = board.claims.iter().filter(|c| c.column == column).collect();
        if claims.is_empty() {
            continue;
        }
        let heading = match column {
            Column::Live => p.green("LIVE"),
            Column::Expiring => p.yellow("EXPIRING"),
            Column::Stale => p.red("STALE — free to take"),
            Column::Blocked => p.yellow("BLOCKED"),
        };
        let _ = writeln!(out, "\n{}", p.bold(&heading));
        for c in claims {
            out.push_str(&claim_line(c, p, task_w, session_w));
        }
    }
}

fn conflicts(out: &mut String, board: &Board, p: &Paint) {
    if !board.conflicts.is_empty() {
        let _ = writeln!(out, "\n{}", p.bold(&p.red("CONFLICTS")));
        for c in &board.conflicts {
            let kind = match c.kind {
                ConflictKind::DuplicateTask => "same task twice",
                ConflictKind::PathOverlap => "paths overlap",
                ConflictKind::ResourceClash => "resource clash",
            };
            let _ = writeln!(out, "  {} {}: {}", p.red("!"), kind, safe(&c.message));
        }
        let unlisted = board.summary.overlaps_unlisted;
        if unlisted > 0 {
            let _ = writeln!(
                out,
                "  {} {} between patterns that each have {} conflicts above already",
                p.red("!"),
                count(unlisted, "more path overlap"),
                rail_core::model::conflict::LISTED_PER_PATTERN
            );
        }
    }
}

/// Guard status of every session holding claims: which agent's Rail hook was last seen.
fn sessions(out: &mut String, board: &Board, p: &Paint, session_w: usize) {
    let holders: Vec<_> = board
        .sessions
        .iter()
        .filter(|v| !v.claims.is_empty())
        .collect();
    if holders.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{}", p.bold("SESSIONS"));
    // No hook seen anywhere yet (the agents are not set up, or have not run): one line says
    // it, rather than a red line per session that reads as breakage.
    if holders.iter().all(|v| v.hook.is_none()) {
        let _ = writeln!(
            out,
            "  {}",
            p.dim("no agent's Rail hook has run yet: `rail init --agents` sets them up, `rail doctor` checks")
        );
        return;
    }
    {
        for v in holders {
            // Core's words; the colour says how much they matter.
            let text = safe(&v.guard_text);
            let guard = if v.unguarded {
                p.red(&text)
            } else if v.hook.is_none() {
                p.dim(&text)
            } else {
                text.into_owned()
            };
            let _ = writeln!(out, "  {:session_w$}  {guard}", safe(&v.name));
        }
    }
}

fn resources(out: &mut String, board: &Board, p: &Paint) {
    if !board.resources.is_empty() {
        let _ = writeln!(out, "\n{}", p.bold("RESOURCES"));
        for r in &board.resources {
            let holders = r
                .holders
                .iter()
                .map(|h| {
                    format!(
                        "{} ({}{}{})",
                        safe(&h.session),
                        safe(h.task.as_deref().unwrap_or("no task")),
                        if h.shared { ", shared" } else { "" },
                        if h.state == LeaseState::Stale {
                            ", stale"
                        } else {
                            ""
                        }
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            let mark = if r.clash {
                p.red(" [clash]")
            } else {
                String::new()
            };
            let _ = writeln!(out, "  {:24}  {holders}{mark}", safe(&r.name));
        }
    }
}

fn backlog(out: &mut String, board: &Board, p: &Paint, task_w: usize) {
    if !board.planned.is_empty() {
        use rail_core::model::backlog::PlannedStatus;
        let _ = writeln!(out, "\n{}", p.bold("BACKLOG"));
        for t in &board.planned {
            let status = match t.status {
                PlannedStatus::Ready => p.green("ready"),
                PlannedStatus::Blocked => p.yellow("blocked"),
                PlannedStatus::Busy => p.yellow("busy"),
                PlannedStatus::Claimed => "claimed".to_string(),
                PlannedStatus::Done => p.dim("done"),
            };
            let mut line = format!("  {:task_w$}  {status}", safe(&t.task));
            if let Some(h) = &t.held_by {
                line.push_str(&format!(" by {}", safe(h)));
            }
            if !t.waiting_for.is_empty() {
                let w: Vec<&str> = t.waiting_for.iter().map(|w| w.task.as_str()).collect();
                line.push_str(&format!(", waits for {}", safe(&w.join(", "))));
            }
            if !t.busy_with.is_empty() {
                line.push_str(&format!(
                    ": held by {}",
                    safe(&held_list(&t.busy_with, t.busy_unlisted))
                ));
            }
            let _ = writeln!(out, "{line}");
        }
    }
}

/// The diagnostics and the recent log.
fn notes(out: &mut String, board: &Board, p: &Paint) {
    use rail_core::text::diagnostic::Code;
    // A conflict is on the board once, under CONFLICTS: its diagnostics (one per claim line
    // involved, for editors) would say it twice more here.
    let notes: Vec<_> = (board.diagnostics.iter())
        .filter(|d| {
            !matches!(
                d.code,
                Code::DuplicateClaim | Code::PathOverlap | Code::ResourceClash
            )
        })
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "\n{}", p.bold("DIAGNOSTICS"));
        for d in notes {
            let _ = writeln!(out, "  {}", safe(&crate::out::hint::one_line(d)));
        }
    }
    if !board.log.is_empty() {
        let _ = writeln!(out, "\n{}", p.bold("RECENT LOG"));
        for e in board.log.iter().take(8) {
            let _ = writeln!(out, "  {}", p.dim(&safe(&e.render())));
        }
    }
}

pub fn scope(report: &ScopeReport) -> String {
    let mut out = String::new();
    if report.files.is_empty() {
        out.push_str("no changed files\n");
        return out;
    }
    // Files of a session that declared nothing are said in one line, not one each (the setup
    // commit of a repository: every file `no declared scope`).
    let undeclared: Vec<&str> = (report.files.iter())
        .filter(|f| f.class == FileClass::Undeclared && f.others.is_empty())
        .map(|f| f.path.as_str())
        .collect();
    if undeclared.len() > 1 {
        let who = if report.session.is_empty() {
            "this checkout names no session".to_string()
        } else {
            format!("{} declared no paths", report.session)
        };
        out.push_str(&format!(
            "{} files with no declared scope ({who}): {}\n",
            undeclared.len(),
            undeclared.join(", ")
        ));
    }
    for f in &report.files {
        if undeclared.len() > 1 && f.class == FileClass::Undeclared && f.others.is_empty() {
            continue;
        }
        let mut line = format!("{}: {}", class_label(f.class), f.path);
        if !f.others.is_empty() {
            let who = f
                .others
                .iter()
                .map(|h| {
                    format!(
                        "{} ({}, `{}`)",
                        h.session,
                        h.task.as_deref().unwrap_or("no task"),
                        h.pattern
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            line.push_str(&format!(" — held by {who}{}", more(f.others_unlisted)));
        }
        if f.unclaimed {
            line.push_str(" (unclaimed)");
        }
        out.push_str(&line);
        out.push('\n');
    }
    if !report.declared.is_empty() {
        out.push_str(&format!(
            "{} declared: {}\n",
            report.session,
            report.declared.join(", ")
        ));
    }
    out
}

/// How the scope report names a file's class.
pub fn class_label(class: FileClass) -> &'static str {
    match class {
        FileClass::InScope => "in scope",
        FileClass::OutOfScope => "OUT OF SCOPE",
        FileClass::Conflict => "HELD BY ANOTHER SESSION",
        FileClass::Undeclared => "no declared scope",
    }
}

/// `rail who`'s text: a line per path and holder.
pub fn who_text(answers: &[scope::Who], now: rail_core::text::time::Time) -> String {
    let mut text = String::new();
    for answer in answers {
        for w in &answer.in_flight {
            text.push_str(&format!(
                "{}: in flight: {}\n",
                answer.path,
                rail_core::model::behind::describe(&[w], now)
            ));
        }
        if answer.holders.is_empty() {
            if answer.in_flight.is_empty() {
                text.push_str(&format!("{}: nobody\n", answer.path));
            }
            continue;
        }
        for h in &answer.holders {
            text.push_str(&format!(
                "{}: {} ({}, {}) via `{}`\n",
                answer.path,
                h.session,
                h.task.as_deref().unwrap_or("no task"),
                h.state.as_str(),
                h.pattern
            ));
        }
        if answer.holders_unlisted > 0 {
            text.push_str(&format!(
                "{}: and {} more claims\n",
                answer.path, answer.holders_unlisted
            ));
        }
    }
    text
}

/// `rail ready`'s text.
pub fn ready_text(backlog: usize, tasks: &[rail_core::model::backlog::PlannedView]) -> String {
    if backlog == 0 {
        return "no backlog: list tasks in claims.md as `- [ ] task | after: other | paths: src/**`\n"
            .to_string();
    }
    let mut text = String::new();
    if tasks.is_empty() {
        text.push_str(
            "nothing is ready: every planned task is claimed, done, waiting or busy (`rail ready --all`)\n",
        );
    }
    let status = |p: &rail_core::model::backlog::PlannedView| {
        serde_json::to_value(p.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let task_w = tasks
        .iter()
        .map(|p| p.task.chars().count())
        .max()
        .unwrap_or(0);
    let status_w = tasks.iter().map(|p| status(p).len()).max().unwrap_or(0);
    for p in tasks {
        let mut parts = Vec::new();
        if let Some(h) = &p.held_by {
            parts.push(format!("by {h}"));
        }
        if !p.waiting_for.is_empty() {
            let w: Vec<&str> = p.waiting_for.iter().map(|w| w.task.as_str()).collect();
            parts.push(format!("waits for {}", w.join(", ")));
        }
        if !p.busy_with.is_empty() {
            parts.push(format!(
                "its paths or resources are held: {}",
                held_list(&p.busy_with, p.busy_unlisted)
            ));
        }
        if !p.paths.is_empty() {
            parts.push(format!("paths: {}", p.paths.join(", ")));
        }
        if let Some(purpose) = &p.purpose {
            parts.push(format!("— {purpose}"));
        }
        let line = format!(
            "{:task_w$}  {:status_w$}  {}",
            p.task,
            status(p),
            parts.join("  ")
        );
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// Holding claims as `session (task)`, comma-separated, those not listed counted.
fn held_list(held: &[rail_core::model::backlog::Waiting], unlisted: usize) -> String {
    let mut list = held
        .iter()
        .map(|w| format!("{} ({})", w.held_by.as_deref().unwrap_or("someone"), w.task))
        .collect::<Vec<_>>()
        .join(", ");
    list.push_str(&more(unlisted));
    list
}

/// ` and 12 more` for what a list leaves out, or nothing.
fn more(unlisted: usize) -> String {
    if unlisted > 0 {
        format!(" and {unlisted} more")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use rail_core::model::input::{Facts, FileText, RailTexts};

    fn file(path: &str, text: &str) -> FileText {
        FileText {
            path: path.into(),
            text: text.into(),
            modified: None,
        }
    }

    #[test]
    fn the_board_never_prints_a_control_sequence_from_a_file() {
        // Issue 17, finding 7: OSC (window title), CSI (clear screen), OSC 52 (clipboard) and
        // bidi overrides in a purpose, a session, a claim file's task and purpose, a log line.
        let esc = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}\u{202e}\u{9b}1m";
        let texts = RailTexts {
            claims: Some(file(
                "claims.md",
                &format!(
                    "a | s | 2026-10-22T14:05Z | purpose: x{esc}\nd | s{esc} | 2026-10-22T14:05Z\n- [ ] b{esc} | paths: src/**\n"
                ),
            )),
            claim_files: vec![file(
                "claims/t.yaml",
                &format!("owner: t\ntask: c\nsince: 2026-10-22T14:05Z\npurpose: y{esc}\n"),
            )],
            log: Some(file(
                "claims.log",
                &format!("2026-10-22T14:05:00Z | claimed | a | s | paths: {esc}\n"),
            )),
            config: None,
        };
        let now = rail_core::text::time::parse_time("2026-10-22T15:00:00Z").unwrap();
        let board = rail_core::model::board::build(&texts, &Facts::at(now));
        for color in [false, true] {
            let text = super::board(&board, std::path::Path::new("/r"), color);
            assert!(text.contains("purpose: x\\u{1b}]0;pwned\\u{7}"), "{text}");
            for (i, c) in text.char_indices() {
                if c == '\u{1b}' {
                    // Only the board's own colour codes: ESC [ digits m.
                    let rest = &text[i + 1..];
                    let code = rest
                        .strip_prefix('[')
                        .map(|r| r.split('m').next().unwrap_or("x"));
                    assert!(
                        code.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())),
                        "stray ESC at {i}: {:?}",
                        &text[i..(i + 12).min(text.len())]
                    );
                } else {
                    assert!(
                        !rail_core::text::is_unsafe_char(c),
                        "unsafe U+{:04X} in {text}",
                        c as u32
                    );
                }
            }
        }
    }
}
