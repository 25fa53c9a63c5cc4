//! Every example in docs/format.md is checked like a fixture.
//!
//! The examples are fenced code blocks whose info string names what they show:
//!
//! | info string       | checked with        | valid means                         |
//! |-------------------|---------------------|-------------------------------------|
//! | `claims`          | `claims_md::parse`  | no error or warning diagnostic      |
//! | `yaml claim-file` | `claim_file::parse` | no error or warning diagnostic      |
//! | `log`             | `log::parse`        | at least one entry, no diagnostic   |
//! | `lock`            | `lock::parse`       | a record that renders back the same |
//! | `yaml config`     | `config::parse`     | no diagnostic                       |
//!
//! Adding `invalid` (```` ```claims invalid ````) turns the check around: the example must get
//! at least one error or warning (for `lock`: must not read as a record). Other blocks (```` ```yaml ````,
//! ```` ```sh ````...) are not examples of a Rail format and are left alone; a known kind with an
//! unknown word after it (```` ```claims invalide ````) is a mistake and fails.

use std::path::Path;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use rail_core::change::lock;
use rail_core::formats::{claim_file, claims_md, config, log};
use rail_core::text::diagnostic::{Diagnostic, Severity};
use rail_core::text::ident;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Example {
    Claims,
    ClaimFile,
    Log,
    Lock,
    Config,
}

/// The kind and validity an info string asks for; `Ok(None)` for blocks that are not examples.
type Classified = Result<Option<(Example, bool)>, String>;

fn classify(info: &str) -> Classified {
    let words: Vec<&str> = info.split_whitespace().collect();
    let (kind, rest) = match words.as_slice() {
        ["claims", rest @ ..] => (Example::Claims, rest),
        ["log", rest @ ..] => (Example::Log, rest),
        ["lock", rest @ ..] => (Example::Lock, rest),
        ["yaml", "claim-file", rest @ ..] => (Example::ClaimFile, rest),
        ["yaml", "config", rest @ ..] => (Example::Config, rest),
        _ => return Ok(None),
    };
    match rest {
        [] => Ok(Some((kind, true))),
        ["invalid"] => Ok(Some((kind, false))),
        _ => Err(format!("unknown words after the example kind in ```{info}")),
    }
}

fn serious(diags: &[Diagnostic]) -> usize {
    diags
        .iter()
        .filter(|d| matches!(d.severity, Severity::Error | Severity::Warning))
        .count()
}

/// Checks one example; returns what is wrong with it.
fn check(kind: Example, valid: bool, text: &str) -> Option<String> {
    let describe = |diags: &[Diagnostic]| {
        diags
            .iter()
            .map(|d| format!("{}[{}] {}", d.severity.as_str(), d.code, d.message))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let (ok, detail) = match kind {
        Example::Claims => {
            let doc = claims_md::parse(text);
            let claims = doc.claims().count();
            let n = serious(&doc.diagnostics);
            if valid {
                (n == 0, describe(&doc.diagnostics))
            } else {
                (n > 0, format!("{claims} claim(s), no problem found"))
            }
        }
        Example::ClaimFile => {
            // The file name is the owner's, as Rail would name it.
            let first = claim_file::parse("claims/example.yaml", text);
            let name = first
                .owner
                .as_deref()
                .map(ident::claim_file_name)
                .unwrap_or_else(|| "example.yaml".into());
            let file = claim_file::parse(&format!("claims/{name}"), text);
            let n = serious(&file.diagnostics);
            if valid {
                (n == 0, describe(&file.diagnostics))
            } else {
                (n > 0, "no problem found".to_string())
            }
        }
        Example::Log => {
            let parsed = log::parse(text);
            if valid {
                (
                    parsed.diagnostics.is_empty() && !parsed.entries.is_empty(),
                    format!(
                        "{} entries; {}",
                        parsed.entries.len(),
                        describe(&parsed.diagnostics)
                    ),
                )
            } else {
                (!parsed.diagnostics.is_empty(), "no bad line found".into())
            }
        }
        Example::Lock => match lock::parse(text) {
            Some(record) if valid => (
                lock::parse(&record.render()) == Some(record.clone()),
                "the record does not read back from its own rendering".into(),
            ),
            Some(_) => (false, "reads as a complete lock record".into()),
            None => (!valid, "not a complete lock record".into()),
        },
        Example::Config => {
            let (_, diags) = config::parse(text);
            if valid {
                (diags.is_empty(), describe(&diags))
            } else {
                (!diags.is_empty(), "no problem found".into())
            }
        }
    };
    (!ok).then(|| {
        format!(
            "{kind:?} example marked {}: {detail}",
            if valid { "valid" } else { "invalid" }
        )
    })
}

/// Checks every example block of a markdown text; returns how many there were and the problems
/// (each with the line the block starts on).
fn check_markdown(markdown: &str) -> (usize, Vec<String>) {
    let mut count = 0;
    let mut problems = Vec::new();
    // The open block: what its info string asks for, its first line, its text so far.
    let mut current: Option<(Classified, usize, String)> = None;
    for (event, range) in Parser::new(markdown).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let line = markdown[..range.start].matches('\n').count() + 1;
                current = Some((classify(&info), line, String::new()));
            }
            Event::Text(text) => {
                if let Some((_, _, body)) = current.as_mut() {
                    body.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                let Some((class, line, body)) = current.take() else {
                    continue;
                };
                match class {
                    Err(e) => problems.push(format!("line {line}: {e}")),
                    Ok(None) => {}
                    Ok(Some((kind, valid))) => {
                        count += 1;
                        if let Some(p) = check(kind, valid, &body) {
                            problems.push(format!("line {line}: {p}\n{body}"));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (count, problems)
}

#[test]
fn every_example_in_format_md_is_checked() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/format.md");
    let Ok(markdown) = std::fs::read_to_string(&path) else {
        eprintln!(
            "SKIPPED: {} does not exist yet; its examples will be checked once it does",
            path.display()
        );
        return;
    };
    let (count, problems) = check_markdown(&markdown);
    assert!(
        count > 0,
        "docs/format.md has no marked example (```claims, ```yaml claim-file, ```log, ```lock, ```yaml config)"
    );
    assert!(
        problems.is_empty(),
        "{} of {count} example(s) in docs/format.md fail:\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
    eprintln!("checked {count} example(s) in docs/format.md");
}

/// The checker itself, on a document with every kind of block, good and bad.
#[test]
fn the_checker_tells_good_examples_from_bad_ones() {
    let doc = r#"# Format

```claims
auth-refresh | session-a | 2026-10-22T14:05Z
```

```claims invalid
auth-refresh | session-a | yesterday
```

```yaml claim-file
owner: session-a
paths:
- web/src/image-loader.ts
resources:
- checkout:test-lock
purpose: test the cache invalidation path
```

```yaml claim-file invalid
owner: session-a
paths: &p [a]
```

```log
2026-10-22T14:05:03Z | claimed | auth-refresh | session-a | paths: src/auth/**
```

```log invalid
not a log line
```

```lock
pid: 4242
host: devbox
session: session-a
command: rail claim auth-refresh
started: 2026-10-22T14:05:03Z
nonce: 5f1c2a9e0b7d4c36
```

```lock invalid
pid: 12
```

```yaml config
lease: 2h
expiring: 15m
```

```yaml config invalid
lease: forever
```

```yaml
not: checked
```

```sh
rail claim x | tee
```
"#;
    let (count, problems) = check_markdown(doc);
    assert_eq!(count, 10);
    assert!(problems.is_empty(), "{problems:#?}");

    // Every kind catches a wrong label, and a typo in the label is refused.
    let wrong = "```claims\nx | s | yesterday\n```\n\n```claims invalid\nx | s | 2026-10-22T14:05Z\n```\n\n```yaml claim-file\npaths: [a]\n```\n\n```log\ngarbage\n```\n\n```lock\npid: 1\n```\n\n```yaml config\nlease: soon\n```\n\n```claims invalide\nx\n```\n";
    let (count, problems) = check_markdown(wrong);
    assert_eq!(count, 6);
    assert_eq!(problems.len(), 7, "{problems:#?}");
    assert!(problems[0].starts_with("line 1: Claims example marked valid"));
    assert!(problems[6].contains("unknown words"));
}
