//! A rail shared through a git remote (docs/shared-rail.md), as its hosts find it: whether a
//! checkout's rail is shared and through which remote, and the names the hosts share for it.
//!
//! The CLI and the VS Code extension both ask this (the extension through wasm): each host
//! reads the environment, git's config and rail.yaml, core decides what they mean.

use crate::formats::config::{self, Config};
use crate::text::ident;

/// The stamp `rail` leaves in git's common dir when it last synced the local mirror with the
/// remote (its text is that time, RFC 3339): how old the shown copy is, for every host.
pub const SYNCED_STAMP: &str = "rail-synced";

/// The environment variable that keeps a command on the local rail (`RAIL_LOCAL=1`).
pub const LOCAL_ENV: &str = "RAIL_LOCAL";

/// The git config key that names the remote (`git config rail.remote origin`).
pub const REMOTE_KEY: &str = "rail.remote";

/// `RAIL_LOCAL`'s value (`None`: unset) turns shared mode off: only `1` does.
pub fn local_only(rail_local: Option<&str>) -> bool {
    rail_local == Some("1")
}

/// The remote a rail is configured to be shared through, whether or not `RAIL_LOCAL` is set:
/// `git config rail.remote` (each clone may name its own), else rail.yaml's `remote:` (the
/// repository's). A blank value counts as unset, as git's `rail.remote=` does; surrounding
/// white space (the line end `git config --get` prints) is not part of a remote's name.
///
/// The name is refused, with where it came from, unless it is a remote's name
/// ([`ident::validate_remote`]): rail.yaml is committed, so any branch merged in may write it,
/// and every fetch passes it to git (`remote: --upload-pack=CMD` would run CMD; a URL would
/// share the rail with whoever it names). A refused remote is never read as "not shared".
pub fn configured_remote(
    git_config: Option<&str>,
    config: &Config,
) -> Result<Option<String>, RemoteRefused> {
    let (name, from) = match (named(git_config), named(config.remote.as_deref())) {
        (Some(name), _) => (name, RemoteSource::GitConfig),
        (None, Some(name)) => (name, RemoteSource::RailYaml),
        (None, None) => return Ok(None),
    };
    match ident::validate_remote(name) {
        Ok(()) => Ok(Some(name.to_string())),
        Err(why) => Err(RemoteRefused { from, why: why.0 }),
    }
}

/// Where a remote's name was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteSource {
    GitConfig,
    RailYaml,
}

/// A configured remote that is not a remote's name, and where it was configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteRefused {
    pub from: RemoteSource,
    pub why: String,
}

impl std::fmt::Display for RemoteRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (place, fix) = match self.from {
            RemoteSource::GitConfig => (
                "git config rail.remote",
                "set it to the name of one of `git remote`'s remotes (git config rail.remote origin)",
            ),
            RemoteSource::RailYaml => (
                "rail.yaml's `remote:`",
                "name one of `git remote`'s remotes there (remote: origin); a URL or path is added with git remote add first",
            ),
        };
        write!(
            f,
            "{place} is not a git remote's name: {}; nothing was changed: {fix}",
            self.why
        )
    }
}

impl std::error::Error for RemoteRefused {}

/// A setting's value as a remote's name: trimmed, and none when blank.
fn named(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// The remote a rail is shared through, if any: none under `RAIL_LOCAL=1`, else
/// [`configured_remote`].
pub fn remote(
    rail_local: Option<&str>,
    git_config: Option<&str>,
    config: &Config,
) -> Result<Option<String>, RemoteRefused> {
    if local_only(rail_local) {
        return Ok(None);
    }
    configured_remote(git_config, config)
}

/// What decides whether a rail is shared, as a JS host found it (the wasm `sharedRemote`, which
/// reads it field by field). As JSON:
/// `{"rail_local": null, "git_config": "origin\n", "config_text": "remote: upstream\n"}`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RemoteFacts {
    /// `RAIL_LOCAL`'s value ([`LOCAL_ENV`]); `null` when unset.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub rail_local: Option<String>,
    /// What `git config --get rail.remote` printed in the rail directory ([`REMOTE_KEY`]);
    /// `null` when it is unset or there is no repository.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub git_config: Option<String>,
    /// rail.yaml's text; `null` when there is none.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub config_text: Option<String>,
}

impl RemoteFacts {
    /// [`remote`] of these facts; rail.yaml is parsed only when git's config names no remote.
    pub fn remote(&self) -> Result<Option<String>, RemoteRefused> {
        if local_only(self.rail_local.as_deref()) {
            return Ok(None);
        }
        if let Some(from_git) = configured_remote(self.git_config.as_deref(), &Config::default())? {
            return Ok(Some(from_git));
        }
        match self.config_text.as_deref() {
            Some(text) => configured_remote(None, &config::parse(text).0),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(remote: Option<&str>) -> Config {
        Config {
            remote: remote.map(str::to_string),
            ..Config::default()
        }
    }

    #[test]
    fn git_config_then_rail_yaml_unless_rail_local() {
        type Row = (
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
        );
        let table: [(Row, Option<&str>); 10] = [
            // RAIL_LOCAL, git config, rail.yaml remote: → shared through
            ((None, None, None), None),
            ((None, None, Some("upstream")), Some("upstream")),
            ((None, Some("origin"), Some("upstream")), Some("origin")),
            ((None, Some("origin\n"), None), Some("origin")),
            ((None, Some(""), Some("upstream")), Some("upstream")),
            ((None, Some(" \n"), Some("  ")), None),
            ((Some("1"), Some("origin"), Some("upstream")), None),
            ((Some("0"), Some("origin"), None), Some("origin")),
            ((Some(""), None, Some("upstream")), Some("upstream")),
            ((Some("yes"), Some("origin"), None), Some("origin")),
        ];
        for ((local, git, yaml), want) in table {
            let got = remote(local, git, &config(yaml)).unwrap();
            assert_eq!(got.as_deref(), want, "{local:?} {git:?} {yaml:?}");
            // The configured remote ignores RAIL_LOCAL.
            let configured = configured_remote(git, &config(yaml));
            assert_eq!(configured, remote(None, git, &config(yaml)));
            // The same through the facts a JS host passes, rail.yaml as text.
            let facts = RemoteFacts {
                rail_local: local.map(str::to_string),
                git_config: git.map(str::to_string),
                config_text: yaml.map(|r| format!("lease: 1h\nremote: '{r}'\n")),
            };
            assert_eq!(facts.remote().unwrap().as_deref(), want, "{facts:?}");
        }
    }

    #[test]
    fn a_broken_rail_yaml_names_no_remote() {
        let facts = RemoteFacts {
            config_text: Some("remote: [a, b]\n".into()),
            ..RemoteFacts::default()
        };
        assert_eq!(facts.remote(), Ok(None));
    }

    /// rail.yaml is committed: a branch merged in may name anything there. What is not a
    /// remote's name is refused, from either place, and never taken for "not shared".
    #[test]
    fn a_remote_that_is_an_option_url_or_path_is_refused_not_ignored() {
        for bad in [
            "--upload-pack=touch /tmp/x",
            "ext::sh -c x",
            "https://h/r.git",
            "/srv/r",
        ] {
            let e = configured_remote(None, &config(Some(bad))).unwrap_err();
            assert_eq!(e.from, RemoteSource::RailYaml, "{bad}");
            assert!(
                e.to_string()
                    .starts_with("rail.yaml's `remote:` is not a git remote's name"),
                "{e}"
            );
            let e = configured_remote(Some(bad), &config(None)).unwrap_err();
            assert_eq!(e.from, RemoteSource::GitConfig);
            let facts = RemoteFacts {
                config_text: Some(format!("remote: '{bad}'\n")),
                ..RemoteFacts::default()
            };
            assert!(facts.remote().is_err(), "{bad}");
            // RAIL_LOCAL=1 asks for no remote at all: nothing to refuse.
            assert_eq!(remote(Some("1"), Some(bad), &config(None)), Ok(None));
        }
    }
}
