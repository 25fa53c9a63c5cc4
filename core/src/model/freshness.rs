//! How fresh a shared rail's local copy is, in the words every host shows.
//!
//! A rail shared through a git remote (docs/shared-rail.md) is read from the copy last fetched.
//! The CLI's reads, the VS Code Board view and its status bar all say how old that copy is and,
//! when the latest fetch failed, that it is stale and why. The host supplies the facts (when it
//! last fetched, what the fetch said); the sentence is made here, once.

use serde::{Deserialize, Serialize};

use crate::text::time::{format_duration, Time};

/// Longest part of a fetch error that is shown; git's messages can run long.
const MAX_WHY: usize = 300;

/// What the host knows about its copy of a shared rail. As JSON (from JS hosts):
/// `{"remote": "origin", "fetched_at": "2026-10-22T14:05:03Z", "now": "…", "fetch_error": null}`.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FreshnessFacts {
    /// The git remote the rail is shared through.
    pub remote: String,
    /// When the local copy was last brought up to date with the remote; `None`: never.
    #[serde(default, with = "crate::text::serde_time::opt")]
    #[cfg_attr(feature = "ts", ts(type = "string | null", optional))]
    pub fetched_at: Option<Time>,
    #[serde(with = "crate::text::serde_time")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub now: Time,
    /// What the latest fetch said when it failed; `None` when it worked (or none was tried).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub fetch_error: Option<String>,
}

/// The sentence, and whether the copy is stale (the latest fetch failed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Freshness {
    pub text: String,
    pub stale: bool,
}

/// `shared via origin, fetched 20s ago`; `shared via origin: STALE, could not fetch (fatal: …);
/// showing the state fetched 5m ago`.
pub fn describe(facts: &FreshnessFacts) -> Freshness {
    let remote = &facts.remote;
    let age = match facts.fetched_at {
        None => None,
        Some(t) if facts.now - t < chrono::TimeDelta::seconds(1) => Some("just now".to_string()),
        Some(t) => Some(format!("{} ago", format_duration(facts.now - t))),
    };
    match &facts.fetch_error {
        None => Freshness {
            text: match age {
                Some(age) => format!("shared via {remote}, fetched {age}"),
                None => format!("shared via {remote}, not fetched yet"),
            },
            stale: false,
        },
        Some(error) => {
            let shown = match age {
                Some(age) => format!("showing the state fetched {age}"),
                None => "nothing was fetched yet".to_string(),
            };
            Freshness {
                text: format!(
                    "shared via {remote}: STALE, could not fetch ({}); {shown}",
                    one_line(error)
                ),
                stale: true,
            }
        }
    }
}

/// Git's messages run over several lines (`fatal: …\nfatal: …`): one line, bounded.
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX_WHY) {
        Some((cut, _)) => format!("{}…", &joined[..cut]),
        None => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::time::parse_time;

    fn facts(fetched: Option<&str>, error: Option<&str>) -> FreshnessFacts {
        FreshnessFacts {
            remote: "origin".into(),
            fetched_at: fetched.map(|t| parse_time(t).unwrap()),
            now: parse_time("2026-10-22T14:05:20Z").unwrap(),
            fetch_error: error.map(str::to_string),
        }
    }

    #[test]
    fn fresh_copies_say_their_age() {
        let cases = [
            (
                Some("2026-10-22T14:05:20Z"),
                "shared via origin, fetched just now",
            ),
            (
                Some("2026-10-22T14:05:00Z"),
                "shared via origin, fetched 20s ago",
            ),
            (
                Some("2026-10-22T12:35:00Z"),
                "shared via origin, fetched 1h30m ago",
            ),
            (None, "shared via origin, not fetched yet"),
        ];
        for (fetched, text) in cases {
            let got = describe(&facts(fetched, None));
            assert_eq!(got.text, text);
            assert!(!got.stale);
        }
    }

    #[test]
    fn a_failed_fetch_is_stale_and_says_why_on_one_line() {
        let got = describe(&facts(
            Some("2026-10-22T14:00:00Z"),
            Some("fatal: unable to connect\n  fatal: Could not read from remote repository."),
        ));
        assert!(got.stale);
        assert_eq!(
            got.text,
            "shared via origin: STALE, could not fetch (fatal: unable to connect fatal: Could not \
             read from remote repository.); showing the state fetched 5m ago"
        );
        let never = describe(&facts(None, Some("boom")));
        assert_eq!(
            never.text,
            "shared via origin: STALE, could not fetch (boom); nothing was fetched yet"
        );
    }

    #[test]
    fn long_errors_are_cut_on_a_char_boundary() {
        let long = "é".repeat(MAX_WHY + 50);
        let got = describe(&facts(None, Some(&long)));
        assert!(got.text.contains(&format!("({}…)", "é".repeat(MAX_WHY))));
    }

    #[test]
    fn reads_the_json_hosts_send() {
        let f: FreshnessFacts = serde_json::from_str(
            r#"{"remote":"up","fetched_at":"2026-10-22T14:05:03.123Z","now":"2026-10-22T14:06:03Z"}"#,
        )
        .unwrap();
        assert_eq!(describe(&f).text, "shared via up, fetched 59s ago");
    }
}
