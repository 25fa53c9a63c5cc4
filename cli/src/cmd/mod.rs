//! One module per group of subcommands.

pub mod admin;
pub mod agent;
pub mod doctor;
pub mod gate;
pub mod html;
pub mod mutate;
pub mod show;
pub mod station;
