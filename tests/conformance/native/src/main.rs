//! `rail-conformance-native KIND=PATH...`: evaluates each fixture natively, with the same
//! function the fixture runner uses (`rail_tests::evaluate_fixture`), and prints one JSON object
//! `{"KIND=PATH": value, ...}` on stdout. `tests/conformance/conformance.mjs` compares it with
//! the same fixtures evaluated through the wasm package. `owners=PATH` is a board fixture's
//! owner probes (`rail_tests::owner_probes_json`), which have no snapshot of their own.

use std::path::Path;
use std::process::ExitCode;

use rail_tests::{evaluate_fixture, owner_probes_json, Kind};

fn main() -> ExitCode {
    let mut out = serde_json::Map::new();
    for arg in std::env::args().skip(1) {
        let Some((kind, path)) = arg.split_once('=') else {
            eprintln!("rail-conformance-native: expected KIND=PATH, got `{arg}`");
            return ExitCode::from(2);
        };
        if kind == "owners" {
            out.insert(arg.clone(), owner_probes_json(Path::new(path)));
            continue;
        }
        let Some(kind) = Kind::from_name(kind) else {
            eprintln!("rail-conformance-native: unknown fixture kind `{kind}`");
            return ExitCode::from(2);
        };
        out.insert(arg.clone(), evaluate_fixture(kind, Path::new(path)));
    }
    println!("{}", serde_json::Value::Object(out));
    ExitCode::SUCCESS
}
