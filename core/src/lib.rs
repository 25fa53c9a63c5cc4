//! rail-core: every rule of Rail, once, as pure functions.
//!
//! Hosts (the `rail` CLI, the wasm package behind the VS Code extension and the web board) pass
//! in texts, times and facts; core parses, validates and decides. Core never touches the file
//! system, processes, the clock or the network.

pub mod claimfile;
pub mod config;
pub mod diagnostic;
pub mod edit;
pub mod glob;
pub mod ident;
pub mod lock;
pub mod log;
pub mod rail;
pub mod serde_time;
pub mod text;
pub mod time;
pub mod yaml;
