//! Whether a shared rail's state is proven (docs/shared-rail.md, "Who can change what"), in the
//! words every board shows.
//!
//! A team that committed its allowed signers on the remote's main branch has every rail commit
//! signed and proven before it is built on; a team that did not keeps working unverified, and
//! every board says so. The host gathers what it knows ([`SharedRailFacts`]: where the allowed
//! signers were read, the state last fetched and the last one proven, whether this machine can
//! sign); the judgement and its sentence are made here, once, for the CLI's reads and boards,
//! `rail board --json` and `--html`, the web board and the VS Code extension.

use serde::{Deserialize, Serialize};

use crate::formats::rail_files::ALLOWED_SIGNERS;

/// What a host knows of a shared rail's verification. As JSON (the CLI's `rail flight --json`
/// gives it to the VS Code extension; `rail board --html` embeds it):
/// `{"remote": "origin", "known": true, "signers": "origin/main:.rail/allowed-signers",
/// "fetched": "…", "proven": "…", "can_sign": true}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SharedRailFacts {
    /// The git remote the rail is shared through.
    pub remote: String,
    /// Whether the host looked (the CLI always does; a host that could not ask it leaves this
    /// out): what was not looked at is never shown as verified.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub known: bool,
    /// Where the team's allowed signers were read (`origin/main:.rail/allowed-signers`); `None`:
    /// none are committed on the remote's main branch, so the rail is unverified.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub signers: Option<String>,
    /// The shared state this machine last fetched or pushed (`refs/rail/fetched`).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub fetched: Option<String>,
    /// The last state this machine proved (`refs/rail/proven`).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub proven: Option<String>,
    /// This machine has a signing key and is among the allowed signers: its changes would be
    /// proven by the others.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub can_sign: bool,
}

/// How far a shared rail's state is proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Verified {
    /// The host did not say.
    Unknown,
    /// No allowed signers on the remote's main branch: anyone who can push can rewrite it.
    Unverified,
    /// Keyed, and nothing fetched from it yet.
    NotFetched,
    /// Keyed, and the state last fetched is the last one proven.
    Proven,
    /// Keyed, and the state last fetched is not proven (yet): it is not built on.
    Unproven,
}

/// The shared rail's verification as a board shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SharedView {
    pub remote: String,
    pub verified: Verified,
    /// Core's sentence, for every host to show as it is.
    pub text: String,
    /// Shown as a warning (unverified, unproven, unknown, or this machine cannot sign).
    pub warning: bool,
    /// The last proven state, shortened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub proven: Option<String>,
    /// The machine the board was judged on (its claims are "this machine's").
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub machine: Option<String>,
}

/// The sentence every read of a rail without keys says.
pub fn unverified(remote: &str) -> String {
    format!(
        "the shared rail on {remote} is UNVERIFIED: no {ALLOWED_SIGNERS} is committed on \
         {remote}'s main branch, so anyone who can push to {remote} can rewrite it unnoticed \
         (docs/shared-rail.md, \"Who can change what\")"
    )
}

/// A commit id as the sentences show it.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// What the board says of a shared rail, judged on `machine` (this machine's id, when the host
/// says).
pub fn judge(facts: &SharedRailFacts, machine: Option<&str>) -> SharedView {
    let remote = facts.remote.as_str();
    let (verified, mut text) = match (facts.known, &facts.signers) {
        (false, _) => (
            Verified::Unknown,
            format!(
                "whether the shared rail on {remote} is verified is not known here (Rail's \
                 command line did not say): until it does, take it as UNVERIFIED"
            ),
        ),
        (true, None) => (Verified::Unverified, unverified(remote)),
        (true, Some(from)) => match (&facts.fetched, &facts.proven) {
            (None, _) => (
                Verified::NotFetched,
                format!(
                    "the shared rail on {remote} is signed by the machines in {from}; nothing \
                     was fetched from it yet"
                ),
            ),
            (Some(f), Some(p)) if f == p => (
                Verified::Proven,
                format!(
                    "the shared rail on {remote} is proven up to {} (signed by the machines in \
                     {from})",
                    short(p)
                ),
            ),
            (Some(f), proven) => (
                Verified::Unproven,
                format!(
                    "the shared rail on {remote} holds commits this machine has not proven \
                     (fetched {}, {}): they are not built on; the next round (`rail sync`) \
                     proves them or restores the proven state over them",
                    short(f),
                    match proven {
                        Some(p) => format!("last proven {}", short(p)),
                        None => "nothing proven yet".to_string(),
                    }
                ),
            ),
        },
    };
    let keyed = facts.known && facts.signers.is_some();
    let cannot_sign = keyed && !facts.can_sign;
    if cannot_sign {
        text.push_str(&format!(
            "; this machine{} cannot change it: it needs a signing key named among the allowed \
             signers (`rail init --remote {remote}` sets one up)",
            machine.map(|m| format!(" ({m})")).unwrap_or_default()
        ));
    }
    SharedView {
        remote: facts.remote.clone(),
        verified,
        warning: cannot_sign || !matches!(verified, Verified::Proven | Verified::NotFetched),
        text,
        proven: (keyed)
            .then(|| facts.proven.as_deref().map(|p| short(p).to_string()))
            .flatten(),
        machine: machine.map(str::to_string),
    }
}

/// How a board names a claim's machine: `laptop-3f2a… (this machine)`, or `… (another
/// machine's: only it changes this claim)`; just the id where the board does not know which
/// machine it is on.
pub fn machine_text(claim: &str, here: Option<&str>) -> String {
    match here {
        Some(h) if h == claim => format!("{claim} (this machine)"),
        Some(_) => format!("{claim} (another machine's: only it changes this claim)"),
        None => claim.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> SharedRailFacts {
        SharedRailFacts {
            remote: "origin".into(),
            known: true,
            signers: Some("origin/main:.rail/allowed-signers".into()),
            fetched: Some("a".repeat(40)),
            proven: Some("a".repeat(40)),
            can_sign: true,
        }
    }

    #[test]
    fn a_rail_without_keys_is_unverified_and_warned() {
        let v = judge(
            &SharedRailFacts {
                signers: None,
                ..facts()
            },
            Some("laptop-1"),
        );
        assert_eq!(v.verified, Verified::Unverified);
        assert!(v.warning);
        assert_eq!(
            v.text,
            "the shared rail on origin is UNVERIFIED: no .rail/allowed-signers is committed on \
             origin's main branch, so anyone who can push to origin can rewrite it unnoticed \
             (docs/shared-rail.md, \"Who can change what\")"
        );
        assert_eq!(v.proven, None);
        assert_eq!(v.machine.as_deref(), Some("laptop-1"));
    }

    #[test]
    fn what_was_not_looked_at_is_never_verified() {
        // A host that did not ask (JSON without `known`) is told it cannot tell, as a warning.
        let f: SharedRailFacts = serde_json::from_str(
            r#"{"remote":"up","signers":"up/main:.rail/allowed-signers","fetched":"x","proven":"x","can_sign":true}"#,
        )
        .unwrap();
        let v = judge(&f, None);
        assert_eq!(v.verified, Verified::Unknown);
        assert!(v.warning);
        assert!(v.text.contains("take it as UNVERIFIED"), "{}", v.text);
    }

    #[test]
    fn keyed_rails_say_how_far_they_are_proven() {
        let v = judge(&facts(), Some("m"));
        assert_eq!(v.verified, Verified::Proven);
        assert!(!v.warning);
        assert_eq!(
            v.text,
            "the shared rail on origin is proven up to aaaaaaaaaaaa (signed by the machines in \
             origin/main:.rail/allowed-signers)"
        );
        assert_eq!(v.proven.as_deref(), Some("aaaaaaaaaaaa"));

        let behind = judge(
            &SharedRailFacts {
                fetched: Some("b".repeat(40)),
                ..facts()
            },
            None,
        );
        assert_eq!(behind.verified, Verified::Unproven);
        assert!(behind.warning);
        assert!(
            behind
                .text
                .contains("(fetched bbbbbbbbbbbb, last proven aaaaaaaaaaaa)"),
            "{}",
            behind.text
        );
        let never = judge(
            &SharedRailFacts {
                proven: None,
                ..facts()
            },
            None,
        );
        assert_eq!(never.verified, Verified::Unproven);
        assert!(never.text.contains("nothing proven yet"), "{}", never.text);

        let unfetched = judge(
            &SharedRailFacts {
                fetched: None,
                proven: None,
                ..facts()
            },
            None,
        );
        assert_eq!(unfetched.verified, Verified::NotFetched);
        assert!(!unfetched.warning);
    }

    #[test]
    fn a_machine_that_cannot_sign_is_warned_on_a_keyed_rail_only() {
        let v = judge(
            &SharedRailFacts {
                can_sign: false,
                ..facts()
            },
            Some("desk-9"),
        );
        assert_eq!(v.verified, Verified::Proven);
        assert!(v.warning);
        assert!(
            v.text.ends_with(
                "; this machine (desk-9) cannot change it: it needs a signing key named among \
                 the allowed signers (`rail init --remote origin` sets one up)"
            ),
            "{}",
            v.text
        );
        // Without keys nobody signs: the unverified sentence alone.
        let unkeyed = judge(
            &SharedRailFacts {
                signers: None,
                can_sign: false,
                ..facts()
            },
            Some("desk-9"),
        );
        assert!(!unkeyed.text.contains("cannot change it"));
    }

    #[test]
    fn the_board_carries_the_verification_and_each_claims_machine() {
        use crate::model::board;
        use crate::model::input::{Facts, FileText, RailTexts};
        let texts = RailTexts {
            claims: Some(FileText {
                path: "claims.md".into(),
                text: "auth | alice | 2026-10-22T14:05Z | machine: lap-1\n\
                       ui | bob | 2026-10-22T14:06Z | machine: desk-2\n\
                       docs | carol | 2026-10-22T14:07Z\n"
                    .into(),
                modified: None,
            }),
            ..RailTexts::default()
        };
        let mut facts = Facts::at(crate::text::time::parse_time("2026-10-22T14:10Z").unwrap());
        facts.machine = Some("lap-1".into());
        // A local rail's board says nothing of verification.
        assert!(board::build(&texts, &facts).shared.is_none());
        facts.shared = Some(SharedRailFacts {
            signers: None,
            ..super::tests::facts()
        });
        let b = board::build(&texts, &facts);
        let shared = b.shared.as_ref().unwrap();
        assert_eq!(shared.verified, Verified::Unverified);
        assert!(shared.warning);
        assert_eq!(shared.text, unverified("origin"));
        assert_eq!(shared.machine.as_deref(), Some("lap-1"));
        let texts_of: Vec<Option<&str>> =
            b.claims.iter().map(|c| c.machine_text.as_deref()).collect();
        assert_eq!(
            texts_of,
            [
                Some("lap-1 (this machine)"),
                Some("desk-2 (another machine's: only it changes this claim)"),
                None
            ]
        );
        let json = serde_json::to_value(&b).unwrap();
        assert_eq!(json["shared"]["verified"], "unverified");
        assert_eq!(json["claims"][1]["elsewhere"], true);
        assert!(json["claims"][2].get("machine_text").is_none());
    }

    #[test]
    fn claims_name_their_machine_against_this_one() {
        assert_eq!(machine_text("a-1", Some("a-1")), "a-1 (this machine)");
        assert_eq!(
            machine_text("a-1", Some("b-2")),
            "a-1 (another machine's: only it changes this claim)"
        );
        assert_eq!(machine_text("a-1", None), "a-1");
    }
}
