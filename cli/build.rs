//! Embeds the web board's self-contained snapshot page (web-viewer/dist/standalone.html) when it
//! has been built, so `rail board --html` needs nothing at run time. Without it, `--html` says
//! how to build it (or where to point RAIL_STANDALONE_HTML).

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let page = manifest.join("../web-viewer/dist/standalone.html");
    println!("cargo:rerun-if-changed={}", page.display());
    println!("cargo::rustc-check-cfg=cfg(rail_standalone_html)");
    if page.is_file() {
        let out =
            PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("standalone.html");
        if std::fs::copy(&page, &out).is_ok() {
            println!("cargo:rustc-cfg=rail_standalone_html");
        }
    }
}
