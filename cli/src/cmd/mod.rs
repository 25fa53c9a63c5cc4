//! One module per group of subcommands.

pub mod admin;
pub mod agents;
pub mod doctor;
pub mod gate;
pub mod hook;
pub mod html;
pub mod mutate;
pub mod show;
pub mod station;
