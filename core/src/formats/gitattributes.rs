//! Whether a `.gitattributes` text (or `info/attributes`, the global or system attributes
//! file) could make git convert a file's content before hashing it: `text`, `eol`, `crlf`,
//! `filter`, `ident`, `working-tree-encoding`, or a macro that might set one. Where none can,
//! a changed file's blob id is the SHA-1 of its bytes, and the host may compare it with the
//! index's as git does; where one could, the host asks git.
//!
//! Deliberately coarse: any line setting an attribute outside a short list known to leave the
//! content alone counts, whatever files its pattern names. Rail's own `.gitattributes`
//! (`claims.md merge=rail`, `claims.log merge=union`) passes.

/// Attributes that never change what git hashes (`binary` is the built-in macro `-diff
/// -merge -text`: only ever less conversion, and a file defining macros is refused anyway).
const KEEP_CONTENT: &[&str] = &[
    "merge",
    "diff",
    "binary",
    "delta",
    "whitespace",
    "export-ignore",
    "export-subst",
    "encoding",
    "conflict-marker-size",
    "linguist-generated",
    "linguist-vendored",
    "linguist-documentation",
    "linguist-language",
    "linguist-detectable",
];

/// Whether `text` could convert some file's content (see the module's head); `true` also for
/// anything this reader does not follow (a quoted pattern, a macro definition).
pub fn may_convert(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().any(|line| {
        let line = line.trim_start_matches([' ', '\t', '\r']);
        if line.is_empty() || line.starts_with('#') {
            return false;
        }
        if line.starts_with('"') || line.starts_with("[attr]") {
            return true;
        }
        line.split([' ', '\t', '\r'])
            .skip(1)
            .filter(|t| !t.is_empty())
            .any(|token| !keeps_content(token))
    })
}

fn keeps_content(token: &str) -> bool {
    let state = token.trim_start_matches(['-', '!']);
    let name = state.split_once('=').map_or(state, |(n, _)| n);
    // Unsetting `text` (or leaving it unspecified) only ever turns conversion off.
    (name == "text" && token.len() > state.len() && !state.contains('='))
        || KEEP_CONTENT.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rails_own_file_and_harmless_attributes_pass() {
        assert!(!may_convert(
            "claims.md merge=rail\nclaims.log merge=union\n"
        ));
        assert!(!may_convert(
            "# c\n\n*.png binary\n*.rs diff=rust -text\nx linguist-generated\n"
        ));
        assert!(!may_convert("*.txt !text\n"));
    }

    #[test]
    fn conversions_and_what_is_not_followed_count() {
        for text in [
            "* text=auto\n",
            "*.sh eol=lf\n",
            "*.bin -diff filter=lfs\n",
            "x ident\n",
            "x working-tree-encoding=UTF-16\n",
            "x crlf\n",
            "x mymacro\n",
            "[attr]mine text\n",
            "\"a b\" merge=rail\n",
            "x -text=oops\n",
        ] {
            assert!(may_convert(text), "{text}");
        }
    }
}
