//! `rail doctor`'s judgements: whether an agent trusts a folder, from the text of the file the
//! agent keeps that in (the host finds and reads it), and the findings as the host reports
//! them. Where a file says nothing Rail can read for certain, the answer is
//! [`Trust::Unknown`] with the reason, never a silent "trusted".

use serde::Serialize;

/// What an agent's own trust file says about a folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "trust", content = "why", rename_all = "snake_case")]
pub enum Trust {
    Trusted,
    NotTrusted,
    Unknown(String),
}

/// One problem `rail doctor` found, with its exact fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The agent concerned (`None`: the repository's own setup).
    pub agent: Option<String>,
    /// Where: a checkout's path, a file, a setting.
    pub place: String,
    pub problem: String,
    pub fix: String,
    /// Whether it leaves an agent writing unguarded (then `rail doctor` exits 1); `false` for
    /// a problem that weakens the guard less (the merge driver, a note).
    pub unguarded: bool,
}

/// Is `inner` the folder `outer` or inside it? Paths as the host spells them, `/` or `\`
/// separated; a trailing separator is ignored.
pub fn within(inner: &str, outer: &str) -> bool {
    let trim = |p: &str| -> String {
        let p = p.replace('\\', "/");
        let t = p.trim_end_matches('/');
        if t.is_empty() {
            "/".to_string()
        } else {
            t.to_string()
        }
    };
    let (inner, outer) = (trim(inner), trim(outer));
    inner == outer || outer == "/" || inner.starts_with(&format!("{outer}/"))
}

fn parent(path: &str) -> Option<String> {
    let p = path.replace('\\', "/");
    let p = p.trim_end_matches('/');
    p.rfind('/').map(|i| {
        if i == 0 {
            "/".to_string()
        } else {
            p[..i].to_string()
        }
    })
}

/// Codex: `[projects."<path>"]` with `trust_level = "trusted"` in its `config.toml` trusts the
/// project at that path (a station is covered by its main checkout's entry). `project` is the
/// main checkout's path.
pub fn codex(config_toml: &str, project: &str) -> Trust {
    let mut here = false;
    let mut seen = false;
    for line in config_toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            here = false;
            let Some(inner) = line
                .strip_prefix("[projects.")
                .and_then(|r| r.split('#').next())
                .map(str::trim)
                .and_then(|r| r.strip_suffix(']'))
            else {
                continue;
            };
            let key = match toml_key(inner.trim()) {
                Some(k) => k,
                None => {
                    return Trust::Unknown(format!("a [projects.…] table Rail cannot read: {line}"))
                }
            };
            if key.trim_end_matches('/') == project.trim_end_matches('/') {
                here = true;
                seen = true;
            }
            continue;
        }
        if !here {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            if k.trim() == "trust_level" {
                let v = v.split('#').next().unwrap_or("").trim();
                return match v.trim_matches('"').trim_matches('\'') {
                    "trusted" => Trust::Trusted,
                    _ => Trust::NotTrusted,
                };
            }
        }
    }
    if seen {
        Trust::NotTrusted
    } else if config_toml.contains("projects") && config_toml.contains('{') {
        Trust::Unknown("projects written in a form Rail does not read (an inline table)".into())
    } else {
        Trust::NotTrusted
    }
}

/// A TOML key as written in a table header: `"basic"` (with `\"` and `\\`), `'literal'` or bare.
fn toml_key(k: &str) -> Option<String> {
    if let Some(inner) = k.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next()? {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    _ => return None,
                },
                '"' => return None,
                c => out.push(c),
            }
        }
        return Some(out);
    }
    if let Some(inner) = k.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return (!inner.contains('\'')).then(|| inner.to_string());
    }
    k.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        .then(|| k.to_string())
}

/// Gemini CLI: `trustedFolders.json` maps paths to `TRUST_FOLDER` (that folder and below),
/// `TRUST_PARENT` (its parent and below) or `DO_NOT_TRUST`; the most specific rule that covers
/// `folder` decides.
pub fn gemini(trusted_folders: &str, folder: &str) -> Trust {
    let Ok(node) = crate::jsonc::parse(trusted_folders) else {
        return Trust::Unknown("trustedFolders.json does not parse".into());
    };
    let value = node.to_value();
    let Some(rules) = value.as_object() else {
        return Trust::Unknown("trustedFolders.json is not an object".into());
    };
    let mut best: Option<(usize, bool)> = None;
    for (path, level) in rules {
        let (root, trusted) = match level.as_str() {
            Some("TRUST_FOLDER") => (Some(path.clone()), true),
            Some("TRUST_PARENT") => (parent(path), true),
            Some("DO_NOT_TRUST") => (Some(path.clone()), false),
            _ => {
                return Trust::Unknown(format!(
                    "trustedFolders.json: `{path}` has a level Rail does not know"
                ))
            }
        };
        let Some(root) = root else { continue };
        if within(folder, &root) && best.is_none_or(|(len, _)| root.len() >= len) {
            best = Some((root.len(), trusted));
        }
    }
    match best {
        Some((_, true)) => Trust::Trusted,
        _ => Trust::NotTrusted,
    }
}

/// Copilot CLI: the `trusted_folders` array of its `config.json` (older docs: `trustedFolders`)
/// trusts each folder and everything below it.
pub fn copilot(config_json: &str, folder: &str) -> Trust {
    let Ok(node) = crate::jsonc::parse(config_json) else {
        return Trust::Unknown("config.json does not parse".into());
    };
    let value = node.to_value();
    let list = value
        .get("trusted_folders")
        .or_else(|| value.get("trustedFolders"));
    let Some(list) = list else {
        return Trust::NotTrusted;
    };
    let Some(list) = list.as_array() else {
        return Trust::Unknown("trusted_folders is not a list".into());
    };
    if list
        .iter()
        .filter_map(|v| v.as_str())
        .any(|root| within(folder, root))
    {
        Trust::Trusted
    } else {
        Trust::NotTrusted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_trust_is_read_from_its_projects_tables() {
        let cfg = "model = \"x\"\n[projects.\"/w/app\"]\ntrust_level = \"trusted\"\n[projects.'/w/other']\ntrust_level = \"untrusted\"\n";
        assert_eq!(codex(cfg, "/w/app"), Trust::Trusted);
        assert_eq!(codex(cfg, "/w/app/"), Trust::Trusted);
        assert_eq!(codex(cfg, "/w/other"), Trust::NotTrusted);
        assert_eq!(codex(cfg, "/w/none"), Trust::NotTrusted);
        assert_eq!(codex("", "/w/app"), Trust::NotTrusted);
        assert_eq!(
            codex(
                "[projects.\"C:\\\\w\\\\app\"]\ntrust_level = \"trusted\"\n",
                "C:\\w\\app"
            ),
            Trust::Trusted
        );
        assert!(matches!(
            codex(
                "projects = { \"/w/app\" = { trust_level = \"trusted\" } }\n",
                "/w/app"
            ),
            Trust::Unknown(_)
        ));
        assert!(matches!(
            codex("[projects.\"bad\\q\"]\n", "/w"),
            Trust::Unknown(_)
        ));
    }

    #[test]
    fn gemini_trust_takes_the_most_specific_rule() {
        let f = r#"{"/w": "TRUST_FOLDER", "/w/app/vendor": "DO_NOT_TRUST", "/home/u/p/x": "TRUST_PARENT"}"#;
        assert_eq!(gemini(f, "/w/app"), Trust::Trusted);
        assert_eq!(gemini(f, "/w/app/vendor/lib"), Trust::NotTrusted);
        assert_eq!(gemini(f, "/home/u/p/station"), Trust::Trusted);
        assert_eq!(gemini(f, "/elsewhere"), Trust::NotTrusted);
        assert_eq!(gemini(f, "/wx"), Trust::NotTrusted);
        assert!(matches!(gemini("{", "/w"), Trust::Unknown(_)));
        assert!(matches!(
            gemini(r#"{"/w": "MAYBE"}"#, "/w"),
            Trust::Unknown(_)
        ));
    }

    #[test]
    fn copilot_trust_covers_folders_below() {
        let c = r#"{"trusted_folders": ["/w/app"], "model": "x"}"#;
        assert_eq!(copilot(c, "/w/app/sub"), Trust::Trusted);
        assert_eq!(copilot(c, "/w/application"), Trust::NotTrusted);
        assert_eq!(
            copilot(r#"{"trustedFolders": ["/w"]}"#, "/w/app"),
            Trust::Trusted
        );
        assert_eq!(copilot("{}", "/w"), Trust::NotTrusted);
        assert!(matches!(
            copilot(r#"{"trusted_folders": "/w"}"#, "/w"),
            Trust::Unknown(_)
        ));
    }
}
