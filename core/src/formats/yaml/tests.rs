//! The YAML reader's tests: the subset it reads, what it refuses, and where it says so.

use super::*;

fn scalar(doc: &YamlDoc, key: &str) -> Option<String> {
    match &doc.get(key)?.value.value {
        Value::Scalar(s) => Some(s.clone()),
        _ => None,
    }
}

fn list(doc: &YamlDoc, key: &str) -> Vec<String> {
    string_list(&doc.get(key).unwrap().value)
        .unwrap()
        .into_iter()
        .map(|(s, _)| s)
        .collect()
}

#[test]
fn seed_claim_file() {
    let text = "owner: session-a\npaths:\n- web/src/image-loader.ts\nresources:\n- checkout:test-lock\npurpose: test the cache invalidation path\n";
    let doc = parse(text);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    assert_eq!(scalar(&doc, "owner").unwrap(), "session-a");
    assert_eq!(list(&doc, "paths"), ["web/src/image-loader.ts"]);
    assert_eq!(list(&doc, "resources"), ["checkout:test-lock"]);
    assert_eq!(
        scalar(&doc, "purpose").unwrap(),
        "test the cache invalidation path"
    );
    let paths = doc.get("paths").unwrap();
    assert_eq!(
        paths.lines.slice(text),
        "paths:\n- web/src/image-loader.ts\n"
    );
}

#[test]
fn the_rest_of_the_subset() {
    let text = "---\n# a comment\nowner: \"feature/x\" # trailing\npaths: [src/a.ts, 'b c.ts', \"d,e\"]\nresources:\n  - port:3000\n  - 'shared:sim'\npurpose: |\n  line one\n    indented # kept\n\n  line three\nnotes: >-\n  folded\n  text\n\n  para\nlong: a plain value\n  continued here\nempty:\nnested:\n  - task: a\n    lease: 1h\n  - task: b\n";
    let doc = parse(text);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    assert_eq!(scalar(&doc, "owner").unwrap(), "feature/x");
    assert_eq!(list(&doc, "paths"), ["src/a.ts", "b c.ts", "d,e"]);
    assert_eq!(list(&doc, "resources"), ["port:3000", "shared:sim"]);
    assert_eq!(
        scalar(&doc, "purpose").unwrap(),
        "line one\n  indented # kept\n\nline three\n"
    );
    assert_eq!(scalar(&doc, "notes").unwrap(), "folded text\npara");
    assert_eq!(
        scalar(&doc, "long").unwrap(),
        "a plain value continued here"
    );
    assert_eq!(doc.get("empty").unwrap().value.value, Value::Null);
    let Value::Seq(items) = &doc.get("nested").unwrap().value.value else {
        panic!()
    };
    assert_eq!(items.len(), 2);
    assert!(matches!(&items[0].value, Value::Map(e) if e.len() == 2));
}

#[test]
fn unsupported_constructs_are_named() {
    for (text, needle) in [
        ("a: &x 1\nb: *x\n", "anchors"),
        ("a: !!str 1\n", "tags"),
        ("a: 1\n---\nb: 2\n", "several documents"),
        ("a: {b: 1}\n", "flow mappings"),
        ("%YAML 1.2\n---\na: 1\n", "directives"),
        ("a: 1\n? b\n: 2\nc: 3\n", "complex keys"),
        ("? b\n: 2\n", "complex keys"),
    ] {
        let doc = parse(text);
        assert!(
            doc.diagnostics
                .iter()
                .any(|d| d.code == Code::YamlUnsupported && d.message.contains(needle)),
            "{text:?}: {:?}",
            doc.diagnostics
        );
    }
}

#[test]
fn syntax_errors_do_not_panic() {
    for text in [
        "a: \"unterminated\n",
        "a: [1, 2\n",
        "  a: 1\nb: 2\n",
        "a: 1\n\tb: 2\n",
        "- a\nb: 1\n",
        "a: b: c\n",
        "a:\n  b: 1\n c: 2\n",
        ":\n",
        "a: |x\n  y\n",
    ] {
        let doc = parse(text);
        assert!(!doc.diagnostics.is_empty(), "{text:?}");
    }
}

#[test]
fn deep_nesting_is_reported_not_recursed() {
    // 20,000 compact `- - -` levels, or 1,000 indented mappings: far past the limit.
    for unit in ["- ", "k:\n"] {
        let levels = if unit == "- " { 20_000 } else { 1_000 };
        let mut text = String::new();
        for depth in 0..levels {
            if unit == "- " {
                text.push_str(unit);
            } else {
                text.push_str(&" ".repeat(depth));
                text.push_str("k:\n");
            }
        }
        text.push_str("x\n");
        let doc = parse(&text);
        assert!(
            doc.diagnostics
                .iter()
                .any(|d| d.code == Code::YamlUnsupported && d.message.contains("nested more than")),
            "{unit:?}"
        );
    }
}

#[test]
fn render_scalar_round_trips() {
    for value in [
        "plain", "a: b", "- x", "", "#x", "x #y", "quote\"d", "ç😀", "null", " pad",
    ] {
        let doc = parse(&format!("k: {}\n", render_scalar(value)));
        assert_eq!(scalar(&doc, "k").as_deref(), Some(value), "{value:?}");
    }
}
