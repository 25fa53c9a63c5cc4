//! Guard status: the mark every hook call leaves for its session, so the board can say which
//! sessions an agent's Rail hook guards, and which hold claims with no hook ever seen.
//!
//! One small file per session, outside claims.md and claims.log (the host keeps them in
//! `<git common dir>/rail/seen/`): overwritten by each hook call, never merged, never shared
//! by git. Its text is a few `key value` lines; this module writes and reads them and names
//! the file, and the board turns them into [`crate::model::board::SessionHook`].

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
    #[serde(with = "crate::model::input::time_str")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub at: Time,
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
        },
    ))
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
}
