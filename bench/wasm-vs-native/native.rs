//! The native half of the wasm-vs-native benchmark: `board` on the input `run.mjs` generated.
//!
//!   cargo bench -p rail-wasm --bench wasm-vs-native -- INPUT.json ROUNDS
//!
//! Prints one JSON line: the median milliseconds of `board::build` alone, and of `board::build`
//! plus serializing the board to JSON (what a native host sends anywhere).

use std::time::Instant;

use rail_core::input::{Facts, RailTexts};

#[derive(serde::Deserialize)]
struct Input {
    texts: RailTexts,
    facts: Facts,
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; the input and rounds are the other arguments.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(path) = args.first() else {
        eprintln!("usage: cargo bench -p rail-wasm --bench wasm-vs-native -- INPUT.json [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(15);
    let input: Input = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();

    let claims = rail_core::board::build(&input.texts, &input.facts)
        .claims
        .len();
    let (mut build, mut build_json) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        let board = rail_core::board::build(&input.texts, &input.facts);
        build.push(t.elapsed().as_secs_f64() * 1e3);
        let json = serde_json::to_string(&board).unwrap();
        build_json.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(json);
    }
    println!(
        "{}",
        serde_json::json!({
            "claims": claims,
            "rounds": rounds,
            "build_ms": median(build),
            "build_json_ms": median(build_json),
        })
    );
}
