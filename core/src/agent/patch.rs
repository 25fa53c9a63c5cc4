//! The files a Codex `apply_patch` body writes.
//!
//! Codex edits files through `apply_patch`, whose argument is a patch in its own envelope
//! (codex-rs/apply-patch, Lark form):
//!
//! ```text
//! start: begin_patch hunk+ end_patch
//! begin_patch: "*** Begin Patch" LF
//! end_patch: "*** End Patch" LF?
//! hunk: add_hunk | delete_hunk | update_hunk
//! add_hunk: "*** Add File: " filename LF add_line+
//! delete_hunk: "*** Delete File: " filename LF
//! update_hunk: "*** Update File: " filename LF change_move? change?
//! change_move: "*** Move to: " filename LF
//! change: (change_context | change_line)+ eof_line?
//! ```
//!
//! Rail reads it as leniently as Codex applies it (marker lines trimmed, a heredoc wrapper
//! `<<'EOF' … EOF` accepted, an update hunk ended by the next `***` line), because what Codex
//! would apply is what must be judged. A patch Codex would refuse is refused here too: the hook
//! cannot judge it, which is never a silent allow. Paths are as written (absolute, or relative
//! to the patch's working directory): the host resolves them.

/// Every path the patch writes, in order: each Add, Delete and Update target and each Move-to
/// destination (a rename writes the new path and removes the old one). `Err` says why the text
/// is not a patch Codex would apply.
pub fn paths(text: &str) -> Result<Vec<String>, String> {
    // Marker lines are compared trimmed; change lines keep their leading space (context).
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    // A heredoc wrapper, as the tool accepts it: `<<EOF` … `EOF`.
    if lines
        .first()
        .is_some_and(|l| matches!(l.trim(), "<<EOF" | "<<'EOF'" | "<<\"EOF\""))
    {
        match lines.iter().rposition(|l| !l.is_empty()) {
            Some(last) if last > 0 && lines[last].ends_with("EOF") => {
                lines.truncate(last);
                lines.remove(0);
            }
            _ => return Err("a heredoc patch without its closing `EOF`".into()),
        }
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let first = lines.iter().position(|l| !l.is_empty());
    let Some(first) = first else {
        return Err("an empty patch".into());
    };
    if lines[first].trim() != "*** Begin Patch" {
        return Err("the patch does not start with `*** Begin Patch`".into());
    }
    if lines.last().map(|l| l.trim()) != Some("*** End Patch") {
        return Err("the patch does not end with `*** End Patch`".into());
    }
    let body = &lines[first + 1..lines.len() - 1];
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    let name = |rest: &str, what: &str| -> Result<String, String> {
        let rest = rest.trim();
        if rest.is_empty() {
            Err(format!("`*** {what}` without a file name"))
        } else {
            Ok(rest.to_string())
        }
    };
    while i < body.len() {
        let line = body[i].trim();
        i += 1;
        if let Some(rest) = line.strip_prefix("*** Add File:") {
            out.push(name(rest, "Add File:")?);
            while i < body.len() && body[i].trim_start().starts_with('+') {
                i += 1;
            }
        } else if let Some(rest) = line.strip_prefix("*** Delete File:") {
            out.push(name(rest, "Delete File:")?);
        } else if let Some(rest) = line.strip_prefix("*** Update File:") {
            out.push(name(rest, "Update File:")?);
            if let Some(rest) = body
                .get(i)
                .and_then(|l| l.trim().strip_prefix("*** Move to:"))
            {
                out.push(name(rest, "Move to:")?);
                i += 1;
            }
            // The hunk's changes, up to the next `***` line (the end-of-file marker aside).
            while i < body.len()
                && (!body[i].trim_start().starts_with('*') || body[i].trim() == "*** End of File")
            {
                let l = body[i];
                if !(l.is_empty()
                    || l.starts_with(['+', '-', ' '])
                    || l.trim_start().starts_with("@@")
                    || l.trim() == "*** End of File")
                {
                    return Err(format!(
                        "line {} of the patch is not a change line: `{l}`",
                        first + 2 + i
                    ));
                }
                i += 1;
            }
        } else if line.is_empty() {
            continue;
        } else {
            return Err(format!(
                "line {} of the patch is not a hunk header: `{line}`",
                first + 1 + i
            ));
        }
    }
    if out.is_empty() {
        return Err("a patch with no file in it".into());
    }
    Ok(out)
}

/// The patches written out inside a shell command (`apply_patch <<'EOF'` … in a Bash call): the
/// shell reader sees their bodies as data, so they are read here. Each is `Ok(paths)` or `Err`.
pub fn embedded(command: &str) -> Vec<Result<Vec<String>, String>> {
    const BEGIN: &str = "*** Begin Patch";
    const END: &str = "*** End Patch";
    let mut out = Vec::new();
    let mut rest = command;
    while let Some(start) = rest.find(BEGIN) {
        let from = &rest[start..];
        match from.find(END) {
            Some(end) => {
                out.push(paths(&from[..end + END.len()]));
                rest = &from[end + END.len()..];
            }
            None => {
                out.push(Err("a patch without `*** End Patch`".into()));
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hunk_kind_and_move_destination() {
        let patch = "*** Begin Patch\n*** Add File: notes/new.md\n+hello\n+world\n*** Delete File: old.txt\n*** Update File: /home/dev/proj/src/a.rs\n*** Move to: src/b.rs\n@@ fn main\n-a\n+b\n context\n\n*** End of File\n*** Update File: c.rs\n@@\n+x\n*** End Patch\n";
        assert_eq!(
            paths(patch).unwrap(),
            [
                "notes/new.md",
                "old.txt",
                "/home/dev/proj/src/a.rs",
                "src/b.rs",
                "c.rs"
            ]
        );
    }

    #[test]
    fn lenient_like_codex() {
        // Whitespace around markers, a heredoc wrapper, no final newline.
        let patch = "<<'EOF'\n  *** Begin Patch  \n*** Delete File: x\n *** End Patch\nEOF";
        assert_eq!(paths(patch).unwrap(), ["x"]);
    }

    #[test]
    fn malformed_patches_are_refused_with_a_reason() {
        for (bad, why) in [
            ("", "empty"),
            ("*** Add File: x\n+a\n*** End Patch", "does not start"),
            ("*** Begin Patch\n*** Add File: x\n+a\n", "does not end"),
            ("*** Begin Patch\n*** End Patch", "no file"),
            (
                "*** Begin Patch\n*** Add File:\n+a\n*** End Patch",
                "without a file name",
            ),
            (
                "*** Begin Patch\n*** Frobnicate File: x\n*** End Patch",
                "not a hunk header",
            ),
            (
                "*** Begin Patch\n*** Update File: x\nzzz\n*** End Patch",
                "not a change line",
            ),
            (
                "<<EOF\n*** Begin Patch\n*** Delete File: x\n*** End Patch\n",
                "closing",
            ),
        ] {
            let e = paths(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn patches_inside_a_shell_command() {
        let cmd = "cd /w && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF\necho done";
        assert_eq!(embedded(cmd), [Ok(vec!["a".to_string()])]);
        assert!(embedded("echo '*** Begin Patch'")[0].is_err());
        assert!(embedded("ls").is_empty());
    }
}
