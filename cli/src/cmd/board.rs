//! `rail board`: every claim, its state, conflicts, resources — as text (coloured on a
//! terminal), as JSON, or with `--html FILE` as one self-contained page (the web board's page,
//! its wasm and this rail embedded) that anyone can open from disk, attached to a PR or a CI run.

use std::path::{Path, PathBuf};

use rail_core::model::input::{Facts, RailTexts};
use rail_core::text::diagnostic::Severity;

use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::{print_json, render};
use crate::sys::env::env;

#[derive(clap::Args, Debug)]
pub struct BoardArgs {
    /// Write a self-contained HTML board (page, wasm and this rail) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

pub fn run(ctx: &Ctx, args: &BoardArgs) -> Result<(), Fail> {
    if let Some(path) = &args.html {
        let texts = ctx.read(false)?;
        let facts = crate::ops::read::board_facts(ctx, &texts);
        return write_board_html(&texts, &facts, path);
    }
    let board = crate::ops::read::board_model(ctx)?;
    // Exit 1 on the errors `rail validate` fails on (a broken line, a claim made twice…), as
    // validate does; with `--json` the board is then the failure's document (one on stdout).
    let errors = (board.diagnostics.iter())
        .filter(|d| d.severity == Severity::Error)
        .count();
    let failure = (errors > 0).then(|| Fail {
        code: crate::fail::REFUSED,
        message: format!(
            "the rail has {errors} error{} (`rail validate` lists {})",
            if errors == 1 { "" } else { "s" },
            if errors == 1 { "it" } else { "them" }
        ),
        json: Some(serde_json::to_value(&board).unwrap_or_default()),
    });
    if ctx.json {
        if failure.is_none() {
            print_json(&board);
        }
    } else {
        // The board escapes each value itself, so its colour codes survive.
        out_raw!(
            "{}",
            render::board(&board, &ctx.rail.root, render::use_color())
        );
    }
    failure.map_or(Ok(()), Err)
}

/// The placeholder the web board's standalone page reads its data from.
const PLACEHOLDER: &str = "__RAIL_DATA__";

/// The web board's standalone page, vendored in the crate (cli/assets/standalone.html, written by
/// `npm run vendor -w web-viewer`) so that every build of `rail` has it: `cargo install` runs no
/// npm. `npm test` fails when the copy differs from a fresh build of web-viewer
/// (web-viewer/test/vendored.test.mjs).
const EMBEDDED: &str = include_str!("../../assets/standalone.html");

fn template() -> Result<String, Fail> {
    if let Some(path) = &env().standalone_html {
        return std::fs::read_to_string(path)
            .map_err(|e| Fail::env(format!("RAIL_STANDALONE_HTML={}: {e}", path.display())));
    }
    Ok(EMBEDDED.to_string())
}

/// JSON safe inside `<script type="application/json">`: no `<`, `>` or `&` can end the element
/// or start markup, and U+2028/2029 are escaped for old parsers.
pub fn script_json(value: &serde_json::Value) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|_| "null".into())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn write_board_html(texts: &RailTexts, facts: &Facts, path: &Path) -> Result<(), Fail> {
    let page = template()?;
    if page.matches(PLACEHOLDER).count() != 1 {
        return Err(Fail::env(format!(
            "the web board's standalone page has no single {PLACEHOLDER} placeholder (RAIL_STANDALONE_HTML must name a web-viewer/dist/standalone.html)"
        )));
    }
    let data = script_json(&serde_json::json!({ "texts": texts, "facts": facts }));
    let html = page.replace(PLACEHOLDER, &data);
    // The file named is written where it is named (it may be outside the repository: the user
    // chose it), but never through a link put there (a committed `board.html -> ~/.bashrc` that
    // a CI step writes): the final name is checked and replaced, as every file Rail writes.
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    crate::sys::railfile::write_inside(&dir, path, html.as_bytes(), false)
        .map_err(|e| Fail::env(crate::sys::railfile::describe(path, &e)))?;
    outln!(
        "wrote the board to {} (open it in a browser; it needs no network)",
        path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_the_script() {
        let v = serde_json::json!({ "purpose": "</script><script>alert(1)</script> & \u{2028}" });
        let s = script_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }
}
