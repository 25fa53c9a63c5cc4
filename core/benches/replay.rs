//! Proving a shared rail's commit: the steps one commit records replayed on its parent's files
//! (`proof::replay`, what every machine of a keyed team does for every commit it fetches). A
//! commit of 50 claims on rails of 0, 300 and 1,000 claims, plain task claims as
//! bench/shared_remote.py makes them, under the header `rail init` writes.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rail_core::change::ops::{ClaimRequest, Request};
use rail_core::change::proof::{self, Loader, Step};
use rail_core::change::snapshot::SharedFiles;

/// 2026-10-22T15:00:00Z.
const NOW: i64 = 1_792_681_200_000;

struct NoCommits;

impl Loader for NoCommits {
    fn files(&mut self, _: &str) -> Option<SharedFiles> {
        None
    }
    fn merge_base(&mut self, _: &str, _: &str) -> Option<Option<String>> {
        None
    }
}

fn claim(i: usize) -> Step {
    Step::Op {
        machine: format!("m{}-1a2b", i % 20),
        session: format!("m{}-p{}", i % 20, i % 8),
        request: Request::Claim(ClaimRequest {
            task: format!("task-{i}"),
            ..ClaimRequest::default()
        }),
        extra_log: Vec::new(),
        now_ms: NOW + i as i64,
    }
}

/// The header `rail init` writes: its comment spans lines, so every reading of claims.md scans
/// its markdown blocks.
const HEADER: &str = "# Claims\n\n<!-- The rail: one line per claimed task, `task | session | \
                      time`, written by `rail claim`.\n     Lines inside comments or code \
                      blocks are never claims. -->\n";

/// The files of a rail `claims` claims long, made by replaying them.
fn rail(claims: usize) -> SharedFiles {
    let steps: Vec<Step> = (0..claims).map(claim).collect();
    let start = SharedFiles::from([("claims.md".to_string(), HEADER.to_string())]);
    proof::replay(&start, None, &steps, &mut NoCommits).expect("claims replay")
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay a 50-claim commit");
    group.sample_size(10);
    for on in [0, 300, 1_000] {
        let parent = rail(on);
        let steps: Vec<Step> = (on..on + 50).map(claim).collect();
        let after = proof::replay(&parent, None, &steps, &mut NoCommits).expect("replays");
        assert_eq!(after["claims.md"].lines().count(), on + 50 + 4);
        group.throughput(Throughput::Elements(50));
        group.bench_with_input(
            BenchmarkId::new("on a rail of", on),
            &parent,
            |b, parent| {
                b.iter(|| proof::replay(black_box(parent), None, black_box(&steps), &mut NoCommits))
            },
        );
    }
    group.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
