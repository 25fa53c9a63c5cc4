//! rail-core: every rule of Rail, once, as pure functions.
//!
//! Hosts (the `rail` CLI, the wasm package behind the VS Code extension and the web board) pass
//! in texts, times and facts; core parses, validates and decides. Core never touches the file
//! system, processes, the clock or the network.
//!
//! Reading order: [`rail`] (claims.md) and [`claimfile`] (claim YAML) parse; [`model`] joins
//! and evaluates claims with [`lease`]; [`conflict`] and [`scope`] judge them; [`board`] is the
//! view every front end shows; [`ops`] plans changes as [`edit`] patches; [`merge`] is the git
//! merge driver's logic.

// The wasm size lints (clippy.toml) bind the code the wasm build compiles, not unit tests.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "unit tests are not in the wasm build"
    )
)]

pub mod after;
pub mod agent;
pub mod board;
pub mod checkout;
pub mod claimfile;
pub mod config;
pub mod conflict;
pub mod confusable;
pub mod diagnostic;
pub mod doctor;
pub mod edit;
pub mod files;
pub mod freshness;
pub mod gate;
pub mod gitconfig;
pub mod gitdir;
pub mod gitindex;
pub mod glob;
pub mod heartbeat;
pub mod hint;
pub mod hook;
pub mod ident;
pub mod input;
pub mod journal;
pub mod jsonc;
pub mod lease;
pub mod lock;
pub mod log;
pub mod markdown;
pub mod merge;
pub mod model;
pub mod notice;
pub mod ops;
pub mod patch;
pub mod rail;
pub mod scope;
pub mod serde_time;
pub mod setup;
pub mod shell;
pub mod snapshot;
pub mod sort;
pub mod station;
pub mod text;
pub mod time;
pub mod yaml;
