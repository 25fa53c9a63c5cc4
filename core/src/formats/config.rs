//! `rail.yaml`, the repo-wide settings, beside claims.md. Every key is optional.
//!
//! ```yaml
//! lease: 2h            # default lease of a claim
//! expiring: 15m        # a claim with less left than this is "expiring"
//! check: cargo test    # what `rail done` runs before it releases
//! on_stop: release     # what the agent Stop hook does: release | renew | nothing
//! hook_failure: deny   # when the rail cannot be read, hooks deny (or warn)
//! hook_unanalysed: warn # a Bash command Rail cannot fully judge: warn (or deny)
//! lock_timeout: 10s    # how long a command waits for the lock
//! remote: origin       # share the rail through this git remote
//! stations:            # the worktrees sessions work in (`rail worktree`)
//!   on_done: keep      # after `rail done` passes: keep the station, or remove it when safe
//!   base: main         # what "merged" means for `rail worktree remove` (default: the main
//!                      # checkout's branch)
//! ```

use chrono::TimeDelta;
use serde::Serialize;

use crate::formats::yaml::{self, Value};
use crate::text::diagnostic::{Code, Diagnostic};
use crate::text::time;

pub const DEFAULT_LEASE: TimeDelta = TimeDelta::hours(2);
pub const DEFAULT_EXPIRING: TimeDelta = TimeDelta::minutes(15);
pub const DEFAULT_LOCK_TIMEOUT: TimeDelta = TimeDelta::seconds(10);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum OnStop {
    Release,
    Renew,
    Nothing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum HookFailure {
    Deny,
    Warn,
}

/// What the edit hook does with a command it cannot fully judge (a path in a variable, `eval`
/// of a variable, `python -c`, `xargs rm`, a symlink it cannot resolve): name it in a warning,
/// or deny the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum HookUnanalysed {
    Warn,
    Deny,
}

/// What `rail done` does with the station (the worktree) once its gate passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum OnDone {
    /// Leave the station as it is (the default: someone may still want to look at it).
    #[default]
    Keep,
    /// Remove it when `station::removal` allows it without force: nothing uncommitted, nothing
    /// unmerged. Otherwise it is kept and the reason printed.
    Remove,
}

/// `stations:` — the worktrees sessions work in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Stations {
    pub on_done: OnDone,
    /// The branch a station's commits must be in before it may be removed (and its branch
    /// deleted). `None`: the main checkout's branch.
    pub base: Option<String>,
}

pub const STATION_KEYS: &[&str] = &["on_done", "base"];

/// As JSON, durations are whole seconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Config {
    #[serde(with = "secs")]
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub lease: TimeDelta,
    #[serde(with = "secs")]
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub expiring: TimeDelta,
    pub check: Option<String>,
    pub on_stop: OnStop,
    pub hook_failure: HookFailure,
    pub hook_unanalysed: HookUnanalysed,
    #[serde(with = "secs")]
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub lock_timeout: TimeDelta,
    pub remote: Option<String>,
    pub stations: Stations,
}

mod secs {
    use chrono::TimeDelta;
    use serde::Serializer;

    pub fn serialize<S: Serializer>(d: &TimeDelta, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(d.num_seconds())
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            lease: DEFAULT_LEASE,
            expiring: DEFAULT_EXPIRING,
            check: None,
            on_stop: OnStop::Release,
            hook_failure: HookFailure::Deny,
            hook_unanalysed: HookUnanalysed::Warn,
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            remote: None,
            stations: Stations::default(),
        }
    }
}

pub const KNOWN_KEYS: &[&str] = &[
    "lease",
    "expiring",
    "check",
    "on_stop",
    "hook_failure",
    "hook_unanalysed",
    "lock_timeout",
    "remote",
    "stations",
];

/// Reads rail.yaml; bad values keep their default and get a diagnostic.
pub fn parse(text: &str) -> (Config, Vec<Diagnostic>) {
    let doc = yaml::parse(text);
    let mut diags = doc.diagnostics.clone();
    let mut config = Config::default();
    for entry in doc.entries() {
        let span = entry.value.span;
        if entry.key == "stations" {
            stations(&entry.value, &mut config.stations, &mut diags);
            continue;
        }
        let value = match &entry.value.value {
            Value::Scalar(s) => s.clone(),
            Value::Null => continue,
            _ => {
                diags.push(Diagnostic::error(
                    Code::BadConfig,
                    span,
                    format!("`{}` expects a single value", entry.key),
                ));
                continue;
            }
        };
        let mut bad =
            |message: String| diags.push(Diagnostic::error(Code::BadConfig, span, message));
        let duration = |v: &str| time::parse_duration(v).map_err(|e| e.to_string());
        match entry.key.as_str() {
            "lease" => match duration(&value) {
                Ok(d) => config.lease = d,
                Err(e) => bad(format!("lease: {e}")),
            },
            "expiring" => match duration(&value) {
                Ok(d) => config.expiring = d,
                Err(e) => bad(format!("expiring: {e}")),
            },
            "lock_timeout" => match duration(&value) {
                Ok(d) => config.lock_timeout = d,
                Err(e) => bad(format!("lock_timeout: {e}")),
            },
            "check" => config.check = Some(value),
            "remote" => {
                // Kept as written, so the hosts refuse it by name (core's
                // `shared::configured_remote`) instead of taking the rail for an unshared one.
                let name = value.trim();
                let refused = (!name.is_empty())
                    .then(|| crate::text::ident::validate_remote(name).err())
                    .flatten();
                if let Some(e) = refused {
                    bad(format!(
                        "remote: {e} (a remote's name, never a URL or a path)"
                    ));
                }
                config.remote = Some(value);
            }
            "on_stop" => match value.as_str() {
                "release" => config.on_stop = OnStop::Release,
                "renew" => config.on_stop = OnStop::Renew,
                "nothing" => config.on_stop = OnStop::Nothing,
                _ => bad("on_stop is one of release, renew, nothing".into()),
            },
            "hook_failure" => match value.as_str() {
                "deny" => config.hook_failure = HookFailure::Deny,
                "warn" => config.hook_failure = HookFailure::Warn,
                _ => bad("hook_failure is deny or warn".into()),
            },
            "hook_unanalysed" => match value.as_str() {
                "warn" => config.hook_unanalysed = HookUnanalysed::Warn,
                "deny" => config.hook_unanalysed = HookUnanalysed::Deny,
                _ => bad("hook_unanalysed is warn or deny".into()),
            },
            other => diags.push(Diagnostic::warning(
                Code::UnknownField,
                entry.key_span,
                format!(
                    "unknown setting `{other}` (known: {})",
                    KNOWN_KEYS.join(", ")
                ),
            )),
        }
    }
    (config, diags)
}

/// `stations:`, a mapping of its own settings.
fn stations(node: &yaml::YamlNode, out: &mut Stations, diags: &mut Vec<Diagnostic>) {
    let entries = match &node.value {
        Value::Map(entries) => entries,
        Value::Null => return,
        _ => {
            diags.push(Diagnostic::error(
                Code::BadConfig,
                node.span,
                "`stations` expects settings below it, e.g. `on_done: keep` indented on the next line"
                    .to_string(),
            ));
            return;
        }
    };
    for entry in entries {
        let span = entry.value.span;
        let value = match &entry.value.value {
            Value::Scalar(s) => s.as_str(),
            Value::Null => continue,
            _ => {
                diags.push(Diagnostic::error(
                    Code::BadConfig,
                    span,
                    format!("`stations.{}` expects a single value", entry.key),
                ));
                continue;
            }
        };
        match entry.key.as_str() {
            "on_done" => match value {
                "keep" => out.on_done = OnDone::Keep,
                "remove" => out.on_done = OnDone::Remove,
                _ => diags.push(Diagnostic::error(
                    Code::BadConfig,
                    span,
                    format!(
                        "stations.on_done is keep or remove, not `{value}` (the station is kept)"
                    ),
                )),
            },
            "base" => match crate::text::ident::validate_session(value) {
                // A branch name, as sessions are: no whitespace, no `..`, no leading `-`.
                Ok(()) => out.base = Some(value.to_string()),
                Err(e) => diags.push(Diagnostic::error(
                    Code::BadConfig,
                    span,
                    format!("stations.base: {e}"),
                )),
            },
            other => diags.push(Diagnostic::warning(
                Code::UnknownField,
                entry.key_span,
                format!(
                    "unknown setting `stations.{other}` (known: {})",
                    STATION_KEYS.join(", ")
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let (c, d) = parse("lease: 45m\ncheck: cargo test --workspace\non_stop: renew\n");
        assert!(d.is_empty());
        assert_eq!(c.lease, TimeDelta::minutes(45));
        assert_eq!(c.expiring, DEFAULT_EXPIRING);
        assert_eq!(c.check.as_deref(), Some("cargo test --workspace"));
        assert_eq!(c.on_stop, OnStop::Renew);
        assert_eq!(c.hook_unanalysed, HookUnanalysed::Warn);
        let (c, d) = parse("hook_unanalysed: deny\n");
        assert!(d.is_empty());
        assert_eq!(c.hook_unanalysed, HookUnanalysed::Deny);
        let (c, d) = parse("lease: forever\nwho: me\n");
        assert_eq!(c.lease, DEFAULT_LEASE);
        assert_eq!(d.len(), 2);
    }

    #[test]
    fn stations() {
        let (c, d) = parse("lease: 1h\n");
        assert!(d.is_empty());
        assert_eq!(c.stations, Stations::default());
        assert_eq!(c.stations.on_done, OnDone::Keep, "keep by default");
        let (c, d) = parse("stations:\n  on_done: remove\n  base: trunk\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(c.stations.on_done, OnDone::Remove);
        assert_eq!(c.stations.base.as_deref(), Some("trunk"));
        // Bad values keep the default and say so, on the value.
        let text = "stations:\n  on_done: delete\n  base: a..b\n  when: now\n";
        let (c, d) = parse(text);
        assert_eq!(c.stations, Stations::default());
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(d[0].message.contains("keep or remove, not `delete`"));
        assert_eq!(&text[d[0].span.start..d[0].span.end], "delete");
        assert!(d[1].message.starts_with("stations.base:"));
        assert!(d[2].message.contains("unknown setting `stations.when`"));
        // A scalar where the mapping belongs.
        let (c, d) = parse("stations: remove\n");
        assert_eq!(c.stations.on_done, OnDone::Keep);
        assert_eq!(d.len(), 1);
        assert!(d[0].message.contains("expects settings below it"));
    }

    #[test]
    fn a_remote_that_is_not_a_name_is_an_error_on_its_value_and_kept() {
        let text = "lease: 1h\nremote: --upload-pack=touch x\n";
        let (c, d) = parse(text);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            &text[d[0].span.start..d[0].span.end],
            "--upload-pack=touch x"
        );
        assert!(
            d[0].message
                .starts_with("remote: remote name `--upload-pack"),
            "{}",
            d[0].message
        );
        // Kept, so the hosts refuse it by name rather than run unshared.
        assert_eq!(c.remote.as_deref(), Some("--upload-pack=touch x"));
        for fine in ["remote: origin\n", "remote: ''\n", "remote:\n"] {
            assert!(parse(fine).1.is_empty(), "{fine}");
        }
    }
}
