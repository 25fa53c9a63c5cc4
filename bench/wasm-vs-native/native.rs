//! The native half of the wasm-vs-native benchmark: `board` on the input `run.mjs` generated.
//!
//!   cargo bench -p rail-wasm --bench wasm-vs-native -- INPUT.json
//!
//! Reads the input once, then serves `run.mjs`: for each line on stdin it builds the board once
//! and prints one JSON line, the milliseconds of `board::build` alone and of `board::build` plus
//! serializing the board to JSON (what a native host sends anywhere). One call per request lets
//! `run.mjs` alternate the two sides call by call.

use std::io::{BufRead, Write};
use std::time::Instant;

use rail_core::model::input::{Facts, RailTexts};

#[derive(serde::Deserialize)]
struct Input {
    texts: RailTexts,
    facts: Facts,
}

fn main() {
    // `cargo bench` passes `--bench`; the input is the other argument.
    let Some(path) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench -p rail-wasm --bench wasm-vs-native -- INPUT.json");
        std::process::exit(2);
    };
    let input: Input = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            break;
        }
        let t = Instant::now();
        let board = rail_core::model::board::build(&input.texts, &input.facts);
        let build_ms = t.elapsed().as_secs_f64() * 1e3;
        let json = serde_json::to_string(&board).unwrap();
        let build_json_ms = t.elapsed().as_secs_f64() * 1e3;
        let claims = board.claims.len();
        drop(board);
        std::hint::black_box(json);
        let answer = serde_json::json!({
            "claims": claims,
            "build_ms": build_ms,
            "build_json_ms": build_json_ms,
        });
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
}
