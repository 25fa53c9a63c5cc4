//! Board speed: 10,000 claims with five paths each and 1,000 resources, and how the time grows
//! from 1,000 to 10,000 to 100,000 claims.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rail_core::model::board;
use rail_core::model::Rail;

fn board_10k(c: &mut Criterion) {
    let texts = common::rail(10_000);
    let facts = common::facts();
    let built = board::build(&texts, &facts);
    assert_eq!(built.claims.len(), 10_000);
    assert_eq!(built.resources.len(), 1_000);
    assert!(built.summary.conflicts > 0 && built.summary.blocked > 0);
    let mut group = c.benchmark_group("board");
    group.sample_size(20);
    group.bench_function("10k claims, texts to board", |b| {
        b.iter(|| board::build(black_box(&texts), black_box(&facts)))
    });
    let rail = Rail::load(&texts);
    group.bench_function("10k claims, parsed rail to board", |b| {
        b.iter(|| board::build_from(black_box(&rail), black_box(&facts), 50))
    });
    group.finish();
}

fn board_growth(c: &mut Criterion) {
    let facts = common::facts();
    let mut group = c.benchmark_group("board growth");
    group.sample_size(10);
    for n in [1_000, 10_000, 100_000] {
        let texts = common::rail(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &texts, |b, texts| {
            b.iter(|| board::build(black_box(texts), black_box(&facts)))
        });
    }
    group.finish();
}

criterion_group!(benches, board_10k, board_growth);
criterion_main!(benches);
