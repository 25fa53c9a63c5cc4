//! rail-core: every rule of Rail, once, as pure functions.
//!
//! Hosts (the `rail` CLI, the wasm package behind the VS Code extension and the web board) pass
//! in texts, times and facts; core parses, validates and decides. Core never touches the file
//! system, processes, the clock or the network.
//!
//! Five folders, read in this order: [`text`] (spans, names, patterns, times, diagnostics,
//! range patches) under everything; [`formats`] parses each file Rail reads
//! ([`formats::claims_md`], [`formats::claim_file`], …) into a document plus diagnostics;
//! [`model`] joins and evaluates the claims ([`model::lease`]), judges them
//! ([`model::conflict`], [`model::scope`]) and gives the [`model::board`] every front end
//! shows; [`change`] plans what would be written ([`change::ops`], [`change::merge`] for the
//! git merge driver, [`change::snapshot`] for a shared rail); [`agent`] holds each agent's
//! module and the verdicts their hooks return. A module uses its own folder and those before
//! it, never one after (tests/tests/tidy.rs checks it): a concept lives in the lowest folder
//! that needs it.

// The wasm size lints (clippy.toml) bind the code the wasm build compiles, not unit tests.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "unit tests are not in the wasm build"
    )
)]

pub mod agent;
pub mod change;
// The README's example runs as a doctest (`cargo test --doc -p rail-core`), so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
pub mod formats;
pub mod model;
pub mod text;
