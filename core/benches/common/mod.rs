//! Synthetic rails for the benchmarks: deterministic, realistic in shape (plain lines with
//! fields, some list items and table rows, claim files like the seed's), sized by the caller.

#![allow(dead_code)]

use rail_core::model::input::{Facts, FileText, RailTexts};
use rail_core::text::time::parse_time;

/// "Now" for every benchmark.
pub fn facts() -> Facts {
    let mut facts = Facts::at(parse_time("2026-10-22T15:00:00Z").unwrap());
    facts.host = "devbox".into();
    facts.commits.insert(
        "session-7".into(),
        parse_time("2026-10-22T14:30:00Z").unwrap(),
    );
    facts
}

/// A claim line with five paths and one resource: claim `i` of `n`. Sessions are `i % 47`
/// (prime, so neighbours differ); about one claim in a hundred overlaps another's paths, one
/// claims all of `docs/**` (meeting the one in 500 that writes a guide there), one in twenty
/// waits for another task, and one resource holder in 97 is exclusive.
pub fn claim_line(i: usize, n: usize) -> String {
    let area = i % 200;
    let minute = i % 60;
    let hour = 10 + (i / 60) % 5;
    let first = if i == 1 {
        "docs/**".to_string()
    } else if i.is_multiple_of(101) {
        // Reaches into the module of claim i + 200 (same area, another session).
        format!("svc{area}/mod{}/src/**", i + 200)
    } else {
        format!("svc{area}/mod{i}/src/**")
    };
    let paths = [
        first,
        format!("svc{area}/mod{i}/tests/*.rs"),
        if i % 500 == 3 {
            format!("docs/guide-{i}.md")
        } else {
            format!("svc{area}/mod{i}/docs/README.md")
        },
        format!("svc{area}/mod{i}/Cargo.toml"),
        format!("gen/{}/out-{i}.json", i % 1000),
    ];
    // 1,000 resources for 10,000 claims.
    let resources = n.clamp(1, 1000);
    let resource = if i.is_multiple_of(97) {
        format!("res:{}", i % resources)
    } else {
        format!("shared:res:{}", i % resources)
    };
    let after = if i % 20 == 5 {
        format!(" | after: task-{}", i - 5)
    } else {
        String::new()
    };
    let body = format!(
        "task-{i} | session-{} | 2026-10-22T{hour:02}:{minute:02}Z | lease: 4h{after} | paths: {} | resources: {resource} | purpose: work on module {i} | carefully",
        i % 47,
        paths.join(", ")
    );
    match i % 10 {
        7 => format!("- {body}"),
        9 => format!("| {} |", body.replace(" | carefully", " \\| carefully")),
        _ => body,
    }
}

/// A claims.md of `n` claim lines under a short preamble.
pub fn claims_md(n: usize) -> String {
    let mut text = String::from(
        "# Claims\n\nOne line per task: `task | session | time`. Claim before you start.\n\n",
    );
    for i in 0..n {
        text.push_str(&claim_line(i, n));
        text.push('\n');
    }
    text
}

/// A claim file like the seed's, for owner `i`.
pub fn claim_file(i: usize) -> FileText {
    FileText {
        path: format!("claims/agent-{i}.yaml"),
        text: format!(
            "# claimed by agent-{i}\nowner: agent-{i}\ntask: file-task-{i}\npaths:\n- web/src/part-{i}/**\n- web/src/loader-{i}.ts\nresources:\n- checkout:test-lock-{i}\npurpose: |\n  test the cache invalidation path\n  of part {i}\nsince: 2026-10-22T14:05Z\nlease: 2h\n"
        ),
        modified: None,
    }
}

/// A whole rail: `n` claims in claims.md.
pub fn rail(n: usize) -> RailTexts {
    RailTexts {
        claims: Some(FileText {
            path: "claims.md".into(),
            text: claims_md(n),
            modified: None,
        }),
        claim_files: Vec::new(),
        log: None,
        config: None,
    }
}

/// A claims.md of `n` lines in the seed's form, `task | session | time`.
pub fn seed_claims_md(n: usize) -> String {
    let mut text = String::from("# Claims\n\n");
    for i in 0..n {
        text.push_str(&format!(
            "task-{i} | session-{} | 2026-10-22T{:02}:{:02}Z\n",
            i % 50,
            10 + (i / 60) % 5,
            i % 60
        ));
    }
    text
}
