//! One module per group of subcommands.

pub mod admin;
pub mod mutate;
pub mod show;
