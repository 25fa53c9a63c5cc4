//! `rail doctor`'s judgements: what an agent's trust of a folder can be, the path rules its
//! trust files share (each agent's module reads its own file, [`crate::agent::TrustFile`]; the
//! host finds and reads it), and the findings as the host reports them. Where a file says nothing Rail can read for certain, the answer is
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

/// The folder holding `path`, as the host spells it.
pub fn parent(path: &str) -> Option<String> {
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
