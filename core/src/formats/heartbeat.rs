//! Guard status: the mark every hook call leaves for its session, so the board can say which
//! sessions an agent's Rail hook guards, and which hold claims with no hook ever seen.
//!
//! One small file per session, outside claims.md and claims.log (the host keeps them in
//! `<git common dir>/rail/seen/`): overwritten by each hook call, never merged, never shared
//! by git. Its text is a few `key value` lines; this module writes and reads them and names
//! the file, and the board turns them into [`crate::model::board::SessionHook`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::text::time::{format_time, parse_time, Time};

/// The longest agent name or version kept (a payload is the agent's to fill).
const MAX_FIELD: usize = 64;

/// The last hook call seen for a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HookSeen {
    /// Which agent's hook (`claude`, `codex`, `gemini`, `copilot`, `cursor`, …).
    pub agent: String,
    /// The agent's version, where its payload says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub version: Option<String>,
    /// When the call was seen.
    #[serde(with = "crate::text::serde_time")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub at: Time,
    /// The machine whose hook call it was, for a mark another machine shared (a shared rail);
    /// `None`: this machine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub host: Option<String>,
}

/// A mark as read from its file: whose, and what was seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Mark {
    pub session: String,
    pub seen: HookSeen,
}

/// A field as kept: printable, one line, bounded.
fn clean(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .take(MAX_FIELD)
        .collect::<String>()
        .trim()
        .to_string()
}

/// The file's text for `session`.
pub fn render(session: &str, seen: &HookSeen) -> String {
    let mut out = format!("session {}\nagent {}\n", clean(session), clean(&seen.agent));
    if let Some(v) = seen.version.as_deref().map(clean).filter(|v| !v.is_empty()) {
        out.push_str(&format!("version {v}\n"));
    }
    out.push_str(&format!("at {}\n", format_time(seen.at)));
    out
}

/// The session and what was seen, from a file's text; `None` for a text this did not write
/// (damaged, or put there by something else), which then counts as no hook seen.
pub fn parse(text: &str) -> Option<(String, HookSeen)> {
    let (mut session, mut agent, mut version, mut at) = (None, None, None, None);
    for line in text.lines() {
        let (key, value) = line.split_once(' ')?;
        match key {
            "session" => session = Some(value.to_string()),
            "agent" => agent = Some(clean(value)),
            "version" => version = Some(clean(value)),
            "at" => at = Some(parse_time(value).ok()?),
            _ => {}
        }
    }
    let agent = agent.filter(|a| !a.is_empty())?;
    Some((
        session.filter(|s| !s.is_empty())?,
        HookSeen {
            agent,
            version,
            at: at?,
            host: None,
        },
    ))
}

/// The folder of `<git common dir>/rail/` a machine's marks are kept in, one file a session.
pub const MARKS_DIR: &str = "seen";
/// The folder of `<git common dir>/rail/` other machines' shared marks are kept in (a shared
/// rail), one file a machine.
pub const SHARED_MARKS_DIR: &str = "seen-shared";
/// More mark files than this are not read (a board stays cheap whatever is put there).
pub const MAX_MARK_FILES: usize = 1000;
/// A mark file larger than this is not read.
pub const MAX_MARK_BYTES: u64 = 4096;
/// A machine's shared marks larger than this are not read.
pub const MAX_SHARED_BYTES: u64 = MAX_SHARED as u64 * 512;

/// Where hosts find the marks, and how much of them they read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MarkFiles {
    pub dir: &'static str,
    pub shared_dir: &'static str,
    pub max_files: usize,
    pub max_bytes: u64,
    pub max_shared_bytes: u64,
}

pub const MARK_FILES: MarkFiles = MarkFiles {
    dir: MARKS_DIR,
    shared_dir: SHARED_MARKS_DIR,
    max_files: MAX_MARK_FILES,
    max_bytes: MAX_MARK_BYTES,
    max_shared_bytes: MAX_SHARED_BYTES,
};

/// The most marks one machine shares, newest first (a board stays cheap whatever a machine
/// puts there).
pub const MAX_SHARED: usize = 1000;

/// A machine's marks as one text, for a shared rail to carry: each session's mark
/// ([`render`]) followed by an empty line, the newest [`MAX_SHARED`] only. Marks that came from
/// another machine are not passed on: each machine speaks for its own hook calls.
pub fn render_machine(marks: &BTreeMap<String, HookSeen>) -> String {
    let mut own: Vec<(&String, &HookSeen)> = marks
        .iter()
        .filter(|(_, seen)| seen.host.is_none())
        .collect();
    crate::text::sort::sort_by(&mut own, |a, b| b.1.at.cmp(&a.1.at).then(a.0.cmp(b.0)));
    own.iter()
        .take(MAX_SHARED)
        .map(|(session, seen)| render(session, seen) + "\n")
        .collect()
}

/// The marks of a machine's shared text ([`render_machine`]), each with `host` set to
/// `machine`; a damaged block is passed over, past [`MAX_SHARED`] nothing is read.
pub fn parse_machine(machine: &str, text: &str) -> Vec<(String, HookSeen)> {
    text.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .take(MAX_SHARED)
        .filter_map(|block| parse(block.trim_start_matches('\n')))
        .map(|(session, seen)| {
            let host = Some(clean(machine)).filter(|h| !h.is_empty());
            (session, HookSeen { host, ..seen })
        })
        .collect()
}

/// Another machine's shared marks as this machine keeps them: every mark dated after `now`
/// (this machine's clock when it read them) dated `now` — a mark from the future would show its
/// session guarded for as long as the future lasts (marks dated 2099).
pub fn clamp_shared(text: &str, now: Time) -> String {
    let marks: BTreeMap<String, HookSeen> = parse_machine("", text)
        .into_iter()
        .map(|(session, seen)| {
            let at = seen.at.min(now);
            (session, HookSeen { at, ..seen })
        })
        .collect();
    render_machine(&marks)
}

/// How much newer a hook call must be than its session's mark before the mark is written again:
/// a tool call is a hook call or two, and rewriting the file each time is most of the mark's
/// cost. A board shows a mark up to this much older than its session's last call.
pub const MARK_EVERY_SECS: i64 = 30;

/// Whether a hook call seen as `seen` for `session` should rewrite the mark whose text is `old`
/// (`None`: no mark yet, or none readable): when it names something the old one does not (its
/// session, agent or version), is [`MARK_EVERY_SECS`] newer, or older (a clock set back).
pub fn worth_marking(old: Option<&str>, session: &str, seen: &HookSeen) -> bool {
    let Some((was, old)) = old.and_then(parse) else {
        return true;
    };
    let since = (seen.at - old.at).num_seconds();
    was != clean(session)
        || old.agent != clean(&seen.agent)
        || old.version != seen.version.as_deref().map(clean).filter(|v| !v.is_empty())
        || !(0..MARK_EVERY_SECS).contains(&since)
}

/// How much newer a session's mark must be than the one a machine last shared before it is
/// shared again: every hook call moves a mark's time, and a push per hook call would be a
/// commit per tool call. A board then shows another machine's mark up to this much older than
/// it is.
pub const SHARE_EVERY_SECS: i64 = 300;

/// Whether a machine's own marks (`marks`) say something its last shared text (`published`,
/// [`render_machine`]'s; `None`: never shared) does not: a session, agent or version it did not
/// name, or a session seen [`SHARE_EVERY_SECS`] later than it says.
pub fn worth_sharing(published: Option<&str>, marks: &BTreeMap<String, HookSeen>) -> bool {
    let shared: BTreeMap<String, HookSeen> = published
        .map(|text| parse_machine("", text).into_iter().collect())
        .unwrap_or_default();
    marks
        .iter()
        .filter(|(_, seen)| seen.host.is_none())
        .take(MAX_SHARED)
        .any(|(session, seen)| match shared.get(session) {
            None => true,
            Some(old) => {
                old.agent != seen.agent
                    || old.version != seen.version
                    || (seen.at - old.at).num_seconds() >= SHARE_EVERY_SECS
            }
        })
}

/// Adds another machine's marks to `marks`: a session's newest mark wins (this machine's on a
/// tie), so a board shows where a session's agent was last seen running Rail's hook.
pub fn merge(marks: &mut BTreeMap<String, HookSeen>, shared: Vec<(String, HookSeen)>) {
    for (session, seen) in shared {
        match marks.get(&session) {
            Some(have) if have.at >= seen.at => {}
            _ => {
                marks.insert(session, seen);
            }
        }
    }
}

/// Every session's last mark, from the files a host read: `own`, this machine's mark files
/// (file name, text; [`read`]), and `shared`, other machines' shared marks (machine, text;
/// [`parse_machine`]); a session's newest mark wins, this machine's on a tie.
pub fn collect<'a>(
    own: impl IntoIterator<Item = (&'a str, &'a str)>,
    shared: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> BTreeMap<String, HookSeen> {
    let mut marks = BTreeMap::new();
    for (name, text) in own {
        if let Some((session, seen)) = read(name, text) {
            marks.insert(session, seen);
        }
    }
    for (machine, text) in shared {
        merge(&mut marks, parse_machine(machine, text));
    }
    marks
}

/// A mark as found on disk: its session and what was seen, when the file's name is that
/// session's own ([`file_name`]); a mark copied under another session's name vouches for
/// nobody.
pub fn read(file_name_found: &str, text: &str) -> Option<(String, HookSeen)> {
    parse(text).filter(|(session, _)| file_name(session) == file_name_found)
}

/// The file name for `session`: bytes other than ASCII letters, digits, `-` and `_` as `%XX`,
/// so any session name is one safe name (no `/`, no `..`, no case clash on case-blind file
/// systems for names that differ only in case: capitals are escaped too).
pub fn file_name(session: &str) -> String {
    let mut out = String::with_capacity(session.len());
    for b in session.bytes() {
        if b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: &str) -> Time {
        parse_time(t).unwrap()
    }

    #[test]
    fn a_mark_reads_back_as_written() {
        let seen = HookSeen {
            agent: "claude".into(),
            version: Some("2.1.332".into()),
            at: at("2026-12-03T14:05:00Z"),
            host: None,
        };
        let text = render("alice", &seen);
        assert_eq!(
            text,
            "session alice\nagent claude\nversion 2.1.332\nat 2026-12-03T14:05:00Z\n"
        );
        assert_eq!(parse(&text), Some(("alice".into(), seen)));
    }

    #[test]
    fn hostile_fields_are_cut_and_damaged_marks_count_as_none() {
        let seen = HookSeen {
            agent: "x\u{1b}[31m\nat 2099-01-01T00:00Z".into(),
            version: Some("v".repeat(500)),
            at: at("2026-12-03T14:05:00Z"),
            host: None,
        };
        let text = render("a\nb", &seen);
        let (session, back) = parse(&text).unwrap();
        assert_eq!(session, "ab");
        assert_eq!(back.at, seen.at);
        assert!(!back.agent.contains('\u{1b}'));
        assert_eq!(back.version.unwrap().len(), MAX_FIELD);
        for bad in [
            "",
            "agent claude\n",
            "session a\nagent claude\nat soon\n",
            "garbage",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_mark_counts_only_under_its_sessions_own_name() {
        let seen = HookSeen {
            agent: "codex".into(),
            version: None,
            at: at("2026-12-03T14:05:00Z"),
            host: None,
        };
        let text = render("Web", &seen);
        assert!(read(&file_name("Web"), &text).is_some());
        assert_eq!(read("auth", &text), None);
    }

    #[test]
    fn file_names_are_safe_and_distinct() {
        assert_eq!(file_name("alice-2"), "alice-2");
        assert_eq!(file_name("../x"), "%2E%2E%2Fx");
        assert_ne!(file_name("Bob"), file_name("bob"));
        assert!(file_name("a b/ü")
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"%-_".contains(&b)));
    }

    /// A shared rail carries each machine's marks: a machine's own are written out (another
    /// machine's are not passed on), read back under the machine's name, and a session's newest
    /// mark wins, wherever it was seen.
    #[test]
    fn machines_share_their_own_marks_and_the_newest_wins() {
        let seen = |agent: &str, t: &str, host: Option<&str>| HookSeen {
            agent: agent.into(),
            version: None,
            at: at(t),
            host: host.map(str::to_string),
        };
        let mut b = BTreeMap::new();
        b.insert(
            "web".to_string(),
            seen("codex", "2026-12-03T14:10:00Z", None),
        );
        b.insert(
            "ops".to_string(),
            seen("claude", "2026-12-03T13:00:00Z", Some("c")),
        );
        let text = render_machine(&b);
        assert!(
            !text.contains("ops"),
            "another machine's mark is not passed on: {text}"
        );
        let shared = parse_machine("laptop-b", &text);
        assert_eq!(
            shared,
            [(
                "web".to_string(),
                seen("codex", "2026-12-03T14:10:00Z", Some("laptop-b"))
            )]
        );
        let mut a = BTreeMap::new();
        a.insert(
            "web".to_string(),
            seen("claude", "2026-12-03T14:00:00Z", None),
        );
        a.insert(
            "auth".to_string(),
            seen("gemini", "2026-12-03T14:20:00Z", None),
        );
        merge(&mut a, shared.clone());
        assert_eq!(a["web"].host.as_deref(), Some("laptop-b"));
        assert_eq!(a["web"].agent, "codex");
        assert_eq!(a["auth"].host, None);
        // An older shared mark does not replace a newer one of this machine.
        let mut newer = BTreeMap::new();
        newer.insert(
            "web".to_string(),
            seen("claude", "2026-12-03T15:00:00Z", None),
        );
        merge(&mut newer, shared);
        assert_eq!(newer["web"].host, None);
        // Damaged blocks are passed over; the rest still count.
        let damaged = format!("garbage\n\n{text}\n\nsession x\nat soon\n");
        assert_eq!(parse_machine("m", &damaged).len(), 1);
        // However many a machine shares, at most MAX_SHARED are read.
        let many: String = (0..MAX_SHARED + 5)
            .map(|i| {
                render(
                    &format!("s{i}"),
                    &seen("claude", "2026-12-03T14:00:00Z", None),
                ) + "\n"
            })
            .collect();
        assert_eq!(parse_machine("m", &many).len(), MAX_SHARED);
    }

    /// A machine shares its marks again only when they say something new: a new session, agent
    /// or version, or a session seen five minutes after its shared mark.
    #[test]
    fn a_mark_is_rewritten_only_when_it_says_something_new() {
        let seen = |agent: &str, version: Option<&str>, t: &str| HookSeen {
            agent: agent.into(),
            version: version.map(str::to_string),
            at: at(t),
            host: None,
        };
        let old = render(
            "s1",
            &seen("claude", Some("2.1.332"), "2026-12-05T10:00:00Z"),
        );
        let same = |t: &str| seen("claude", Some("2.1.332"), t);
        assert!(worth_marking(None, "s1", &same("2026-12-05T10:00:00Z")));
        assert!(worth_marking(
            Some("damaged"),
            "s1",
            &same("2026-12-05T10:00:00Z")
        ));
        assert!(!worth_marking(
            Some(&old),
            "s1",
            &same("2026-12-05T10:00:00Z")
        ));
        assert!(!worth_marking(
            Some(&old),
            "s1",
            &same("2026-12-05T10:00:29Z")
        ));
        assert!(worth_marking(
            Some(&old),
            "s1",
            &same("2026-12-05T10:00:30Z")
        ));
        // A clock set back rewrites: the mark never claims a call later than the last one.
        assert!(worth_marking(
            Some(&old),
            "s1",
            &same("2026-12-05T09:59:59Z")
        ));
        assert!(worth_marking(
            Some(&old),
            "s2",
            &same("2026-12-05T10:00:01Z")
        ));
        let t = "2026-12-05T10:00:01Z";
        assert!(worth_marking(
            Some(&old),
            "s1",
            &seen("codex", Some("2.1.332"), t)
        ));
        assert!(worth_marking(
            Some(&old),
            "s1",
            &seen("claude", Some("2.1.333"), t)
        ));
        assert!(worth_marking(Some(&old), "s1", &seen("claude", None, t)));
        // Control characters are cut as the file is written: the same call reads as the same.
        let noisy = render(
            "s1",
            &seen("claude", Some("2.1\u{7}.332"), "2026-12-05T10:00:00Z"),
        );
        assert!(!worth_marking(
            Some(&noisy),
            "s1",
            &seen("claude", Some("2.1\u{7}.332"), t)
        ));
    }

    #[test]
    fn marks_are_shared_again_only_when_they_say_something_new() {
        let seen = |agent: &str, t: &str| HookSeen {
            agent: agent.into(),
            version: None,
            at: at(t),
            host: None,
        };
        let mut marks = BTreeMap::new();
        marks.insert("web".to_string(), seen("claude", "2026-12-03T14:00:00Z"));
        assert!(worth_sharing(None, &marks));
        let published = render_machine(&marks);
        assert!(!worth_sharing(Some(&published), &marks));
        marks.insert("web".to_string(), seen("claude", "2026-12-03T14:04:59Z"));
        assert!(!worth_sharing(Some(&published), &marks));
        marks.insert("web".to_string(), seen("claude", "2026-12-03T14:05:00Z"));
        assert!(worth_sharing(Some(&published), &marks));
        marks.insert("web".to_string(), seen("codex", "2026-12-03T14:00:00Z"));
        assert!(worth_sharing(Some(&published), &marks));
        let mut two = BTreeMap::new();
        two.insert("web".to_string(), seen("claude", "2026-12-03T14:00:00Z"));
        two.insert("auth".to_string(), seen("claude", "2026-12-03T14:00:00Z"));
        assert!(worth_sharing(Some(&published), &two));
        // Another machine's marks are not this machine's to share.
        let mut theirs = BTreeMap::new();
        theirs.insert(
            "ops".to_string(),
            HookSeen {
                host: Some("b".into()),
                ..seen("claude", "2026-12-03T14:00:00Z")
            },
        );
        assert!(!worth_sharing(None, &theirs));
    }
}
