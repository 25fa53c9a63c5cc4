//! The data-driven fixture runner: evaluates every fixture under `tests/fixtures/` and compares
//! the rendered results with the checked-in snapshots. `UPDATE_EXPECT=1 cargo test -p
//! rail-tests` rewrites the snapshots (and deletes stale ones); review the diff before keeping it.
//!
//! Besides the snapshots, each kind checks the rules that must hold for every fixture of it
//! (valid files have no problems, invalid ones do, parsing is lossless, merging is symmetric...),
//! so a wrong snapshot cannot be blessed silently.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use rail_core::change::merge::merge;
use rail_core::formats::claims_md;
use rail_core::text::diagnostic::{Code, Severity};
use rail_tests::{
    count_severity, diagnostics_of, evaluate_fixture, existing_snapshots, expected_outputs, list,
    load_merge, load_rail_dir, load_rewrite, Fixture, Kind,
};
use serde_json::Value;

fn updating() -> bool {
    std::env::var("UPDATE_EXPECT").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The first line where two texts differ, for a readable failure.
fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<_>, Vec<_>) = (
        expected.split_inclusive('\n').collect(),
        actual.split_inclusive('\n').collect(),
    );
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i), a.get(i));
        if x != y {
            return format!(
                "line {}:\n  expected: {:?}\n  actual:   {:?}",
                i + 1,
                x.copied().unwrap_or("<end of file>"),
                y.copied().unwrap_or("<end of file>")
            );
        }
    }
    "texts differ".into()
}

/// Compares (or, when updating, writes) the snapshots of a fixture; returns the problems.
fn check_snapshots(fixture: &Fixture, value: &Value) -> Vec<String> {
    let outputs = expected_outputs(fixture, value);
    let wanted: BTreeSet<PathBuf> = outputs.iter().map(|(p, _)| p.clone()).collect();
    let mut problems = Vec::new();
    for (path, actual) in &outputs {
        let expected = fs::read_to_string(path).ok();
        if expected.as_deref() == Some(actual.as_str()) {
            continue;
        }
        if updating() {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).unwrap();
            }
            fs::write(path, actual).unwrap();
            continue;
        }
        problems.push(match expected {
            None => format!(
                "{}: snapshot missing (run with UPDATE_EXPECT=1)",
                path.display()
            ),
            Some(expected) => format!(
                "{}: snapshot differs, {}",
                path.display(),
                first_difference(&expected, actual)
            ),
        });
    }
    for stale in existing_snapshots(fixture) {
        if wanted.contains(&stale) {
            continue;
        }
        if updating() {
            fs::remove_file(&stale).unwrap();
            if let Some(parent) = stale.parent() {
                let _ = fs::remove_dir(parent); // only succeeds when empty
            }
        } else {
            problems.push(format!(
                "{}: stale snapshot, this fixture no longer produces it",
                stale.display()
            ));
        }
    }
    problems
}

fn run_kind(kind: Kind, minimum: usize, rules: impl Fn(&Fixture, &Value) -> Vec<String>) {
    let fixtures = list(kind);
    assert!(
        fixtures.len() >= minimum,
        "expected at least {minimum} {} fixtures, found {}",
        kind.dir_name(),
        fixtures.len()
    );
    let mut problems = Vec::new();
    for fixture in &fixtures {
        let value = evaluate_fixture(kind, &fixture.path);
        // The JSON is a pure function of the files: evaluating twice gives the same value.
        assert_eq!(
            value,
            evaluate_fixture(kind, &fixture.path),
            "{}",
            fixture.name
        );
        let text = value.to_string();
        let root = rail_tests::fixtures_dir();
        assert!(
            !text.contains(root.to_string_lossy().as_ref()),
            "{}: the JSON mentions where the corpus lies",
            fixture.name
        );
        for p in rules(fixture, &value) {
            problems.push(format!("{} {}: {p}", kind.dir_name(), fixture.name));
        }
        problems.extend(check_snapshots(fixture, &value));
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn errors_and_warnings(value: &Value) -> usize {
    count_severity(value, Severity::Error) + count_severity(value, Severity::Warning)
}

#[test]
fn parse_fixtures() {
    run_kind(Kind::Parse, 20, |fixture, value| {
        let text = fs::read_to_string(&fixture.path).unwrap();
        let mut problems = Vec::new();
        if claims_md::parse(&text).to_string() != text {
            problems.push("print(parse(text)) is not the text".to_string());
        }
        let n = errors_and_warnings(value);
        match fixture.valid {
            Some(true) if n > 0 => problems.push(format!("valid but has {n} error(s)/warning(s)")),
            Some(false) if n == 0 => problems.push("invalid but has no error or warning".into()),
            _ => {}
        }
        if fixture.valid == Some(true) && value["claims"].as_array().unwrap().is_empty() {
            problems.push("a valid fixture should contain at least one claim".into());
        }
        problems
    });
}

#[test]
fn yaml_fixtures() {
    run_kind(Kind::Yaml, 12, |fixture, value| {
        let mut problems = Vec::new();
        let n = errors_and_warnings(value);
        match fixture.valid {
            Some(true) if n > 0 => problems.push(format!("valid but has {n} error(s)/warning(s)")),
            Some(false) if n == 0 => problems.push("invalid but has no error or warning".into()),
            _ => {}
        }
        if fixture.valid == Some(true) && value["owner"].is_null() {
            problems.push("a valid claim file has an owner".into());
        }
        if fixture.name.starts_with("invalid/unsupported-")
            && !diagnostics_of(value)
                .iter()
                .any(|d| d.code == Code::YamlUnsupported)
        {
            problems.push("an unsupported-* fixture must get a yaml-unsupported diagnostic".into());
        }
        problems
    });
}

#[test]
fn rewrite_fixtures() {
    run_kind(Kind::Rewrite, 20, |fixture, value| {
        let mut problems = Vec::new();
        if !value["apply_error"].is_null() {
            problems.push(format!(
                "the plan's edits do not apply: {}",
                value["apply_error"]
            ));
        }
        // A fixture named refuse-* must be refused, every other one planned.
        let refused = value["outcome"] == "refusal";
        if fixture.name.starts_with("refuse-") != refused {
            problems.push(format!(
                "outcome is {} but the name says otherwise",
                value["outcome"]
            ));
        }
        if value["outcome"] == "plan" {
            // The edited claims.md parses with no more errors than before.
            let input = load_rewrite(&fixture.path);
            let before = input.texts.claims.as_ref().map(|f| f.text.clone());
            let before = before.unwrap_or_default();
            if let Some(after) = value["files"]["claims.md"].as_str() {
                let errors = |t: &str| {
                    claims_md::parse(t)
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity == Severity::Error)
                        .count()
                };
                if errors(after) > errors(&before) {
                    problems.push("the edited claims.md has new errors".into());
                }
            }
            // So does every edited claim file (issue 28 finding 6: an indented one broke).
            for file in &input.texts.claim_files {
                let Some(after) = value["files"][&file.path].as_str() else {
                    continue;
                };
                let errors = |t: &str| {
                    rail_core::formats::claim_file::parse(&file.path, t)
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity == Severity::Error)
                        .count()
                };
                if errors(after) > errors(&file.text) {
                    problems.push(format!("the edited {} has new errors", file.path));
                }
            }
        }
        problems
    });
}

#[test]
fn board_fixtures() {
    run_kind(Kind::Board, 14, |fixture, value| {
        let mut problems = Vec::new();
        let (texts, facts) = load_rail_dir(&fixture.path);
        // The board does not depend on the order the host lists claim files in.
        let mut reversed = texts.clone();
        reversed.claim_files.reverse();
        if rail_tests::board_json(&reversed, &facts) != *value {
            problems.push("the board depends on the order of the claim files".into());
        }
        if value["version"] != rail_core::model::board::BOARD_VERSION {
            problems.push(format!(
                "board version is not {}",
                rail_core::model::board::BOARD_VERSION
            ));
        }
        problems
    });
}

#[test]
fn merge_fixtures() {
    run_kind(Kind::Merge, 8, |fixture, value| {
        let mut problems = Vec::new();
        let m = load_merge(&fixture.path);
        if value.get("refused").is_some_and(|r| !r.is_null()) {
            // A refused merge leaves ours as it was, in either order (the other order is
            // refused too, and keeps its own ours).
            if !fixture.name.starts_with("refuse-") {
                problems.push("refused, but not named refuse-*".into());
            }
            for (o, t) in [(&m.ours, &m.theirs), (&m.theirs, &m.ours)] {
                let r = rail_core::change::merge::driver(&m.base, o, t);
                if r.refused.is_none() || r.text != *o {
                    problems.push("the driver must refuse in both orders, leaving ours".into());
                }
            }
            return problems;
        }
        if fixture.name.starts_with("refuse-") {
            problems.push("named refuse-* but merged".into());
        }
        let one = merge(&m.base, &m.ours, &m.theirs);
        let other = merge(&m.base, &m.theirs, &m.ours);
        if one.text != other.text {
            problems.push(format!(
                "merging in the other order gives different bytes:\n{:?}\n{:?}",
                one.text, other.text
            ));
        }
        if one.losers != other.losers {
            problems.push("merging in the other order reports other losers".into());
        }
        for (side, text) in [("ours", &m.ours), ("theirs", &m.theirs)] {
            if merge(&m.base, text, &m.base).text != *text
                || merge(&m.base, &m.base, text).text != *text
            {
                problems.push(format!("merging {side} with an unchanged side changes it"));
            }
        }
        problems
    });
}

/// Spot checks on the parse corpus that a snapshot review could miss: columns after
/// non-ASCII text, in UTF-16 code units (editors, JS) and in characters (people).
#[test]
fn utf16_columns_after_non_ascii() {
    let path = rail_tests::fixtures_dir().join("parse/invalid/non-ascii-before-error.md");
    let text = fs::read_to_string(&path).unwrap();
    let diags = diagnostics_of(&evaluate_fixture(Kind::Parse, &path));
    let line_of = |offset: usize| {
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        (start, &text[start..end])
    };
    // Every diagnostic: the UTF-16 column is the UTF-16 length of the text before it on its
    // line, the one-based column its length in characters plus one.
    for d in &diags {
        let (start, _) = line_of(d.span.start);
        let before = &text[start..d.span.start];
        let utf16: usize = before.chars().map(char::len_utf16).sum();
        assert_eq!(d.range.start.character as usize, utf16, "{}", d.one_line());
        assert_eq!(
            d.column as usize,
            before.chars().count() + 1,
            "{}",
            d.one_line()
        );
    }
    let find = |prefix: &str, code: Code| {
        diags
            .iter()
            .find(|d| d.code == code && line_of(d.span.start).1.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {code} on a line starting with {prefix:?}"))
    };
    // `- fix-😀 | s | yesterday`: 14 characters before `yesterday`, 15 UTF-16 units.
    let emoji = find("- fix-😀 |", Code::BadTime);
    assert_eq!(emoji.column, 15);
    assert_eq!(emoji.range.start.character, 15);
    assert_eq!(emoji.range.end.character, 15 + "yesterday".len() as u32);
    // `ç` is two bytes but one UTF-16 unit and one character.
    let cedilla = find("ç-task |", Code::BadDuration);
    let (start, _) = line_of(cedilla.span.start);
    assert_eq!(
        cedilla.range.start.character as usize,
        cedilla.span.start - start - 1
    );
    assert_eq!(cedilla.range.start.character + 1, cedilla.column);
}

/// The loader reads what the fixture says and nothing else.
#[test]
fn rail_dirs_are_loaded_completely() {
    let dir = rail_tests::fixtures_dir().join("board/claim-file-joined");
    let (texts, facts) = load_rail_dir(&dir);
    assert!(texts.claims.is_some());
    assert!(!texts.claim_files.is_empty());
    assert!(texts
        .claim_files
        .iter()
        .all(|f| f.path.starts_with("claims/")));
    assert_eq!(
        rail_core::text::time::format_time(facts.now),
        serde_json::from_str::<Value>(&fs::read_to_string(dir.join("facts.json")).unwrap())
            .unwrap()["now"]
            .as_str()
            .map(|s| rail_core::text::time::format_time(
                rail_core::text::time::parse_time(s).unwrap()
            ))
            .unwrap()
    );
}
