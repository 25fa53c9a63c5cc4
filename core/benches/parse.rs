//! Parsing speed: claims.md with 10,000 claim lines, and 1,000 claim files.

mod common;
#[path = "../tests/inputs/markdown.rs"]
mod markdown_inputs;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rail_core::formats::markdown::{excluded_ranges, render};
use rail_core::formats::{claim_file, claims_md};

fn parse_claims_md(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    // The seed's form (`task | session | time`), and lines as Rail writes them with fields:
    // five paths, a resource, a lease and a purpose (about 260 bytes each).
    for (name, text) in [
        ("claims.md 10k seed lines", common::seed_claims_md(10_000)),
        ("claims.md 10k lines with fields", common::claims_md(10_000)),
    ] {
        let doc = claims_md::parse(&text);
        assert_eq!(doc.claims().count(), 10_000);
        assert!(doc.diagnostics.is_empty(), "{:?}", &doc.diagnostics[..1]);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| claims_md::parse(black_box(&text))));
    }
    group.finish();
}

fn parse_claim_files(c: &mut Criterion) {
    let files: Vec<_> = (0..1_000).map(common::claim_file).collect();
    for f in &files[..3] {
        let parsed = claim_file::parse(&f.path, &f.text);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(parsed.paths.len(), 2);
    }
    let bytes: usize = files.iter().map(|f| f.text.len()).sum();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("1k claim files", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| claim_file::parse(black_box(&f.path), black_box(&f.text)))
                .filter(|f| f.is_valid())
                .count()
        })
    });
    group.finish();
}

/// Adversarial markdown (100,000 nested markers or unclosed openers each): linear, so each
/// takes milliseconds; pulldown-cmark took 343 s on 100,000 nested list levels.
fn adversarial_markdown(c: &mut Criterion) {
    let mut group = c.benchmark_group("adversarial markdown");
    group.sample_size(10);
    for (name, text) in markdown_inputs::inputs() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let text = black_box(&text);
                (excluded_ranges(text), claims_md::parse(text), render(text))
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    parse_claims_md,
    parse_claim_files,
    adversarial_markdown
);
criterion_main!(benches);
