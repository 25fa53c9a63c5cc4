//! `types/rail.d.ts` must be what the Rust structs generate today.
#![cfg(all(feature = "ts", not(target_arch = "wasm32")))]

use std::path::Path;

#[test]
fn typescript_declarations_are_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("types/rail.d.ts");
    let fresh = rail_wasm::types::declarations();
    if std::env::var_os("RAIL_UPDATE_TYPES").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is stale: run `RAIL_UPDATE_TYPES=1 cargo test -p rail-wasm --features ts --test types` \
         and rebuild the wasm package",
        path.display()
    );
}
