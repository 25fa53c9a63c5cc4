//! Bench only (feature `transfer-bench`, never in the package): the board handed to JavaScript
//! another way than `board`'s (serde_json text + `JSON.parse`, see `ret`), so
//! bench/wasm-transfer can weigh them on the same board (issue 29, item 6).
//!
//! - `boardSerde`: serde-wasm-bindgen's own serializer, in its JSON-compatible mode (maps as
//!   objects, `None` as `null`: the values `JSON.parse` makes);
//! - `boardCompute`: the board built and dropped, only its claim count returned, so the
//!   transfer's own cost is each way's time less this one.

use rail_core::model::input::Facts;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{arg, fail, texts_arg};

fn built(texts: JsValue, facts: JsValue) -> Result<rail_core::model::board::Board, JsError> {
    let texts = texts_arg(texts)?;
    let facts: Facts = arg("facts", facts)?;
    Ok(rail_core::model::board::build(&texts, &facts))
}

#[wasm_bindgen(js_name = boardSerde)]
pub fn board_serde(texts: JsValue, facts: JsValue) -> Result<JsValue, JsError> {
    let board = built(texts, facts)?;
    board
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| fail("result", e))
}

#[wasm_bindgen(js_name = boardCompute)]
pub fn board_compute(texts: JsValue, facts: JsValue) -> Result<u32, JsError> {
    Ok(built(texts, facts)?.claims.len() as u32)
}
