//! The corpus of agent commands (`tests/fixtures/hooks/commands.tsv`): for each command, what
//! the hook's shell reader finds it writes, what it could not judge, and the hook's verdict in
//! one scene (session web at the top of its station holding web/**, session auth holding
//! src/auth/**). Every row is checked and every failure reported at once.

use std::fs;
use std::path::Path;

use rail_core::agent::hook::{self, Decision, Landing};
use rail_core::agent::shell;
use rail_core::formats::config::HookUnanalysed;
use rail_core::model::input::{Facts, FileText, RailTexts};
use rail_core::model::Rail;
use rail_core::text::ident::Acting;

/// The station's top, as the host would have resolved it.
const TOP: &str = "/w/app-web";

struct Row {
    line: usize,
    command: String,
    writes: Vec<String>,
    unanalysed: Option<String>,
    verdict: Decision,
}

fn rows() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hooks/commands.tsv");
    let text = fs::read_to_string(&path).unwrap();
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "line {}: four columns: {line:?}", n + 1);
        let verdict = match cols[3] {
            "allow" => Decision::Allow,
            "warn" => Decision::Warn,
            "deny" => Decision::Deny,
            other => panic!("line {}: verdict {other:?}", n + 1),
        };
        rows.push(Row {
            line: n + 1,
            command: cols[0].replace('⏎', "\n").replace('⇥', "\t"),
            writes: if cols[1] == "-" {
                Vec::new()
            } else {
                cols[1].split(" | ").map(str::to_string).collect()
            },
            unanalysed: (cols[2] != "-").then(|| cols[2].to_string()),
            verdict,
        });
    }
    rows
}

fn scene() -> rail_core::model::Evaluation {
    let texts = RailTexts {
        claims: Some(FileText {
            path: "claims.md".into(),
            text: "# Claims\n\nauth-refresh | auth | 2026-10-22T14:00Z | paths: src/auth/**\nweb-ui | web | 2026-10-22T14:00Z | paths: web/**\n".into(),
            modified: None,
        }),
        ..RailTexts::default()
    };
    let facts: Facts = serde_json::from_str(r#"{"now": "2026-10-22T14:30:00Z"}"#).unwrap();
    Rail::load(&texts).evaluate(&facts)
}

#[test]
fn every_command_of_the_corpus() {
    let rows = rows();
    assert!(rows.len() >= 200, "the corpus has {} commands", rows.len());
    let eval = scene();
    let mut failures = Vec::new();
    for row in &rows {
        let got = shell::writes(&row.command);
        if got.targets != row.writes {
            failures.push(format!(
                "line {}: {:?} writes {:?}, expected {:?}",
                row.line, row.command, got.targets, row.writes
            ));
        }
        match &row.unanalysed {
            None if !got.unanalysed.is_empty() => failures.push(format!(
                "line {}: {:?} unexpectedly not analysed: {:?}",
                row.line, row.command, got.unanalysed
            )),
            Some(piece) if !got.unanalysed.iter().any(|u| u.contains(piece.as_str())) => failures
                .push(format!(
                    "line {}: {:?}: no reason mentions {piece:?}: {:?}",
                    row.line, row.command, got.unanalysed
                )),
            _ => {}
        }
        // The host's part, without a file system: every path lands where it is written.
        let landings: Vec<(String, Landing)> = got
            .targets
            .iter()
            .map(|t| {
                let at = if t.starts_with('/') {
                    t.clone()
                } else {
                    format!("{TOP}/{t}")
                };
                (t.clone(), Landing::At(at))
            })
            .collect();
        let landed = hook::land(&[TOP.to_string()], None, &landings);
        let mut unanalysed = got.unanalysed.clone();
        unanalysed.extend(landed.unanalysed);
        let verdict = hook::judge(
            &eval,
            &Acting::Session("web".into()),
            &landed.targets,
            &unanalysed,
            HookUnanalysed::Warn,
            &[],
        );
        if verdict.decision != row.verdict {
            failures.push(format!(
                "line {}: {:?}: {:?}, expected {:?} ({})",
                row.line, row.command, verdict.decision, row.verdict, verdict.message
            ));
        }
        // With `hook_unanalysed: deny`, anything not judged is denied; the rest is unchanged.
        let strict = hook::judge(
            &eval,
            &Acting::Session("web".into()),
            &landed.targets,
            &unanalysed,
            HookUnanalysed::Deny,
            &[],
        );
        let expected = if unanalysed.is_empty() {
            row.verdict
        } else {
            Decision::Deny
        };
        if strict.decision != expected {
            failures.push(format!(
                "line {}: {:?} under hook_unanalysed: deny: {:?}",
                row.line, row.command, strict.decision
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} commands:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}
