//! The checks behind the fuzz targets, usable without libFuzzer (see tests/smoke.rs).
//!
//! Each takes raw bytes, makes text of them (invalid UTF-8 is replaced, so every input is
//! used), and panics when a property of rail-core does not hold.

use rail_core::text::diagnostic::Diagnostic;
use rail_core::text::edit::apply;
use rail_core::text::LineIndex;
use rail_core::agent::shell;
use rail_core::change::{lock, merge};
use rail_core::formats::{claim_file, claims_md, config, log, yaml};

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

fn spans_fit(text: &str, diags: &[Diagnostic]) {
    let index = LineIndex::new(text);
    for d in diags {
        assert!(
            d.span.start <= d.span.end && d.span.end <= text.len(),
            "{d:?}"
        );
        assert!(text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end));
        let _ = d.locate("f", text, &index).render(text);
    }
}

/// claims.md: parse → print gives the input; re-parsing the printed text gives the same lines
/// and diagnostics; setting a field on a claim edits that line only and it still parses.
pub fn check_rail(data: &[u8]) {
    let text = text(data);
    let doc = claims_md::parse(&text);
    let printed = doc.to_string();
    assert_eq!(printed, text);
    let again = claims_md::parse(&printed);
    assert_eq!(again.lines, doc.lines);
    assert_eq!(again.diagnostics, doc.diagnostics);
    spans_fit(&text, &doc.diagnostics);
    let first_claim = doc.claims().next().map(|(n, _)| n);
    if let Some(n) = first_claim {
        let edit = claims_md::set_field(&doc, n, "renewed", "2026-10-22T15:00:00Z").unwrap();
        let line = doc.lines[n].content;
        assert!(line.start <= edit.span.start && edit.span.end <= line.end);
        let out = apply(&text, &[edit]).unwrap();
        let edited = claims_md::parse(&out);
        assert_eq!(edited.lines.len(), doc.lines.len());
    }
}

/// The YAML reader and everything built on it never panic and point inside their text; a
/// clean claim file stays clean after Rail's own edits.
pub fn check_yaml(data: &[u8]) {
    let text = text(data);
    spans_fit(&text, &yaml::parse(&text).diagnostics);
    let file = claim_file::parse("claims/session-a.yaml", &text);
    spans_fit(&text, &file.diagnostics);
    spans_fit(&text, &config::parse(&text).1);
    spans_fit(&text, &log::parse(&text).diagnostics);
    if let Some(record) = lock::parse(&text) {
        assert_eq!(lock::parse(&record.render()), Some(record));
    }
    let clean = file.diagnostics.is_empty()
        && matches!(
            file.yaml.root.as_ref().map(|n| &n.value),
            Some(yaml::Value::Map(_))
        );
    if clean {
        let values = [
            (
                "renewed",
                claim_file::NewValue::Scalar("2026-10-22T15:00:00Z".into()),
            ),
            (
                "touched",
                claim_file::NewValue::List(vec!["src/a.rs".into(), "b c/d.md".into()]),
            ),
        ];
        let out = apply(&text, &claim_file::set_keys(&file, &values)).unwrap();
        let again = claim_file::parse("claims/session-a.yaml", &out);
        assert!(
            again.diagnostics.is_empty(),
            "{text:?} became {out:?}: {:?}",
            again.diagnostics
        );
        assert_eq!(again.touched, ["src/a.rs", "b c/d.md"]);
    }
}

/// Three versions separated by 0xFF bytes (never part of UTF-8): the merge does not depend
/// on which side is "ours", and an unchanged side gives the other.
pub fn check_merge(data: &[u8]) {
    let mut parts = data.splitn(3, |b| *b == 0xFF).map(text);
    let base = parts.next().unwrap_or_default();
    let ours = parts.next().unwrap_or_default();
    let theirs = parts.next().unwrap_or_default();
    let one = merge::merge(&base, &ours, &theirs);
    let other = merge::merge(&base, &theirs, &ours);
    assert_eq!(one.text, other.text, "{base:?} {ours:?} {theirs:?}");
    assert_eq!(one.losers, other.losers);
    assert_eq!(merge::merge(&base, &ours, &base).text, ours);
    assert_eq!(merge::merge(&base, &base, &theirs).text, theirs);
    let _ = claims_md::parse(&one.text);
}

/// The Bash hook's shell reader: never panics, answers the same twice, names no empty path or
/// empty reason; a write appended on a line of its own after any input is either found or the
/// input left something unjudged (an unclosed quote or here-document swallowed it).
pub fn check_shell(data: &[u8]) {
    let text = text(data);
    let once = shell::writes(&text);
    assert_eq!(once, shell::writes(&text), "{text:?}");
    assert!(
        once.targets.iter().all(|t| !t.is_empty()),
        "{text:?}: {once:?}"
    );
    assert!(
        once.unanalysed.iter().all(|u| !u.is_empty()),
        "{text:?}: {once:?}"
    );
    // Two newlines: a trailing backslash joins only the first to the input.
    let probe = format!("{text}\n\nrm zz_probe_target");
    let with = shell::writes(&probe);
    assert!(
        with.targets.iter().any(|t| t.ends_with("zz_probe_target")) || !with.unanalysed.is_empty(),
        "{probe:?}: {with:?}"
    );
}
